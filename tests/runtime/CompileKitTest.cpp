//===- CompileKitTest.cpp - What the kit gives every backend's compile ----===//
//
// The image container (round trips, and every way bytes can fail to be an
// image), the external-tool runner (real programs: /bin/sh), the kernel
// ABI's argument packing, and the compile pipeline of TileCompile.h from
// bytecode to LLVM IR with test hooks.
//
//===----------------------------------------------------------------------===//

#include "TileBytecodeSupport.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/ExternalTool.h"
#include "tegula/BackendKit/HookSupport.h"
#include "tegula/BackendKit/KernelImage.h"
#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/BackendKit/TargetHooks.h"
#include "tegula/BackendKit/TileCompile.h"
#include "tegula/BackendKit/VendorLibrary.h"
#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/plugin_support.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

using namespace tegula::backend;
using tegula::test::tileBytecode;

namespace {

//===-- KernelImage ------------------------------------------------------------===//

const KernelImageFormat kFormat = {"TGTESTK", 3, 2, "test kernel image",
                                   "the test plugin"};

std::string sample() {
  llvm::json::Object header{{"kernel", "k"}, {"count", 7}};
  return writeKernelImage(kFormat, std::move(header),
                          {llvm::StringRef("first"), llvm::StringRef("")});
}

std::string readError(const std::string &bytes) {
  llvm::Expected<KernelImageView> view =
      readKernelImage(kFormat, bytes.data(), bytes.size());
  return view ? "accepted" : llvm::toString(view.takeError());
}

TEST(KernelImage, RoundTripsHeaderAndPayloads) {
  std::string bytes = sample();
  // magic, version, JSON size, two payload sizes.
  ASSERT_GT(bytes.size(), 32u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("TGTESTK\0", 8));
  llvm::Expected<KernelImageView> view =
      readKernelImage(kFormat, bytes.data(), bytes.size());
  ASSERT_TRUE(bool(view)) << llvm::toString(view.takeError());
  ASSERT_EQ(view->payloads.size(), 2u);
  EXPECT_EQ(view->payloads[0], "first");
  EXPECT_EQ(view->payloads[1], "");
  ImageHeader header(kFormat, view->header);
  EXPECT_EQ(header.string("kernel", true), "k");
  EXPECT_EQ(header.integer("count", 1, 10), 7u);
  EXPECT_EQ(header.integerOr("absent", 42, 1, 100), 42u);
  EXPECT_FALSE(bool(header.error()));
}

TEST(KernelImage, RefusesWhatIsNotAnImageOfItsFormat) {
  std::string bytes = sample();
  EXPECT_EQ(readError(bytes.substr(0, 10)),
            "invalid test kernel image: it is 10 bytes, shorter than the "
            "32-byte header");
  EXPECT_EQ(readError("").rfind("invalid test kernel image: it is 0 bytes", 0),
            0u);
  std::string other = bytes;
  other[1] = 'X';
  EXPECT_EQ(readError(other), "invalid test kernel image: no TGTESTK magic "
                              "(not made by the test plugin)");
  std::string newer = bytes;
  newer[8] = 4;
  EXPECT_EQ(readError(newer), "test kernel image format version 4 is not "
                              "supported (this plugin reads version 3)");
  EXPECT_EQ(readError(bytes.substr(0, bytes.size() - 1))
                .rfind("invalid test kernel image: the header announces ", 0),
            0u);
  EXPECT_EQ(readError(bytes + "x")
                .rfind("invalid test kernel image: the header announces ", 0),
            0u);
  // Payload sizes whose sum wraps around 2^64 are refused, not trusted.
  std::string huge = bytes;
  for (int i = 16; i < 24; ++i)
    huge[i] = '\xff';
  EXPECT_EQ(readError(huge).rfind(
                "invalid test kernel image: the header announces ", 0),
            0u);
  std::string notObject = writeKernelImage(kFormat, {}, {"a", "b"});
  // "{}" -> "[]": JSON, but not an object.
  notObject[32] = '[';
  notObject[33] = ']';
  EXPECT_EQ(readError(notObject),
            "invalid test kernel image: the JSON header is not an object");
  notObject[32] = '{';
  notObject[33] = '!';
  EXPECT_EQ(readError(notObject).rfind(
                "invalid test kernel image: bad JSON header: ", 0),
            0u);
}

TEST(KernelImage, HeaderNamesTheFirstBadField) {
  llvm::json::Object fields{{"name", ""},
                            {"big", 2000},
                            {"sizes", llvm::json::Array{4, 3}},
                            {"words", llvm::json::Array{"a", 1}}};
  {
    ImageHeader header(kFormat, fields);
    header.string("name", /*nonEmpty=*/true);
    header.integer("big", 0, 1024);
    EXPECT_EQ(llvm::toString(header.error()),
              "invalid test kernel image: the JSON header's \"name\" is "
              "missing or not a non-empty string");
  }
  {
    ImageHeader header(kFormat, fields);
    header.integer("big", 0, 1024);
    EXPECT_EQ(llvm::toString(header.error()),
              "invalid test kernel image: the JSON header's \"big\" is "
              "missing or not an integer from 0 to 1024");
  }
  {
    ImageHeader header(kFormat, fields);
    EXPECT_TRUE(header.integers("sizes", {1, 2, 4, 8}).empty());
    EXPECT_EQ(llvm::toString(header.error()),
              "invalid test kernel image: the JSON header's \"sizes\" is "
              "missing or not an array of 1, 2, 4, 8");
  }
  {
    ImageHeader header(kFormat, fields);
    EXPECT_TRUE(header.strings("words").empty());
    header.string("missing");
    EXPECT_EQ(llvm::toString(header.error()),
              "invalid test kernel image: the JSON header's \"words\" is "
              "missing or not an array of strings");
  }
}

/// A GPU image of the test format: the launch fields, an optional field
/// and two checked payloads.
struct TestImage : LaunchFields {
  static constexpr KernelImageFormat kFormat = {
      "TGTESTK", /*version=*/3, /*numPayloads=*/2, "test kernel image",
      "the test"};
  uint32_t lanes = 32;
  uint64_t extra = 7;
  std::string code;
  std::string data;
  template <typename Fields> void visit(Fields &fields) {
    LaunchFields::visit(fields);
    fields.oneOf("lanes", lanes, {32, 64});
    fields.integerOr("extra", extra, 7, 0, 100);
    fields.payload(code, "code", /*minSize=*/4, /*prefix=*/"CODE");
    fields.payload(data, "data");
  }
};

TEST(KernelImage, ImageFieldsRoundTrip) {
  TestImage image;
  image.kernelName = "scale";
  image.target = "test:x1";
  image.arch = "x1a";
  image.numWarps = 8;
  image.sharedBytes = 4096;
  image.argSizes = {8, 4, 2, 1};
  image.lanes = 64;
  image.extra = 9;
  image.code = "CODE and more";
  std::string bytes = writeImage(image);
  llvm::Expected<TestImage> read =
      readImage<TestImage>(bytes.data(), bytes.size());
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->kernelName, "scale");
  EXPECT_EQ(read->target, "test:x1");
  EXPECT_EQ(read->arch, "x1a");
  EXPECT_EQ(read->numWarps, 8u);
  EXPECT_EQ(read->sharedBytes, 4096u);
  EXPECT_EQ(read->argSizes, (std::vector<uint32_t>{8, 4, 2, 1}));
  EXPECT_EQ(read->lanes, 64u);
  EXPECT_EQ(read->extra, 9u);
  EXPECT_EQ(read->code, "CODE and more");
  EXPECT_EQ(read->data, "");

