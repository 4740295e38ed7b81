//===- Combine.cpp - the tile-combine pass --------------------------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tegula::tile {
#define GEN_PASS_DEF_TILECOMBINE
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;
using namespace tegula::tile;

namespace {

bool isZero(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// add(dot(a, b, 0), d) -> dot(a, b, d), for arith.addf and arith.addi with
/// the dot on either side.
template <typename AddOp>
struct DotAddToAccumulator : public OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      auto dot = add->getOperand(side).template getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - side);
      if (!dot || !dot->hasOneUse() || !isZero(dot.getC()) ||
          other.getType() != dot.getType())
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(
          add, dot.getType(), dot.getA(), dot.getB(), other,
          dot.getInputPrecision(), dot.getMaxNumImpreciseAcc());
      return success();
    }
    return failure();
  }
};

/// Whether |value| is available at |op|: defined before it in its block or
/// in an enclosing block.
bool isAvailableAt(Value value, Operation *op) {
  Block *block = value.getParentBlock();
  Operation *anchor = block->findAncestorOpInBlock(*op);
  if (!anchor)
    return false;
  Operation *def = value.getDefiningOp();
  return !def || (def != anchor && def->isBeforeInBlock(anchor));
}

/// select(m, load(p, m), o) -> load(p, m, o): where the mask is false the
/// select already picks `o`, so the load can give it. Only when `o` is
/// available at the load: moving the load could reorder it with stores.
struct SelectOfMaskedLoad : public OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    auto load = select.getTrueValue().getDefiningOp<LoadOp>();
    Value other = select.getFalseValue();
    if (!load || !load->hasOneUse() || !load.getMask() ||
        load.getMask() != select.getCondition() ||
        other.getType() != load.getType() || !isAvailableAt(other, load))
      return failure();
    rewriter.modifyOpInPlace(load, [&] { load.getOtherMutable().assign(other); });
    rewriter.replaceOp(select, load.getResult());
    return success();
  }
};

/// addptr(addptr(p, a), b) -> addptr(p, a + b) when a and b have one type.
struct AddPtrChain : public OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Value sum = rewriter.create<arith::AddIOp>(op.getLoc(), inner.getOffset(),
                                               op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(), sum);
    return success();
  }
};

/// Whether |op| is a pure elementwise op with one result and no regions,
/// which can run on smaller operands of the same element types. Inline
/// assembly is not: it may work on groups of elements (packed_element).
bool isSinkable(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         !isa<ElementwiseInlineAsmOp>(op) &&
         op->getNumRegions() == 0 && op->getNumOperands() > 0 &&
         isMemoryEffectFree(op) &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

/// Whether |v| is a splat constant.
bool isSplatConstant(Value v) {
  SplatElementsAttr splat;
  return matchPattern(v, m_Constant(&splat));
}

/// Splat constant |v| as a scalar or tensor of |shape|; |v| must satisfy
/// isSplatConstant.
Value reshapedConstant(PatternRewriter &rewriter, Location loc, Value v,
                       ArrayRef<int64_t> shape) {
  SplatElementsAttr splat;
  if (!matchPattern(v, m_Constant(&splat)))
    return {};
  auto elem = cast<RankedTensorType>(v.getType()).getElementType();
  TypedAttr value = cast<TypedAttr>(splat.getSplatValue<Attribute>());
  if (shape.empty())
    return rewriter.create<arith::ConstantOp>(loc, value);
  return rewriter.create<arith::ConstantOp>(
      loc, SplatElementsAttr::get(RankedTensorType::get(shape, elem), value));
}

/// Re-creates elementwise |op| on |operands| with result type |type|.
Value cloneWith(PatternRewriter &rewriter, Operation *op, ValueRange operands,
                Type type) {
  OperationState state(op->getLoc(), op->getName(), operands, {type},
                       op->getAttrs());
  return rewriter.create(state)->getResult(0);
}

/// f(splat(x), splat(y)) -> splat(f(x, y)); splat constants count as splats.
struct SinkSplat : public RewritePattern {
  SinkSplat(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isSinkable(op))
      return failure();
    bool anySplat = false;
    // Match every operand before creating anything: a pattern that fails
    // after changing the IR keeps the greedy driver from converging.
    for (Value v : op->getOperands()) {
      if (v.getDefiningOp<SplatOp>())
        anySplat = true;
      else if (!isSplatConstant(v))
        return failure();
    }
    if (!anySplat)
      return failure();
    SmallVector<Value> scalars;
    for (Value v : op->getOperands()) {
      if (auto splat = v.getDefiningOp<SplatOp>())
        scalars.push_back(splat.getSrc());
      else if (Value c = reshapedConstant(rewriter, op->getLoc(), v, {}))
        scalars.push_back(c);
      else
        return failure();
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value scalar = cloneWith(rewriter, op, scalars, type.getElementType());
    rewriter.replaceOpWithNewOp<SplatOp>(op, type, scalar);
    return success();
  }
};

/// f(broadcast(x), broadcast(y)) -> broadcast(f(x, y)) when x and y have
/// one shape; splat constants are taken at that shape.
struct SinkBroadcast : public RewritePattern {
  SinkBroadcast(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isSinkable(op))
      return failure();
    std::optional<ArrayRef<int64_t>> shape;
    for (Value v : op->getOperands()) {
      if (auto b = v.getDefiningOp<BroadcastOp>()) {
        auto s = b.getSrc().getType().getShape();
        if (shape && *shape != s)
          return failure();
        shape = s;
      } else if (!isSplatConstant(v)) {
        return failure();
      }
    }
    if (!shape)
      return failure();
    SmallVector<Value> sources;
    for (Value v : op->getOperands()) {
      if (auto b = v.getDefiningOp<BroadcastOp>())
        sources.push_back(b.getSrc());
      else if (Value c = reshapedConstant(rewriter, op->getLoc(), v, *shape))
        sources.push_back(c);
      else
        return failure();
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    auto small = RankedTensorType::get(*shape, type.getElementType(),
                                       type.getEncoding());
    Value result = cloneWith(rewriter, op, sources, small);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, result);
    return success();
  }
};

struct TileCombinePass : public tegula::tile::impl::TileCombineBase<TileCombinePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<DotAddToAccumulator<arith::AddFOp>,
                 DotAddToAccumulator<arith::AddIOp>, SelectOfMaskedLoad,
                 AddPtrChain, SinkSplat, SinkBroadcast>(context);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
