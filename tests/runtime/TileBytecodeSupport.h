//===- TileBytecodeSupport.h - Tile IR text as bytecode in tests -*- C++ -*-===//

#ifndef TEGULA_TESTS_RUNTIME_TILEBYTECODESUPPORT_H
#define TEGULA_TESTS_RUNTIME_TILEBYTECODESUPPORT_H

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tegula::test {

/// The tile IR |text| as tile bytecode: recorded as dialect |version| when
/// given, verified before writing unless |verify| is false (for tests of
/// what readers do with IR that does not verify). Fails the test and
/// returns "" when the text does not parse.
inline std::string
tileBytecode(const char *text,
             std::unique_ptr<tegula::tile::TileBytecodeVersion> version =
                 nullptr,
             bool verify = true) {
  mlir::MLIRContext context;
  context.loadDialect<tegula::tile::TileDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          text, mlir::ParserConfig(&context, verify));
  if (!module) {
    ADD_FAILURE() << "the test's tile IR does not parse";
    return "";
  }
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (mlir::failed(
          tegula::tile::writeTileBytecode(*module, os, std::move(version))))
    ADD_FAILURE() << "writing bytecode failed";
  os.flush();
  return bytes;
}

} // namespace tegula::test

#endif // TEGULA_TESTS_RUNTIME_TILEBYTECODESUPPORT_H
