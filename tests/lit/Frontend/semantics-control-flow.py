# Dynamic control flow: an `if` on a tensor becomes scf.if whose results are
# the names both branches (re)bind, an elif chain nests, an early `return`
# in a kernel puts the rest of the function in the else branch, a helper's
# returns under a dynamic if become the if's results, `while` becomes
# scf.while, and `for` over range()/tl.range() becomes scf.for carrying the
# names the body rebinds (sorted by name), with i64 bounds, a constexpr
# negative step, and tl.range's num_stages / loop_unroll_factor.
#
# RUN: tegula compile %s --kernel dyn_if --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=DYNIF
# RUN: tegula compile %s --kernel one_sided --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=ONESIDED
# RUN: tegula compile %s --kernel elif_chain --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=ELIF
# RUN: tegula compile %s --kernel early_ret --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=EARLY
# RUN: tegula compile %s --kernel helper_ret --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=HELPERRET
# RUN: tegula compile %s --kernel wloop --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=WHILE
# RUN: tegula compile %s --kernel floop --signature '*fp32, i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=FOR
# RUN: tegula compile %s --kernel floop64 --signature '*fp32, i64' --emit tile-ir-raw | FileCheck %s --check-prefix=FOR64
# RUN: tegula compile %s --kernel negstep --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=NEGSTEP
# RUN: tegula compile %s --kernel nest --signature '*fp32, i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=NEST
# RUN: tegula compile %s --kernel carried_ptr --signature '*i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=PTRLOOP

import triton
import triton.language as tl


@triton.jit
def dyn_if(o_ptr, n):
    offs = tl.arange(0, 16)
    if n > 5:
        x = offs + 1
        y = 2.0
    else:
        x = offs - 1
        y = 2.0
    tl.store(o_ptr + offs, x * y)

# x differs between the branches and is a result; y is the same constexpr
# on both sides and stays one.
# DYNIF:      [[R:%[0-9]+]] = make_range
# DYNIF:      [[C:%[0-9]+]] = arith.cmpi sgt, %arg1, %c5_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# DYNIF-NEXT: [[X:%[0-9]+]] = scf.if [[C]] -> (tensor<16xi32>) {
# DYNIF:        [[T:%[0-9]+]] = arith.addi [[R]], {{%[0-9]+}} : tensor<16xi32>
# DYNIF-NEXT:   scf.yield [[T]] : tensor<16xi32>
# DYNIF-NEXT: } else {
# DYNIF:        [[E:%[0-9]+]] = arith.subi [[R]], {{%[0-9]+}} : tensor<16xi32>
# DYNIF-NEXT:   scf.yield [[E]] : tensor<16xi32>
# DYNIF-NEXT: }
# DYNIF:      [[XF:%[0-9]+]] = arith.sitofp [[X]] : tensor<16xi32> to tensor<16xf32>
# DYNIF:      arith.mulf [[XF]], {{%[0-9]+}} : tensor<16xf32>


@triton.jit
def one_sided(o_ptr, n):
    x = tl.load(o_ptr)
    if n > 0:
        x = x + 1
    tl.store(o_ptr, x)

# ONESIDED:      [[X:%[0-9]+]] = load %arg0 : !tile.ptr<f32>
# ONESIDED:      [[R:%[0-9]+]] = scf.if {{%[0-9]+}} -> (f32) {
# ONESIDED:        [[X1:%[0-9]+]] = arith.addf [[X]], %cst{{[_0-9]*}} : f32
# ONESIDED-NEXT:   scf.yield [[X1]] : f32
# ONESIDED-NEXT: } else {
# ONESIDED-NEXT:   scf.yield [[X]] : f32
# ONESIDED-NEXT: }
# ONESIDED-NEXT: store %arg0, [[R]] : !tile.ptr<f32>


@triton.jit
def elif_chain(o_ptr, n):
    v = tl.load(o_ptr)
    if n > 10:
        v = v * 2
    elif n > 5:
        v = v * 3
    else:
        v = v * 4
    tl.store(o_ptr, v)