  auto error = [](const TestImage &image) {
    std::string bytes = writeImage(image);
    llvm::Expected<TestImage> read =
        readImage<TestImage>(bytes.data(), bytes.size());
    return read ? std::string("accepted") : llvm::toString(read.takeError());
  };
  TestImage bad = image;
  bad.numWarps = 0;
  EXPECT_EQ(error(bad), "invalid test kernel image: the JSON header's "
                        "\"num_warps\" is missing or not an integer from 1 "
                        "to 1024");
  bad = image;
  bad.lanes = 48;
  EXPECT_EQ(error(bad), "invalid test kernel image: the JSON header's "
                        "\"lanes\" is missing or not 32 or 64");
  bad = image;
  bad.code = "COD";
  EXPECT_EQ(error(bad), "invalid test kernel image: the payload is not code");
  bad.code = "ELF and more";
  EXPECT_EQ(error(bad), "invalid test kernel image: the payload is not code");

  // An absent optional field reads as its fallback.
  ImageWriter writer;
  image.visit(writer);
  writer.header.erase("extra");
  bytes = writeKernelImage(TestImage::kFormat, std::move(writer.header),
                           writer.payloads);
  read = readImage<TestImage>(bytes.data(), bytes.size());
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->extra, 7u);
}

//===-- Argument packing ---------------------------------------------------------===//

