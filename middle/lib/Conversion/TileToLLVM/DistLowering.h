//===- DistLowering.h - The distributed (many threads) lowering -*- C++ -*-===//
//
// The execution model of the GPUs: a program runs on numWarps x warpSize
// threads, and each tile is spread over their registers as its layout
// says. A layout becomes a DistLayout, a linear layout over GF(2) in the
// manner of Triton's LinearLayout: the coordinates of register r of lane l
// of warp w are
//     regOffsets[r]  XOR  (XOR of laneBases[i] for the set bits i of l)
//                    XOR  (XOR of warpBases[j] for the set bits j of w).
// A lane or warp basis that is all zero means the threads that differ in
// that bit hold the same elements (the tile is smaller than the layout:
// replication); stores and atomics then act in one of them only.
//
// A tile value becomes the list of its registers (scalars in the chunk
// form of Lowerer: i64 for pointers, i8 bits for fp8, i1 for booleans).
// Work that crosses threads - reductions across warps, scans, layout
// conversions, shape ops whose registers do not line up, dot operands - goes
// through shared memory from TargetHooks::buildScratchBase: write, barrier,
// read, barrier (every staging starts at offset 0; the kernel's shared
// memory is the largest staging).
//
// A `#tile.matrix` layout belongs to the matrix-unit family of its kind
// (tegula/BackendKit/MatrixUnit.h), found in the registry the target passes
// (LoweringOptions::matrixUnits): the family gives the layout's bases and
// the dot's instructions; this lowering knows no family by name. Files:
//   DistLayout.cpp       layouts to DistLayout, thread coordinates, staging
//   DistLowering.cpp     walking, how tiles cross regions (as registers),
//                        the entry (control flow itself: ControlFlow.cpp)
//   DistElementwise.cpp  constants, splat, make_range, elementwise ops
//   DistMemory.cpp       loads, stores (vectorized per thread), atomics
//   DistReduceScan.cpp   reduce (registers, shuffles, warps), scan
//   DistShape.cpp        convert_layout, broadcast, expand_dims, reshape,
//                        trans, join, split, cat, gather, histogram
//   DistDot.cpp          tl.dot: fused multiply-adds per thread, or a
//                        matrix unit's instructions (operands in
//                        registers or in swizzled shared memory)
//   DistDebug.cpp        print, assert, debug_barrier
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_LIB_CONVERSION_TILETOLLVM_DISTLOWERING_H
#define TEGULA_LIB_CONVERSION_TILETOLLVM_DISTLOWERING_H

#include "LoweringImpl.h"

#include "tegula/BackendKit/MatrixUnit.h"

#include <map>

namespace tegula::lowering {

/// Coordinates of one element, one entry per dimension: the type the
/// matrix-unit families' linear layouts use.
using Coords = backend::LayoutCoords;

/// Where the elements of a tile live across the threads of a program.
struct DistLayout {
  llvm::SmallVector<int64_t, 4> shape;
  /// The coordinates of each register of lane 0 of warp 0.
  llvm::SmallVector<Coords> regOffsets;
  /// One per bit of the lane id (log2 warpSize of them).
  llvm::SmallVector<Coords> laneBases;
  /// One per bit of the warp id (log2 numWarps of them).
  llvm::SmallVector<Coords> warpBases;

