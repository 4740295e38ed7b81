//===- NvidiaDeviceTest.cpp - The NVIDIA plugin on a CUDA device ----------===//
//
// Kernels written by hand in LLVM IR, compiled with the plugin's code
// generator (NvidiaCodegen.h) into NVIDIA images (PTX only, and PTX with a
// cubin when ptxas is here), loaded and launched through the runtime on the
// built nvidia plugin: results, streams and events, a native stream, the
// launch checks, shared memory beyond 48 KiB, and a failed device assert
// (last: CUDA leaves the context unusable after one). Every test skips,
// saying why, without a CUDA device; under ctest each runs in its own
// process.
//
//===----------------------------------------------------------------------===//

#include "NvidiaDevice.h"
#include "NvidiaCodegen.h"
#include "NvidiaTestSupport.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::nvidia;
using namespace tegula::test;

namespace {

/// scale(float *out, const float *in, float a, i32 n): out[i] = a * in[i]
/// for the i < n of block ctaid.x, 128 threads a block.
constexpr const char *kScale = R"ll(
define void @scale(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, 128
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %done
body:
  %i64 = sext i32 %i to i64
  %src = getelementptr float, ptr addrspace(1) %in, i64 %i64
  %x = load float, ptr addrspace(1) %src, align 4
  %y = fmul float %x, %a
  %dst = getelementptr float, ptr addrspace(1) %out, i64 %i64
  store float %y, ptr addrspace(1) %dst, align 4
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @scale, !"kernel", i32 1}
!1 = !{ptr @scale, !"maxntidx", i32 128}
)ll";

/// rotate(i32 *out, i64 offset): thread t writes t + 1000 * ctaid to the
/// dynamic shared memory at byte |offset| + 4t, and after a barrier reads
/// its neighbour's, (t + 1) % 128, into out[128 * ctaid + t].
constexpr const char *kRotate = R"ll(
@tegula_shared = external addrspace(3) global [0 x i8], align 16
define void @rotate(ptr addrspace(1) %out, i64 %offset) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %tag = mul i32 %ctaid, 1000
  %value = add i32 %tid, %tag
  %base = getelementptr i8, ptr addrspace(3) @tegula_shared, i64 %offset
  %slot = getelementptr i32, ptr addrspace(3) %base, i32 %tid
  store volatile i32 %value, ptr addrspace(3) %slot
  call void @llvm.nvvm.barrier0()
  %next.raw = add i32 %tid, 1
  %next = urem i32 %next.raw, 128
  %other = getelementptr i32, ptr addrspace(3) %base, i32 %next
  %got = load volatile i32, ptr addrspace(3) %other
  %row = mul i32 %ctaid, 128
  %i = add i32 %row, %tid
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %got, ptr addrspace(1) %dst
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @rotate, !"kernel", i32 1}
!1 = !{ptr @rotate, !"maxntidx", i32 128}
)ll";

/// assert_at(i32 failing): in block 0, thread |failing| prints and calls
/// __assertfail, as NvidiaTargetHooks' code does.
constexpr const char *kAssertAt = R"ll(
@msg = private addrspace(1) constant [6 x i8] c"x > 0\00"
@file = private addrspace(1) constant [10 x i8] c"kernel.py\00"
@fn = private addrspace(1) constant [10 x i8] c"assert_at\00"
define void @assert_at(i32 %failing) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %mine = icmp eq i32 %tid, %failing
  %first = icmp eq i32 %ctaid, 0
  %hit = and i1 %mine, %first
  br i1 %hit, label %bad, label %ok
bad:
  %m = addrspacecast ptr addrspace(1) @msg to ptr
  %f = addrspacecast ptr addrspace(1) @file to ptr
  %n = addrspacecast ptr addrspace(1) @fn to ptr
  call void @__assertfail(ptr %m, ptr %f, i32 12, ptr %n, i64 1)
  br label %ok
ok:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @__assertfail(ptr, ptr, i32, ptr, i64)
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @assert_at, !"kernel", i32 1}
!1 = !{ptr @assert_at, !"maxntidx", i32 128}
)ll";