TEST(KernelABI, PacksEachArgumentAtAMultipleOfItsSize) {
  using tegula::plugin::packArgumentOffsets;
  using tegula::plugin::packedArgumentSize;
  uint32_t sizes[] = {8, 4, 2, 1, 8, 1, 4};
  size_t offsets[7];
  EXPECT_EQ(packArgumentOffsets(sizes, 7, offsets), 32u);
  EXPECT_EQ(std::vector<size_t>(offsets, offsets + 7),
            (std::vector<size_t>{0, 8, 12, 14, 16, 24, 28}));
  uint32_t one[] = {1};
  EXPECT_EQ(packArgumentOffsets(one, 1, nullptr), 8u);
  EXPECT_EQ(packArgumentOffsets(nullptr, 0, nullptr), 0u);
  EXPECT_EQ(packedArgumentSize(TG_ARG_POINTER, TG_TYPE_I8), 8u);
  EXPECT_EQ(packedArgumentSize(TG_ARG_SCALAR, TG_TYPE_BF16), 2u);
  EXPECT_EQ(packedArgumentSize(TG_ARG_SCALAR, TG_TYPE_I1), 1u);
}

TEST(KernelABI, KernelParamsPointAtEachPackedArgument) {
  // An i8, a pointer and an f32: offsets 0, 8, 16; 24 bytes packed.
  tegula::plugin::KernelArguments arguments({1, 8, 4});
  EXPECT_EQ(arguments.packedSize(), 24u);
  unsigned char packed[24];
  for (unsigned i = 0; i < sizeof(packed); ++i)
    packed[i] = static_cast<unsigned char>(0xA0 + i);
  std::vector<uint64_t> storage;
  std::vector<void *> params = arguments.pointers(packed, storage);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(storage.data()) % 8, 0u);
  EXPECT_EQ(*static_cast<unsigned char *>(params[0]), 0xA0);
  uint64_t pointer;
  std::memcpy(&pointer, params[1], 8);
  uint64_t expected;
  std::memcpy(&expected, packed + 8, 8);
  EXPECT_EQ(pointer, expected);
  EXPECT_EQ(static_cast<unsigned char *>(params[2]) -
                static_cast<unsigned char *>(params[0]),
            16);
  EXPECT_TRUE(tegula::plugin::KernelArguments({})
                  .pointers(nullptr, storage)
                  .empty());
}

TEST(LaunchLog, NamesEachKernelOnceUntilTaken) {
  tegula::plugin::LaunchLog log;
  EXPECT_EQ(log.take(), "");
  log.note("add");
  log.note("softmax");
  log.note("add");
  EXPECT_EQ(log.take(), "add, softmax");
  EXPECT_EQ(log.take(), "");
  for (int i = 0; i < 100; ++i)
    log.note("kernel_" + std::to_string(i));
  std::string many = log.take();
  EXPECT_LT(many.size(), 230u);
  EXPECT_EQ(many.substr(many.size() - 5), ", ...");
  log.note("after");
  EXPECT_EQ(log.take(), "after");
}

//===-- Vendor libraries --------------------------------------------------------===//

/// libc as a vendor library: one required entry point it has.
struct LibcTable {
  static inline int loads = 0;
  size_t (*strlen)(const char *) = nullptr;
  std::string load() {
    ++loads;
    tegula::backend::VendorLibrary library("C library");
    if (!library.open({"libno-such-vendor.so.1", "libc.so.6"}))
      return library.error();
    library.resolve(strlen, {"no_such_symbol", "strlen"});
    return library.error();
  }
};

/// A table whose library is missing.
struct MissingTable {
  void (*entry)() = nullptr;
  std::string load() {
    tegula::backend::VendorLibrary library("ACME driver");
    if (!library.open({"libno-such-vendor.so.1"}))
      return library.error();
    return "";
  }
};

/// A table whose library lacks a required entry point.
struct LackingTable {
  void (*entry)() = nullptr;
  std::string load() {
    tegula::backend::VendorLibrary library("C library");
    library.open({"libc.so.6"});
    library.resolve(entry, {"no_such_symbol_v2", "no_such_symbol"});
    return library.error();
  }
};

