//===- HostPluginTest.cpp - The host plugin's JIT and grid launch ---------===//
//
// Kernels written by hand in LLVM IR, following plugins/host/HostKernelABI.h,
// are compiled with the plugin's code generator (HostCodegen.h, linked from
// TegulaHostCodegen) and then loaded and launched through the runtime C API
// on the built host plugin (lib/tegula/plugins/libtegula_plugin_host.so):
// every program runs exactly once with its ids, scratch is per thread and
// aligned, arguments unpack as the runtime packs them, tegula_host_print
// writes Triton's lines, a failed device_assert fails the launch (or the
// stream's next synchronize) and the next launch works, bad grids, images
// and names give clean errors. The compile path from tile bytecode is
// covered at the end, as far as middle/'s lowering goes.
//
//===----------------------------------------------------------------------===//

#include "TileBytecodeSupport.h"
#include "HostCodegen.h"
#include "HostImage.h"
#include "TestSupport.h"

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

using namespace tegula;
using namespace tegula::test;
using tegula::host::HostKernelInfo;

namespace {

/// The plugin's record of a program and the runtime functions
/// (HostKernelABI.h), for the kernels below.
constexpr const char *kPrelude = R"ll(
%program = type { [3 x i32], [3 x i32], ptr, ptr }
declare void @tegula_host_print(ptr, ptr, i64, i64, i32)
declare void @tegula_host_assert_fail(ptr, ptr, ptr, i32, ptr, i64)
)ll";

/// record_programs(u32 *counts, u32 *records): program (x, y, z) of grid
/// (nx, ny, nz), linear id l = x + nx * (y + ny * z), adds 1 to counts[l]
/// and writes x | y << 10 | z << 20, nx, ny, nz to records[4l .. 4l+3].
constexpr const char *kRecordPrograms = R"ll(
define void @record_programs(ptr %args, ptr %p) {
entry:
  %counts = load ptr, ptr %args, align 8
  %records.addr = getelementptr inbounds i8, ptr %args, i64 8
  %records = load ptr, ptr %records.addr, align 8
  %xp = getelementptr inbounds %program, ptr %p, i32 0, i32 0, i32 0
  %yp = getelementptr inbounds %program, ptr %p, i32 0, i32 0, i32 1
  %zp = getelementptr inbounds %program, ptr %p, i32 0, i32 0, i32 2
  %nxp = getelementptr inbounds %program, ptr %p, i32 0, i32 1, i32 0
  %nyp = getelementptr inbounds %program, ptr %p, i32 0, i32 1, i32 1
  %nzp = getelementptr inbounds %program, ptr %p, i32 0, i32 1, i32 2
  %x = load i32, ptr %xp
  %y = load i32, ptr %yp
  %z = load i32, ptr %zp
  %nx = load i32, ptr %nxp
  %ny = load i32, ptr %nyp
  %nz = load i32, ptr %nzp
  %x64 = zext i32 %x to i64
  %y64 = zext i32 %y to i64
  %z64 = zext i32 %z to i64
  %nx64 = zext i32 %nx to i64
  %ny64 = zext i32 %ny to i64
  %yz = mul i64 %ny64, %z64
  %row = add i64 %y64, %yz
  %rows = mul i64 %nx64, %row
  %l = add i64 %x64, %rows
  %count = getelementptr inbounds i32, ptr %counts, i64 %l
  %old = atomicrmw add ptr %count, i32 1 monotonic
  %ys = shl i32 %y, 10
  %zs = shl i32 %z, 20
  %xy = or i32 %x, %ys
  %code = or i32 %xy, %zs
  %base = mul i64 %l, 4
  %r0 = getelementptr inbounds i32, ptr %records, i64 %base
  store i32 %code, ptr %r0
  %r1 = getelementptr inbounds i32, ptr %r0, i64 1
  store i32 %nx, ptr %r1
  %r2 = getelementptr inbounds i32, ptr %r0, i64 2
  store i32 %ny, ptr %r2
  %r3 = getelementptr inbounds i32, ptr %r0, i64 3
  store i32 %nz, ptr %r3
  ret void
}
)ll";

/// scratch_sum(u64 *out, i32 count): program x fills count i32s of its
/// scratch with x * count + i (volatile: the optimizer keeps every access),
/// sums them back into out[2x] and writes the scratch address to out[2x+1].
constexpr const char *kScratchSum = R"ll(
define void @scratch_sum(ptr %args, ptr %p) {
entry:
  %out = load ptr, ptr %args, align 8
  %count.addr = getelementptr inbounds i8, ptr %args, i64 8
  %count = load i32, ptr %count.addr, align 4
  %xp = getelementptr inbounds %program, ptr %p, i32 0, i32 0, i32 0
  %x = load i32, ptr %xp
  %sp = getelementptr inbounds %program, ptr %p, i32 0, i32 2
  %scratch = load ptr, ptr %sp
  %start = mul i32 %x, %count
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %fill ]
  %v = add i32 %start, %i
  %a = getelementptr inbounds i32, ptr %scratch, i32 %i
  store volatile i32 %v, ptr %a
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %count
  br i1 %more, label %fill, label %sum
