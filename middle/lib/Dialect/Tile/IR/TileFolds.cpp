//===- TileFolds.cpp - folds and canonicalizations of tile ops ------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tegula::tile;

namespace {
/// A splat constant of |type| holding the single value of |attr|, if |attr|
/// is a splat (or scalar) constant.
Attribute reshapeSplat(Attribute attr, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(tensor, splat.getSplatValue<Attribute>());
  return {};
}

/// Replaces |op| by a splat of the value |src| splats, when |src| comes
/// from tile.splat: every shape op maps a splat to a splat.
template <typename OpTy>
struct SplatThrough : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute src = adaptor.getSrc();
  if (!src || !(isa<IntegerAttr>(src) || isa<FloatAttr>(src)))
    return {};
  return SplatElementsAttr::get(getType(), src);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

namespace {
/// broadcast(broadcast(x)) -> broadcast(x).
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<SplatThrough<BroadcastOp>, BroadcastOfBroadcast>(context);
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return reshapeSplat(adaptor.getSrc(), getType());
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<SplatThrough<ExpandDimsOp>>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

namespace {
/// reshape(reshape(x)) -> reshape(x); the pair may reorder if either may.
struct ReshapeOfReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    bool reorder = op.getAllowReorder() || inner.getAllowReorder();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc(),
                                           reorder);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<SplatThrough<ReshapeOp>, ReshapeOfReshape>(context);
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())))
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

namespace {
/// trans(trans(x, inner), outer) -> trans(x, inner o outer).
struct TransOfTrans : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return failure();
    SmallVector<int32_t> order;
    for (int32_t d : op.getOrder())
      order.push_back(inner.getOrder()[d]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(),
                                         order);
    return success();
  }
};
} // namespace

void TransOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<SplatThrough<TransOp>, TransOfTrans>(context);
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero()))
    return getPtr();
  return {};
}

OpFoldResult AdvanceOp::fold(FoldAdaptor adaptor) {
  for (Attribute offset : adaptor.getOffsets())
    if (!matchPattern(offset, m_Zero()))
      return {};
  return getPtr();
}

namespace {
/// A load whose mask is all false reads nothing: it is its `other` (zero
/// when there is none, since the value is then undefined). An all-true mask
/// is dropped with the `other` it made useless.
struct LoadWithConstantMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    if (matchPattern(mask, m_Zero())) {
      if (Value other = op.getOther()) {
        rewriter.replaceOp(op, other);
        return success();
      }
      Type type = op.getType();
      Attribute zero = rewriter.getZeroAttr(getElementTypeOrSelf(type));
      if (!zero)
        return failure();
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        zero = SplatElementsAttr::get(tensor, zero);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(zero));
      return success();
    }
    if (matchPattern(mask, m_One())) {
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    }
    return failure();
  }
};

/// A store whose mask is all false writes nothing; an all-true mask is
/// dropped.
struct StoreWithConstantMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    if (matchPattern(mask, m_Zero())) {
      rewriter.eraseOp(op);
      return success();
    }
    if (matchPattern(mask, m_One())) {
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    }
    return failure();
  }
};
} // namespace

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<LoadWithConstantMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<StoreWithConstantMask>(context);
}

//===----------------------------------------------------------------------===//
// Conversions and arithmetic
//===----------------------------------------------------------------------===//

OpFoldResult FpToFpOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<BitcastOp>())
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
  return {};
}

OpFoldResult UMulHiOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getX(), m_Zero()))
    return adaptor.getX();
  if (matchPattern(adaptor.getY(), m_Zero()))
    return adaptor.getY();
  APInt x, y;
  if (auto xa = dyn_cast_or_null<IntegerAttr>(adaptor.getX()))
    x = xa.getValue();
  else
    return {};
  if (auto ya = dyn_cast_or_null<IntegerAttr>(adaptor.getY()))
    y = ya.getValue();
  else
    return {};
  unsigned bits = x.getBitWidth();
  APInt hi = (x.zext(2 * bits) * y.zext(2 * bits)).lshr(bits).trunc(bits);
  return IntegerAttr::get(getType(), hi);
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // A constant splat is the same constant in any layout.
  return reshapeSplat(adaptor.getSrc(), getType());
}

namespace {
/// convert_layout(convert_layout(x)) -> convert_layout(x).
struct ConvertOfConvert : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(),
                                                 inner.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<SplatThrough<ConvertLayoutOp>, ConvertOfConvert>(context);
}