TEST(VendorLibrary, TablesLoadOnceFromTheFirstNameThatResolves) {
  std::string why = "stale";
  const LibcTable *table = tegula::backend::loadVendorTableOnce<LibcTable>(why);
  ASSERT_NE(table, nullptr) << why;
  EXPECT_EQ(why, "");
  EXPECT_EQ(table->strlen("four"), 4u);
  EXPECT_EQ(tegula::backend::loadVendorTableOnce<LibcTable>(why), table);
  EXPECT_EQ(LibcTable::loads, 1);

  EXPECT_EQ(tegula::backend::loadVendorTableOnce<MissingTable>(why), nullptr);
  EXPECT_EQ(why.rfind("no ACME driver found (", 0), 0u) << why;
  EXPECT_NE(why.find("libno-such-vendor.so.1"), std::string::npos) << why;

  EXPECT_EQ(tegula::backend::loadVendorTableOnce<LackingTable>(why), nullptr);
  EXPECT_EQ(why, "the C library (libc.so.6) lacks no_such_symbol_v2");
}

//===-- Launch checks -------------------------------------------------------------===//

TEST(LaunchCheck, RefusesWhatTheCodeOrDeviceCannotRun) {
  using tegula::plugin::checkLaunch;
  using tegula::plugin::LaunchLimits;
  using tegula::plugin::LaunchRequest;
  LaunchLimits limits;
  limits.maxGrid[0] = 100;
  limits.maxGrid[1] = limits.maxGrid[2] = 10;
  limits.block[0] = 128;
  limits.block[1] = limits.block[2] = 1;
  limits.blockDescription = "4 warps of 32";
  limits.packedArgsSize = 16;
  limits.sharedBytes = 1000;
  limits.maxSharedBytes = 4096;
  uint64_t args[2] = {0, 0};
  LaunchRequest request;
  request.grid[0] = 100;
  request.block[0] = 128;
  request.packedArgs = args;
  request.packedArgsSize = 16;
  request.dynamicSharedMemory = 3096;
  EXPECT_TRUE(checkLaunch("k", request, limits).ok());

  auto message = [&](LaunchRequest r) {
    tegula::plugin::Status status = checkLaunch("k", r, limits);
    return std::to_string(status.code()) + " " + status.message();
  };
  auto error = [](int32_t code, const std::string &text) {
    return std::to_string(code) + " " + text;
  };
  LaunchRequest r = request;
  r.grid[2] = 0;
  EXPECT_EQ(message(r), error(TG_ERROR_INVALID_ARGUMENT,
                              "kernel k: grid (100, 1, 0) has a zero "
                              "dimension: every dimension of a launch grid "
                              "must be at least 1"));
  r = request;
  r.grid[0] = 101;
  EXPECT_EQ(message(r), error(TG_ERROR_INVALID_ARGUMENT,
                              "kernel k: grid (101, 1, 1) exceeds the "
                              "device's limit (100, 10, 10)"));
  r = request;
  r.block[0] = 64;
  r.block[1] = 2;
  EXPECT_EQ(message(r), error(TG_ERROR_INVALID_ARGUMENT,
                              "kernel k was compiled for blocks of 128 "
                              "threads (4 warps of 32), the launch asks for "
                              "(64, 2, 1)"));
  r = request;
  r.packedArgsSize = 8;
  EXPECT_EQ(message(r), error(TG_ERROR_INVALID_ARGUMENT,
                              "kernel k reads 16 bytes of packed arguments, "
                              "the launch passes 8"));
  r = request;
  r.packedArgs = nullptr;
  EXPECT_EQ(message(r), error(TG_ERROR_INVALID_ARGUMENT, "packed_args is NULL"));
  r = request;
  r.dynamicSharedMemory = 3097;
  EXPECT_EQ(message(r), error(TG_ERROR_OUT_OF_RANGE,
                              "kernel k needs 4097 bytes of shared memory per "
                              "block (1000 its own, 3097 asked by the "
                              "launch); the device allows 4096"));
  // No limits: any grid and block, no arguments.
  LaunchRequest any;
  any.grid[0] = 1u << 31;
  any.block[0] = 7;
  EXPECT_TRUE(checkLaunch("k", any, LaunchLimits()).ok());
}

//===-- printf lines of device_print and device_assert -------------------------===//

