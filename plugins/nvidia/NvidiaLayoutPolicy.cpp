//===- NvidiaLayoutPolicy.cpp - How NVIDIA GPUs lay out tiles -------------===//

#include "NvidiaLayoutPolicy.h"

#include <algorithm>

using namespace tegula::nvidia;
using tegula::backend::DotProblem;
using tegula::backend::MatrixInstruction;

std::optional<MatrixInstruction>
NvidiaLayoutPolicy::selectMatrixInstruction(const DotProblem &dot) const {
  if (!useMma || smVersion < 80)
    return std::nullopt;
  bool halfToFloat = dot.aType == dot.bType &&
                     (dot.aType == TG_TYPE_F16 || dot.aType == TG_TYPE_BF16) &&
                     dot.accType == TG_TYPE_F32;
  // wgmma.mma_async m64nNk16 (sm_90a): warp groups of 4 warps, 64 rows
  // each (LayoutSelection spreads them), operands from shared memory.
  if (useWgmma && smVersion >= 90 && halfToFloat && dot.numWarps % 4 == 0 &&
      dot.m % 64 == 0 && (dot.m & (dot.m - 1)) == 0 && dot.k % 16 == 0 &&
      dot.n % 16 == 0) {
    int64_t wm = std::min<int64_t>(dot.numWarps, std::max<int64_t>(4, dot.m / 16));
    int64_t wn = dot.numWarps / wm;
    int64_t perGroup = dot.n / wn;
    if (dot.n % wn == 0 && perGroup % 16 == 0 &&
        (perGroup <= 256 || perGroup % 256 == 0))
      return MatrixInstruction{TG_MATRIX_UNIT_NVIDIA_MMA, 3, 64, 256, 16};
  }
  // mma.sync.aligned.m16n8k16 on f16/bf16 into f32, m16n8k8 on f32 at
  // tf32 precision (tl.dot's default for f32), m16n8k32 on i8 into i32:
  // whole instruction tiles.
  bool tf32 = dot.aType == TG_TYPE_F32 && dot.bType == TG_TYPE_F32 &&
              dot.accType == TG_TYPE_F32 && dot.inputPrecision == "tf32";
  bool int8 = dot.aType == TG_TYPE_I8 && dot.bType == TG_TYPE_I8 &&
              dot.accType == TG_TYPE_I32;
  if (!halfToFloat && !tf32 && !int8)
    return std::nullopt;
  MatrixInstruction mma{TG_MATRIX_UNIT_NVIDIA_MMA, 2, 16, 8,
                        halfToFloat ? 16u : tf32 ? 8u : 32u};
  if (dot.m % mma.m || dot.n % mma.n || dot.k % mma.k)
    return std::nullopt;
  return mma;
}
