//===- SignatureTest.cpp - signatures and Triton dtypes -------------------===//
#include "tegula/Frontend/Semantic.h"
#include "tegula/Frontend/Signature.h"
#include "tegula/Frontend/TritonTypes.h"

#include <gtest/gtest.h>

using namespace tegula::frontend;

namespace {
std::string errorOf(llvm::StringRef sig) {
  auto r = parseSignature(sig);
  if (r)
    return "";
  return llvm::toString(r.takeError());
}

TEST(SignatureTest, ParsesTritonAOTFormat) {
  auto r = parseSignature("*fp32:16, *fp16,i32, i64:16, u32:1, 1024");
  ASSERT_TRUE(!!r) << llvm::toString(r.takeError());
  const auto &s = *r;
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].kind, ArgSpec::Pointer);
  EXPECT_EQ(s[0].dtype, DType(DType::FP32));
  EXPECT_EQ(s[0].divisibility, 16u);
  EXPECT_EQ(s[1].kind, ArgSpec::Pointer);
  EXPECT_EQ(s[1].divisibility, 0u);
  EXPECT_EQ(s[2].kind, ArgSpec::Scalar);
  EXPECT_EQ(s[2].dtype, DType(DType::I32));
  EXPECT_EQ(s[3].divisibility, 16u);
  EXPECT_TRUE(s[4].equalsOne);
  EXPECT_EQ(s[4].dtype, DType(DType::U32));
  EXPECT_EQ(s[5].kind, ArgSpec::Constant);
  EXPECT_EQ(static_cast<int64_t>(s[5].constant.number.i), 1024);
}

TEST(SignatureTest, Constants) {
  auto c = parseConstant("0x10");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(static_cast<int64_t>(c->number.i), 16);
  c = parseConstant("-1.5e-3");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(c->number.kind, PyNum::Float);
  EXPECT_DOUBLE_EQ(c->number.f, -1.5e-3);
  c = parseConstant("True");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(c->number.kind, PyNum::Bool);
  c = parseConstant("tl.bfloat16");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(c->kind, ConstantSpec::DTypeValue);
  EXPECT_EQ(c->dtype, DType(DType::BF16));
  c = parseConstant("'leaky_relu'");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(c->kind, ConstantSpec::String);
  EXPECT_EQ(c->string, "leaky_relu");
  c = parseConstant("None");
  ASSERT_TRUE(!!c);
  EXPECT_EQ(c->kind, ConstantSpec::NoneValue);
}

TEST(SignatureTest, TensorDescriptors) {
  // The commas inside the brackets do not split entries; strings keep theirs.
  auto r = parseSignature(
      "tensordesc<fp16[64, 64]>, tensordesc<fp32[16,32,8], nan>, 'a,b', i32");
  ASSERT_TRUE(!!r) << llvm::toString(r.takeError());
  const auto &s = *r;
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].kind, ArgSpec::TensorDesc);
  EXPECT_EQ(s[0].dtype, DType(DType::FP16));
  EXPECT_EQ(s[0].blockShape, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(s[0].padding, "zero");
  EXPECT_EQ(s[1].blockShape, (std::vector<int64_t>{16, 32, 8}));
  EXPECT_EQ(s[1].padding, "nan");
  EXPECT_EQ(s[2].kind, ArgSpec::Constant);
  EXPECT_EQ(s[2].constant.string, "a,b");
  EXPECT_EQ(s[3].kind, ArgSpec::Scalar);

  EXPECT_NE(errorOf("tensordesc<fp16[64, x]>").find("block dimension 'x'"),
            std::string::npos);
  EXPECT_NE(errorOf("tensordesc<f17[64]>").find("unknown type 'f17'"),
            std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[64], inf>").find("unknown padding 'inf'"),
            std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[1,1,1,1,1,1]>").find("1 to 5 dimensions"),
            std::string::npos);
  EXPECT_NE(errorOf("i32, tensordesc<fp16[64]").find("signature entry 2"),
            std::string::npos);
}

TEST(SignatureTest, Errors) {
  EXPECT_EQ(errorOf("*fp33"), "signature entry 1 '*fp33': unknown type 'fp33'");
  EXPECT_EQ(errorOf("i32, , i32"), "signature entry 2 is empty");
  EXPECT_EQ(errorOf("i32:8"),
            "signature entry 1 'i32:8': unknown specialization ':8' (expected "
            ":16 or :1)");
  EXPECT_EQ(errorOf("*i32:1"),
            "signature entry 1 '*i32:1': unknown specialization ':1' (expected "
            ":16)");
  EXPECT_EQ(errorOf("fp32:16"),
            "signature entry 1 'fp32:16': only integers and pointers take a "
            "specialization");
  EXPECT_EQ(errorOf("i32, banana"),
            "signature entry 2: 'banana' is not a constant (expected an "
            "integer, a float, True, False, None, a dtype or a string)");
  // Beyond 64 bits is not a constant.
  EXPECT_NE(errorOf("123456789012345678901234567890"), "");
}

TEST(DTypeTest, NamesAndWidths) {
  EXPECT_EQ(DType::fromName("float16"), DType(DType::FP16));
  EXPECT_EQ(DType::fromName("u8"), DType(DType::U8));
  EXPECT_FALSE(DType::fromName("fp12").has_value());
  EXPECT_EQ(DType(DType::FP8E4NV).bitWidth(), 8u);
  EXPECT_EQ(DType::pointer(DType::FP32).bitWidth(), 64u);
  EXPECT_EQ(DType::pointer(DType::FP16).str(), "pointer<fp16>");
  EXPECT_EQ(TType(DType::FP32, {128, 64}).str(), "<[128, 64], fp32>");
  EXPECT_EQ(static_cast<int64_t>(DType(DType::I8).intMin()), -128);
  EXPECT_EQ(static_cast<int64_t>(DType(DType::U16).intMax()), 65535);
  // Kinds order bool < int < float; int1 is neither signed nor unsigned
  // in the sense of is_int_signed.
  EXPECT_LT(DType(DType::I1).kindRank(), DType(DType::U8).kindRank());
  EXPECT_LT(DType(DType::I64).kindRank(), DType(DType::FP16).kindRank());
  EXPECT_FALSE(DType(DType::I1).isSignedInt());
}

TEST(DTypeTest, PythonNumbersTakeTritonsTypes) {
  mlir::MLIRContext context;
  mlir::OpBuilder builder(&context);
  Semantic sem(builder);
  EXPECT_EQ(sem.dtypeOf(PyNum::ofInt(7)), DType(DType::I32));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofInt(int64_t(1) << 31)), DType(DType::U32));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofInt(int64_t(1) << 32)), DType(DType::I64));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofInt(static_cast<__int128>(1) << 63)),
            DType(DType::U64));
  EXPECT_THROW(sem.dtypeOf(PyNum::ofInt(static_cast<__int128>(1) << 64)),
               SemanticError);
  EXPECT_EQ(sem.dtypeOf(PyNum::ofBool(true)), DType(DType::I1));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofFloat(1.5)), DType(DType::FP32));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofFloat(1e300)), DType(DType::FP64));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofFloat(1e-300)), DType(DType::FP64));
  EXPECT_EQ(sem.dtypeOf(PyNum::ofFloat(0.0)), DType(DType::FP32));
}
} // namespace
