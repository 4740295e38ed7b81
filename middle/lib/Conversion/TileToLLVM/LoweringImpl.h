//===- LoweringImpl.h - Shared state of the tile-to-LLVM lowering -*- C++ -*-===//
//
// The Lowerer walks a tile.func and builds its llvm.func op by op. A tile
// (ranked tensor) value becomes a pointer to its elements, row-major, in the
// program's scratch memory; a scalar stays an SSA value. Each op family lives
// in its own file and is reached through lowerOp():
//   Elementwise.cpp  arith/math/tile elementwise ops, constants, splat, ranges
//   LoadStore.cpp    loads and stores (pointer tiles, block pointers); the
//                    block-pointer addressing both lowerings use
//   Shape.cpp        broadcast, expand_dims, reshape, trans, join, split, cat,
//                    gather, histogram, convert_layout; the shape ops'
//                    element semantics both lowerings use
//   ReduceScan.cpp   reduce and scan with their combine regions
//   Dot.cpp          tl.dot as fused multiply-adds
//   Atomics.cpp      atomic_rmw, atomic_cas
//   Debug.cpp        print, assert, debug_barrier
//   ControlFlow.cpp  scf.for/if/while and tile.return, for both lowerings
//   Lowering.cpp     functions, scratch, how tiles cross regions (in their
//                    buffers), the LLVM pipeline
//
// Elements are processed in chunks of up to kMaxChunk as MLIR vectors, so the
// generated code is SIMD without relying on LLVM's loop vectorizer. In chunk
// form an i1 element is i1, a pointer element i64 (its address), an fp8
// element i8 (its bits); in memory i1 takes one byte.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_LIB_CONVERSION_TILETOLLVM_LOWERINGIMPL_H
#define TEGULA_LIB_CONVERSION_TILETOLLVM_LOWERINGIMPL_H

#include "tegula/Analysis/AxisInfo.h"
#include "tegula/BackendKit/TargetHooks.h"
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <functional>
#include <optional>

namespace tegula::lowering {

/// The widest chunk (elements) processed as one vector.
constexpr int64_t kMaxChunk = 16;

/// Shared-memory (scratch) allocation by liveness: tiles whose lifetimes do
/// not overlap share memory. A tile is live from its definition to its last
/// use; a use inside a loop that does not contain the definition keeps it
/// live to the end of that loop; views (expand_dims, reshape,
/// convert_layout) share their operand's memory, and the tiles a region op
/// carries (loop-carried tiles, results) are live across the whole op. A
/// chunk group (Fusion.cpp) counts as one point in time, since its members
/// run interleaved, and its tiles that no outside op reads need no memory.
class ScratchPlan {
public:
  void plan(tile::FuncOp func,
            llvm::function_ref<uint64_t(mlir::RankedTensorType)> bytesOf);
  std::optional<uint64_t> offsetOf(mlir::Value value) const;
  /// The bytes the planned tiles need.
  uint64_t getBytes() const { return bytes; }

private:
  llvm::DenseMap<mlir::Value, uint64_t> offsets;
  uint64_t bytes = 0;
};

class Lowerer {
public:
  Lowerer(mlir::ModuleOp module, const backend::TargetHooks &hooks,
          const ModuleAxisInfo &axisInfo);

  mlir::ModuleOp module;
  const backend::TargetHooks &hooks;
  const ModuleAxisInfo &axisInfo;
  mlir::MLIRContext *ctx;
  mlir::OpBuilder b;
  /// Old value -> new value (a scalar, or the pointer to a tile's elements).
  mlir::IRMapping map;
  /// The scratch base of the function being built.
  mlir::Value scratchBase;
  /// Where the kernel's tiles live in scratch.
  ScratchPlan scratchPlan;
  /// The end of scratch assigned to temporaries beyond the plan.
  uint64_t scratchBytes = 0;
  /// Ops already lowered (as part of a chunk group).
  llvm::DenseSet<mlir::Operation *> lowered;
  /// The tile.func being lowered (for assert messages).
  std::string functionName;

