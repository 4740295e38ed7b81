//===- TileFuncOps.cpp - tile.func, tile.call and tile.return -------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tegula::tile;

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, ArrayRef<NamedAttribute> attrs,
                   ArrayRef<DictionaryAttr> argAttrs) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.attributes.append(attrs.begin(), attrs.end());
  state.addRegion();
  if (argAttrs.empty())
    return;
  function_interface_impl::addArgAndResultAttrs(
      builder, state, argAttrs, /*resultAttrs=*/std::nullopt,
      getArgAttrsAttrName(state.name), getResAttrsAttrName(state.name));
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  if (isKernel() && !getFunctionType().getResults().empty())
    return emitOpError() << "kernel '" << getSymName()
                         << "' must not return values; only private helpers "
                            "return";
  if (isKernel() && getNoinline())
    return emitOpError() << "kernel '" << getSymName()
                         << "' is public and cannot be noinline";
  return success();
}

LogicalResult ReturnOp::verify() {
  auto func = cast<FuncOp>((*this)->getParentOp());
  auto results = func.getFunctionType().getResults();
  if (getSrcs().size() != results.size())
    return emitOpError() << "returns " << getSrcs().size()
                         << " values but '" << func.getSymName()
                         << "' returns " << results.size();
  for (auto [i, v, t] : llvm::enumerate(getSrcs(), results))
    if (v.getType() != t)
      return emitOpError() << "value " << i << " has type " << v.getType()
                           << " but '" << func.getSymName() << "' returns "
                           << t;
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = getCalleeAttr();
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, callee);
  if (!fn)
    return emitOpError() << "'" << callee.getValue()
                         << "' does not name a tile.func";
  auto type = fn.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError() << "passes " << getNumOperands() << " arguments but '"
                         << callee.getValue() << "' takes "
                         << type.getNumInputs();
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (getOperand(i).getType() != type.getInput(i))
      return emitOpError() << "argument " << i << " has type "
                           << getOperand(i).getType() << " but '"
                           << callee.getValue() << "' expects "
                           << type.getInput(i);
  if (type.getNumResults() != getNumResults())
    return emitOpError() << "expects " << getNumResults() << " results but '"
                         << callee.getValue() << "' returns "
                         << type.getNumResults();
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    if (getResult(i).getType() != type.getResult(i))
      return emitOpError() << "result " << i << " has type "
                           << getResult(i).getType() << " but '"
                           << callee.getValue() << "' returns "
                           << type.getResult(i);
  return success();
}