sum:
  %j = phi i32 [ 0, %fill ], [ %j.next, %sum ]
  %acc = phi i64 [ 0, %fill ], [ %acc.next, %sum ]
  %b = getelementptr inbounds i32, ptr %scratch, i32 %j
  %w = load volatile i32, ptr %b
  %w64 = zext i32 %w to i64
  %acc.next = add i64 %acc, %w64
  %j.next = add i32 %j, 1
  %more2 = icmp ult i32 %j.next, %count
  br i1 %more2, label %sum, label %done
done:
  %x64 = zext i32 %x to i64
  %slot = mul i64 %x64, 2
  %o0 = getelementptr inbounds i64, ptr %out, i64 %slot
  store i64 %acc.next, ptr %o0
  %address = ptrtoint ptr %scratch to i64
  %o1 = getelementptr inbounds i64, ptr %o0, i64 1
  store i64 %address, ptr %o1
  ret void
}
)ll";

/// print_values(): prints six values, one of each kind tegula_host_print
/// knows; the first prefix is Triton's " x: ", the second a bare "v:".
/// Kinds: SIGNED 0, UNSIGNED 1, FLOAT 2, POINTER 3, width << 8, HEX 1 << 16.
constexpr const char *kPrintValues = R"ll(
@x = private constant [5 x i8] c" x: \00"
@v = private constant [3 x i8] c"v:\00"
define void @print_values(ptr %args, ptr %p) {
  call void @tegula_host_print(ptr %p, ptr @x, i64 -1, i64 -5, i32 8192)
  call void @tegula_host_print(ptr %p, ptr @v, i64 3, i64 4000000000, i32 8193)
  call void @tegula_host_print(ptr %p, ptr @x, i64 -1, i64 4609434218613702656, i32 16386)
  call void @tegula_host_print(ptr %p, ptr @x, i64 0, i64 171, i32 69633)
  call void @tegula_host_print(ptr %p, ptr @x, i64 -1, i64 -1, i32 67584)
  call void @tegula_host_print(ptr %p, ptr @x, i64 -1, i64 4096, i32 16387)
  ret void
}
)ll";

/// assert_at(i32 failing, i64 index, u32 *ran): program x == failing reports
/// a failed `x > 0` at kernel.py:12 in my_kernel for element |index|; every
/// program adds 1 to *ran.
constexpr const char *kAssertAt = R"ll(
@msg = private constant [6 x i8] c"x > 0\00"
@file = private constant [10 x i8] c"kernel.py\00"
@fn = private constant [10 x i8] c"my_kernel\00"
define void @assert_at(ptr %args, ptr %p) {
entry:
  %failing = load i32, ptr %args, align 4
  %index.addr = getelementptr inbounds i8, ptr %args, i64 8
  %index = load i64, ptr %index.addr, align 8
  %ran.addr = getelementptr inbounds i8, ptr %args, i64 16
  %ran = load ptr, ptr %ran.addr, align 8
  %xp = getelementptr inbounds %program, ptr %p, i32 0, i32 0, i32 0
  %x = load i32, ptr %xp
  %hit = icmp eq i32 %x, %failing
  br i1 %hit, label %bad, label %ok
bad:
  call void @tegula_host_assert_fail(ptr %p, ptr @msg, ptr @file, i32 12, ptr @fn, i64 %index)
  br label %ok
ok:
  %old = atomicrmw add ptr %ran, i32 1 monotonic
  ret void
}
)ll";

/// unpack_body(i64 *out, i32, i1, i8, i64, double, half, i16, float, ctx):
/// a "lowered" kernel for addHostEntry, storing each argument widened to
/// 64 bits into out[0..7].
constexpr const char *kUnpackBody = R"ll(
define void @unpack(ptr %out, i32 %a, i1 %flag, i8 %b, i64 %c, double %d, half %h, i16 %s, float %f, ptr %ctx) {
  %a64 = sext i32 %a to i64
  store i64 %a64, ptr %out
  %flag64 = zext i1 %flag to i64
  %o1 = getelementptr inbounds i64, ptr %out, i64 1
  store i64 %flag64, ptr %o1
  %b64 = sext i8 %b to i64
  %o2 = getelementptr inbounds i64, ptr %out, i64 2
  store i64 %b64, ptr %o2
  %o3 = getelementptr inbounds i64, ptr %out, i64 3
  store i64 %c, ptr %o3
  %d64 = bitcast double %d to i64
  %o4 = getelementptr inbounds i64, ptr %out, i64 4
  store i64 %d64, ptr %o4
  %h16 = bitcast half %h to i16
  %h64 = zext i16 %h16 to i64
  %o5 = getelementptr inbounds i64, ptr %out, i64 5
  store i64 %h64, ptr %o5
  %s64 = sext i16 %s to i64
  %o6 = getelementptr inbounds i64, ptr %out, i64 6
  store i64 %s64, ptr %o6
  %f32 = bitcast float %f to i32
  %f64 = zext i32 %f32 to i64
  %o7 = getelementptr inbounds i64, ptr %out, i64 7
  store i64 %f64, ptr %o7
  ret void
}
)ll";

std::unique_ptr<llvm::Module> parseIR(const std::string &text,
                                      llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    error.print("kernel.ll", os);
    ADD_FAILURE() << os.str();
  }
  return module;
}