  // --- Types -------------------------------------------------------------
  /// !llvm.ptr in the global address space.
  mlir::Type ptrType() const;
  /// The LLVM struct a block pointer `!tile.ptr<tensor<...>>` becomes:
  /// {ptr base, [r x i64] shape, [r x i64] strides, [r x i32] offsets}.
  mlir::Type blockPtrType(tile::PointerType type) const;
  /// The type a scalar (non-tile) value of |type| becomes, or null.
  mlir::Type scalarType(mlir::Type type) const;
  /// The element type of a tile of |elem| in chunk form (i1, i64 for
  /// pointers, i8 for fp8, else |elem|).
  mlir::Type computeType(mlir::Type elem) const;
  /// The element type in memory (i8 for i1 and fp8, i64 for pointers).
  mlir::Type storageType(mlir::Type elem) const;
  /// Bytes of one element of |elem| in memory.
  int64_t storageBytes(mlir::Type elem) const;
  /// |elem| as a vector of |width| (|elem| itself when width is 1).
  mlir::Type chunkType(mlir::Type elem, int64_t width) const;

  // --- Tiles in scratch ---------------------------------------------------
  /// The address of the scratch for tile |owner| (of |type|), as the
  /// ScratchPlan placed it; a null |owner| (a temporary of the lowering)
  /// gets memory of its own.
  mlir::Value allocTile(mlir::Location loc, mlir::RankedTensorType type,
                        mlir::Value owner);
  /// The new value of |old| (a tile pointer or a scalar).
  mlir::Value lookup(mlir::Value old) const { return map.lookup(old); }
  /// The widest chunk that divides |numElements|.
  static int64_t chunkWidth(int64_t numElements);

  // --- Building blocks ------------------------------------------------------
  mlir::Value constIndex(mlir::Location loc, int64_t value);
  mlir::Value constI32(mlir::Location loc, int64_t value);
  mlir::Value constI64(mlir::Location loc, int64_t value);
  /// Address of element |index| (an index value) of the tile at |base|.
  mlir::Value elementAddress(mlir::Location loc, mlir::Value base,
                             mlir::Type elem, mlir::Value index);
  /// Loads |width| elements of a tile of |elem| from element |index| on, in
  /// chunk form.
  mlir::Value loadChunk(mlir::Location loc, mlir::Value base, mlir::Type elem,
                        mlir::Value index, int64_t width);
  /// Stores a chunk (as loadChunk returns it) at element |index|.
  void storeChunk(mlir::Location loc, mlir::Value base, mlir::Type elem,
                  mlir::Value index, mlir::Value chunk);
  /// |scalar| repeated |width| times (|scalar| when width is 1).
  mlir::Value splatChunk(mlir::Location loc, mlir::Value scalar,
                         int64_t width);
  /// A chunk constant of |width| copies of |attr| (a typed scalar attribute
  /// of a computeType element).
  mlir::Value constantChunk(mlir::Location loc, mlir::TypedAttr attr,
                            int64_t width);
  /// A scalar value converted to chunk form (pointers to i64, fp8 bits).
  mlir::Value scalarToCompute(mlir::Location loc, mlir::Value scalar,
                              mlir::Type elem);
  /// Calls |body| with the element index (index type) of each chunk of
  /// |width| elements among |numElements|.
  void forEachChunk(mlir::Location loc, int64_t numElements, int64_t width,
                    llvm::function_ref<void(mlir::Value)> body);
  /// Nested loops over |shape| (outermost first); |body| gets the indices.
  void forEachIndex(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>)> body);
  /// The row-major linear index of |indices| in |shape|.
  mlir::Value linearize(mlir::Location loc, llvm::ArrayRef<mlir::Value> indices,
                        llvm::ArrayRef<int64_t> shape);
  /// Copies a whole tile of |type| from |src| to |dst|.
  void copyTile(mlir::Location loc, mlir::RankedTensorType type,
                mlir::Value src, mlir::Value dst);

