//===- IntelLayoutPolicy.cpp - How Intel GPUs lay out tiles ---------------===//

#include "IntelLayoutPolicy.h"

using namespace tegula::intel;

std::optional<tegula::backend::MatrixInstruction>
IntelLayoutPolicy::selectMatrixInstruction(const backend::DotProblem &) const {
  return std::nullopt;
}