/// The image of entry |name| defined in |ir| (the prelude is added).
std::string compileIR(const std::string &ir, const std::string &name,
                      const std::string &target, uint64_t scratchBytes = 0,
                      uint64_t packedArgsSize = 0) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(kPrelude + ir, context);
  if (!module)
    return "";
  HostKernelInfo info;
  info.name = name;
  info.target = target;
  info.scratchBytes = scratchBytes;
  info.packedArgsSize = packedArgsSize;
  llvm::Expected<std::string> image =
      tegula::host::compileLLVMModuleToImage(*module, info);
  if (!image) {
    ADD_FAILURE() << llvm::toString(image.takeError());
    return "";
  }
  return *image;
}

/// The lines of |text|, sorted.
std::vector<std::string> sortedLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

class HostKernels : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // More threads than this machine may have cores: programs really run
    // concurrently, with one scratch each.
    setenv("TEGULA_NUM_THREADS", "4", 1);
  }
  static void TearDownTestSuite() { unsetenv("TEGULA_NUM_THREADS"); }

  HostKernels()
      : runtime(makeRuntime(kBuildPluginDir, "host")),
        device(runtime.device("host:0")) {}

  /// Loads |image| and returns its kernel |name|.
  Kernel load(const std::string &image, const std::string &name) {
    return device.loadKernel(image.data(), image.size(), name);
  }

  std::string target() const { return device.target(); }

  Runtime runtime;
  Device device;
};

//===-- Grids ---------------------------------------------------------------===//

TEST_F(HostKernels, EveryProgramRunsExactlyOnceWithItsIds) {
  ASSERT_EQ(device.properties().computeUnits, 4u) << "TEGULA_NUM_THREADS";
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "record_programs");
  Stream stream = device.createStream();
  for (bool inStream : {false, true})
    for (Dim3 grid : {Dim3{1, 1, 1}, Dim3{7, 3, 2}, Dim3{1000, 1, 1},
                      Dim3{1, 1, 5}, Dim3{33, 65, 1}}) {
      SCOPED_TRACE(std::to_string(grid[0]) + "x" + std::to_string(grid[1]) +
                   "x" + std::to_string(grid[2]) +
                   (inStream ? " in a stream" : ""));
      size_t programs = size_t(grid[0]) * grid[1] * grid[2];
      Buffer counts = device.allocate(programs * 4);
      Buffer records = device.allocate(programs * 16);
      counts.memset(0, programs * 4);
      records.memset(0xff, programs * 16);
      ArgPack args;
      args.add(counts).add(records);
      kernel.launch(grid, {1, 1, 1}, args, inStream ? &stream : nullptr);
      if (inStream)
        stream.synchronize();
      std::vector<uint32_t> ran = counts.read<uint32_t>(programs);
      std::vector<uint32_t> got = records.read<uint32_t>(programs * 4);
      for (uint32_t z = 0; z < grid[2]; ++z)
        for (uint32_t y = 0; y < grid[1]; ++y)
          for (uint32_t x = 0; x < grid[0]; ++x) {
            size_t l = x + size_t(grid[0]) * (y + size_t(grid[1]) * z);
            ASSERT_EQ(ran[l], 1u) << "program " << x << "," << y << "," << z;
            ASSERT_EQ(got[4 * l], x | y << 10 | z << 20) << "program " << l;
            ASSERT_EQ(got[4 * l + 1], grid[0]);
            ASSERT_EQ(got[4 * l + 2], grid[1]);
            ASSERT_EQ(got[4 * l + 3], grid[2]);
          }
    }
}

TEST_F(HostKernels, LaunchesFromSeveralThreadsTakeTurns) {
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "record_programs");
  constexpr uint32_t kPrograms = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      Buffer counts = device.allocate(kPrograms * 4);
      Buffer records = device.allocate(kPrograms * 16);
      Stream stream = device.createStream();
      for (int round = 0; round < 20; ++round) {
        counts.memset(0, kPrograms * 4);
        ArgPack args;
        args.add(counts).add(records);
        // Threads 0 and 1 launch at once, thread 2 through a stream.
        kernel.launch({kPrograms, 1, 1}, {1, 1, 1}, args,
                      t == 2 ? &stream : nullptr);
        if (t == 2)
          stream.synchronize();
        for (uint32_t count : counts.read<uint32_t>(kPrograms))
          wrong += count != 1;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(HostKernels, ZeroAndOversizedGridsAreCleanErrors) {
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "record_programs");
  Buffer counts = device.allocate(16 * 4);
  Buffer records = device.allocate(16 * 16);
  ArgPack args;
  args.add(counts).add(records);

  // The runtime refuses a zero dimension before the plugin sees it (the
  // plugin's own check is DirectAbi below).
  Error zero = expectError([&] { kernel.launch({4, 0, 1}, {1, 1, 1}, args); });
  EXPECT_EQ(zero.code(), TG_ERROR_INVALID_ARGUMENT) << zero.what();

  Error big = expectError(
      [&] { kernel.launch({65536, 65536, 1}, {1, 1, 1}, args); });
  EXPECT_EQ(big.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(big.what()).find(
                "grid (65536, 65536, 1) has 4294967296 programs; a host "
                "launch runs at most 2147483647"),
            std::string::npos)
      << big.what();
  Error justOver = expectError(
      [&] { kernel.launch({2147483648u, 1, 1}, {1, 1, 1}, args); });
  EXPECT_EQ(justOver.code(), TG_ERROR_INVALID_ARGUMENT) << justOver.what();
  Error huge = expectError([&] {
    kernel.launch({4294967295u, 4294967295u, 4294967295u}, {1, 1, 1}, args);
  });
  EXPECT_NE(std::string(huge.what())
                .find("79228162458924105385300197375 programs"),
            std::string::npos)
      << huge.what();

  // And the device works on.
  counts.memset(0, 16 * 4);
  kernel.launch({16, 1, 1}, {1, 1, 1}, args);
  for (uint32_t count : counts.read<uint32_t>(16))
    EXPECT_EQ(count, 1u);
}