  /// Builds |op| (an elementwise arith, math or tile op) over |operands| in
  /// chunk form (all of width |width|, or scalars for width 1) and returns
  /// its results in chunk form. |tileMode| is false for ops on scalars, where
  /// pointers are !llvm.ptr rather than i64 addresses.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildElementwise(mlir::Operation *op, mlir::ValueRange operands,
                   int64_t width, bool tileMode);

  /// Clones the single-block combine region |region| (of reduce or scan)
  /// with |operands| (chunks of |width|) as its arguments; returns the
  /// values its terminator yields.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildCombine(mlir::Region &region, mlir::ValueRange operands, int64_t width);

  // --- Walking -------------------------------------------------------------
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  /// Reports that |op| cannot be lowered, with |why|.
  mlir::LogicalResult unsupported(mlir::Operation *op, const llvm::Twine &why);
};

/// How a lowering carries the values that cross the boundaries of region
/// ops (scf.for, scf.if, scf.while): the one thing the two execution models
/// do differently in control flow. The one-thread model keeps a carried tile
/// in a scratch buffer that is written before the region yields, and passes
/// only the scalars as the region op's values; the distributed model passes
/// each register of a tile as a value of its own (ControlFlow.cpp).
class RegionCarrier {
public:
  virtual ~RegionCarrier() = default;

  /// Where the values of some owners (a region op's results, or a region's
  /// arguments) are carried.
  struct Slots {
    /// The types of the values the new region op carries for the owners.
    llvm::SmallVector<mlir::Type> types;
    /// Per owner, the scratch buffer that holds it: a one-thread tile; null
    /// for a scalar; empty where the model keeps no buffers.
    llvm::SmallVector<mlir::Value> buffers;
  };
  /// The slots of |owners|; failure (reported at |loc|) when one of them
  /// cannot be carried. May build the buffers.
  virtual mlir::FailureOr<Slots> slotsFor(mlir::Location loc,
                                          mlir::ValueRange owners) = 0;
  /// The values that hand |olds| (old values: a region op's operands or a
  /// terminator's) over to |slots|; may build the copies that fill them.
  virtual llvm::SmallVector<mlir::Value>
  pass(mlir::Location loc, mlir::ValueRange olds, const Slots &slots) = 0;
  /// Maps |olds| (a region's arguments or a region op's results, carried in
  /// |slots|) to |news|, the new op's values.
  virtual void bind(mlir::ValueRange olds, const Slots &slots,
                    mlir::ValueRange news) = 0;
  /// Lowers |op| (not control flow's terminators) in the carrier's model.
  virtual mlir::LogicalResult lowerOp(mlir::Operation *op) = 0;
  /// Lowers the ops of |block| but its terminator.
  mlir::LogicalResult lowerBody(mlir::Block &block);
  /// Lowers all the ops of |block|: a function's body, whose terminator
  /// (tile.return) is control flow too.
  mlir::LogicalResult lowerBlock(mlir::Block &block);
  /// Called once |loop| is lowered, with the builder after it.
  virtual mlir::LogicalResult finishLoop(mlir::scf::ForOp loop) {
    return mlir::success();
  }
};

/// Lowers |op| when it is control flow (scf.for, scf.if, scf.while,
/// tile.return), carrying values with |carrier|; std::nullopt for other ops
/// (ControlFlow.cpp).
std::optional<mlir::LogicalResult>
lowerControlFlow(Lowerer &l, RegionCarrier &carrier, mlir::Operation *op);

/// Ops computed chunk by chunk on tiles of one element count, which one
/// loop runs together (Fusion.cpp): splat, make_range, uniform tile
/// constants, elementwise ops, loads and stores through tiles of pointers.
bool isChunkOp(mlir::Operation *op);
/// The arith, math and tile elementwise ops.
bool isElementwiseOp(mlir::Operation *op);
/// Lowers the chunk op |first| together with the chunk ops of the same
/// element count that follow it in its block (pure scalar ops in between are
/// lowered first): one loop over chunks, values kept in registers, tiles
/// stored to scratch only when used outside the group.
mlir::LogicalResult lowerChunkGroup(Lowerer &l, mlir::Operation *first);
/// The members of the chunk group that starts at |first|; the pure scalar
/// ops among them in |scalars| (they are lowered before the group's loop).
llvm::SmallVector<mlir::Operation *>
collectChunkGroup(mlir::Operation *first,
                  llvm::SmallVectorImpl<mlir::Operation *> *scalars = nullptr);
