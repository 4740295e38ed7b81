//===- AmdLayoutPolicy.cpp - How AMD GPUs lay out tiles -------------------===//

#include "AmdLayoutPolicy.h"

using namespace tegula::amd;

std::optional<tegula::backend::MatrixInstruction>
AmdLayoutPolicy::selectMatrixInstruction(
    const backend::DotProblem &dot) const {
  if (!unit)
    return std::nullopt;
  return unit->selectInstruction(dot);
}