TEST_F(HostKernels, ShortPackedArgumentsAreRefused) {
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "record_programs");
  uint64_t eight = 0;
  Error error = expectError(
      [&] { kernel.launch({1, 1, 1}, {1, 1, 1}, &eight, sizeof(eight)); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what())
                .find("kernel record_programs reads 16 bytes of packed "
                      "arguments, the launch passes 8"),
            std::string::npos)
      << error.what();
}

//===-- Scratch ---------------------------------------------------------------===//

TEST_F(HostKernels, EachThreadHasItsOwnAlignedScratch) {
  // 4 KiB, then 4 MiB (the scratch grows), then 4 KiB again (reused).
  for (uint32_t count : {1024u, 1024u * 1024u, 1024u}) {
    SCOPED_TRACE("scratch of " + std::to_string(count * 4) + " bytes");
    std::string image = compileIR(kScratchSum, "scratch_sum", target(),
                                  uint64_t(count) * 4, 16);
    ASSERT_FALSE(image.empty());
    Kernel kernel = load(image, "scratch_sum");
    const uint32_t programs = count > 4096 ? 12 : 64;
    Buffer out = device.allocate(programs * 16);
    ArgPack args;
    args.add(out).add(int32_t(count));
    kernel.launch({programs, 1, 1}, {1, 1, 1}, args);
    std::vector<uint64_t> got = out.read<uint64_t>(programs * 2);
    for (uint64_t x = 0; x < programs; ++x) {
      uint64_t want = x * count * count + uint64_t(count) * (count - 1) / 2;
      ASSERT_EQ(got[2 * x], want) << "program " << x;
      EXPECT_NE(got[2 * x + 1], 0u) << "program " << x << ": no scratch";
      EXPECT_EQ(got[2 * x + 1] % 64, 0u) << "program " << x;
    }
  }
}

TEST_F(HostKernels, ScratchThatCannotBeAllocatedIsOutOfMemory) {
  std::string image = compileIR(kScratchSum, "scratch_sum", target(),
                                uint64_t(1) << 62, 16);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "scratch_sum");
  Buffer out = device.allocate(64);
  ArgPack args;
  args.add(out).add(int32_t(1));
  Error error = expectError([&] { kernel.launch({2, 1, 1}, {1, 1, 1}, args); });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_MEMORY) << error.what();
  EXPECT_NE(std::string(error.what()).find("bytes of scratch memory"),
            std::string::npos)
      << error.what();

  // Other kernels still run.
  std::string small =
      compileIR(kScratchSum, "scratch_sum", target(), 1024 * 4, 16);
  Kernel ok = load(small, "scratch_sum");
  Buffer out2 = device.allocate(64 * 16);
  ArgPack args2;
  args2.add(out2).add(int32_t(1024));
  ok.launch({64, 1, 1}, {1, 1, 1}, args2);
  EXPECT_EQ(out2.read<uint64_t>(2)[0], uint64_t(1024) * 1023 / 2);
}

//===-- Arguments -------------------------------------------------------------===//

