//===- tegula/BackendKit/MatrixUnit.h - Matrix-unit families -*- C++ -*-===//
//
// A matrix unit (NVIDIA mma.sync and wgmma, AMD MFMA and WMMA, Intel DPAS)
// is a family of instructions computing D = A x B + C on small tiles spread
// over the registers of a warp or of a group of warps. A backend describes
// each family it has as a MatrixUnit object it owns, and hands it to the
// layout engine and the lowering:
//   - its LayoutPolicy names the family of each instruction it selects
//     (MatrixInstruction::unit); the layout engine asks the family for the
//     `#tile.matrix` layout of the dot (getResultLayout) and writes its
//     getKind() into it;
//   - the lowering (lowerTileToLLVM, LoweringOptions::matrixUnits) finds the
//     family of a `#tile.matrix<{kind = K, ...}>` layout by K in the
//     MatrixUnitRegistry the backend builds for the compile. A kind nobody
//     registered is an error at the op that has the layout.
// middle/ knows no family by name: what a family is - the dots it takes,
// its accumulator and operand layouts (linear layouts), where its operands
// live, the instructions - is all asked here.
//
// How the generic distributed lowering drives a family:
//   - layouts: getLinearLayout() gives the register, lane and warp bases of
//     the accumulator and of each operand (the bases of Triton's
//     LinearLayout);
//   - operands in registers (readsSharedOperands() false): operands are
//     converted to the operand layouts (through shared memory, or with
//     buildSharedMatrixLoad() where the family has it); then per
//     instruction tile of the accumulator and per K step the lowering
//     gathers each instruction's fragments - the registers of each layout
//     that cover one instruction tile, in register order: the first
//     M*N/warpSize registers of the accumulator's layout, M*K/warpSize of
//     A's, K*N/warpSize of B's, moved to the tile's origin - and calls
//     buildMultiply();
//   - operands in shared memory (readsSharedOperands() true; 2-D tiles of
//     16-bit elements, or of 8-bit ones always contiguous along K - the
//     layout engine tells selectInstruction() which operands can be, in
//     DotProblem::aKContiguous): each operand is stored, by its layout
//     conversion,
//     to shared memory in the swizzled layout getSharedOperandSwizzle()
//     picks (see SharedMatrixOperand), or A stays in the registers of an
//     earlier dot where takesRegisterOperand() allows; then per dot every
//     group of getWarpsPerInstruction() warps issues its instructions
//     (M = instrShape[0] rows per group, N = instrShape[1]) in one
//     buildSharedMultiply() call, after buildSharedOperandFence() made the
//     stores visible to the unit. An instruction's accumulators are, in
//     register order, the registers of the accumulator layout covering this
//     warp's rows of it (the first M/warps*N/warpSize); an A in registers
//     gives the first M/warps*K/warpSize registers of its layout;
//   - asynchronous groups (hasAsyncGroups()): a dot that accumulates across
//     the iterations of a software-pipelined loop (its accumulator an
//     iter_arg used by it alone, its result yielded back, both operands in
//     rings of buffers filled after it in the loop body) leaves its group
//     in flight with SharedMatrixMultiply::pendingGroups = 1, so the unit
//     computes while the next iteration's copies and addresses are issued;
//     after the loop, buildSharedMultiplyWait(0) retires it.
//
// Like TargetHooks, families never cross the plugin C boundary (a plugin
// uses them inside itself) and must be stateless or thread-safe: one
// instance serves concurrent compiles.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_MATRIXUNIT_H
#define TEGULA_BACKENDKIT_MATRIXUNIT_H

#include "tegula/BackendKit/LayoutPolicy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tegula::backend {

/// Coordinates of one tile element, one entry per dimension.
using LayoutCoords = llvm::SmallVector<int64_t, 4>;

