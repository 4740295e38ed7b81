# Aliased imports: the jit decorator under another name, a tl function
# imported by name, triton.language.math, and host-side code around the
# kernels (skipped, whatever it contains).
#
# RUN: tegula compile %s --kernel k --signature '*fp32, 32' --emit tile-ir-raw | FileCheck %s

import torch
import triton
import triton.language as tl
import triton.language.math as tlm
from triton import jit as tjit
from triton.language import sum as tsum

DEVICE = torch.device("cuda")
CONFIGS = [dict(BLOCK=b) for b in (32, 64)]


class Launcher:
    def __call__(self, x):
        return {k: v for k, v in x.items() if v}


@tjit
def k(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(o_ptr + offs)
    tl.store(o_ptr, tsum(tlm.exp2(x), 0))


def launch(x):
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]), )
    k[grid](x, BLOCK=32)


if __name__ == "__main__":
    launch(torch.zeros(32, device=DEVICE))

# CHECK:      tile.func @k(%arg0: !tile.ptr<f32>) {
# CHECK:        [[X:%[0-9]+]] = load {{%[0-9]+}} : tensor<32x!tile.ptr<f32>>
# CHECK-NEXT:   [[E:%[0-9]+]] = math.exp2 [[X]] : tensor<32xf32>
# CHECK-NEXT:   [[S:%[0-9]+]] = "tile.reduce"([[E]]) <{axis = 0 : i32}> ({
# CHECK:          arith.addf
# CHECK:        store %arg0, [[S]] : !tile.ptr<f32>
