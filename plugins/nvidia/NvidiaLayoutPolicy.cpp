//===- NvidiaLayoutPolicy.cpp - How NVIDIA GPUs lay out tiles -------------===//

#include "NvidiaLayoutPolicy.h"

using namespace tegula::nvidia;
using tegula::backend::DotProblem;
using tegula::backend::MatrixInstruction;

std::optional<MatrixInstruction>
NvidiaLayoutPolicy::selectMatrixInstruction(const DotProblem &dot) const {
  if (!useMma || smVersion < 80)
    return std::nullopt;
  // mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: operands of one half
  // type, an f32 accumulator, whole instruction tiles.
  MatrixInstruction mma{TG_MATRIX_UNIT_NVIDIA_MMA, 2, 16, 8, 16};
  bool halfInputs = dot.aType == dot.bType &&
                    (dot.aType == TG_TYPE_F16 || dot.aType == TG_TYPE_BF16);
  if (!halfInputs || dot.accType != TG_TYPE_F32 || dot.m % mma.m ||
      dot.n % mma.n || dot.k % mma.k)
    return std::nullopt;
  return mma;
}