/// A linear layout over GF(2) by its bases (Triton's LinearLayout with the
/// input dimensions register, lane and warp): register r of lane l of warp
/// w holds the element at the XOR of reg[i] for the set bits i of r, of
/// lane[j] for the set bits j of l and of warp[k] for the set bits k of w.
/// There is one lane basis per bit of the lane id and one warp basis per bit
/// of the warp id; a zero lane or warp basis means the threads differing in
/// that bit hold the same elements (replication); zero register bases are
/// dropped when registers are counted.
struct LinearLayout {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<LayoutCoords> reg, lane, warp;

  /// Appends to |list| the bases of |count| (a power of 2) more elements
  /// along |dim|: the next powers of two after |covered|[dim] (which grows
  /// by that factor), or zero bases once the dimension is covered.
  void add(llvm::SmallVector<LayoutCoords> &list,
           llvm::SmallVector<int64_t> &covered, int64_t dim, int64_t count);
  /// Appends |count| (a power of 2) zero bases to |list|: threads that hold
  /// the same elements.
  void addZeros(llvm::SmallVector<LayoutCoords> &list, int64_t count);
  /// Appends register bases along each of |dims| in turn until the layout
  /// covers the shape there (the repetitions of an instruction tile).
  void repeat(llvm::SmallVector<int64_t> &covered,
              llvm::ArrayRef<int64_t> dims);
  /// Completes a dot layout of rank 2 or 3 ([batch,] M, N) whose register
  /// and lane bases cover one instruction tile: the |warps| (warpsPerCTA)
  /// along M and N for the accumulator (|opIdx| -1), along M and
  /// broadcast over N for A (0), broadcast over M and along N for B (1),
  /// then along the batch; then repetitions of the tile until the shape is
  /// covered, the minor dimension (N, or K of an operand) first, then the
  /// other, then the batch.
  void addDotWarpsAndRepeats(llvm::SmallVector<int64_t> &covered,
                             llvm::ArrayRef<int64_t> warps, int64_t opIdx);
};

/// The parameters of a `#tile.matrix` layout, as numbers.
struct MatrixLayout {
  /// The family's kind (MatrixUnit::getKind()).
  std::string kind;
  /// The family's own versioning of its layouts.
  llvm::SmallVector<int64_t, 2> version;
  /// Warps along each dimension of the accumulator.
  llvm::SmallVector<int64_t, 4> warpsPerCTA;
  /// The M x N an instruction computes (a warp's, or a warp group's).
  llvm::SmallVector<int64_t, 4> instrShape;
};

/// A shared-memory operand of a matrix instruction: a swizzled tile (the
/// layout of Triton's NVMMA shared encoding). The tile's contiguous
/// dimension is cut into atoms of |swizzleBytes| per row (row r of an atom
/// at byte r * swizzleBytes; its 16-byte chunks XOR-permuted by
/// (r / (128 / swizzleBytes)) % (swizzleBytes / 16)); the atoms follow one
/// another |atomStrideBytes| apart.
struct SharedMatrixOperand {
  /// i32: the shared-memory address of the instruction's first element.
  /// The generic lowering builds the instructions of one K chain from one
  /// root: `arith.addi(root, arith.constant)` for every step but the first,
  /// so that a family can derive the steps from one root value.
  mlir::Value address;
  /// For A only, instead of |address|: the instruction's A fragment in this
  /// thread's registers: the first M*K/warpSize registers of the layout
  /// the A tile comes in, consecutive elements packed into 32-bit registers
  /// (the first in the low bits).
  llvm::SmallVector<mlir::Value, 4> registers;
  /// Whether the operand is contiguous along M (A) or N (B) instead of K.
  bool mnMajor = false;
  int64_t swizzleBytes = 128;
  int64_t atomStrideBytes = 0;
};