/// Whether an op outside |group| reads |result| (which then needs scratch).
bool escapesChunkGroup(mlir::Value result,
                       const llvm::DenseSet<mlir::Operation *> &group);
/// Chunk |index| (|width| elements) of a chunk op. |operands| are the
/// operands' chunks (scalars splatted, in chunk form); the result is the
/// result's chunk (null for a store).
mlir::FailureOr<mlir::Value> emitElementwiseChunk(Lowerer &l,
                                                  mlir::Operation *op,
                                                  llvm::ArrayRef<mlir::Value> operands,
                                                  mlir::Value index,
                                                  int64_t width);
mlir::FailureOr<mlir::Value> emitLoadStoreChunk(Lowerer &l, mlir::Operation *op,
                                                llvm::ArrayRef<mlir::Value> operands,
                                                int64_t width);

/// The fields of a lowered block pointer (tl.make_block_ptr).
struct BlockPointer {
  mlir::Value base;
  llvm::SmallVector<mlir::Value> shape, strides, offsets; // i64, i64, i32
};
BlockPointer unpackBlockPointer(Lowerer &l, mlir::Location loc,
                                mlir::Value packed, unsigned rank);

/// Whether |ptr| is a block pointer (tl.make_block_ptr), not a pointer or a
/// tile of pointers.
bool isBlockPointer(mlir::Value ptr);
/// The dimensions a block-pointer load or store checks the bounds of.
llvm::SmallVector<int32_t>
boundaryChecks(std::optional<llvm::ArrayRef<int32_t>> checks);
/// The address of an element of the block |bp| of |elem|: the element at
/// the block's offset plus element(d) (i64) along each dimension d, as
/// base + sum(offset_d * stride_d) + sum(element(d) * stride_d), the block's
/// part first: the element's part does not change when the block advances,
/// so it can be computed once before a loop. |inBounds| becomes whether the
/// dimensions of |boundaryCheck| are in bounds (null when none is checked).
mlir::Value
blockElementAddress(Lowerer &l, mlir::Location loc, const BlockPointer &bp,
                    mlir::Type elem, llvm::ArrayRef<int32_t> boundaryCheck,
                    llvm::function_ref<mlir::Value(int64_t d)> element,
                    mlir::Value &inBounds);
/// What a block-pointer load |op| reads where it is out of bounds: NaN or
/// zero of |memType| (its element type in memory); failure (reported) for
/// NaN padding of a non-float tile.
mlir::FailureOr<mlir::Value> blockPadding(Lowerer &l, tile::LoadOp op,
                                          mlir::Type memType);
/// |condition| ? thenValue() : elseValue(), computing only the side taken
/// (an scf.if yielding a value of |type|).
mlir::Value conditionalValue(Lowerer &l, mlir::Location loc, mlir::Type type,
                             mlir::Value condition,
                             llvm::function_ref<mlir::Value()> thenValue,
                             llvm::function_ref<mlir::Value()> elseValue);
/// Builds |body| where |condition| holds (always when it is null).
void guarded(Lowerer &l, mlir::Location loc, mlir::Value condition,
             llvm::function_ref<void()> body);
/// |a| and |b|, either of which may be null (always true).
mlir::Value andValues(Lowerer &l, mlir::Location loc, mlir::Value a,
                      mlir::Value b);

// Element semantics of shape ops, for both lowerings (Shape.cpp). A
// coordinate |T| is an int64_t (the layout engine's maps) or an index value.

