//===- NvidiaLayoutPolicy.cpp - How NVIDIA GPUs lay out tiles -------------===//

#include "NvidiaLayoutPolicy.h"

#include "NvidiaMatrixUnits.h"

using namespace tegula::nvidia;
using tegula::backend::DotProblem;
using tegula::backend::MatrixInstruction;

std::optional<MatrixInstruction>
NvidiaLayoutPolicy::selectMatrixInstruction(const DotProblem &dot) const {
  if (!useMma || smVersion < 80)
    return std::nullopt;
  // wgmma where the architecture has it and the dot fits, else mma.sync.
  if (useWgmma && smVersion >= 90)
    if (std::optional<MatrixInstruction> wgmma =
            getNvidiaWgmmaUnit().selectInstruction(dot))
      return wgmma;
  return getNvidiaMmaUnit().selectInstruction(dot);
}