TEST_F(HostKernels, EntryUnpacksArgumentsAsTheRuntimePacksThem) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(kUnpackBody, context);
  ASSERT_TRUE(module);
  llvm::Expected<uint64_t> size =
      tegula::host::addHostEntry(*module->getFunction("unpack"), "unpack");
  ASSERT_TRUE(bool(size)) << llvm::toString(size.takeError());
  EXPECT_TRUE(module->getFunction("unpack.body"));
  EXPECT_TRUE(module->getFunction("unpack.body")->hasInternalLinkage());

  // The same signature as the runtime sees it.
  std::vector<tg_kernel_arg> args = {
      {"out", TG_ARG_POINTER, TG_TYPE_I64, 16, 0},
      {"a", TG_ARG_SCALAR, TG_TYPE_I32, 0, 0},
      {"flag", TG_ARG_SCALAR, TG_TYPE_I1, 0, 0},
      {"b", TG_ARG_SCALAR, TG_TYPE_I8, 0, 0},
      {"c", TG_ARG_SCALAR, TG_TYPE_I64, 0, 0},
      {"d", TG_ARG_SCALAR, TG_TYPE_F64, 0, 0},
      {"h", TG_ARG_SCALAR, TG_TYPE_F16, 0, 0},
      {"s", TG_ARG_SCALAR, TG_TYPE_I16, 0, 0},
      {"f", TG_ARG_SCALAR, TG_TYPE_F32, 0, 0}};
  tg_kernel_metadata meta{};
  meta.struct_size = sizeof(meta);
  meta.name = "unpack";
  meta.target = "";
  meta.num_args = args.size();
  meta.args = args.data();
  meta.specialization = "";
  size_t packedSize = 0;
  ASSERT_EQ(tegula_args_layout(&meta, nullptr, &packedSize), nullptr);
  EXPECT_EQ(*size, packedSize);

  HostKernelInfo info;
  info.name = "unpack";
  info.target = target();
  info.packedArgsSize = *size;
  llvm::Expected<std::string> image =
      tegula::host::compileLLVMModuleToImage(*module, info);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  Kernel kernel = load(*image, "unpack");
  Buffer out = device.allocate(8 * 8);
  out.memset(0xee, 64);
  ArgPack pack(&meta);
  pack.add(out)
      .add(int32_t(-7))
      .add(uint8_t(1))
      .add(int8_t(-3))
      .add(int64_t(1) << 40)
      .add(2.5)
      .add(uint16_t(0x3c00))
      .add(int16_t(-300))
      .add(1.25f);
  kernel.launch({1, 1, 1}, {1, 1, 1}, pack);
  std::vector<uint64_t> got = out.read<uint64_t>(8);
  double d = 2.5;
  float f = 1.25f;
  uint64_t dBits = 0;
  uint32_t fBits = 0;
  std::memcpy(&dBits, &d, 8);
  std::memcpy(&fBits, &f, 4);
  EXPECT_EQ(int64_t(got[0]), -7);
  EXPECT_EQ(got[1], 1u);
  EXPECT_EQ(int64_t(got[2]), -3);
  EXPECT_EQ(got[3], uint64_t(1) << 40);
  EXPECT_EQ(got[4], dBits);
  EXPECT_EQ(got[5], 0x3c00u);
  EXPECT_EQ(int64_t(got[6]), -300);
  EXPECT_EQ(got[7], fBits);
}

TEST_F(HostKernels, EntryRefusesArgumentsTheABICannotPass) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parseIR(
      "define void @k(<4 x float> %v, ptr %ctx) { ret void }", context);
  ASSERT_TRUE(module);
  llvm::Expected<uint64_t> size =
      tegula::host::addHostEntry(*module->getFunction("k"), "k");
  ASSERT_FALSE(bool(size));
  EXPECT_EQ(llvm::toString(size.takeError()),
            "argument 0 of kernel k has type <4 x float>, which the host "
            "kernel ABI cannot pass");
}

//===-- print and assert -----------------------------------------------------===//

TEST_F(HostKernels, PrintWritesTritonLines) {
  std::string image = compileIR(kPrintValues, "print_values", target());
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "print_values");
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  kernel.launch({2, 1, 1}, {1, 1, 1}, nullptr, 0);
  std::string printed = ::testing::internal::GetCapturedStdout();
  std::vector<std::string> want;
  for (const char *pid : {"pid (0, 0, 0)", "pid (1, 0, 0)"})
    for (const char *rest : {" x: -5", " idx (3) v: 4000000000", " x: 1.500000",
                             " idx (0) x: 0x00ab", " x: 0xff", " x: 0x1000"})
      want.push_back(std::string(pid) + rest);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sortedLines(printed), want) << printed;
}

TEST_F(HostKernels, FailedAssertFailsTheLaunchAndTheNextOneWorks) {
  std::string image = compileIR(kAssertAt, "assert_at", target(), 0, 24);
  ASSERT_FALSE(image.empty());
  Kernel kernel = load(image, "assert_at");
  Buffer ran = device.allocate(4);
  auto launch = [&](int32_t failing, int64_t index, Stream *stream) {
    ArgPack args;
    args.add(failing).add(index).add(ran);
    kernel.launch({8, 1, 1}, {1, 1, 1}, args, stream);
  };

  Error error = expectError([&] { launch(3, 7, nullptr); });
  EXPECT_EQ(error.code(), TG_ERROR_DEVICE);
  EXPECT_EQ(std::string(error.what()),
            "host: device_assert failed at kernel.py:12 in my_kernel: x > 0 "
            "(program (3, 0, 0), element 7)");

  // A scalar condition: no element.
  Error scalar = expectError([&] { launch(5, -1, nullptr); });
  EXPECT_EQ(std::string(scalar.what()),
            "host: device_assert failed at kernel.py:12 in my_kernel: x > 0 "
            "(program (5, 0, 0))");

  // The process survived; the next launch runs every program.
  ran.memset(0, 4);
  launch(-1, 0, nullptr);
  EXPECT_EQ(ran.read<uint32_t>(1)[0], 8u);

  // In a stream the launch is accepted and the stream's next synchronize
  // reports the failure, once.
  Stream stream = device.createStream();
  launch(6, 2, &stream);
  Error late = expectError([&] { stream.synchronize(); });
  EXPECT_EQ(late.code(), TG_ERROR_DEVICE);
  EXPECT_NE(std::string(late.what()).find("(program (6, 0, 0), element 2)"),
            std::string::npos)
      << late.what();
  stream.synchronize();
  ran.memset(0, 4, 0, &stream);
  launch(-1, 0, &stream);
  stream.synchronize();
  EXPECT_EQ(ran.read<uint32_t>(1)[0], 8u);
}

//===-- Modules ----------------------------------------------------------------===//

