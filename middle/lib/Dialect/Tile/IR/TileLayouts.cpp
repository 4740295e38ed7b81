//===- TileLayouts.cpp - layout attributes and tile.convert_layout --------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tegula::tile;

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
tegula::tile::parseLayoutArray(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(values.emplace_back());
      }))
    return failure();
  return values;
}

void tegula::tile::printLayoutArray(AsmPrinter &printer,
                                    ArrayRef<int64_t> values) {
  printer << "[";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
bool isPowerOf2(int64_t v) {
  return v > 0 && llvm::isPowerOf2_64(static_cast<uint64_t>(v));
}

/// Checks that the scalar parameter |name| is a positive power of 2.
LogicalResult verifyPow2(function_ref<InFlightDiagnostic()> emitError,
                         StringRef name, int64_t v) {
  if (!isPowerOf2(v))
    return emitError() << "'" << name << "' must be a positive power of 2, got "
                       << v;
  return success();
}

/// Checks that every entry of the array parameter |name| is a positive
/// power of 2.
LogicalResult verifyPow2Array(function_ref<InFlightDiagnostic()> emitError,
                              StringRef name, ArrayRef<int64_t> values) {
  for (int64_t v : values)
    if (!isPowerOf2(v))
      return emitError() << "'" << name
                         << "' entries must be positive powers of 2, got " << v;
  return success();
}

/// Checks that |order| is a permutation of [0, order.size()).
LogicalResult verifyOrder(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> order) {
  SmallVector<bool> seen(order.size(), false);
  for (int64_t d : order) {
    if (d < 0 || d >= static_cast<int64_t>(order.size()) || seen[d]) {
      InFlightDiagnostic diag = emitError();
      diag << "'order' must be a permutation of 0.." << order.size()
           << ", got [";
      llvm::interleaveComma(order, diag);
      return diag << "]";
    }
    seen[d] = true;
  }
  return success();
}
} // namespace

int64_t tegula::tile::getLayoutRank(Attribute layout) {
  if (!layout)
    return -1;
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout))
    return blocked.getRank();
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    int64_t parent = getLayoutRank(slice.getParent());
    return parent < 0 ? -1 : parent - 1;
  }
  if (auto matrix = dyn_cast<MatrixLayoutAttr>(layout))
    return matrix.getRank();
  if (auto operand = dyn_cast<DotOperandLayoutAttr>(layout))
    return getLayoutRank(operand.getParent());
  if (auto shared = dyn_cast<SharedLayoutAttr>(layout))
    return shared.getRank();
  return -1;
}

bool tegula::tile::isDistributedLayout(Attribute layout) {
  return isa_and_nonnull<BlockedLayoutAttr, SliceLayoutAttr, MatrixLayoutAttr,
                         DotOperandLayoutAttr>(layout);
}

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> sizePerThread,
                          ArrayRef<int64_t> threadsPerWarp,
                          ArrayRef<int64_t> warpsPerCTA,
                          ArrayRef<int64_t> order) {
  size_t rank = order.size();
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp, warpsPerCTA and "
                          "order must have the same rank, got "
                       << sizePerThread.size() << ", " << threadsPerWarp.size()
                       << ", " << warpsPerCTA.size() << " and " << rank;
  if (failed(verifyPow2Array(emitError, "sizePerThread", sizePerThread)) ||
      failed(verifyPow2Array(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(verifyPow2Array(emitError, "warpsPerCTA", warpsPerCTA)))
    return failure();
  return verifyOrder(emitError, order);
}

int64_t BlockedLayoutAttr::getTotalThreadsPerWarp() const {
  int64_t total = 1;
  for (int64_t v : getThreadsPerWarp())
    total *= v;
  return total;
}

int64_t BlockedLayoutAttr::getTotalWarps() const {
  int64_t total = 1;
  for (int64_t v : getWarpsPerCTA())
    total *= v;
  return total;
}

//===----------------------------------------------------------------------===//
// #tile.slice
//===----------------------------------------------------------------------===//

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t dim, Attribute parent) {
  if (!isDistributedLayout(parent))
    return emitError() << "parent of a slice must be a distributed layout, got "
                       << parent;
  int64_t rank = getLayoutRank(parent);
  if (dim < 0 || dim >= rank)
    return emitError() << "dim must be in [0, " << rank
                       << ") for a parent of rank " << rank << ", got " << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.matrix
//===----------------------------------------------------------------------===//

LogicalResult
MatrixLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringRef kind, ArrayRef<int64_t> version,
                         ArrayRef<int64_t> warpsPerCTA,
                         ArrayRef<int64_t> instrShape) {
  if (kind.empty())
    return emitError() << "kind must not be empty";
  for (int64_t v : version)
    if (v < 0)
      return emitError() << "'version' entries must not be negative, got " << v;
  if (warpsPerCTA.empty())
    return emitError() << "'warpsPerCTA' must have one entry per dimension";
  if (failed(verifyPow2Array(emitError, "warpsPerCTA", warpsPerCTA)))
    return failure();
  for (int64_t v : instrShape)
    if (v <= 0)
      return emitError() << "'instrShape' entries must be positive, got " << v;
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.dot_operand
//===----------------------------------------------------------------------===//

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             int64_t opIdx, Attribute parent, int64_t kWidth) {
  if (opIdx != 0 && opIdx != 1)
    return emitError() << "opIdx must be 0 or 1, got " << opIdx;
  if (!::mlir::isa<MatrixLayoutAttr, BlockedLayoutAttr>(parent))
    return emitError()
           << "parent of a dot operand must be a #tile.matrix or "
              "#tile.blocked layout, got "
           << parent;
  if (::mlir::isa<BlockedLayoutAttr>(parent) && kWidth == 0)
    return success();
  if (!isPowerOf2(kWidth))
    return emitError() << "kWidth must be a positive power of 2 (or 0 for a "
                          "blocked parent), got "
                       << kWidth;
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.shared
//===----------------------------------------------------------------------===//

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t vec, int64_t perPhase, int64_t maxPhase,
                         ArrayRef<int64_t> order) {
  if (failed(verifyPow2(emitError, "vec", vec)) ||
      failed(verifyPow2(emitError, "perPhase", perPhase)) ||
      failed(verifyPow2(emitError, "maxPhase", maxPhase)))
    return failure();
  return verifyOrder(emitError, order);
}

//===----------------------------------------------------------------------===//
// tile.convert_layout
//===----------------------------------------------------------------------===//

namespace {
/// Checks that the encoding of |type|, when it is a tile layout, has the
/// rank of |type|.
LogicalResult verifyEncodingRank(Operation *op, StringRef what,
                                 RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  if (!encoding)
    return success();
  int64_t rank = getLayoutRank(encoding);
  if (rank < 0)
    return success();
  if (rank != type.getRank())
    return op->emitOpError() << "layout of the " << what << " has rank "
                             << rank << " but the tensor has rank "
                             << type.getRank();
  return success();
}
} // namespace

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (srcType.getShape() != resultType.getShape())
    return emitOpError() << "source and result must have the same shape, got "
                         << srcType << " and " << resultType;
  if (srcType.getElementType() != resultType.getElementType())
    return emitOpError()
           << "source and result must have the same element type, got "
           << srcType.getElementType() << " and "
           << resultType.getElementType();
  if (failed(verifyEncodingRank(*this, "source", srcType)) ||
      failed(verifyEncodingRank(*this, "result", resultType)))
    return failure();
  return success();
}
