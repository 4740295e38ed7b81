# Regression test (fixed bug): a conditional expression with a dynamic
# condition evaluates both arms unconditionally and selects with
# arith.select, so side effects run on the path not taken. Triton emits an
# scf.if for `a if cond else b` (code_generator.visit_IfExp) and runs only
# the taken arm: here the atomic_add must happen only when n > 0, and the
# load of p only when p_ok != 0.
# Observed: the atomic_rmw and the load are emitted before the select, on
# every path. (CodeGen::evalConditional evaluates both sides, then
# Semantic::where.)
#
# RUN: tegula compile %s --kernel atomic_arm --signature '*i32, *i32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=ATOMIC
# RUN: tegula compile %s --kernel load_arm --signature '*fp32, *fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=LOAD

import triton
import triton.language as tl


@triton.jit
def atomic_arm(p_ptr, o_ptr, n):
    x = tl.atomic_add(p_ptr, 1) if n > 0 else 0
    tl.store(o_ptr, x)

# ATOMIC:      [[C:%[0-9]+]] = arith.cmpi sgt, %arg2, {{%[a-z0-9_]+}} : i32
# ATOMIC-NOT:  atomic_rmw
# ATOMIC:      scf.if [[C]] -> (i32) {
# ATOMIC:        atomic_rmw  add,  acq_rel,  gpu, %arg0
# ATOMIC:      } else {


@triton.jit
def load_arm(p_ptr, o_ptr, p_ok):
    x = tl.load(p_ptr) if p_ok != 0 else 0.0
    tl.store(o_ptr, x)

# LOAD:        [[C:%[0-9]+]] = arith.cmpi ne, %arg2, {{%[a-z0-9_]+}} : i32
# LOAD-NOT:    load
# LOAD:        scf.if [[C]] -> (f32) {
# LOAD:          load %arg0 : !tile.ptr<f32>
# LOAD:        } else {