TEST(HookSupport, FormatsTritonsPrintAndAssertLines) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::LLVM::LLVMDialect, mlir::arith::ArithDialect>();
  mlir::OpBuilder builder(&context);
  mlir::Location loc = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto i32 = builder.getI32Type();
  auto constant = [&](mlir::Type type, int64_t value) -> mlir::Value {
    return builder.create<mlir::LLVM::ConstantOp>(
        loc, type, builder.getIntegerAttr(type, value));
  };
  llvm::SmallVector<mlir::Value> pids = {constant(i32, 0), constant(i32, 1),
                                         constant(i32, 2)};
  mlir::Value element = constant(builder.getI64Type(), 7);
  mlir::Value scalar = constant(builder.getI64Type(), -1);
  mlir::Value i8 = constant(builder.getI8Type(), -3);
  mlir::Value half = builder.create<mlir::LLVM::ConstantOp>(
      loc, builder.getF16Type(), builder.getF16FloatAttr(1.5));

  auto print = [&](llvm::StringRef prefix, mlir::Value index, mlir::Value v,
                   bool isSigned, bool hex) {
    auto call = formatDevicePrint(builder, loc, pids, prefix, index, v,
                                  isSigned, hex, "test print");
    EXPECT_TRUE(mlir::succeeded(call));
    return mlir::succeeded(call) ? *call : PrintfCall();
  };
  PrintfCall call = print(" x: ", element, i8, true, false);
  EXPECT_EQ(call.format, "pid (%u, %u, %u) idx (%lld) x: %lld\n");
  ASSERT_EQ(call.args.size(), 5u);
  EXPECT_TRUE(call.args[4].getDefiningOp<mlir::LLVM::SExtOp>());
  call = print("x:", scalar, i8, false, false);
  EXPECT_EQ(call.format, "pid (%u, %u, %u) x: %llu\n");
  EXPECT_TRUE(call.args[3].getDefiningOp<mlir::LLVM::ZExtOp>());
  call = print(" h: ", scalar, half, true, true);
  EXPECT_EQ(call.format, "pid (%u, %u, %u) h: 0x%04llx\n");
  call = print(" 100%: ", scalar, half, true, false);
  EXPECT_EQ(call.format, "pid (%u, %u, %u) 100%%: %f\n");
  EXPECT_TRUE(call.args[3].getType().isF64());
  call = print(" only ", element, mlir::Value(), true, false);
  EXPECT_EQ(call.format, "pid (%u, %u, %u) idx (%lld) only\n");

  auto assertion = formatAssertFailure(builder, loc, pids, "x < 0\nreally",
                                       "k.py", 12, "kern", element,
                                       "test assert");
  ASSERT_TRUE(mlir::succeeded(assertion));
  EXPECT_EQ(assertion->format,
            "device_assert failed at k.py:12 in kern: x < 0 really (program "
            "(%u, %u, %u), element %lld)\n");
  EXPECT_EQ(assertion->args.size(), 4u);

  // What cannot be printed is an error naming the hook.
  std::string error;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    error = d.str();
    return mlir::success();
  });
  mlir::Value vector = builder.create<mlir::LLVM::UndefOp>(
      loc, mlir::VectorType::get({2}, i32));
  EXPECT_TRUE(mlir::failed(formatDevicePrint(builder, loc, pids, " v: ",
                                             scalar, vector, true, false,
                                             "test print")));
  EXPECT_EQ(error, "test print: cannot print a value of type 'vector<2xi32>' "
                   "(integers, floats and pointers only)");
}

//===-- External tools -----------------------------------------------------------===//

ToolRun shell(const std::string &script) {
  ToolRun run;
  run.program = "/bin/sh";
  run.args = {"-c", script, "sh", "{in}", "{out}"};
  run.description = "the test script";
  return run;
}

TEST(ExternalTool, RunsAProgramOnTemporaryFiles) {
  ToolRun run = shell("tr a-z A-Z < \"$1\" > \"$2\"");
  run.input = "hello tools";
  llvm::Expected<std::string> out = runTool(run);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(*out, "HELLO TOOLS");
}

TEST(ExternalTool, ReportsFailuresOnOneLine) {
  llvm::Expected<std::string> out =
      runTool(shell("echo first >&2; echo second; exit 3"));
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()),
            "the test script failed (exit status 3): first; second");

  out = runTool(shell("true"));
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()), "the test script wrote no output");
  ToolRun optional = shell("true");
  optional.requireOutput = false;
  out = runTool(optional);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(*out, "");

  ToolRun missing;
  missing.program = "/nonexistent/tool";
  out = runTool(missing);
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()).rfind("cannot run /nonexistent/tool",
                                                  0),
            0u);

  EXPECT_EQ(firstLines("a\n\n b \nc\nd\n", 2), "a; b; ...");
}

