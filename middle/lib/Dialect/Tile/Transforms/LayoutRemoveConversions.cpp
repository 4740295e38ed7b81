//===- LayoutRemoveConversions.cpp - tile-remove-layout-conversions -------===//
//
// A simplified form of Triton's RemoveLayoutConversions: its backward
// rematerialization, without the forward propagation (tile-assign-layouts
// does that) or the rewriting of loops. A conversion of a value computed by
// a chain of cheap ops (splats, ranges, constants, elementwise ops,
// broadcasts, expand_dims) is replaced by the same chain computed in the
// target layout, when the chain's inputs are already in that layout (or
// are conversions from it), so the rewrite never adds a conversion. Ops of
// the chain with other users stay and are duplicated. Together with the
// canonicalization patterns (tile.convert_layout's fold away conversions of
// conversions, to the same type and of splats) this runs to a fixed point,
// and CSE merges what rematerialization duplicated.
//
//===----------------------------------------------------------------------===//
#include "LayoutSelection.h"

#include "tegula/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tegula::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;
using namespace tegula;
using namespace tegula::tile;

namespace {

/// The largest chain one conversion rematerializes, in ops.
constexpr size_t kMaxChainOps = 64;

/// Whether |op| can be recomputed in another layout for little cost, and
/// in which layouts its tensor operands are needed for its single result to
/// be in |layout| (appended to |operandLayouts|, one per operand; null
/// means no encoding). False for everything else, including an
/// expand_dims whose result layout has no slice.
bool getRematerializedOperandLayouts(
    Operation *op, Attribute layout,
    SmallVectorImpl<Attribute> &operandLayouts) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  if (isa<SplatOp, MakeRangeOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<DenseElementsAttr>(constant.getValue());
  if (isa<BroadcastOp>(op)) {
    operandLayouts.push_back(layout);
    return true;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    // The source of an expand_dims to |layout| is the slice of |layout|
    // along the new dimension (both without encoding when |layout| has none).
    Attribute slice;
    if (layout) {
      slice = getSliceLayout(layout, expand.getAxis());
      if (!slice)
        return false;
    }
    operandLayouts.push_back(slice);
    return true;
  }
  if (isElementwise(op) && isMemoryEffectFree(op)) {
    for (Value operand : op->getOperands())
      operandLayouts.push_back(
          isa<RankedTensorType>(operand.getType()) ? layout : Attribute());
    return true;
  }
  return false;
}

/// The chain of ops computing a value that a rematerialization recomputes in
/// another layout, and the values it starts from.
class Rematerialization {
public:
  /// Plans computing |root| in |layout|; fails when |layout| is not a
  /// distributed layout (or none), or the chain is too long, needs a value
  /// in two layouts or would need a new conversion.
  LogicalResult plan(Value root, Attribute layout) {
    if ((layout && !isDistributedLayout(layout)) || failed(visit(root, layout)))
      return failure();
    return success(!ops.empty());
  }

  /// Clones the chain in its new layouts after the original ops and
  /// returns the new |root|.
  Value rewrite(RewriterBase &rewriter, Value root) {
    IRMapping mapping;
    for (Value input : inputs) {
      Attribute layout = layouts.lookup(input);
      if (getLayout(input.getType()) == layout)
        continue;
      // Planned only when the input converts from |layout|.
      mapping.map(input, input.getDefiningOp<ConvertLayoutOp>().getSrc());
    }
    for (Operation *op : ops) {
      Value result = op->getResult(0);
      Type type = withLayout(result.getType(), layouts.lookup(result));
      rewriter.setInsertionPointAfter(op);
      Operation *clone;
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto value = cast<DenseElementsAttr>(constant.getValue());
        clone = rewriter.create<arith::ConstantOp>(
            op->getLoc(), value.reshape(cast<ShapedType>(type)));
      } else {
        clone = rewriter.clone(*op, mapping);
        clone->getResult(0).setType(type);
      }
      mapping.map(result, clone->getResult(0));
    }
    return mapping.lookup(root);
  }

private:
  /// Adds what computing |value| in |layout| takes, operands first.
  LogicalResult visit(Value value, Attribute layout) {
    auto [it, inserted] = layouts.try_emplace(value, layout);
    if (!inserted)
      return success(it->second == layout);
    if (getLayout(value.getType()) == layout) {
      inputs.push_back(value);
      return success();
    }
    if (auto convert = value.getDefiningOp<ConvertLayoutOp>()) {
      // A conversion from |layout| is where the chain can start; from
      // another layout it would stay a conversion.
      inputs.push_back(value);
      return success(getLayout(convert.getSrc().getType()) == layout);
    }
    Operation *op = value.getDefiningOp();
    SmallVector<Attribute> operandLayouts;
    if (!op || !getRematerializedOperandLayouts(op, layout, operandLayouts) ||
        ops.size() >= kMaxChainOps)
      return failure();
    for (auto [operand, operandLayout] :
         llvm::zip_equal(op->getOperands(), operandLayouts))
      if (isa<RankedTensorType>(operand.getType()) &&
          failed(visit(operand, operandLayout)))
        return failure();
    ops.push_back(op);
    return success();
  }

  /// The ops to clone, each after the ops computing its operands.
  SmallVector<Operation *> ops;
  /// The values the chain starts from.
  SmallVector<Value> inputs;
  /// The layout each value of the chain (and input) is needed in.
  DenseMap<Value, Attribute> layouts;
};

/// convert_layout(chain(x...)) -> chain'(x...) where chain' computes the
/// chain in the conversion's target layout (see Rematerialization).
struct RematerializeConvertedChain : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp convert,
                                PatternRewriter &rewriter) const override {
    Rematerialization remat;
    if (failed(remat.plan(convert.getSrc(), getLayout(convert.getType()))))
      return failure();
    rewriter.replaceOp(convert, remat.rewrite(rewriter, convert.getSrc()));
    return success();
  }
};

/// The canonicalization patterns of every loaded dialect and registered op,
/// as the canonicalize pass collects them.
void populateCanonicalizationPatterns(MLIRContext *ctx,
                                      RewritePatternSet &patterns) {
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
}

struct TileRemoveLayoutConversionsPass
    : public tegula::tile::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversionsPass> {
  void runOnOperation() override {
    if (failed(removeLayoutConversions(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult tegula::tile::removeLayoutConversions(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<RematerializeConvertedChain>(ctx);
  populateCanonicalizationPatterns(ctx, patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));

  // Rematerialization duplicates ops that CSE merges, which can expose more
  // conversions to fold; a few rounds reach the fixed point.
  for (int round = 0; round < 4; ++round) {
    bool rewritten = false;
    if (failed(applyPatternsAndFoldGreedily(module, frozen,
                                            GreedyRewriteConfig(), &rewritten)))
      return module.emitError("layout conversion removal did not converge");
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(module);
    bool merged = false;
    eliminateCommonSubExpressions(rewriter, dominance, module, &merged);
    if (!rewritten && !merged)
      break;
  }
  return success();
}
