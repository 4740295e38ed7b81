# --locations prints each op's kernel source location (file:line:col of the
# expression that made it: the call, or the operator of a binary op).
#
# RUN: tegula compile %s --kernel k --signature '*fp32, i32' --locations --emit tile-ir-raw | FileCheck %s
# RUN: tegula compile %s --kernel k --signature '*fp32, i32' --emit tile-ir-raw | FileCheck %s --check-prefix=NOLOC

import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    pid = tl.program_id(0)
    offs = pid * 64 + tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * 2.0, mask=offs < n)

# Arguments: the parameter's name at the parameter (their aliases come
# first); the function: its def.
# CHECK:      #[[XLOC:loc[0-9]+]] = loc("{{.*}}semantics-locations.py":12:7)
# CHECK-NEXT: #[[NLOC:loc[0-9]+]] = loc("{{.*}}semantics-locations.py":12:14)
# CHECK:      tile.func @k(%arg0: !tile.ptr<f32> loc("x_ptr"(#[[XLOC]])), %arg1: i32 loc("n"(#[[NLOC]]))) {
# CHECK-NEXT:   program_id 0 : i32 loc([[PID:#loc[0-9]+]])
# CHECK:        arith.muli {{.*}} loc([[MUL:#loc[0-9]+]])
# CHECK-NEXT:   make_range {{.*}} loc([[RANGE:#loc[0-9]+]])
# CHECK-NEXT:   splat {{.*}} loc([[ADD:#loc[0-9]+]])
# CHECK-NEXT:   arith.addi {{.*}} loc([[ADD]])
# CHECK:        load {{.*}} loc([[LOAD:#loc[0-9]+]])
# CHECK:        arith.mulf {{.*}} loc([[MULF:#loc[0-9]+]])
# CHECK:        store {{.*}} loc([[STORE:#loc[0-9]+]])
# CHECK:      #loc = loc("{{.*}}semantics-locations.py":12:5)
# CHECK:      [[PID]] = loc("{{.*}}semantics-locations.py":13:11)
# CHECK:      [[MUL]] = loc("{{.*}}semantics-locations.py":14:16)
# CHECK:      [[RANGE]] = loc("{{.*}}semantics-locations.py":14:23)
# CHECK:      [[ADD]] = loc("{{.*}}semantics-locations.py":14:21)
# CHECK:      [[LOAD]] = loc("{{.*}}semantics-locations.py":15:9)
# CHECK:      [[MULF]] = loc("{{.*}}semantics-locations.py":16:30)
# CHECK:      [[STORE]] = loc("{{.*}}semantics-locations.py":16:5)

# NOLOC-NOT:  loc(
