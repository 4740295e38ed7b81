//===- TileTypesTest.cpp - tile types and their helpers -------------------===//
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tegula::tile;

namespace {
class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() : builder(&context) { context.loadDialect<TileDialect>(); }
  MLIRContext context;
  Builder builder;
};

TEST_F(TileTypesTest, PointerDefaultsToGlobalAddressSpace) {
  auto ptr = PointerType::get(builder.getF32Type());
  EXPECT_EQ(ptr.getAddressSpace(), 1);
  EXPECT_FALSE(ptr.isBlockPointer());
  auto block = PointerType::get(
      RankedTensorType::get({64, 32}, builder.getF16Type()), 1);
  EXPECT_TRUE(block.isBlockPointer());
}

TEST_F(TileTypesTest, PointeeOfTensorOfPointers) {
  auto ptr = PointerType::get(builder.getF16Type());
  auto ptrs = RankedTensorType::get({8, 4}, ptr);
  EXPECT_EQ(getPointeeType(ptrs),
            RankedTensorType::get({8, 4}, builder.getF16Type()));
  EXPECT_EQ(getPointeeType(ptr), builder.getF16Type());
  // Not a pointer: returned unchanged so the verifier reports it.
  EXPECT_EQ(getPointeeType(builder.getI32Type()), builder.getI32Type());
}

TEST_F(TileTypesTest, BlockBaseType) {
  auto block = PointerType::get(
      RankedTensorType::get({16}, builder.getBF16Type()), 3);
  EXPECT_EQ(getBlockBaseType(block), PointerType::get(builder.getBF16Type(), 3));
}

TEST_F(TileTypesTest, I1SameShapeKeepsShape) {
  auto t = RankedTensorType::get({2, 3}, builder.getF32Type());
  EXPECT_EQ(getI1SameShape(t), RankedTensorType::get({2, 3}, builder.getI1Type()));
  EXPECT_EQ(getI1SameShape(builder.getF32Type()), builder.getI1Type());
}

TEST_F(TileTypesTest, PointersAre64BitsWide) {
  EXPECT_EQ(getScalarBitWidth(PointerType::get(builder.getI8Type())), 64u);
  EXPECT_EQ(getScalarBitWidth(builder.getF16Type()), 16u);
}

TEST_F(TileTypesTest, NegativeAddressSpaceIsRefused) {
  std::string error;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    error = diag.str();
    return success();
  });
  auto bad = PointerType::getChecked(
      [&] { return emitError(UnknownLoc::get(&context)); },
      builder.getF32Type(), -1);
  EXPECT_FALSE(bad);
  EXPECT_EQ(error, "address space must not be negative, got -1");
}
} // namespace