TEST_F(HostKernels, UnknownKernelNameIsNotFound) {
  std::string image = compileIR(kPrintValues, "print_values", target());
  ASSERT_FALSE(image.empty());
  Module module = device.loadModule(image.data(), image.size());
  Error error = expectError([&] { module.kernel("no_such_kernel"); });
  EXPECT_EQ(error.code(), TG_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(error.what()).find("no kernel 'no_such_kernel'"),
            std::string::npos)
      << error.what();
}

TEST_F(HostKernels, BadImagesAreRefused) {
  std::string image = compileIR(kPrintValues, "print_values", target());
  ASSERT_FALSE(image.empty());
  struct Case {
    const char *what;
    std::string bytes;
    tg_error_code code;
    const char *message;
  };
  std::string otherTarget = image;
  {
    llvm::Expected<tegula::host::HostImage> decoded =
        tegula::backend::readImage<tegula::host::HostImage>(image.data(), image.size());
    ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
    decoded->target = "host:vax";
    otherTarget = tegula::backend::writeImage(*decoded);
  }
  std::string newer = image;
  newer[8] = 2;
  std::vector<Case> cases = {
      {"garbage", "this is not a host image, but it is long enough",
       TG_ERROR_INVALID_FORMAT, "no TGHOSTK magic"},
      {"truncated", image.substr(0, image.size() - 1), TG_ERROR_INVALID_FORMAT,
       "the header announces"},
      {"newer", newer, TG_ERROR_INVALID_FORMAT, "format version 2"},
      {"other target", otherTarget, TG_ERROR_INVALID_ARGUMENT,
       "is for host:vax"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    Error error = expectError(
        [&] { device.loadModule(c.bytes.data(), c.bytes.size()); });
    EXPECT_EQ(error.code(), c.code) << error.what();
    EXPECT_NE(std::string(error.what()).find(c.message), std::string::npos)
        << error.what();
  }
}

TEST_F(HostKernels, UnresolvedSymbolFailsTheLoad) {
  std::string image = compileIR(R"ll(
declare void @tegula_no_such_function()
define void @calls_nothing(ptr %args, ptr %p) {
  call void @tegula_no_such_function()
  ret void
}
)ll",
                                "calls_nothing", target());
  ASSERT_FALSE(image.empty());
  Error error =
      expectError([&] { device.loadModule(image.data(), image.size()); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT);
  EXPECT_NE(std::string(error.what()).find("tegula_no_such_function"),
            std::string::npos)
      << error.what();
}

TEST_F(HostKernels, ImageForAMissingCpuFeatureIsRefused) {
  const tegula::host::HostCpu &cpu = tegula::host::getHostCpu();
  auto lacking = std::find_if(
      cpu.features.begin(), cpu.features.end(),
      [](const std::string &feature) { return feature[0] == '-'; });
  if (lacking == cpu.features.end())
    GTEST_SKIP() << "this CPU has every feature LLVM knows";
  std::string image = compileIR(kPrintValues, "print_values", target());
  llvm::Expected<tegula::host::HostImage> decoded =
      tegula::backend::readImage<tegula::host::HostImage>(image.data(), image.size());
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  decoded->features.push_back("+" + lacking->substr(1));
  std::string bytes = tegula::backend::writeImage(*decoded);
  Error error =
      expectError([&] { device.loadModule(bytes.data(), bytes.size()); });
  EXPECT_NE(std::string(error.what()).find(lacking->substr(1)),
            std::string::npos)
      << error.what();
}

TEST_F(HostKernels, UnloadingWhileALaunchWaitsInAStreamIsSafe) {
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  constexpr uint32_t kPrograms = 2000;
  Buffer counts = device.allocate(kPrograms * 4);
  Buffer records = device.allocate(kPrograms * 16);
  counts.memset(0, kPrograms * 4);
  Stream stream = device.createStream();
  {
    tegula_module_t *module = nullptr;
    ASSERT_EQ(tegula_module_load(device.get(), image.data(), image.size(),
                                 &module),
              nullptr);
    tegula_kernel_t *kernel = nullptr;
    ASSERT_EQ(tegula_module_get_kernel(module, "record_programs", &kernel),
              nullptr);
    ArgPack args;
    args.add(counts).add(records);
    const std::vector<uint8_t> &bytes = args.bytes();
    tegula_launch_config config{};
    config.struct_size = sizeof(config);
    config.grid[0] = kPrograms;
    config.grid[1] = config.grid[2] = 1;
    config.block[0] = config.block[1] = config.block[2] = 1;
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(tegula_kernel_launch(kernel, stream.get(), &config,
                                     bytes.data(), bytes.size()),
                nullptr);
    ASSERT_EQ(tegula_module_unload(module), nullptr);
  }
  stream.synchronize();
  for (uint32_t count : counts.read<uint32_t>(kPrograms))
    ASSERT_EQ(count, 4u);
}

//===-- The plugin ABI directly ------------------------------------------------===//

/// The plugin's own grid check, which the runtime's hides: drives the
/// plugin through its function table.
TEST_F(HostKernels, DirectAbiRefusesAZeroGrid) {
  std::string image = compileIR(kRecordPrograms, "record_programs", target(),
                                0, 16);
  ASSERT_FALSE(image.empty());
  std::string path = kBuildPluginDir + "/libtegula_plugin_host.so";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto getApi = reinterpret_cast<tg_plugin_get_api_fn *>(
      dlsym(library, TG_PLUGIN_ENTRY_SYMBOL));
  ASSERT_NE(getApi, nullptr);
  const tg_plugin_api *api = getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  ASSERT_NE(api, nullptr);
  auto take = [&](tg_error_t *error) -> std::pair<int32_t, std::string> {
    if (!error)
      return {TG_SUCCESS, ""};
    tg_error_message_args message{};
    message.struct_size = sizeof(message);
    message.error = error;
    api->error_message(&message);
    tg_error_get_code_args code{};
    code.struct_size = sizeof(code);
    code.error = error;
    api->error_get_code(&code);
    std::string text(message.message, message.message_size);
    tg_error_destroy_args destroy{};
    destroy.struct_size = sizeof(destroy);
    destroy.error = error;
    api->error_destroy(&destroy);
    return {code.code, text};
  };

  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  init.runtime_minor = TG_PLUGIN_API_MINOR;
  ASSERT_EQ(take(api->plugin_initialize(&init)).first, TG_SUCCESS);
  tg_plugin_get_devices_args devices{};
  devices.struct_size = sizeof(devices);
  devices.plugin = init.plugin;
  ASSERT_EQ(take(api->plugin_get_devices(&devices)).first, TG_SUCCESS);
  ASSERT_EQ(devices.num_devices, 1u);
  tg_module_load_args loadArgs{};
  loadArgs.struct_size = sizeof(loadArgs);
  loadArgs.device = devices.devices[0];
  loadArgs.image = image.data();
  loadArgs.image_size = image.size();
  ASSERT_EQ(take(api->module_load(&loadArgs)).first, TG_SUCCESS);
  tg_module_get_kernel_args kernelArgs{};
  kernelArgs.struct_size = sizeof(kernelArgs);
  kernelArgs.module = loadArgs.module;
  kernelArgs.name = "record_programs";
  ASSERT_EQ(take(api->module_get_kernel(&kernelArgs)).first, TG_SUCCESS);

  uint64_t packed[2] = {0, 0};
  for (int axis = 0; axis < 3; ++axis) {
    tg_kernel_launch_args launch{};
    launch.struct_size = sizeof(launch);
    launch.kernel = kernelArgs.kernel;
    launch.grid[0] = launch.grid[1] = launch.grid[2] = 1;
    launch.grid[axis] = 0;
    launch.block[0] = launch.block[1] = launch.block[2] = 1;
    launch.packed_args = packed;
    launch.packed_args_size = sizeof(packed);
    auto [code, message] = take(api->kernel_launch(&launch));
    EXPECT_EQ(code, TG_ERROR_INVALID_ARGUMENT) << message;
    EXPECT_NE(message.find("has a zero dimension"), std::string::npos)
        << message;
  }

  tg_module_unload_args unload{};
  unload.struct_size = sizeof(unload);
  unload.module = loadArgs.module;
  EXPECT_EQ(take(api->module_unload(&unload)).first, TG_SUCCESS);
  tg_plugin_destroy_args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.plugin = init.plugin;
  EXPECT_EQ(take(api->plugin_destroy(&destroy)).first, TG_SUCCESS);
  dlclose(library);
}

//===-- Compiling tile bytecode ------------------------------------------------===//


TEST_F(HostKernels, CompileRefusesWhatIsNotTileBytecode) {
  static const char garbage[] = "this is not tile-dialect bytecode";
  Error error = expectError(
      [&] { device.compile(garbage, sizeof(garbage) - 1, {}); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT);
  EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("not tile-dialect MLIR bytecode"),
            std::string::npos)
      << error.what();
}

TEST_F(HostKernels, CompileRefusesAFutureDialectVersion) {
  std::string bytes = tileBytecode(
      vectorAddIR(256), std::make_unique<tegula::tile::TileBytecodeVersion>(
                            tegula::tile::TileDialectVersion::kMajor + 1, 0));
  ASSERT_FALSE(bytes.empty());
  Error error =
      expectError([&] { device.compile(bytes.data(), bytes.size(), {}); });
  EXPECT_EQ(error.code(), TG_ERROR_VERSION_MISMATCH) << error.what();
  EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("is not supported by this reader"),
            std::string::npos)
      << error.what();
}