  int64_t getRank() const { return shape.size(); }
  int64_t getNumRegs() const { return regOffsets.size(); }
  /// The bits of dimension |d|'s coordinate that the lane and the warp set
  /// (a register's offset that shares none adds to them).
  int64_t getThreadBits(int64_t d) const {
    int64_t bits = 0;
    for (const Coords &basis : laneBases)
      bits |= basis[d];
    for (const Coords &basis : warpBases)
      bits |= basis[d];
    return bits;
  }
  /// Whether some threads hold the same elements as others.
  bool hasReplication() const;
  /// Whether lanes and warps place elements identically in both.
  bool sameThreadPart(const DistLayout &other) const;
  bool operator==(const DistLayout &other) const {
    return shape == other.shape && regOffsets == other.regOffsets &&
           sameThreadPart(other);
  }
  /// A key identifying the thread part (for caching thread coordinates).
  std::vector<int64_t> threadKey() const;
  /// The register holding |coords| in lane 0 warp 0 terms, or -1.
  int64_t findReg(llvm::ArrayRef<int64_t> coords) const;
  /// The dimension along which registers 0 and 1 are one element apart,
  /// or -1.
  int64_t getRunDim() const;
  /// The longest run (a power of 2, at most |limit|) such that registers
  /// come in groups of that many consecutive elements along |dim|, each
  /// group starting at a multiple of its length in every thread: a group is
  /// one vector access. 1 when there is none.
  int64_t getRunLength(int64_t dim, int64_t limit) const;
};

/// The distributed lowering. It reuses Lowerer's types and scalar builders
/// (scalar ops are lowered by the one-thread families, which never touch
/// scratch for them).
class DistLowerer : public Lowerer {
public:
  /// |matrixUnits| null: no matrix-unit family.
  DistLowerer(mlir::ModuleOp module, const backend::TargetHooks &hooks,
              const ModuleAxisInfo &axisInfo, unsigned numWarps,
              const backend::MatrixUnitRegistry *matrixUnits);

  /// The matrix-unit families of the compile.
  const backend::MatrixUnitRegistry &matrixUnits;
  unsigned numWarps;
  unsigned warpSize;
  /// The registers of each tile value.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> regs;
  /// Where per-thread values computed once are inserted (the entry block,
  /// before the body).
  mlir::Operation *prologueEnd = nullptr;
  mlir::Value threadId, laneId, warpId;
  /// Thread coordinates per layout thread part.
  std::map<std::vector<int64_t>, llvm::SmallVector<mlir::Value>> threadCoordCache;
  std::map<std::vector<int64_t>, mlir::Value> ownerCache;
  /// The layouts computed so far (only successes: a failure is reported
  /// where it happens).
  llvm::DenseMap<mlir::Type, DistLayout> layoutCache;
  /// Tiles whose registers are not in their type's layout: block-pointer
  /// loads read in a layout chosen for the access (blockLoadLayout in
  /// DistMemory.cpp), as the pointee type they must keep has no encoding.
  llvm::DenseMap<mlir::Value, DistLayout> valueLayouts;
  /// The shared memory the largest staging needs while the operand area is
  /// in use (stagings then follow it).
  uint64_t sharedBytes = 0;
  /// The shared memory the largest staging needs while no shared matrix
  /// operand is live (between top-level ops that use none: the matmul's
  /// epilogue); those stagings start at the operand area's offset 0.
  uint64_t freeStagingBytes = 0;
  /// Whether stagings now go to the operand area (scratchBase is then
  /// sharedOperandBase).
  bool stagingInOperandArea = false;
  /// LoweringOptions::sharedMemoryLimit (0: none).
  uint64_t sharedLimit = 0;
  /// What one staging may take now: the target's limit less the operand
  /// area while that is in use (0: no limit).
  uint64_t stagingLimit() const;