# ELIF:      [[C1:%[0-9]+]] = arith.cmpi sgt, %arg1, %c10_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# ELIF-NEXT: [[R:%[0-9]+]] = scf.if [[C1]] -> (f32) {
# ELIF:        arith.constant 2.000000e+00 : f32
# ELIF:      } else {
# ELIF:        [[C2:%[0-9]+]] = arith.cmpi sgt, %arg1, %c5_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# ELIF-NEXT:   [[R2:%[0-9]+]] = scf.if [[C2]] -> (f32) {
# ELIF:          arith.constant 3.000000e+00 : f32
# ELIF:        } else {
# ELIF:          arith.constant 4.000000e+00 : f32
# ELIF:        }
# ELIF-NEXT:   scf.yield [[R2]] : f32
# ELIF-NEXT: }
# ELIF-NEXT: store %arg0, [[R]] : !tile.ptr<f32>


@triton.jit
def early_ret(o_ptr, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    offs = tl.arange(0, 16)
    tl.store(o_ptr + offs, offs)

# EARLY:      [[PID:%[0-9]+]] = program_id 0 : i32
# EARLY-NEXT: [[C:%[0-9]+]] = arith.cmpi sge, [[PID]], %arg1 : i32
# EARLY-NEXT: scf.if [[C]] {
# EARLY-NEXT: } else {
# EARLY-NEXT:   [[R:%[0-9]+]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
# EARLY:        tile.store {{%[0-9]+}}, [[R]] : tensor<16x!tile.ptr<i32>>
# EARLY-NEXT: }
# EARLY-NEXT: return


@triton.jit
def clamp_low(x, lo):
    if x < lo:
        return lo * 10
    elif x < lo * 2:
        return x * 3
    return x


@triton.jit
def helper_ret(o_ptr, n):
    tl.store(o_ptr + 1, clamp_low(tl.load(o_ptr), n))

# HELPERRET:      [[X:%[0-9]+]] = load %arg0 : !tile.ptr<i32>
# HELPERRET:      [[C:%[0-9]+]] = arith.cmpi slt, [[X]], %arg1 : i32
# HELPERRET-NEXT: [[R:%[0-9]+]] = scf.if [[C]] -> (i32) {
# HELPERRET:        [[A:%[0-9]+]] = arith.muli %arg1, %c10_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# HELPERRET-NEXT:   scf.yield [[A]] : i32
# HELPERRET-NEXT: } else {
# HELPERRET:        [[R2:%[0-9]+]] = scf.if {{%[0-9]+}} -> (i32) {
# HELPERRET:          [[B:%[0-9]+]] = arith.muli [[X]], %c3_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# HELPERRET-NEXT:     scf.yield [[B]] : i32
# HELPERRET-NEXT:   } else {
# HELPERRET-NEXT:     scf.yield [[X]] : i32
# HELPERRET-NEXT:   }
# HELPERRET-NEXT:   scf.yield [[R2]] : i32
# HELPERRET-NEXT: }
# HELPERRET-NEXT: store {{%[0-9]+}}, [[R]] : !tile.ptr<i32>


@triton.jit
def wloop(o_ptr, n):
    i = 0
    acc = 0.0
    while i < n:
        acc += tl.load(o_ptr + i)
        i += 1
    tl.store(o_ptr, acc)

# Carried: acc (fp32 from 0.0) and i (int32 from 0), in name order.
# WHILE:      [[W:%[0-9]+]]:2 = scf.while ([[ACC:%arg[0-9]+]] = %cst{{[_0-9]*}}, [[I:%arg[0-9]+]] = %c0_i32{{[_0-9]*}}) : (f32, i32) -> (f32, i32) {
# WHILE-NEXT:   [[C:%[0-9]+]] = arith.cmpi slt, [[I]], %arg1 : i32
# WHILE-NEXT:   scf.condition([[C]]) [[ACC]], [[I]] : f32, i32
# WHILE-NEXT: } do {
# WHILE-NEXT: ^bb0([[ACC2:%arg[0-9]+]]: f32, [[I2:%arg[0-9]+]]: i32):
# WHILE-NEXT:   [[P:%[0-9]+]] = tile.addptr %arg0, [[I2]] : !tile.ptr<f32>, i32
# WHILE-NEXT:   [[V:%[0-9]+]] = tile.load [[P]] : !tile.ptr<f32>
# WHILE-NEXT:   [[ACCN:%[0-9]+]] = arith.addf [[ACC2]], [[V]] : f32
# WHILE:        [[IN:%[0-9]+]] = arith.addi [[I2]], %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# WHILE-NEXT:   scf.yield [[ACCN]], [[IN]] : f32, i32
# WHILE-NEXT: }
# WHILE-NEXT: store %arg0, [[W]]#0 : !tile.ptr<f32>


@triton.jit
def floop(o_ptr, n, step):
    b = 0.0
    a = tl.zeros([16], dtype=tl.float32)
    for i in range(0, n):
        a += i
        b = b + 1.0
    for j in tl.range(0, n, step, num_stages=2, loop_unroll_factor=4):
        tl.store(o_ptr + j, j)
    tl.store(o_ptr + tl.arange(0, 16), a + b)

# FOR:      [[A0:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# FOR:      [[L:%[0-9]+]]:2 = scf.for [[I:%arg[0-9]+]] = %c0_i32{{[_0-9]*}} to %arg1 step %c1_i32{{[_0-9]*}} iter_args([[A:%arg[0-9]+]] = [[A0]], [[B:%arg[0-9]+]] = %cst{{[_0-9]*}}{{[_0-9]*}}) -> (tensor<16xf32>, f32)  : i32 {
# FOR-NEXT:   [[IF:%[0-9]+]] = arith.sitofp [[I]] : i32 to f32
# FOR-NEXT:   [[IS:%[0-9]+]] = tile.splat [[IF]] : f32 -> tensor<16xf32>
# FOR-NEXT:   [[AN:%[0-9]+]] = arith.addf [[A]], [[IS]] : tensor<16xf32>
# FOR:        [[BN:%[0-9]+]] = arith.addf [[B]], %cst{{[_0-9]*}}{{[_0-9]*}} : f32
# FOR-NEXT:   scf.yield [[AN]], [[BN]] : tensor<16xf32>, f32
# FOR-NEXT: }
# FOR:      scf.for [[J:%arg[0-9]+]] = %c0_i32{{[_0-9]*}}{{[_0-9]*}} to %arg1 step %arg2  : i32 {
# FOR-NEXT:   [[P:%[0-9]+]] = tile.addptr %arg0, [[J]] : !tile.ptr<f32>, i32
# FOR:        tile.store [[P]], {{%[0-9]+}} : !tile.ptr<f32>
# FOR-NEXT: } {tile.loop_unroll_factor = 4 : i32, tile.num_stages = 2 : i32}
# FOR:      [[BS:%[0-9]+]] = splat [[L]]#1 : f32 -> tensor<16xf32>
# FOR-NEXT: arith.addf [[L]]#0, [[BS]] : tensor<16xf32>


@triton.jit
def floop64(o_ptr, n):
    for i in range(0, n):
        tl.store(o_ptr + i, i)

# An i64 bound makes the induction variable i64.
# FOR64:      [[LB:%[0-9]+]] = arith.extsi %c0_i32{{[_0-9]*}} : i32 to i64
# FOR64-NEXT: [[ST:%[0-9]+]] = arith.extsi %c1_i32{{[_0-9]*}} : i32 to i64
# FOR64-NEXT: scf.for [[I:%arg[0-9]+]] = [[LB]] to %arg1 step [[ST]]  : i64 {
# FOR64-NEXT:   tile.addptr %arg0, [[I]] : !tile.ptr<f32>, i64


@triton.jit
def negstep(o_ptr, n):
    for i in range(n, 0, -3):
        tl.store(o_ptr + i, i)

# range(n, 0, -3) runs as i' in range(0, n, 3) with i = n + 0 - i', which
# visits n, n - 3, ... with the same trip count.
# NEGSTEP:      scf.for [[IP:%arg[0-9]+]] = %c0_i32{{[_0-9]*}} to %arg1 step %c3_i32{{[_0-9]*}}  : i32 {
# NEGSTEP-NEXT:   [[S:%[0-9]+]] = arith.addi %arg1, %c0_i32{{[_0-9]*}} : i32
# NEGSTEP-NEXT:   [[I:%[0-9]+]] = arith.subi [[S]], [[IP]] : i32
# NEGSTEP-NEXT:   [[P:%[0-9]+]] = tile.addptr %arg0, [[I]] : !tile.ptr<i32>, i32
# NEGSTEP-NEXT:   tile.store [[P]], [[I]] : !tile.ptr<i32>


@triton.jit
def nest(o_ptr, n, m):
    acc = tl.zeros([16], dtype=tl.float32)
    cnt = 0
    for i in range(n):
        for j in range(m):
            if (i + j) % 2 == 0:
                acc += 1.0
                cnt += 1
            else:
                acc -= 0.5
    tl.store(o_ptr + tl.arange(0, 16), acc + cnt)

# Values carried through two loops and a dynamic if inside them; cnt is
# rebound in one branch only, so the other yields it unchanged.
# NEST:      [[ACC0:%[0-9]+]] = splat %cst{{[_0-9]*}} : f32 -> tensor<16xf32>
# NEST:      [[OUT:%[0-9]+]]:2 = scf.for [[I:%arg[0-9]+]] = {{.*}} iter_args([[A:%arg[0-9]+]] = [[ACC0]], [[C:%arg[0-9]+]] = %c0_i32{{[_0-9]*}}{{[_0-9]*}}) -> (tensor<16xf32>, i32)  : i32 {
# NEST:        [[IN:%[0-9]+]]:2 = scf.for [[J:%arg[0-9]+]] = {{.*}} iter_args([[A2:%arg[0-9]+]] = [[A]], [[C2:%arg[0-9]+]] = [[C]]) -> (tensor<16xf32>, i32)  : i32 {
# NEST-NEXT:     [[IJ:%[0-9]+]] = arith.addi [[I]], [[J]] : i32
# NEST:          [[IF:%[0-9]+]]:2 = scf.if {{%[0-9]+}} -> (tensor<16xf32>, i32) {
# NEST:            [[AP:%[0-9]+]] = arith.addf [[A2]], {{%[0-9]+}} : tensor<16xf32>
# NEST:           [[CP:%[0-9]+]] = arith.addi [[C2]], %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# NEST-NEXT:       scf.yield [[AP]], [[CP]] : tensor<16xf32>, i32
# NEST-NEXT:     } else {
# NEST:            [[AM:%[0-9]+]] = arith.subf [[A2]], {{%[0-9]+}} : tensor<16xf32>
# NEST-NEXT:       scf.yield [[AM]], [[C2]] : tensor<16xf32>, i32
# NEST-NEXT:     }
# NEST-NEXT:     scf.yield [[IF]]#0, [[IF]]#1 : tensor<16xf32>, i32
# NEST-NEXT:   }
# NEST-NEXT:   scf.yield [[IN]]#0, [[IN]]#1 : tensor<16xf32>, i32
# NEST-NEXT: }
# NEST:      arith.sitofp [[OUT]]#1 : i32 to f32


@triton.jit
def carried_ptr(o_ptr, n):
    p = o_ptr
    i = 0
    while i < n:
        tl.store(p, i)
        p += 1
        i += 1

# A pointer is a loop-carried value like any other.
# PTRLOOP:      scf.while ([[I:%arg[0-9]+]] = %c0_i32{{[_0-9]*}}, [[P:%arg[0-9]+]] = %arg0) : (i32, !tile.ptr<i32>) -> (i32, !tile.ptr<i32>) {
# PTRLOOP:      ^bb0([[I2:%arg[0-9]+]]: i32, [[P2:%arg[0-9]+]]: !tile.ptr<i32>):
# PTRLOOP-NEXT:   tile.store [[P2]], [[I2]] : !tile.ptr<i32>
# PTRLOOP:        [[PN:%[0-9]+]] = tile.addptr [[P2]], %c1_i32{{[_0-9]*}}{{[_0-9]*}} : !tile.ptr<i32>, i32
# PTRLOOP:        [[IN:%[0-9]+]] = arith.addi [[I2]], %c1_i32{{[_0-9]*}}{{[_0-9]*}} : i32
# PTRLOOP-NEXT:   scf.yield [[IN]], [[PN]] : i32, !tile.ptr<i32>
