//===- AxisInfo.h - divisibility, contiguity and constancy ------*- C++ -*-===//
//
// Axis analysis of tile IR: for every integer or pointer value (scalar or
// tensor) and each dimension d, what is known of its elements:
//
//  - contiguity[d]: along d the values come in runs of this many consecutive
//    values (x, x+1, ...): 4 means a run of 4 can be one vector access;
//  - divisibility[d]: the first value of each such run is a multiple of this
//    (for pointers, in bytes);
//  - constancy[d]: along d the values come in runs of this many equal values.
//
// All three are powers of 2 (at least 1). The analysis reads what the front
// end and specialization know (kernel argument attributes `tile.divisibility`
// and friends, and the same attributes on ops from `tl.multiple_of`) and
// propagates them through ranges, splats, broadcasts, pointer arithmetic and
// comparisons. Layout selection uses it to coalesce and vectorize loads and
// stores.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_ANALYSIS_AXISINFO_H
#define TEGULA_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace tegula {

/// What is known of one value, per dimension (one entry for a scalar).
class AxisInfo {
public:
  using Dims = llvm::SmallVector<int64_t, 4>;

  /// The uninitialized state: nothing computed yet (joins as identity).
  AxisInfo() = default;
  AxisInfo(Dims contiguity, Dims divisibility, Dims constancy,
           std::optional<int64_t> constant = std::nullopt);

  /// Knows nothing: every field 1.
  static AxisInfo pessimistic(int64_t rank);
  /// Divisibility of a known integer (the largest power of 2 dividing it,
  /// capped at 2^30 for 0).
  static int64_t divisibilityOf(int64_t value);

  bool isInitialized() const { return initialized; }
  int64_t getRank() const { return contiguity.size(); }
  int64_t getContiguity(int64_t d) const { return contiguity[d]; }
  int64_t getDivisibility(int64_t d) const { return divisibility[d]; }
  int64_t getConstancy(int64_t d) const { return constancy[d]; }
  const Dims &getContiguity() const { return contiguity; }
  const Dims &getDivisibility() const { return divisibility; }
  const Dims &getConstancy() const { return constancy; }
  /// The value, when every element is the same known integer.
  std::optional<int64_t> getConstantValue() const { return constant; }

  /// What holds on every path into a merge: the per-field gcd.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);
  bool operator==(const AxisInfo &other) const;
  void print(llvm::raw_ostream &os) const;

private:
  bool initialized = false;
  Dims contiguity, divisibility, constancy;
  std::optional<int64_t> constant;
};

using AxisInfoLattice = mlir::dataflow::Lattice<AxisInfo>;

/// The sparse forward dataflow analysis computing AxisInfo.
class AxisInfoAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  void visitOperation(mlir::Operation *op,
                      llvm::ArrayRef<const AxisInfoLattice *> operands,
                      llvm::ArrayRef<AxisInfoLattice *> results) override;
  void visitNonControlFlowArguments(
      mlir::Operation *op, const mlir::RegionSuccessor &successor,
      llvm::ArrayRef<AxisInfoLattice *> argLattices,
      unsigned firstIndex) override;

protected:
  void setToEntryState(AxisInfoLattice *lattice) override;
};

/// Runs the analysis over |root| and answers queries about its values.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(mlir::Operation *root);
  /// The info of |value| (pessimistic when nothing is known or |value| is
  /// not an integer or pointer).
  AxisInfo get(mlir::Value value) const;

private:
  mlir::DataFlowSolver solver;
};

} // namespace tegula

#endif // TEGULA_ANALYSIS_AXISINFO_H