  /// A dot operand kept in shared memory for a matrix unit that reads it
  /// there (MatrixUnit::readsSharedOperands): a swizzled tile (see
  /// SharedMatrixOperand in MatrixUnit.h) at byte |offset| of the operand
  /// area.
  struct SharedOperand {
    int64_t offset = 0;
    /// i32: the byte offset when it is only known at run time (a buffer of a
    /// ring), else null.
    mlir::Value dynamicOffset;
    /// The dimension along which 16-byte chunks are contiguous.
    int64_t contiguousDim = 1;
    int64_t swizzleBytes = 128;
    /// 2 for 16-bit elements, 1 for 8-bit ones.
    int64_t elementBytes = 2;
    /// The tile's extent along the other dimension.
    int64_t rows = 0;
    /// An A operand left in registers instead (the family takes it there,
    /// MatrixUnit::takesRegisterOperand): the accumulator layout of an
    /// earlier dot and its registers; nothing is in shared memory then.
    std::optional<DistLayout> registerLayout;
    llvm::SmallVector<mlir::Value> registers;
  };
  /// The operand area: every convert_layout to a shared dot operand gets its
  /// own place (it may be read after later stagings), before the staging
  /// area. |sharedOperandBase| is its address, |operandBytes| its size.
  /// Top-level ops of the kernel where no operand place is live stage at
  /// its start instead (freeStagingBytes).
  llvm::DenseMap<mlir::Value, int64_t> operandOffsets;
  /// Loads whose only use is a conversion to a shared matrix operand: the
  /// conversion copies global memory straight to shared memory (with
  /// asynchronous copies where the target has them) and the load itself
  /// produces no registers.
  llvm::DenseSet<mlir::Operation *> deferredLoads;
  /// Layout conversions whose only use is a block-pointer store: the store
  /// takes the source's registers and the conversion builds nothing.
  llvm::DenseSet<mlir::Operation *> deferredConverts;
  /// Software-pipelined operand loads (tile::pipelineSharedOperandLoads):
  /// loads whose tile reaches a conversion to a shared matrix operand
  /// through a loop's iter_args copy it asynchronously into one of |slots|
  /// buffers of that conversion's place, and the tile travels as the i32
  /// byte offset of its buffer. A load in the prologue fills buffer |slot|;
  /// the load in the loop fills the buffer after |previous|'s.
  struct AsyncLoad {
    mlir::Value convert;
    int64_t slots = 1;
    int64_t slot = -1;
    mlir::Operation *loop = nullptr;
    /// For the load in the loop: the iter_arg carrying the youngest buffer
    /// filled before it (the previous iteration's); this one fills the next
    /// buffer of the ring.
    mlir::Value previous;
    /// Whether it waits at a barrier first (the first in its loop body: the
    /// buffer it fills was read in the previous iteration).
    bool barrier = false;
  };
  llvm::DenseMap<mlir::Operation *, AsyncLoad> asyncLoads;
  /// The values that are such buffer offsets.
  llvm::DenseSet<mlir::Value> asyncValues;
  /// Per conversion of an asynchronously loaded tile: how many of the most
  /// recent copy groups may still be in flight when it reads its buffer.
  llvm::DenseMap<mlir::Operation *, int64_t> asyncPending;
  /// Conversions of asynchronously loaded tiles that only wait for their
  /// copies: a later conversion of the same run (nothing with side effects
  /// in between) fences and meets the other threads at the barrier for both.
  llvm::DenseSet<mlir::Operation *> asyncSyncDeferred;
  /// Conversions of asynchronously loaded tiles whose copies an earlier
  /// conversion of the same body already waited for, fenced and met the
  /// other threads for, with no copy issued since: nothing to do.
  llvm::DenseSet<mlir::Operation *> asyncSyncDone;
  /// Dots of a pipelined loop that leave their group in flight into the
  /// next iteration (MatrixUnit::hasAsyncGroups,
  /// SharedMatrixMultiply::pendingGroups 1): the result goes only to the
  /// yield, the shared operands come from rings of buffers filled after the
  /// dot in the loop body (A may come from registers).
  llvm::DenseSet<mlir::Operation *> asyncDots;
  /// Per loop (old scf.for) with such dots: the results that carry their
  /// accumulators, and the dot; finishLoop waits for them.
  llvm::DenseMap<mlir::Operation *,
                 llvm::SmallVector<std::pair<unsigned, mlir::Operation *>>>
      asyncAccumulators;
  /// Iter_args (of the old loop body) carrying the result of such a dot
  /// whose accumulator is not the iter_arg itself (attention's rescaled
  /// output): the first op of the body that reads one waits for the group
  /// first (lowerDistOp). Entries go once that wait is built.
  llvm::DenseMap<mlir::Value, mlir::Operation *> asyncCarried;
  llvm::DenseMap<mlir::Value, SharedOperand> sharedOperands;
  mlir::Value sharedOperandBase;
  uint64_t operandBytes = 0;

