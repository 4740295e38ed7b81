//===- TestAxisInfo.cpp - the tile-test-axis-info pass --------------------===//
#include "tegula/Analysis/AxisInfo.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/Transforms/Passes.h"

namespace tegula::tile {
#define GEN_PASS_DEF_TILETESTAXISINFO
#include "tegula/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tegula::tile

using namespace mlir;

namespace {
struct TileTestAxisInfoPass
    : public tegula::tile::impl::TileTestAxisInfoBase<TileTestAxisInfoPass> {
  void runOnOperation() override {
    tegula::ModuleAxisInfo axis(getOperation());
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      Type elem = getElementTypeOrSelf(op->getResult(0).getType());
      if (!isa<IntegerType, tegula::tile::PointerType>(elem))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      axis.get(op->getResult(0)).print(os);
      op->emitRemark() << os.str();
    });
  }
};
} // namespace