TEST(ExternalTool, FindsToolsWhereTheSearchSays) {
  ToolSearch search;
  search.name = "sh";
  search.variable = "TEGULA_TEST_TOOL";
  search.homeVariables = {"TEGULA_TEST_TOOL_HOME"};
  std::string whyNot;
  ::unsetenv("TEGULA_TEST_TOOL");
  ::unsetenv("TEGULA_TEST_TOOL_HOME");
  std::optional<std::string> found = findTool(search, whyNot);
  ASSERT_TRUE(found.has_value()) << whyNot;
  EXPECT_TRUE(isExecutableFile(*found));

  ::setenv("TEGULA_TEST_TOOL", "none", 1);
  EXPECT_FALSE(findTool(search, whyNot).has_value());
  EXPECT_EQ(whyNot, "sh is disabled (TEGULA_TEST_TOOL=none)");
  ::setenv("TEGULA_TEST_TOOL", "/nonexistent/sh", 1);
  EXPECT_FALSE(findTool(search, whyNot).has_value());
  EXPECT_EQ(whyNot, "TEGULA_TEST_TOOL=/nonexistent/sh is not an executable file");
  ::unsetenv("TEGULA_TEST_TOOL");

  search.name = "tegula-no-such-tool";
  search.fallbacks = {"/nonexistent/bin/tegula-no-such-tool"};
  ::setenv("TEGULA_TEST_TOOL_HOME", "/nonexistent", 1);
  EXPECT_FALSE(findTool(search, whyNot).has_value());
  EXPECT_EQ(whyNot, "no tegula-no-such-tool found (looked in "
                    "$TEGULA_TEST_TOOL_HOME/bin, PATH, /nonexistent/bin; set "
                    "TEGULA_TEST_TOOL or TEGULA_TEST_TOOL_HOME)");
  ::unsetenv("TEGULA_TEST_TOOL_HOME");
}

//===-- The compile pipeline -----------------------------------------------------===//

constexpr const char *kScale = R"mlir(
module attributes {tile.num_warps = 2 : i32} {
  tile.func @scale(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg1: f32, %arg2: i8) {
    %pid = tile.program_id 0 : i32 loc("scale.py":3:11)
    %c = arith.constant 64 : i32
    %start = arith.muli %pid, %c : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %sstart = tile.splat %start : i32 -> tensor<64xi32>
    %offs = arith.addi %sstart, %range : tensor<64xi32>
    %xb = tile.splat %arg0 : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %xp = tile.addptr %xb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %xp : tensor<64x!tile.ptr<f32>> loc("scale.py":5:8)
    %s = tile.splat %arg1 : f32 -> tensor<64xf32>
    %y = arith.mulf %x, %s : tensor<64xf32>
    tile.store %xp, %y : tensor<64x!tile.ptr<f32>> loc("scale.py":6:4)
    tile.return
  }
}
)mlir";

/// The code and message of a failed read of |bytes|.
std::pair<int32_t, std::string> readFailure(const std::string &bytes) {
  mlir::MLIRContext context;
  prepareCompileContext(context);
  auto module = readTileBytecode(bytes, context);
  if (module)
    return {TG_SUCCESS, "accepted"};
  return takeCompileError(module.takeError());
}

