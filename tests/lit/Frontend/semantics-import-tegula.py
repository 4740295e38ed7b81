# Tegula's own spelling: `import tegula`, `import tegula.language as tl`,
# `@tegula.jit` and `@tegula.jit(noinline=True)`.
#
# RUN: tegula compile %s --kernel k --signature '*fp32, 64' --emit tile-ir-raw | FileCheck %s

import tegula
import tegula.language as tl


@tegula.jit(noinline=True)
def twice(x):
    return x + x


@tegula.jit
def k(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(o_ptr + offs)
    tl.store(o_ptr + offs, twice(x) * tl.math.exp2(x))

# CHECK:      tile.func @k(%arg0: !tile.ptr<f32>) {
# CHECK:        [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<64x!tile.ptr<f32>>
# CHECK:        [[T:%[0-9]+]] = call @twice{{[_a-z0-9]*}}([[X]]) : (tensor<64xf32>) -> tensor<64xf32>
# CHECK-NEXT:   [[E:%[0-9]+]] = math.exp2 [[X]] : tensor<64xf32>
# CHECK-NEXT:   arith.mulf [[T]], [[E]] : tensor<64xf32>
# CHECK:      tile.func private @twice{{[_a-z0-9]*}}(%arg0: tensor<64xf32>) -> tensor<64xf32> attributes {noinline} {