/// trans: coordinate k of the result is coordinate order[k] of the source.
template <typename T>
llvm::SmallVector<T, 4> transSourceCoords(llvm::ArrayRef<T> coords,
                                          llvm::ArrayRef<int32_t> order) {
  llvm::SmallVector<T, 4> result(coords.size());
  for (auto [k, c] : llvm::enumerate(coords))
    result[order[k]] = c;
  return result;
}
/// broadcast: a dimension of size 1 in the source (|inShape|) reads its
/// element zero(), whatever the result's coordinate.
template <typename T>
llvm::SmallVector<T, 4> broadcastSourceCoords(llvm::ArrayRef<T> coords,
                                              llvm::ArrayRef<int64_t> inShape,
                                              llvm::function_ref<T()> zero) {
  llvm::SmallVector<T, 4> result(coords);
  for (auto [d, size] : llvm::enumerate(inShape))
    if (size == 1)
      result[d] = zero();
  return result;
}
/// expand_dims: the result's dimension |axis| (of size 1) is not the
/// source's.
template <typename T>
llvm::SmallVector<T, 4> expandDimsSourceCoords(llvm::ArrayRef<T> coords,
                                               int64_t axis) {
  llvm::SmallVector<T, 4> result(coords);
  result.erase(result.begin() + axis);
  return result;
}
/// gather: index |index| (an integer of any width) along an axis of |size|
/// as a |width|-bit integer, clamped into [0, size): a bad index reads some
/// element of the source rather than faulting.
mlir::Value clampGatherIndex(Lowerer &l, mlir::Location loc, mlir::Value index,
                             unsigned width, int64_t size);
/// histogram: the bin (i64) of |element| (an integer); |inRange| becomes
/// whether it is one of the |bins| bins (others are not counted).
mlir::Value histogramBin(Lowerer &l, mlir::Location loc, mlir::Value element,
                         int64_t bins, mlir::Value &inRange);

/// Builds one atomic on |ptr| (an !llvm.ptr) for |op| (atomic_rmw or
/// atomic_cas) with |values| (the value; or compare and value) in scalar
/// form and returns the old value (Atomics.cpp).
mlir::FailureOr<mlir::Value> buildAtomic(Lowerer &l, mlir::Operation *op,
                                         mlir::Value ptr,
                                         llvm::ArrayRef<mlir::Value> values);

/// Calls the callback with each element of tile |tile| (an old value) in
/// chunk form and its row-major index (i64).
using ElementVisitor = llvm::function_ref<void(
    mlir::Value tile,
    llvm::function_ref<void(mlir::Value value, mlir::Value index)>)>;
/// device_print and device_assert over the elements |forEachElement|
/// visits (Debug.cpp).
mlir::LogicalResult lowerPrintOp(Lowerer &l, tile::PrintOp op,
                                 ElementVisitor forEachElement);
mlir::LogicalResult lowerAssertOp(Lowerer &l, tile::AssertOp op,
                                  ElementVisitor forEachElement);
/// The debug mode's tile.out_of_bounds (scalar operands only, so one
/// lowering serves both; Debug.cpp).
mlir::LogicalResult lowerOutOfBoundsOp(Lowerer &l, tile::OutOfBoundsOp op);

/// A dot's operand and result types, their element types and the type it
/// accumulates in (f32 for an f16 or bf16 result), as both lowerings read
/// them (`auto [aType, bType, dType, aElem, bElem, dElem, acc] = types`).
struct DotTypes {
  explicit DotTypes(tile::DotOp op);
  mlir::RankedTensorType aType, bType, dType;
  mlir::Type aElem, bElem, dElem, acc;
};
/// A lowering's dot: builds |op| of |types|.
using DotLowering = llvm::function_ref<mlir::LogicalResult(
    tile::DotOp op, const DotTypes &types)>;
/// The dot family's dispatch for both lowerings: |lower| builds |op| when it
/// is a dot of element types they take (fp8 operands or result are reported
/// unsupported); std::nullopt for other ops (Dot.cpp).
std::optional<mlir::LogicalResult> lowerDotOp(Lowerer &l, mlir::Operation *op,
                                              DotLowering lower);

/// A chunk of |fp8| values (their i8 bits) as f32, exactly.
mlir::Value decodeFp8ToF32(Lowerer &l, mlir::Location loc, mlir::Value bits,
                           mlir::Type fp8);