/// One group of shared-operand matrix instructions
/// (MatrixUnit::buildSharedMultiply).
struct SharedMatrixMultiply {
  /// The instruction shape: M x N x K.
  int64_t m = 0, n = 0, k = 0;
  mlir::Type aType, bType;
  struct Instruction {
    SharedMatrixOperand a, b;
    /// Indices into the group's accumulators, in the instruction's order.
    llvm::SmallVector<int64_t> accIndices;
  };
  llvm::SmallVector<Instruction> instructions;
  /// How many of the most recently issued groups, this one included, may
  /// still be in flight when the group's code ends (only for a family whose
  /// hasAsyncGroups() is true). 0: the group and every earlier one are
  /// complete. 1: this group runs on while later code executes and every
  /// earlier group is complete; the returned accumulators then belong to a
  /// group in flight, and the caller may hand them only to a later group
  /// of the same family (as its accumulators) or to
  /// buildSharedMultiplyWait(), never read them otherwise, and must not
  /// overwrite the group's shared operands until a later wait retired it.
  int64_t pendingGroups = 0;
};

/// One family of matrix instructions of a target (see the file comment).
/// Methods that take a |layout| are only called with layouts of this
/// family's kind. Builders insert at |builder|'s insertion point, at |loc|.
/// A method that cannot do what it is asked returns failure (and a reason
/// in |error| where it has one) without building anything; the generic
/// lowering then reports the failure at the op it lowers.
class MatrixUnit {
public:
  virtual ~MatrixUnit();

  /// The `kind` of this family's `#tile.matrix` layouts, "vendor.unit"
  /// ("nvidia.mma"); unique among the families of a registry.
  virtual llvm::StringRef getKind() const = 0;

  // --- Which dots it takes (the layout engine) ---------------------------

  /// The instruction for |dot| (with |unit| this family), or nothing when
  /// the family cannot take it: its types, shapes or warps.
  virtual std::optional<MatrixInstruction>
  selectInstruction(const DotProblem &dot) const = 0;
  /// The layout of a dot result of |shape| ([batch,] M, N) computed with
  /// |instr| (which this family selected) by |numWarps| warps. The default:
  /// version [instr.version], Triton's split of the warps (warpsForDot()),
  /// instrShape [instr.m, instr.n].
  virtual MatrixLayout getResultLayout(llvm::ArrayRef<int64_t> shape,
                                       const MatrixInstruction &instr,
                                       unsigned numWarps) const;

  // --- Layouts -------------------------------------------------------------

  /// The linear layout of the accumulator (|opIdx| -1) or of operand
  /// |opIdx| (0: A as [batch,] M, K; 1: B as [batch,] K, N) of |layout|, for
  /// a tile of |shape|, with |kWidth| operand elements kept together along
  /// K by each thread. Failure, with the reason in |error|, for a layout or
  /// shape the family does not distribute.
  virtual mlir::FailureOr<LinearLayout>
  getLinearLayout(const MatrixLayout &layout, llvm::ArrayRef<int64_t> shape,
                  int64_t opIdx, int64_t kWidth, std::string &error) const = 0;

  /// The K of one instruction of |layout| on operands of element types |a|
  /// and |b| into accumulators of |acc|; failure, with the reason (naming
  /// the types the family takes) in |error|, for types it has no
  /// instruction for.
  virtual mlir::FailureOr<int64_t>
  getInstructionK(const MatrixLayout &layout, mlir::Type a, mlir::Type b,
                  mlir::Type acc, std::string &error) const = 0;

  // --- Operands in registers -----------------------------------------------

  /// Whether the instructions of |layout| read their operands from shared
  /// memory (then the shared-operand methods below apply) rather than from
  /// registers. Default: false.
  virtual bool readsSharedOperands(const MatrixLayout &layout) const;

