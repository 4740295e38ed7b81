//===- TileTypes.cpp - types and attributes of the tile dialect -----------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tegula::tile;

#include "tegula/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tegula/Dialect/Tile/IR/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tegula/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tegula/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tegula/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PointerType
//===----------------------------------------------------------------------===//

/// `!tile.ptr<pointee>` or `!tile.ptr<pointee, addressSpace>`.
Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = 1;
  if (parser.parseLess() || parser.parseType(pointee))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseInteger(addressSpace))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PointerType>(pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != 1)
    printer << ", " << getAddressSpace();
  printer << ">";
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointee, int addressSpace) {
  if (addressSpace < 0)
    return emitError() << "address space must not be negative, got "
                       << addressSpace;
  if (auto tensor = ::mlir::dyn_cast<RankedTensorType>(pointee)) {
    if (!tensor.hasStaticShape())
      return emitError() << "a block pointer points to a tensor of static "
                            "shape, not "
                         << pointee;
    Type elem = tensor.getElementType();
    if (!elem.isIntOrFloat())
      return emitError() << "a block pointer points to a tensor of integers "
                            "or floats, not "
                         << pointee;
    return success();
  }
  if (!pointee.isIntOrFloat() && !::mlir::isa<PointerType>(pointee))
    return emitError() << "pointee must be an integer, float, pointer or "
                          "ranked tensor type, not "
                       << pointee;
  return success();
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

Type tegula::tile::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), i1, tensor.getEncoding());
  return i1;
}

Type tegula::tile::getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    if (!ptr)
      return type;
    return RankedTensorType::get(tensor.getShape(), ptr.getPointeeType(),
                                 tensor.getEncoding());
  }
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return type;
}

Type tegula::tile::getBlockBaseType(Type type) {
  auto ptr = dyn_cast<PointerType>(type);
  if (!ptr || !ptr.isBlockPointer())
    return type;
  return PointerType::get(
      cast<RankedTensorType>(ptr.getPointeeType()).getElementType(),
      ptr.getAddressSpace());
}

unsigned tegula::tile::getScalarBitWidth(Type type) {
  if (isa<PointerType>(type))
    return 64;
  return type.getIntOrFloatBitWidth();
}