/// pick(i32 *out, i32 k): each thread fills a private array of 64 i32
/// (volatile, so it stays in local memory: 256 bytes a thread) and writes
/// element k % 64 of it to out[tid].
constexpr const char *kPick = R"ll(
define void @pick(ptr addrspace(1) %out, i32 %k) {
entry:
  %buf = alloca [64 x i32], align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %next, %fill ]
  %p = getelementptr [64 x i32], ptr %buf, i32 0, i32 %i
  %v = add i32 %i, %tid
  store volatile i32 %v, ptr %p, align 4
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, 64
  br i1 %more, label %fill, label %read
read:
  %idx = and i32 %k, 63
  %q = getelementptr [64 x i32], ptr %buf, i32 0, i32 %idx
  %x = load volatile i32, ptr %q, align 4
  %t64 = zext i32 %tid to i64
  %dst = getelementptr i32, ptr addrspace(1) %out, i64 %t64
  store i32 %x, ptr addrspace(1) %dst, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @pick, !"kernel", i32 1}
!1 = !{ptr @pick, !"maxntidx", i32 128}
)ll";

/// An NVIDIA image of kernel |name| in |ir| for |target| (the device's
/// arch), |argSizes| packed, 4 warps: PTX, and a cubin when |withCubin|
/// and ptxas is here. "" (with a failure) when it cannot be made.
std::string imageOf(const std::string &ir, const std::string &name,
                    const std::string &target,
                    std::vector<uint32_t> argSizes, uint64_t sharedBytes,
                    bool withCubin) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, diagnostic, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print("kernel.ll", os);
    ADD_FAILURE() << os.str();
    return "";
  }
  NvidiaImage image;
  image.kernelName = name;
  image.target = "nvidia:" + target;
  image.arch = getCodegenArch(target);
  image.numWarps = 4;
  image.sharedBytes = sharedBytes;
  image.argSizes = std::move(argSizes);
  if (llvm::Error error = optimizeForNVPTX(*module, name, image.arch)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return "";
  }
  llvm::Expected<std::string> ptx = emitPTX(*module, image.arch);
  if (!ptx) {
    ADD_FAILURE() << llvm::toString(ptx.takeError());
    return "";
  }
  image.ptx = *ptx;
  std::string whyNot;
  if (withCubin)
    if (std::optional<std::string> ptxas = findPtxas(whyNot)) {
      llvm::Expected<std::string> cubin =
          assemblePTX(*ptxas, image.ptx, image.arch);
      if (!cubin) {
        ADD_FAILURE() << llvm::toString(cubin.takeError());
        return "";
      }
      image.cubin = *cubin;
    }
  return tegula::backend::writeImage(image);
}

class NvidiaDevices : public ::testing::Test {
protected:
  void SetUp() override {
    std::vector<Device> devices = runtime.devices();
    if (devices.empty())
      GTEST_SKIP() << noDeviceReason(runtime);
    device.emplace(devices.front());
    arch = device->properties().arch;
  }

  /// scale() loaded from an image with (|withCubin|) or without a cubin.
  Kernel scaleKernel(bool withCubin) {
    std::string image =
        imageOf(kScale, "scale", arch, {8, 8, 4, 4}, 0, withCubin);
    return device->loadKernel(image.data(), image.size(), "scale");
  }

  Runtime runtime = makeNvidiaRuntime();
  std::optional<Device> device;
  std::string arch;
};

/// Packs scale(out, in, a, n).
ArgPack scaleArgs(const Buffer &out, const Buffer &in, float a, int32_t n) {
  ArgPack args;
  args.add(out).add(in).add(a).add(n);
  return args;
}