/// Converts a chunk of |from| elements to |to| (a float or i32 type), as a
/// dot's operands are before they multiply (Dot.cpp); fp8 through f32.
mlir::Value convertDotOperand(Lowerer &l, mlir::Location loc,
                              mlir::Value value, mlir::Type from, mlir::Type to,
                              int64_t width);
/// |sum| + |x| * |y| on chunks of a dot's accumulator type (a fused
/// multiply-add for floats).
mlir::Value multiplyAdd(Lowerer &l, mlir::Location loc, mlir::Value x,
                        mlir::Value y, mlir::Value sum);
/// A dot's accumulator chunk (|acc| elements) rounded to the result's
/// element type |dElem| (f16 / bf16 computed in f32).
mlir::Value roundAccumulator(Lowerer &l, mlir::Location loc, mlir::Value value,
                             mlir::Type acc, mlir::Type dElem, int64_t width);

/// An op family of a lowering of |LowererT|: lowers |op| and returns the
/// result, or std::nullopt when |op| is not one of the family's ops.
template <typename LowererT>
using OpFamily = std::optional<mlir::LogicalResult>(LowererT &l,
                                                    mlir::Operation *op);

/// The result of the first of |families| that lowers |op|; |op| reported
/// unsupported with |why| when none does. (A DistLowerer lowers its scalar
/// ops with its base's families: `lowerWithFamilies<Lowerer>(...)`.)
template <typename LowererT>
mlir::LogicalResult
lowerWithFamilies(LowererT &l, mlir::Operation *op,
                  llvm::ArrayRef<OpFamily<LowererT> *> families,
                  const llvm::Twine &why) {
  for (OpFamily<LowererT> *family : families)
    if (std::optional<mlir::LogicalResult> result = family(l, op))
      return *result;
  return l.unsupported(op, why);
}

namespace detail {
/// |result| = lower(|l|, |op|) when no earlier function took |op| and it
/// is an OpT.
template <typename LowererT, typename OpT>
void lowerIfIsA(LowererT &l, mlir::Operation *op,
                mlir::LogicalResult (*lower)(LowererT &, OpT),
                std::optional<mlir::LogicalResult> &result) {
  if (!result)
    if (auto concrete = mlir::dyn_cast<OpT>(op))
      result = lower(l, concrete);
}
} // namespace detail

/// An op family's dispatch: |op| lowered by the first of |lowerOps|
/// (functions `LogicalResult(LowererT &, SomeOp)`) whose op it is;
/// std::nullopt when there is none.
template <auto... lowerOps, typename LowererT>
std::optional<mlir::LogicalResult> lowerOneOf(LowererT &l,
                                              mlir::Operation *op) {
  std::optional<mlir::LogicalResult> result;
  (detail::lowerIfIsA(l, op, lowerOps, result), ...);
  return result;
}

/// Loads and stores as both lowerings tell them apart: through a block
/// pointer |lowerBlock|(op), else |lowerPointers|(op) (generic callables,
/// for tile::LoadOp and tile::StoreOp); std::nullopt for other ops.
template <typename BlockFn, typename PointersFn>
std::optional<mlir::LogicalResult>
lowerLoadOrStore(mlir::Operation *op, BlockFn &&lowerBlock,
                 PointersFn &&lowerPointers) {
  auto lower = [&](auto access) -> mlir::LogicalResult {
    return isBlockPointer(access.getPtr()) ? lowerBlock(access)
                                           : lowerPointers(access);
  };
  if (auto load = mlir::dyn_cast<tile::LoadOp>(op))
    return lower(load);
  if (auto store = mlir::dyn_cast<tile::StoreOp>(op))
    return lower(store);
  return std::nullopt;
}

/// The op families of the one-thread lowering, a file each (listed above).
OpFamily<Lowerer> lowerElementwiseFamily, lowerLoadStoreFamily,
    lowerShapeFamily, lowerReduceScanFamily, lowerDotFamily, lowerAtomicFamily,
    lowerDebugFamily;

} // namespace tegula::lowering

#endif // TEGULA_LIB_CONVERSION_TILETOLLVM_LOWERINGIMPL_H