  /// One instruction: D = A x B + C on the fragments one thread holds,
  /// element by element in the order of the layouts' registers (see the
  /// file comment). Returns the D elements. Default: failure.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                const MatrixLayout &layout, mlir::ValueRange a,
                mlir::ValueRange b, mlir::ValueRange c) const;

  /// Loads |count| (1, 2 or 4) 8x8 matrices of 16-bit elements from shared
  /// memory, each row 16 contiguous bytes whose address (a pointer in the
  /// shared address space) lanes 8i..8i+7 give for matrix i; returns one
  /// i32 per matrix holding this lane's two elements: row lane / 4,
  /// columns 2 (lane % 4) and + 1, or with |transpose| column lane / 4,
  /// rows 2 (lane % 4) and + 1. The generic lowering then reads the operand
  /// fragments of 16-bit elements (instrShape M or N by 16 along K) this
  /// way. Default: failure (the lowering reads shared memory itself).
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixLoad(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value address, unsigned count,
                        bool transpose) const;

  // --- Operands in shared memory -------------------------------------------

  /// The swizzle width in bytes (SharedMatrixOperand) of an operand of
  /// |layout| whose contiguous dimension has |extent| elements of
  /// |elementBits| bits and whose other dimension has |rows|; failure, with
  /// the reason in |error|, when the family cannot read such an operand.
  /// Default: failure.
  virtual mlir::FailureOr<int64_t>
  getSharedOperandSwizzle(const MatrixLayout &layout, int64_t extent,
                          int64_t rows, unsigned elementBits,
                          std::string &error) const;
  /// The warps, consecutive along M, that issue one instruction together
  /// (a warp group). Default: 1.
  virtual int64_t getWarpsPerInstruction(const MatrixLayout &layout) const;
  /// Whether operand |opIdx| of elements of |elementBits| bits may stay in
  /// the registers of an earlier dot's accumulator of the same layout
  /// (attention's P) instead of going through shared memory. Default: no.
  virtual bool takesRegisterOperand(const MatrixLayout &layout, int64_t opIdx,
                                    unsigned elementBits) const;
  /// Makes this thread's ordinary stores to shared memory visible to the
  /// instructions that read shared memory themselves; the caller follows
  /// it with a barrier. Default: nothing.
  virtual void buildSharedOperandFence(mlir::OpBuilder &builder,
                                       mlir::Location loc) const;
  /// One group of instructions reading their operands from shared memory,
  /// issued and waited for: |acc| holds the accumulator registers of every
  /// instruction (each instruction names its accumulators by index), the
  /// result is their new values. Default: failure.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>> buildSharedMultiply(
      mlir::OpBuilder &builder, mlir::Location loc, const MatrixLayout &layout,
      const SharedMatrixMultiply &group, mlir::ValueRange acc) const;
  /// Whether buildSharedMultiply() of |layout| can leave its group in
  /// flight (SharedMatrixMultiply::pendingGroups) and buildSharedMultiplyWait
  /// retires such groups. Default: false.
  virtual bool hasAsyncGroups(const MatrixLayout &layout) const;
  /// Waits until at most |pending| groups of this thread's are in flight and
  /// returns |acc| (accumulators of groups left in flight by
  /// buildSharedMultiply) as values that may be read once the groups that
  /// wrote them are retired. Default: failure.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMultiplyWait(mlir::OpBuilder &builder, mlir::Location loc,
                          const MatrixLayout &layout, int64_t pending,
                          mlir::ValueRange acc) const;
};

/// The matrix-unit families of one compile, by kind. It does not own them:
/// a backend keeps its families (usually static, stateless objects) alive
/// for as long as the registry is used.
class MatrixUnitRegistry {
public:
  /// Adds |unit|; returns false, adding nothing, when a family of its kind
  /// is already there.
  bool add(const MatrixUnit &unit);
  /// The family of |kind|, or null when none was added.
  const MatrixUnit *lookup(llvm::StringRef kind) const;
  /// The families, in the order they were added.
  llvm::ArrayRef<const MatrixUnit *> getUnits() const { return units; }

private:
  llvm::SmallVector<const MatrixUnit *, 4> units;
};

/// Triton's split of |numWarps| warps over the M and N dimensions of a dot
/// result of |shape| ([batch,] M, N) computed by instructions of |instr|'s
/// shape: double the warps along M while it has at least as many
/// instruction tiles per warp as N has pairs of them, else along N. A
/// leading batch dimension gets one warp.
llvm::SmallVector<int64_t> warpsForDot(llvm::ArrayRef<int64_t> shape,
                                       const MatrixInstruction &instr,
                                       unsigned numWarps);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_MATRIXUNIT_H