  // --- Layouts --------------------------------------------------------------
  /// The family of |matrix|'s kind, or null (after an error at |loc|) when
  /// none is registered.
  const backend::MatrixUnit *getMatrixUnit(tile::MatrixLayoutAttr matrix,
                                           mlir::Location loc) const;
  /// The DistLayout of tile type |type| (its encoding, or the default
  /// blocked layout); failure (reported at |loc|) for layouts this lowering
  /// does not distribute (matrix-unit layouts of no registered family, or
  /// that their family refuses).
  mlir::FailureOr<DistLayout> layoutOf(mlir::RankedTensorType type,
                                       mlir::Location loc);
  /// The layout of |value|'s registers: valueLayouts' entry, else its
  /// type's.
  mlir::FailureOr<DistLayout> layoutOfValue(mlir::Value value,
                                            mlir::Location loc);
  /// Triton's coalesced layout of |type|'s shape along |order|, with
  /// |contiguity| elements known contiguous along order[0].
  DistLayout coalescedLayout(mlir::RankedTensorType type,
                             llvm::ArrayRef<unsigned> order,
                             unsigned contiguity);
  /// Per dimension, the i32 coordinate contributed by this thread's lane
  /// and warp (computed once, in the prologue).
  llvm::ArrayRef<mlir::Value> threadCoords(const DistLayout &layout);
  /// The i32 coordinates of register |reg|.
  llvm::SmallVector<mlir::Value> regCoords(mlir::Location loc,
                                           const DistLayout &layout,
                                           int64_t reg);
  /// i1: whether this thread is the one among its replicas that acts (true
  /// when the layout has no replication).
  mlir::Value isOwner(const DistLayout &layout);

  // --- Values -------------------------------------------------------------
  llvm::ArrayRef<mlir::Value> regsOf(mlir::Value old) const {
    return regs.find(old)->second;
  }
  void setRegs(mlir::Value old, llvm::SmallVector<mlir::Value> values) {
    regs[old] = std::move(values);
  }
  /// The flattened new values of |olds| (a tile's registers, or a scalar).
  llvm::SmallVector<mlir::Value> flatten(mlir::ValueRange olds);
  /// The flattened new types of |olds|.
  mlir::FailureOr<llvm::SmallVector<mlir::Type>>
  flattenTypes(mlir::ValueRange olds, mlir::Location loc);
  /// Maps |olds| to consecutive values of |news| (the inverse of flatten).
  void unflatten(mlir::ValueRange olds, mlir::ValueRange news);

  // --- Shared memory --------------------------------------------------------
  /// Reserves |bytes| of shared memory for one staging (offset 0 on).
  void reserveShared(uint64_t bytes);
  /// The address of element |index| (i32) of an array of |elem| at byte
  /// |offset| of shared memory.
  mlir::Value sharedAddress(mlir::Location loc, int64_t offset,
                            mlir::Type elem, mlir::Value index);
  mlir::Value loadShared(mlir::Location loc, int64_t offset, mlir::Type elem,
                         mlir::Value index);
  void storeShared(mlir::Location loc, int64_t offset, mlir::Type elem,
                   mlir::Value index, mlir::Value value);
  /// Writes the registers |values| of a tile of |layout| row-major to shared
  /// memory at byte |offset|.
  void stageOut(mlir::Location loc, const DistLayout &layout,
                llvm::ArrayRef<mlir::Value> values, mlir::Type elem,
                int64_t offset);
  /// Reads each register of |layout| from shared memory at byte |offset|,
  /// element indexOf(coordinates) (i32).
  llvm::SmallVector<mlir::Value>
  stageIn(mlir::Location loc, const DistLayout &layout, mlir::Type elem,
          int64_t offset,
          llvm::function_ref<mlir::Value(llvm::ArrayRef<mlir::Value>)> indexOf);
  /// Stores |values| (the registers of a tile of |layout|) to shared memory
  /// at element sum(coords[d] * strides[d]) from offset 0, or with |values|
  /// empty loads and returns them; registers consecutive along |fastest|
  /// (contiguous there) move as vectors of up to 16 bytes.
  llvm::SmallVector<mlir::Value>
  stageRegisters(mlir::Location loc, const DistLayout &layout,
                 llvm::ArrayRef<mlir::Value> values, mlir::Type elem,
                 llvm::ArrayRef<int64_t> strides, int64_t fastest);
  /// Row-major linear index (i32) of |coords| in |shape|.
  mlir::Value linearIndex(mlir::Location loc, llvm::ArrayRef<mlir::Value> coords,
                          llvm::ArrayRef<int64_t> shape);
  /// The registers of a tile of layout |from| rearranged for layout |to| of
  /// the same shape (registers directly when the thread parts agree, else
  /// through shared memory; in chunks when the whole tile would exceed
  /// |sharedLimit|).
  llvm::SmallVector<mlir::Value> convert(mlir::Location loc,
                                         const DistLayout &from,
                                         llvm::ArrayRef<mlir::Value> values,
                                         mlir::Type elem, const DistLayout &to);
  void barrier(mlir::Location loc) { hooks.buildBarrier(b, loc); }