TEST_F(NvidiaDevices, HandWrittenKernelRunsFromPtxAndFromCubin) {
  const int32_t n = 1000;
  std::vector<float> x(n + 28);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.5f * float(i) - 7.0f;
  Buffer in = device->allocate(x.size() * 4), out = device->allocate(x.size() * 4);
  in.write(x);
  for (bool withCubin : {false, true}) {
    SCOPED_TRACE(withCubin ? "cubin" : "PTX compiled by the driver");
    Kernel kernel = scaleKernel(withCubin);
    out.write(std::vector<float>(x.size(), -1.0f));
    ArgPack args = scaleArgs(out, in, 3.0f, n);
    kernel.launch({(n + 127) / 128, 1, 1}, {128, 1, 1}, args);
    std::vector<float> got = out.read<float>(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(got[i], int32_t(i) < n ? 3.0f * x[i] : -1.0f) << "element " << i;
  }
}

TEST_F(NvidiaDevices, KernelAttributesComeFromTheDriver) {
  for (bool withCubin : {false, true}) {
    SCOPED_TRACE(withCubin ? "cubin" : "PTX compiled by the driver");
    tg_kernel_attributes scale = scaleKernel(withCubin).attributes();
    EXPECT_GT(scale.registers, 0u);
    EXPECT_LE(scale.registers, 255u);
    EXPECT_EQ(scale.local_memory, 0u);
    EXPECT_EQ(scale.spills, 0u);
    EXPECT_EQ(scale.shared_memory, 0u);
    // .maxntid 128 bounds the block.
    EXPECT_EQ(scale.max_threads_per_block, 128u);
    EXPECT_EQ(scale.scalar_registers, TG_KERNEL_ATTRIBUTE_UNKNOWN);

    std::string image = imageOf(kPick, "pick", arch, {8, 4}, 0, withCubin);
    Kernel pick = device->loadKernel(image.data(), image.size(), "pick");
    tg_kernel_attributes attrs = pick.attributes();
    EXPECT_GE(attrs.local_memory, 256u);
    EXPECT_EQ(attrs.spills, attrs.local_memory / 4); // Triton's n_spills.
    EXPECT_GT(attrs.registers, 0u);

    Buffer out = device->allocate(128 * 4);
    ArgPack args;
    args.add(out).add(int32_t(69));
    pick.launch({1, 1, 1}, {128, 1, 1}, args);
    std::vector<int32_t> got = out.read<int32_t>(128);
    for (int32_t t = 0; t < 128; ++t)
      ASSERT_EQ(got[t], 5 + t) << "thread " << t;
  }
}

TEST_F(NvidiaDevices, StreamsEventsAndANativeStreamOrderTheWork) {
  const int32_t n = 1 << 20;
  std::vector<float> x(n);
  for (int32_t i = 0; i < n; ++i)
    x[i] = float(i % 1000);
  Buffer a = device->allocate(n * 4), b = device->allocate(n * 4),
         c = device->allocate(n * 4);
  Kernel kernel = scaleKernel(true);
  Stream stream = device->createStream();
  Stream other = device->createStream();
  Event start = device->createEvent(), end = device->createEvent(),
        done = device->createEvent();
  // a <- x; b = 2a; c = 3b in another stream after an event; all in streams.
  a.write(x.data(), n * 4, 0, &stream);
  start.record(stream);
  ArgPack first = scaleArgs(b, a, 2.0f, n);
  kernel.launch({n / 128, 1, 1}, {128, 1, 1}, first, &stream);
  end.record(stream);
  done.record(stream);
  done.waitIn(other);
  ArgPack second = scaleArgs(c, b, 3.0f, n);
  kernel.launch({n / 128, 1, 1}, {128, 1, 1}, second, &other);
  std::vector<float> got(n);
  c.read(got.data(), n * 4, 0, &other);
  other.synchronize();
  for (int32_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 6.0f * x[i]) << "element " << i;
  end.synchronize();
  float ms = end.elapsedSince(start);
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 10'000.0f);

  // CUDA's legacy default stream (0), wrapped: work on it is ordered.
  Stream legacy = device->wrapNativeStream(0);
  ArgPack third = scaleArgs(a, c, 0.5f, n);
  kernel.launch({n / 128, 1, 1}, {128, 1, 1}, third, &legacy);
  a.read(got.data(), n * 4, 0, &legacy);
  legacy.synchronize();
  for (int32_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 3.0f * x[i]) << "element " << i;
}

TEST_F(NvidiaDevices, LaunchesAreCheckedBeforeTheDriver) {
  Kernel kernel = scaleKernel(false);
  Buffer buffer = device->allocate(4096);
  ArgPack args = scaleArgs(buffer, buffer, 1.0f, 0);
  Error error = expectError(
      [&] { kernel.launch({1, 1, 1}, {256, 1, 1}, args); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what())
                .find("kernel scale was compiled for blocks of 128 threads (4 "
                      "warps of 32), the launch asks for (256, 1, 1)"),
            std::string::npos)
      << error.what();
  error = expectError([&] { kernel.launch({1, 70000, 1}, {128, 1, 1}, args); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT) << error.what();
  const std::vector<uint8_t> &bytes = args.bytes();
  error = expectError(
      [&] { kernel.launch({1, 1, 1}, {128, 1, 1}, bytes.data(), 16); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what()).find("reads 24 bytes of packed "
                                           "arguments, the launch passes 16"),
            std::string::npos)
      << error.what();

  std::string image = imageOf(kScale, "scale", arch, {8, 8, 4, 4}, 0, false);
  Module module = device->loadModule(image.data(), image.size());
  error = expectError([&] { module.kernel("other"); });
  EXPECT_EQ(error.code(), TG_ERROR_NOT_FOUND);
  error = expectError([&] { device->loadModule("garbage", 7); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_FORMAT);
  // An image of a newer arch than any device has.
  std::string future = imageOf(kScale, "scale", "sm_90a", {8, 8, 4, 4}, 0, false);
  llvm::Expected<NvidiaImage> decoded =
      tegula::backend::readImage<tegula::nvidia::NvidiaImage>(future.data(), future.size());
  ASSERT_TRUE(bool(decoded));
  decoded->target = "nvidia:sm_990";
  decoded->arch = "sm_990";
  future = tegula::backend::writeImage(*decoded);
  error = expectError([&] { device->loadModule(future.data(), future.size()); });
  EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what())
                .find("the image of kernel scale is for nvidia:sm_990 (sm_990 "
                      "code), this device is " +
                      device->target()),
            std::string::npos)
      << error.what();
}

TEST_F(NvidiaDevices, SharedMemoryBeyond48KiB) {
  const uint64_t limit = device->properties().sharedMemoryPerBlock;
  const uint64_t offset = 90 * 1024;
  if (limit < offset + 2048)
    GTEST_SKIP() << "the device has " << limit << " bytes of shared memory";
  std::string image = imageOf(kRotate, "rotate", arch, {8, 8}, offset + 512,
                              true);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "rotate");
  const uint32_t blocks = 64;
  Buffer out = device->allocate(blocks * 128 * 4);
  for (uint32_t extra : {0u, 1500u}) {
    SCOPED_TRACE("extra dynamic shared memory " + std::to_string(extra));
    out.memset(0xff, blocks * 128 * 4);
    ArgPack args;
    // With extra bytes the kernel works past its own 90.5 KiB.
    args.add(out).add(uint64_t(offset + extra));
    kernel.launch({blocks, 1, 1}, {128, 1, 1}, args.bytes().data(),
                  args.bytes().size(), nullptr, extra);
    std::vector<int32_t> got = out.read<int32_t>(blocks * 128);
    for (uint32_t b = 0; b < blocks; ++b)
      for (uint32_t t = 0; t < 128; ++t)
        ASSERT_EQ(got[b * 128 + t], int32_t((t + 1) % 128 + 1000 * b))
            << "block " << b << " thread " << t;
  }
  ArgPack args;
  args.add(out).add(uint64_t(0));
  Error error = expectError([&] {
    kernel.launch({1, 1, 1}, {128, 1, 1}, args.bytes().data(),
                  args.bytes().size(), nullptr, uint32_t(limit));
  });
  EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_RANGE);
  EXPECT_NE(std::string(error.what()).find("bytes of shared memory per block"),
            std::string::npos)
      << error.what();
}

// Last: after a device-side assert CUDA's context is unusable for the rest
// of the process.
TEST_F(NvidiaDevices, ZzFailedAssertFailsTheLaunchNamingTheKernel) {
  std::string image = imageOf(kAssertAt, "assert_at", arch, {4}, 0, true);
  Kernel kernel = device->loadKernel(image.data(), image.size(), "assert_at");
  ArgPack ok;
  ok.add(int32_t(-1));
  kernel.launch({2, 1, 1}, {128, 1, 1}, ok);
  ArgPack fail;
  fail.add(int32_t(5));
  Error error =
      expectError([&] { kernel.launch({2, 1, 1}, {128, 1, 1}, fail); });
  EXPECT_EQ(error.code(), TG_ERROR_DEVICE);
  std::string message = error.what();
  EXPECT_NE(message.find("kernel assert_at: a device_assert failed"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("CUDA_ERROR_ASSERT (710)"), std::string::npos)
      << message;
}

} // namespace