TEST_F(HostKernels, CompileReportsVerifierErrorsWithTheirLocation) {
  std::string bytes = tileBytecode(R"mlir(
tile.func @bad(%arg0: i32) {
  %r = tile.make_range {end = 0 : i32, start = 4 : i32} : tensor<4xi32> loc("bad.py":4:9)
  tile.return
}
)mlir",
                                   nullptr, /*verify=*/false);
  ASSERT_FALSE(bytes.empty());
  Error error =
      expectError([&] { device.compile(bytes.data(), bytes.size(), {}); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT) << error.what();
  EXPECT_EQ(std::string(error.what()),
            "host: the tile IR does not verify: bad.py:4:9: 'tile.make_range' "
            "op end (0) must be greater than start (4)");
}

/// The whole path: tile bytecode -> the plugin's compile -> load -> launch.
/// middle/'s lowering is being written; while it cannot lower this kernel
/// the test skips with the compile's message (which must be one line).
TEST_F(HostKernels, CompilesAndRunsVectorAdd) {
  std::string bytes = tileBytecode(vectorAddIR(256));
  ASSERT_FALSE(bytes.empty());
  tegula_image_t *raw = nullptr;
  tegula_error_t *error = tegula_device_compile(
      device.get(), bytes.data(), bytes.size(), nullptr, 0, &raw);
  if (error) {
    std::string message = takeMessage(error);
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    GTEST_SKIP() << "the host plugin cannot compile vector add yet: "
                 << message;
  }
  Image image(raw);
  const tg_kernel_metadata *meta = image.metadata();
  ASSERT_NE(meta, nullptr);
  EXPECT_STREQ(meta->name, "add_kernel");
  EXPECT_EQ(std::string(meta->target), device.target());
  EXPECT_EQ(meta->num_warps, 1u);
  EXPECT_STREQ(meta->specialization, "");
  ASSERT_EQ(meta->num_args, 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(meta->args[i].kind, uint32_t(TG_ARG_POINTER));
    EXPECT_EQ(meta->args[i].type, uint32_t(TG_TYPE_F32));
    EXPECT_EQ(meta->args[i].divisibility, 16u);
  }
  EXPECT_EQ(meta->args[3].kind, uint32_t(TG_ARG_SCALAR));
  EXPECT_EQ(meta->args[3].type, uint32_t(TG_TYPE_I32));

  Kernel kernel = device.loadKernel(image.data(), image.size(), "add_kernel");
  const int32_t n = 1000;
  std::vector<float> x(n + 24), y(n + 24);
  for (int32_t i = 0; i < n + 24; ++i) {
    x[i] = 0.5f * float(i);
    y[i] = 1000.0f - float(i);
  }
  Buffer bx = device.allocate(x.size() * 4), by = device.allocate(y.size() * 4),
         bo = device.allocate(x.size() * 4);
  bx.write(x);
  by.write(y);
  bo.write(std::vector<float>(x.size(), -1.0f));
  ArgPack args(meta);
  args.add(bx).add(by).add(bo).add(n);
  kernel.launch({(n + 255) / 256, 1, 1}, {1, 1, 1}, args);
  std::vector<float> got = bo.read<float>(x.size());
  for (int32_t i = 0; i < n + 24; ++i)
    ASSERT_EQ(got[i], i < n ? x[i] + y[i] : -1.0f) << "element " << i;
}

