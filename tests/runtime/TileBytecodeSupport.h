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

/// Triton's vector-add tutorial as the front end emits it
/// (tests/lit/Frontend/corpus-vector-add.test), with locations, 4 warps and
/// BLOCK |block|.
inline std::string vectorAddIR(int block) {
  std::string text = R"mlir(
module attributes {tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
  tile.func @add_kernel(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg3: i32) {
    %pid = tile.program_id 0 : i32 loc("vector_add.py":9:11)
    %c = arith.constant BLOCK : i32
    %start = arith.muli %pid, %c : i32 loc("vector_add.py":10:20)
    %range = tile.make_range {end = BLOCK : i32, start = 0 : i32} : tensor<BLOCKxi32> loc("vector_add.py":11:30)
    %sstart = tile.splat %start : i32 -> tensor<BLOCKxi32>
    %offs = arith.addi %sstart, %range : tensor<BLOCKxi32>
    %n = tile.splat %arg3 : i32 -> tensor<BLOCKxi32>
    %mask = arith.cmpi slt, %offs, %n : tensor<BLOCKxi32>
    %xb = tile.splat %arg0 : !tile.ptr<f32> -> tensor<BLOCKx!tile.ptr<f32>>
    %xp = tile.addptr %xb, %offs : tensor<BLOCKx!tile.ptr<f32>>, tensor<BLOCKxi32>
    %x = tile.load %xp, %mask : tensor<BLOCKx!tile.ptr<f32>> loc("vector_add.py":13:8)
    %yb = tile.splat %arg1 : !tile.ptr<f32> -> tensor<BLOCKx!tile.ptr<f32>>
    %yp = tile.addptr %yb, %offs : tensor<BLOCKx!tile.ptr<f32>>, tensor<BLOCKxi32>
    %y = tile.load %yp, %mask : tensor<BLOCKx!tile.ptr<f32>> loc("vector_add.py":14:8)
    %sum = arith.addf %x, %y : tensor<BLOCKxf32> loc("vector_add.py":15:13)
    %ob = tile.splat %arg2 : !tile.ptr<f32> -> tensor<BLOCKx!tile.ptr<f32>>
    %op = tile.addptr %ob, %offs : tensor<BLOCKx!tile.ptr<f32>>, tensor<BLOCKxi32>
    tile.store %op, %sum, %mask : tensor<BLOCKx!tile.ptr<f32>> loc("vector_add.py":16:4)
    tile.return
  } loc("vector_add.py":8:0)
}
)mlir";
  for (size_t at; (at = text.find("BLOCK")) != std::string::npos;)
    text.replace(at, 5, std::to_string(block));
  return text;
}

/// The tile IR |text| as tile bytecode: recorded as dialect |version| when
/// given, verified before writing unless |verify| is false (for tests of
/// what readers do with IR that does not verify). Fails the test and
/// returns "" when the text does not parse.
inline std::string tileBytecode(
    llvm::StringRef text,
    std::unique_ptr<tegula::tile::TileBytecodeVersion> version = nullptr,
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