TEST(TileCompile, ReadingTellsVersionsFromDamage) {
  std::string good = tileBytecode(kScale);
  ASSERT_FALSE(good.empty());
  {
    mlir::MLIRContext context;
    prepareCompileContext(context);
    auto module = readTileBytecode(good, context);
    ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  }
  auto [code, message] = readFailure("not bytecode at all");
  EXPECT_EQ(code, TG_ERROR_INVALID_FORMAT);
  EXPECT_EQ(message, "the input (19 bytes) is not tile-dialect MLIR bytecode: "
                     "it does not begin with the MLIR bytecode magic");

  std::tie(code, message) = readFailure(tileBytecode(
      kScale, std::make_unique<tegula::tile::TileBytecodeVersion>(
                  tegula::tile::TileDialectVersion::kMajor + 1, 0)));
  EXPECT_EQ(code, TG_ERROR_VERSION_MISMATCH) << message;
  EXPECT_NE(message.find("is not supported by this reader"), std::string::npos)
      << message;

  // The MLIR bytecode format's version follows the 4-byte magic as a
  // one-byte varint (value << 1 | 1); 100 is newer than any reader.
  std::string future = good;
  future[4] = static_cast<char>(100 << 1 | 1);
  std::tie(code, message) = readFailure(future);
  EXPECT_EQ(code, TG_ERROR_VERSION_MISMATCH) << message;
  EXPECT_NE(message.find("MLIR bytecode format version 100 is newer"),
            std::string::npos)
      << message;

  std::tie(code, message) = readFailure(good.substr(0, good.size() / 2));
  EXPECT_EQ(code, TG_ERROR_INVALID_FORMAT) << message;
  EXPECT_EQ(message.rfind("cannot read the tile bytecode: ", 0), 0u) << message;

  std::tie(code, message) = readFailure(tileBytecode(R"mlir(
tile.func @bad(%arg0: i32) {
  %r = tile.make_range {end = 0 : i32, start = 4 : i32} : tensor<4xi32> loc("bad.py":4:9)
  tile.return
}
)mlir",
                                                   nullptr, /*verify=*/false));
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "the tile IR does not verify: bad.py:4:9: "
                     "'tile.make_range' op end (0) must be greater than "
                     "start (4)");
}

TEST(TileCompile, NumWarpsComesFromTheOptionOrTheModule) {
  mlir::MLIRContext context;
  prepareCompileContext(context);
  auto module = readTileBytecode(tileBytecode(kScale), context);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  llvm::Expected<unsigned> warps = resolveNumWarps(**module, 0, 32, 1024);
  ASSERT_TRUE(bool(warps));
  EXPECT_EQ(*warps, 2u);
  warps = resolveNumWarps(**module, 8, 32, 1024);
  ASSERT_TRUE(bool(warps));
  EXPECT_EQ(*warps, 8u);
  // Recorded on the module: the next default is 8.
  warps = resolveNumWarps(**module, 0, 32, 1024);
  ASSERT_TRUE(bool(warps));
  EXPECT_EQ(*warps, 8u);
  warps = resolveNumWarps(**module, 3, 32, 1024);
  ASSERT_FALSE(bool(warps));
  EXPECT_EQ(takeCompileError(warps.takeError()),
            std::make_pair(int32_t(TG_ERROR_INVALID_ARGUMENT),
                           std::string("num_warps must be a power of 2 from 1 "
                                       "to 32 (at most 1024 threads per "
                                       "block), not 3")));
  warps = resolveNumWarps(**module, 32, 64, 1024);
  ASSERT_FALSE(bool(warps));
  EXPECT_NE(takeCompileError(warps.takeError()).second.find("from 1 to 16"),
            std::string::npos);
}

/// Hooks for a one-thread lowering whose IR translates to LLVM IR: program
/// 0 of 1, scratch at address 0 of the shared address space.
class ConstantProgramHooks : public GpuDialectTargetHooks {
public:
  ConstantProgramHooks() : GpuDialectTargetHooks(1, 0, 3) {}
  mlir::Value buildProgramId(mlir::OpBuilder &builder, mlir::Location loc,
                             Axis) const override {
    return builder.create<mlir::LLVM::ConstantOp>(loc, builder.getI32Type(),
                                                  0);
  }
  mlir::Value buildNumPrograms(mlir::OpBuilder &builder, mlir::Location loc,
                               Axis) const override {
    return builder.create<mlir::LLVM::ConstantOp>(loc, builder.getI32Type(),
                                                  1);
  }
  mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                               mlir::Location loc) const override {
    return builder.create<mlir::LLVM::ZeroOp>(
        loc, mlir::LLVM::LLVMPointerType::get(builder.getContext(), 3));
  }
};