/// tl.device_print and tl.device_assert through middle/'s lowering: a tile,
/// a scalar and a print of no values, and an assert on a tile.
constexpr const char *kDebugKernel = R"mlir(
module {
  tile.func @debug_kernel(%arg0: i32) {
    %pid = tile.program_id 0 : i32
    %r = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    tile.print " r: " {hex = false, is_signed = array<i32: 1>} : %r : tensor<4xi32> loc("debug.py":5:4)
    tile.print " pid: " {hex = false, is_signed = array<i32: 1>} : %pid : i32 loc("debug.py":6:4)
    tile.print "hello" {hex = false, is_signed = array<i32>} loc("debug.py":7:4)
    %n = tile.splat %arg0 : i32 -> tensor<4xi32>
    %ok = arith.cmpi slt, %r, %n : tensor<4xi32>
    tile.assert %ok, "r < n" : tensor<4xi1> loc("debug.py":9:4)
    tile.return
  } loc("debug.py":3:0)
}
)mlir";

TEST_F(HostKernels, CompiledPrintAndAssertRun) {
  std::string bytes = tileBytecode(kDebugKernel);
  ASSERT_FALSE(bytes.empty());
  tegula_image_t *raw = nullptr;
  tegula_error_t *error = tegula_device_compile(
      device.get(), bytes.data(), bytes.size(), nullptr, 0, &raw);
  if (error) {
    std::string message = takeMessage(error);
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    GTEST_SKIP() << "the host plugin cannot compile print and assert yet: "
                 << message;
  }
  Image image(raw);
  Kernel kernel =
      device.loadKernel(image.data(), image.size(), image.metadata()->name);

  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  ArgPack args(image.metadata());
  args.add(int32_t(4));
  kernel.launch({2, 1, 1}, {1, 1, 1}, args);
  std::string printed = ::testing::internal::GetCapturedStdout();
  std::vector<std::string> want;
  for (const char *pid : {"pid (0, 0, 0)", "pid (1, 0, 0)"}) {
    for (int i = 0; i < 4; ++i)
      want.push_back(std::string(pid) + " idx (" + std::to_string(i) +
                     ") r: " + std::to_string(i));
    want.push_back(std::string(pid) + " pid: " + (pid[5] == '0' ? "0" : "1"));
    want.push_back(std::string(pid) + " hello");
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sortedLines(printed), want) << printed;

  ::testing::internal::CaptureStdout();
  ArgPack failing(image.metadata());
  failing.add(int32_t(2));
  Error failure =
      expectError([&] { kernel.launch({1, 1, 1}, {1, 1, 1}, failing); });
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(failure.code(), TG_ERROR_DEVICE);
  EXPECT_EQ(std::string(failure.what()),
            "host: device_assert failed at debug.py:9 in debug_kernel: r < n "
            "(program (0, 0, 0), element 2)");
}

} // namespace
