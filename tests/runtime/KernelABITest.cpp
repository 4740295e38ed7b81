//===- KernelABITest.cpp - Argument packing ---------------------------------===//
//
// The packed layout is an ABI every plugin unpacks: these tests pin it.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <cstring>

using namespace tegula;
using namespace tegula::test;

namespace {

tg_kernel_metadata metadataFor(const std::vector<tg_kernel_arg> &args) {
  tg_kernel_metadata meta{};
  meta.struct_size = sizeof(meta);
  meta.name = "k";
  meta.target = "testdev:testarch";
  meta.num_args = static_cast<uint32_t>(args.size());
  meta.args = args.data();
  meta.specialization = "";
  return meta;
}

TEST(KernelABI, ScalarSizes) {
  EXPECT_EQ(tegula_scalar_type_size(TG_TYPE_I1), 1u);
  EXPECT_EQ(tegula_scalar_type_size(TG_TYPE_FP8E5M2), 1u);
  EXPECT_EQ(tegula_scalar_type_size(TG_TYPE_BF16), 2u);
  EXPECT_EQ(tegula_scalar_type_size(TG_TYPE_U32), 4u);
  EXPECT_EQ(tegula_scalar_type_size(TG_TYPE_F64), 8u);
  EXPECT_EQ(tegula_scalar_type_size(0), 0u);
  EXPECT_EQ(tegula_scalar_type_size(999), 0u);
}

TEST(KernelABI, EachArgumentAtAMultipleOfItsSize) {
  std::vector<tg_kernel_arg> args = {
      {"p", TG_ARG_POINTER, TG_TYPE_F32, 16, 0},
      {"a", TG_ARG_SCALAR, TG_TYPE_I8, 0, 0},
      {"b", TG_ARG_SCALAR, TG_TYPE_F16, 0, 0},
      {"c", TG_ARG_SCALAR, TG_TYPE_I32, 0, 0},
      {"d", TG_ARG_SCALAR, TG_TYPE_I1, 0, 0},
      {"e", TG_ARG_SCALAR, TG_TYPE_F64, 0, 0},
      {"f", TG_ARG_SCALAR, TG_TYPE_I16, 0, 0},
  };
  tg_kernel_metadata meta = metadataFor(args);
  size_t offsets[7], size = 0;
  ASSERT_EQ(tegula_args_layout(&meta, offsets, &size), nullptr);
  EXPECT_EQ(std::vector<size_t>(offsets, offsets + 7),
            (std::vector<size_t>{0, 8, 10, 12, 16, 24, 32}));
  EXPECT_EQ(size, 40u); // 34 rounded up to 8.

  uint64_t p = 0x1122334455667788ull;
  int8_t a = -3;
  uint16_t b = 0x3C00; // 1.0 in f16
  int32_t c = -123456;
  uint8_t d = 7; // Any non-zero is true; packed as exactly 1.
  double e = 2.5;
  int16_t f = -2;
  const void *values[] = {&p, &a, &b, &c, &d, &e, &f};
  std::vector<uint8_t> packed(64, 0xAA);
  size_t used = 0;
  ASSERT_EQ(tegula_args_pack(&meta, values, packed.data(), packed.size(), &used),
            nullptr);
  EXPECT_EQ(used, 40u);
  auto at = [&](size_t offset, const void *value, size_t n) {
    return std::memcmp(packed.data() + offset, value, n) == 0;
  };
  EXPECT_TRUE(at(0, &p, 8));
  EXPECT_TRUE(at(8, &a, 1));
  EXPECT_EQ(packed[9], 0); // Padding is zeroed.
  EXPECT_TRUE(at(10, &b, 2));
  EXPECT_TRUE(at(12, &c, 4));
  EXPECT_EQ(packed[16], 1);
  EXPECT_TRUE(at(24, &e, 8));
  EXPECT_TRUE(at(32, &f, 2));
  EXPECT_EQ(packed[39], 0);
  EXPECT_EQ(packed[40], 0xAA); // Nothing written past the packed size.
}

TEST(KernelABI, ArgPackMatchesTheCPacker) {
  std::vector<tg_kernel_arg> args = {
      {"a", TG_ARG_SCALAR, TG_TYPE_F32, 0, 0},
      {"n", TG_ARG_SCALAR, TG_TYPE_I64, 0, 0},
      {"x", TG_ARG_SCALAR, TG_TYPE_U8, 0, 0},
  };
  tg_kernel_metadata meta = metadataFor(args);
  float a = 1.5f;
  int64_t n = -9;
  uint8_t x = 200;
  const void *values[] = {&a, &n, &x};
  uint8_t packed[32];
  size_t used = 0;
  ASSERT_EQ(tegula_args_pack(&meta, values, packed, sizeof(packed), &used),
            nullptr);
  ArgPack pack(&meta);
  pack.add(a).add(n).add(x);
  const std::vector<uint8_t> &bytes = pack.bytes();
  ASSERT_EQ(bytes.size(), used);
  EXPECT_EQ(std::memcmp(bytes.data(), packed, used), 0);
}

TEST(KernelABI, MistakesAreErrors) {
  std::vector<tg_kernel_arg> args = {{"a", TG_ARG_SCALAR, TG_TYPE_I32, 0, 0},
                                     {"b", 7, TG_TYPE_I32, 0, 0}};
  tg_kernel_metadata meta = metadataFor(args);
  size_t size = 0;
  tegula_error_t *e = tegula_args_layout(&meta, nullptr, &size);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(takeMessage(e), "argument 1 (b): unknown kind 7");

  args[1] = {"b", TG_ARG_SCALAR, 99, 0, 0};
  e = tegula_args_layout(&meta, nullptr, &size);
  EXPECT_EQ(takeMessage(e), "argument 1 (b): unknown scalar type 99");

  args[1] = {"b", TG_ARG_SCALAR, TG_TYPE_I64, 0, 0};
  int32_t a = 1;
  int64_t b = 2;
  const void *values[] = {&a, &b};
  uint8_t small[8];
  e = tegula_args_pack(&meta, values, small, sizeof(small), &size);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(takeMessage(e), "tegula_args_pack: 16 bytes needed, 8 available");
  EXPECT_EQ(size, 16u); // The size needed, to retry with.

  const void *missing[] = {&a, nullptr};
  uint8_t enough[16];
  e = tegula_args_pack(&meta, missing, enough, sizeof(enough), &size);
  EXPECT_EQ(takeMessage(e), "tegula_args_pack: no value for argument 1");

  ArgPack pack(&meta);
  Error error = expectError([&] { pack.add(1.0f); }); // a float for an i32
  EXPECT_STREQ(error.what(),
               "argument 0 (a) does not match the kernel's signature");
  ArgPack wrong(&meta);
  wrong.add(int32_t(1));
  error = expectError([&] { wrong.add(int32_t(2)); }); // i64 expected
  EXPECT_STREQ(error.what(),
               "argument 1 (b) does not match the kernel's signature");
  ArgPack short_(&meta);
  short_.add(int32_t(1));
  error = expectError([&] { short_.bytes(); });
  EXPECT_STREQ(error.what(), "kernel k takes 2 arguments, got 1");
}

} // namespace