TEST(TileCompile, BytecodeToLLVMIRWithTheKit) {
  mlir::MLIRContext context;
  prepareCompileContext(context);
  auto module = readTileBytecode(tileBytecode(kScale), context);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  ConstantProgramHooks hooks;
  llvm::Expected<tegula::LoweredKernel> lowered =
      lowerKernel(**module, hooks, tegula::LoweringOptions(), "test:x1");
  ASSERT_TRUE(bool(lowered)) << llvm::toString(lowered.takeError());
  EXPECT_EQ(lowered->name, "scale");

  tegula::plugin::CompiledImage image;
  std::vector<uint32_t> sizes;
  ASSERT_FALSE(bool(describeKernel(*lowered, "test:x1", 2, ScratchLimit(),
                                   image, &sizes)));
  EXPECT_EQ(image.name, "scale");
  EXPECT_EQ(image.target, "test:x1");
  EXPECT_EQ(image.numWarps, 2u);
  ASSERT_EQ(image.arguments.size(), 3u);
  EXPECT_EQ(image.arguments[0].kind, TG_ARG_POINTER);
  EXPECT_EQ(image.arguments[0].type, TG_TYPE_F32);
  EXPECT_EQ(image.arguments[0].divisibility, 16u);
  EXPECT_EQ(image.arguments[1].kind, TG_ARG_SCALAR);
  EXPECT_EQ(image.arguments[1].type, TG_TYPE_F32);
  EXPECT_EQ(image.arguments[2].type, TG_TYPE_I8);
  EXPECT_EQ(image.arguments[2].name, "arg2");
  EXPECT_EQ(sizes, (std::vector<uint32_t>{8, 4, 1}));

  ScratchLimit none;
  none.bytes = 0;
  none.what = "shared memory per block";
  none.owner = "x1";
  tegula::LoweredKernel greedy = *lowered;
  greedy.scratchBytes = 64;
  EXPECT_EQ(takeCompileError(describeKernel(greedy, "test:x1", 2, none, image))
                .second,
            "kernel scale needs 64 bytes of shared memory per block; x1 "
            "allows at most 0");

  llvm::LLVMContext llvmContext;
  llvm::Expected<std::unique_ptr<llvm::Module>> ir =
      translateKernel(**module, llvmContext, "scale");
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  llvm::Function *function = (*ir)->getFunction("scale");
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(function->arg_size(), 3u);
  ir = translateKernel(**module, llvmContext, "other");
  ASSERT_FALSE(bool(ir));
  EXPECT_EQ(takeCompileError(ir.takeError()).second,
            "the LLVM IR of the lowered kernel defines no @other");
}

TEST(TileCompile, LoweringErrorsKeepTheirLocations) {
  mlir::MLIRContext context;
  prepareCompileContext(context);
  auto module = readTileBytecode(tileBytecode(kScale), context);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  // The default hooks give the one-thread lowering no scratch memory: the
  // lowering says so, at the kernel's location.
  GpuDialectTargetHooks hooks(1, 0, 3);
  llvm::Expected<tegula::LoweredKernel> lowered =
      lowerKernel(**module, hooks, tegula::LoweringOptions(), "test:x1");
  ASSERT_FALSE(bool(lowered));
  auto [code, message] = takeCompileError(lowered.takeError());
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "cannot compile the kernel for test:x1: -:3:3: the "
                     "target provides no scratch memory for the kernel's "
                     "tiles");
}

TEST(TileCompile, ErrorsBecomeStatuses) {
  tegula::plugin::Status ok = toStatus(llvm::Error::success());
  EXPECT_TRUE(ok.ok());
  tegula::plugin::Status failed =
      toStatus(compileError(TG_ERROR_UNAVAILABLE, "two\nlines"));
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), TG_ERROR_UNAVAILABLE);
  EXPECT_EQ(failed.message(), "two lines");
  auto [code, message] =
      takeCompileError(compileError(TG_ERROR_UNAVAILABLE, "two\nlines"));
  EXPECT_EQ(code, TG_ERROR_UNAVAILABLE);
  EXPECT_EQ(message, "two lines");
  std::tie(code, message) = takeCompileError(oneLineError("plain\nerror"));
  EXPECT_EQ(code, TG_ERROR_INTERNAL);
  EXPECT_EQ(message, "plain error");

  // A refusal named by one of a backend's markers becomes UNIMPLEMENTED
  // with its message kept; other errors and success pass as they are.
  std::tie(code, message) = takeCompileError(unimplementedIfAny(
      compileError(TG_ERROR_INTERNAL, "k.py:3:4: f64 sin has no implementation "
                                      "on ACME"),
      {"no such thing", "has no implementation on ACME"}));
  EXPECT_EQ(code, TG_ERROR_UNIMPLEMENTED);
  EXPECT_EQ(message, "k.py:3:4: f64 sin has no implementation on ACME");
  std::tie(code, message) = takeCompileError(unimplementedIfAny(
      compileError(TG_ERROR_INVALID_ARGUMENT, "bad option"), {"ACME"}));
  EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message, "bad option");
  EXPECT_FALSE(bool(unimplementedIfAny(llvm::Error::success(), {"ACME"})));
}

} // namespace