  // --- Walking --------------------------------------------------------------
  mlir::LogicalResult lowerDistOp(mlir::Operation *op);
  /// Waits until none of the matrix-unit groups of |dot|'s family are in
  /// flight, and rebinds |value| (a tile in |dot|'s accumulator layout, the
  /// result of a group left in flight) to the registers the wait returns.
  mlir::LogicalResult waitForMatrixGroups(mlir::Operation *dot,
                                          mlir::Location loc,
                                          mlir::Value value);
};

/// Whether |type| is a tile.
inline bool isTile(mlir::Type type) {
  return mlir::isa<mlir::RankedTensorType>(type);
}

/// Copies the tile that |load| (a deferred load) reads to shared memory, in
/// the registers' groups of |layout| (a layout of the load's shape; for a
/// pointer tile, the pointers' own): |sharedAddress| gives the shared
/// address of the element of a group's first register (by its index).
/// Asynchronous copies where the target has them (|async| says whether it
/// used them: the caller commits and waits), else loads and stores.
mlir::LogicalResult
copyLoadToShared(DistLowerer &l, tile::LoadOp load, const DistLayout &layout,
                 bool &async,
                 llvm::function_ref<mlir::Value(int64_t reg)> sharedAddress);
/// The dimension a block pointer's tile is contiguous along in memory (the
/// first of make_tensor_ptr's order, when every origin agrees), or -1.
int64_t getBlockContiguousDim(DistLowerer &l, mlir::Value blockPointer);

/// Finds the software-pipelined operand loads of |kernel| (asyncLoads,
/// asyncValues, asyncPending) and returns the buffers each conversion
/// needs (DistDot.cpp).
llvm::DenseMap<mlir::Value, int64_t> findAsyncOperandLoads(DistLowerer &l,
                                                           tile::FuncOp kernel);
/// Lowers a load of asyncLoads: asynchronous copies into its buffer.
mlir::LogicalResult lowerAsyncOperandLoad(DistLowerer &l, tile::LoadOp load);

/// The registers of a 2-D tile of 16-bit |elem| (|values| in layout |from|)
/// in |to|, the layout of operand |opIdx| of |layout| (a family |unit| that
/// reads operands from registers): staged in shared memory and read back
/// as whole fragments with MatrixUnit::buildSharedMatrixLoad. Failure, with
/// nothing built, when the family has no such loads or the shapes do not
/// fit.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> convertToMatrixFragments(
    DistLowerer &l, mlir::Location loc, const DistLayout &from,
    llvm::ArrayRef<mlir::Value> values, mlir::Type elem, const DistLayout &to,
    int64_t opIdx, const backend::MatrixUnit &unit,
    const backend::MatrixLayout &layout);

/// |matrix|'s parameters as the matrix-unit interface takes them.
backend::MatrixLayout toMatrixLayout(tile::MatrixLayoutAttr matrix);

/// Stores the source of |convert| (a convert_layout to a shared matrix
/// operand) to its place in the operand area (DistDot.cpp).
mlir::LogicalResult lowerSharedMatrixOperand(DistLowerer &l,
                                             mlir::Operation *convert);

/// The op families of the distributed lowering, a file each (listed above).
OpFamily<DistLowerer> lowerDistElementwise, lowerDistMemory,
    lowerDistReduceScan, lowerDistShape, lowerDistDot, lowerDistDebug;

/// The distributed lowering of |kernel| into |fn| (DistLowering.cpp).
mlir::LogicalResult lowerDistributedKernel(DistLowerer &l, tile::FuncOp kernel);


} // namespace tegula::lowering

#endif // TEGULA_LIB_CONVERSION_TILETOLLVM_DISTLOWERING_H
