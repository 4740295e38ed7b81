//===- MatrixUnit.cpp - Matrix-unit families
//-------------------------------===//

#include "tegula/BackendKit/MatrixUnit.h"

using namespace mlir;
using namespace tegula::backend;

void LinearLayout::add(llvm::SmallVector<LayoutCoords> &list,
                       llvm::SmallVector<int64_t> &covered, int64_t dim,
                       int64_t count) {
  for (int64_t i = 1; i < count; i *= 2) {
    LayoutCoords basis(shape.size(), 0);
    if (covered[dim] < shape[dim])
      basis[dim] = covered[dim];
    covered[dim] *= 2;
    list.push_back(basis);
  }
}

void LinearLayout::addZeros(llvm::SmallVector<LayoutCoords> &list,
                            int64_t count) {
  for (int64_t i = 1; i < count; i *= 2)
    list.push_back(LayoutCoords(shape.size(), 0));
}

void LinearLayout::repeat(llvm::SmallVector<int64_t> &covered,
                          llvm::ArrayRef<int64_t> dims) {
  for (int64_t d : dims)
    if (covered[d] < shape[d])
      add(reg, covered, d, shape[d] / covered[d]);
}

void LinearLayout::addDotWarpsAndRepeats(llvm::SmallVector<int64_t> &covered,
                                         llvm::ArrayRef<int64_t> warps,
                                         int64_t opIdx) {
  int64_t rank = shape.size();
  int64_t m = rank - 2, n = rank - 1;
  if (opIdx == 1)
    addZeros(warp, warps[m]);
  else
    add(warp, covered, m, warps[m]);
  if (opIdx == 0)
    addZeros(warp, warps[n]);
  else
    add(warp, covered, n, warps[n]);
  if (rank == 3)
    add(warp, covered, 0, warps[0]);
  if (opIdx == 1)
    repeat(covered, {m, n});
  else
    repeat(covered, {n, m});
  if (rank == 3)
    repeat(covered, {0});
}

MatrixUnit::~MatrixUnit() = default;

MatrixLayout MatrixUnit::getResultLayout(llvm::ArrayRef<int64_t> shape,
                                         const MatrixInstruction &instr,
                                         unsigned numWarps) const {
  MatrixLayout layout;
  layout.kind = getKind().str();
  layout.version = {instr.version};
  layout.warpsPerCTA = warpsForDot(shape, instr, numWarps);
  layout.instrShape = {instr.m, instr.n};
  return layout;
}

bool MatrixUnit::readsSharedOperands(const MatrixLayout &) const {
  return false;
}

FailureOr<llvm::SmallVector<Value>>
MatrixUnit::buildMultiply(OpBuilder &, Location, const MatrixLayout &,
                          ValueRange, ValueRange, ValueRange) const {
  return failure();
}

FailureOr<llvm::SmallVector<Value>>
MatrixUnit::buildSharedMatrixLoad(OpBuilder &, Location, Value, unsigned,
                                  bool) const {
  return failure();
}

FailureOr<int64_t>
MatrixUnit::getSharedOperandSwizzle(const MatrixLayout &, int64_t, int64_t,
                                    unsigned, std::string &error) const {
  error = "the matrix unit " + getKind().str() +
          " does not read operands from shared memory";
  return failure();
}

int64_t MatrixUnit::getWarpsPerInstruction(const MatrixLayout &) const {
  return 1;
}

bool MatrixUnit::takesRegisterOperand(const MatrixLayout &, int64_t,
                                      unsigned) const {
  return false;
}

void MatrixUnit::buildSharedOperandFence(OpBuilder &, Location) const {}

FailureOr<llvm::SmallVector<Value>>
MatrixUnit::buildSharedMultiply(OpBuilder &, Location, const MatrixLayout &,
                                const SharedMatrixMultiply &,
                                ValueRange) const {
  return failure();
}

bool MatrixUnit::hasAsyncGroups(const MatrixLayout &) const { return false; }

FailureOr<SmallVector<Value>>
MatrixUnit::buildSharedMultiplyWait(OpBuilder &, Location, const MatrixLayout &,
                                    int64_t, ValueRange) const {
  return failure();
}

bool MatrixUnitRegistry::add(const MatrixUnit &unit) {
  if (lookup(unit.getKind()))
    return false;
  units.push_back(&unit);
  return true;
}

const MatrixUnit *MatrixUnitRegistry::lookup(llvm::StringRef kind) const {
  for (const MatrixUnit *unit : units)
    if (unit->getKind() == kind)
      return unit;
  return nullptr;
}

llvm::SmallVector<int64_t>
tegula::backend::warpsForDot(llvm::ArrayRef<int64_t> shape,
                             const MatrixInstruction &instr,
                             unsigned numWarps) {
  size_t rank = shape.size();
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  int64_t wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    if (m / instr.m / wm >= n / (instr.n * 2) / wn && wm < m / instr.m)
      wm *= 2;
    else
      wn *= 2;
  }
  llvm::SmallVector<int64_t> warps(rank, 1);
  warps[rank - 2] = wm;
  warps[rank - 1] = wn;
  return warps;
}
