//===- TileBytecodeTest.cpp - the tile dialect version in bytecode --------===//
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tegula::tile;

namespace {
constexpr const char *kKernel = R"mlir(
tile.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %a : tensor<64x!tile.ptr<f32>>
  tile.store %a, %v : tensor<64x!tile.ptr<f32>>
  tile.return
}
)mlir";

class TileBytecodeTest : public ::testing::Test {
protected:
  TileBytecodeTest() { context.loadDialect<TileDialect>(); }

  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// Reads |bytes| back; returns null and fills |error| on failure.
  OwningOpRef<ModuleOp> read(const std::string &bytes, std::string &error) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      error += diag.str();
      return success();
    });
    Block block;
    llvm::MemoryBufferRef buffer(bytes, "test");
    if (failed(readBytecodeFile(buffer, &block, ParserConfig(&context))))
      return nullptr;
    if (block.empty())
      return nullptr;
    auto module = dyn_cast<ModuleOp>(&block.front());
    if (!module)
      return nullptr;
    module->remove();
    return OwningOpRef<ModuleOp>(module);
  }

  static std::string print(Operation *op) {
    std::string s;
    llvm::raw_string_ostream os(s);
    op->print(os, OpPrintingFlags().printGenericOpForm());
    return s;
  }

  MLIRContext context;
};

TEST_F(TileBytecodeTest, RoundTripsWithCurrentVersion) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(writeTileBytecode(*module, os)));
  os.flush();
  std::string error;
  auto back = read(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(print(*module), print(*back));
}

TEST_F(TileBytecodeTest, AcceptsOlderMinorOfSameMajor) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(writeTileBytecode(
      *module, os,
      std::make_unique<TileBytecodeVersion>(TileDialectVersion::kMajor, 0))));
  os.flush();
  std::string error;
  EXPECT_TRUE(read(bytes, error)) << error;
}

TEST_F(TileBytecodeTest, RefusesNewerMinor) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(writeTileBytecode(
      *module, os,
      std::make_unique<TileBytecodeVersion>(TileDialectVersion::kMajor,
                                            TileDialectVersion::kMinor + 1))));
  os.flush();
  std::string error;
  EXPECT_FALSE(read(bytes, error));
  EXPECT_NE(error.find("tile dialect version 1.1 is not supported by this "
                       "reader (it reads 1.0 to 1.0)"),
            std::string::npos)
      << error;
}

TEST_F(TileBytecodeTest, RefusesOtherMajor) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  for (uint64_t major : {uint64_t(0), uint64_t(TileDialectVersion::kMajor + 1)}) {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    ASSERT_TRUE(succeeded(writeTileBytecode(
        *module, os, std::make_unique<TileBytecodeVersion>(major, 0))));
    os.flush();
    std::string error;
    EXPECT_FALSE(read(bytes, error)) << "major " << major;
    EXPECT_NE(error.find("tile dialect version " + std::to_string(major) +
                         ".0 is not supported"),
              std::string::npos)
        << error;
  }
}

TEST_F(TileBytecodeTest, TruncatedBytecodeFailsCleanly) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(writeTileBytecode(*module, os)));
  os.flush();
  // Every prefix must be refused with an error, never crash.
  for (size_t len = 0; len < bytes.size(); len += 7) {
    std::string error;
    EXPECT_FALSE(read(bytes.substr(0, len), error)) << "prefix " << len;
  }
}
} // namespace
