//===- BackendKitTest.cpp - The SDK's C++ backend kit ---------------------===//
//
// LayoutPolicy's default blocked layout (checked against layouts Triton picks
// for the same tiles), BlockedLayout::verify, GpuDialectTargetHooks (the IR
// each hook builds), and PluginBase's function table driven directly.
//
//===----------------------------------------------------------------------===//

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/LayoutPolicy.h"
#include "tegula/BackendKit/MatrixUnit.h"
#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/TargetHooks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace tegula::backend;

namespace {

//===-- LayoutPolicy -----------------------------------------------------------===//

BlockedLayout layout(std::initializer_list<unsigned> spt,
                     std::initializer_list<unsigned> tpw,
                     std::initializer_list<unsigned> wpb,
                     std::initializer_list<unsigned> order) {
  BlockedLayout l;
  l.sizePerThread.assign(spt);
  l.threadsPerWarp.assign(tpw);
  l.warpsPerBlock.assign(wpb);
  l.order.assign(order);
  return l;
}

std::string str(const BlockedLayout &l) {
  auto list = [](llvm::ArrayRef<unsigned> v) {
    std::string s = "[";
    for (unsigned x : v)
      s += (s.size() > 1 ? "," : "") + std::to_string(x);
    return s + "]";
  };
  return "spt" + list(l.sizePerThread) + " tpw" + list(l.threadsPerWarp) +
         " wpb" + list(l.warpsPerBlock) + " order" + list(l.order);
}

// The expected layouts were worked out by hand from Triton's rule (the
// coalescing pass's per-thread vector, then BlockedEncodingAttr's thread and
// warp distribution), for 32-thread warps and 16-byte accesses; the first
// two are the encodings Triton prints for a vector add and a 128x64 f16 load.
TEST(RunLLVMPipeline, RunsTheTextAndRejectsWhatDoesNotParse) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(
      "define i32 @f(i32 %x) {\n"
      "  %a = add i32 %x, 0\n"
      "  %b = mul i32 %a, 1\n"
      "  ret i32 %b\n"
      "}\n",
      diagnostic, context);
  ASSERT_TRUE(module);
  llvm::Function *f = module->getFunction("f");
  ASSERT_EQ(f->getEntryBlock().size(), 3u);

  llvm::Error bad = tegula::backend::runLLVMPipeline(
      *module, nullptr, "function(no-such-pass)", /*vectorize=*/false);
  ASSERT_TRUE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(std::move(bad)).find("no-such-pass"),
            std::string::npos);
  EXPECT_EQ(f->getEntryBlock().size(), 3u);  // nothing ran

  ASSERT_FALSE(static_cast<bool>(tegula::backend::runLLVMPipeline(
      *module, nullptr, "function(instcombine)", /*vectorize=*/false)));
  EXPECT_EQ(f->getEntryBlock().size(), 1u);  // ret i32 %x
}

TEST(DefaultBlockedLayout, MatchesTritonOnCommonTiles) {
  struct Case {
    std::vector<int64_t> shape;
    unsigned bits;
    std::vector<unsigned> order;
    unsigned warps, contiguity;
    BlockedLayout want;
  } cases[] = {
      // vector add: 1024 x f32, 4 warps, aligned -> 4 per thread.
      {{1024}, 32, {0}, 4, 16, layout({4}, {32}, {4}, {0})},
      // a 128x64 f16 tile, row-major -> 8 halves per thread along a row.
      {{128, 64}, 16, {1, 0}, 4, 16, layout({1, 8}, {4, 8}, {4, 1}, {1, 0})},
      // 64x64 f32 with 8 warps.
      {{64, 64}, 32, {1, 0}, 8, 16, layout({1, 4}, {2, 16}, {8, 1}, {1, 0})},
      // column-major: the vector runs down dimension 0.
      {{64, 32}, 32, {0, 1}, 4, 16, layout({4, 1}, {16, 2}, {1, 4}, {0, 1})},
      // unknown contiguity: scalar accesses.
      {{1024}, 32, {0}, 4, 1, layout({1}, {32}, {4}, {0})},
      // a tile smaller than the threads: one element each, lanes repeat.
      {{16}, 32, {0}, 4, 16, layout({1}, {32}, {4}, {0})},
  };
  for (const Case &c : cases) {
    BlockedLayout got =
        defaultBlockedLayout(c.shape, c.bits, c.order, c.warps, 32, 16,
                             c.contiguity);
    EXPECT_EQ(str(got), str(c.want));
    EXPECT_EQ(got.verify(32, c.warps), "") << str(got);
  }
}

TEST(DefaultBlockedLayout, IsWellFormedForEveryTileShape) {
  for (unsigned warpSize : {16u, 32u, 64u})
    for (unsigned warps : {1u, 2u, 4u, 8u})
      for (unsigned bits : {8u, 16u, 32u, 64u})
        for (int64_t rows : {1, 2, 16, 128})
          for (int64_t cols : {1, 4, 64, 256})
            for (unsigned contiguity : {1u, 8u, 64u}) {
              BlockedLayout l = defaultBlockedLayout(
                  {rows, cols}, bits, {1, 0}, warps, warpSize, 16, contiguity);
              ASSERT_EQ(l.verify(warpSize, warps), "")
                  << rows << "x" << cols << ": " << str(l);
              // One access never exceeds 16 bytes or the known contiguity.
              ASSERT_LE(l.sizePerThread[1] * bits, 128u) << str(l);
              ASSERT_LE(l.sizePerThread[1], std::max(contiguity, 1u));
              ASSERT_LE(int64_t(l.sizePerThread[1]), cols);
            }
}

TEST(BlockedLayout, VerifyNamesTheProblem) {
  EXPECT_EQ(layout({1, 4}, {4, 8}, {4, 1}, {1, 0}).verify(32, 4), "");
  EXPECT_EQ(layout({1, 4}, {4, 4}, {4, 1}, {1, 0}).verify(32, 4),
            "threadsPerWarp multiplies to 16, not the warp size 32");
  EXPECT_EQ(layout({1, 4}, {4, 8}, {2, 1}, {1, 0}).verify(32, 4),
            "warpsPerBlock multiplies to 2, not 4 warps");
  EXPECT_EQ(layout({1, 4}, {4, 8}, {4, 1}, {1, 1}).verify(32, 4),
            "order is not a permutation of the dimensions");
  EXPECT_EQ(layout({1}, {4, 8}, {4, 1}, {1, 0}).verify(32, 4),
            "sizePerThread, threadsPerWarp, warpsPerBlock and order differ "
            "in rank");
  EXPECT_EQ(layout({0, 4}, {4, 8}, {4, 1}, {1, 0}).verify(32, 4),
            "dimension 0 has a zero factor");
}

/// A matrix-unit family that only says which dots it takes: f16 dots of at
/// least 32 x 32.
class Wide32Unit : public MatrixUnit {
public:
  llvm::StringRef getKind() const override { return "test.wide32"; }
  std::optional<MatrixInstruction>
  selectInstruction(const DotProblem &dot) const override {
    if (dot.aType != TG_TYPE_F16 || dot.m < 32 || dot.n < 32)
      return std::nullopt;
    return MatrixInstruction{this, 0, 32, 32, 8};
  }
  mlir::FailureOr<LinearLayout> getLinearLayout(const MatrixLayout &,
                                                llvm::ArrayRef<int64_t>,
                                                int64_t, int64_t,
                                                std::string &) const override {
    return mlir::failure();
  }
  mlir::FailureOr<int64_t> getInstructionK(const MatrixLayout &, mlir::Type,
                                           mlir::Type, mlir::Type,
                                           std::string &) const override {
    return 8;
  }
};

/// A policy for 64-wide wavefronts that only states its numbers.
class Wave64Policy : public LayoutPolicy {
public:
  unsigned getWarpSize() const override { return 64; }
  unsigned getMaxAccessBytes() const override { return 16; }
  std::optional<MatrixInstruction>
  selectMatrixInstruction(const DotProblem &dot) const override {
    return unit.selectInstruction(dot);
  }
  Wide32Unit unit;
};

TEST(LayoutPolicy, DefaultLayoutUsesThePolicysNumbers) {
  Wave64Policy policy;
  BlockedLayout l = policy.getBlockedLayout({64, 64}, 16, {1, 0}, 4, 16);
  EXPECT_EQ(l.verify(64, 4), "");
  EXPECT_EQ(str(l), str(layout({1, 8}, {8, 8}, {4, 1}, {1, 0})));
  DotProblem small;
  small.m = small.n = 16;
  EXPECT_FALSE(policy.selectMatrixInstruction(small));
  DotProblem big;
  big.m = big.n = 128;
  big.k = 64;
  std::optional<MatrixInstruction> mfma = policy.selectMatrixInstruction(big);
  ASSERT_TRUE(mfma);
  EXPECT_EQ(mfma->unit, &policy.unit);
}

//===-- TargetHooks ------------------------------------------------------------===//

TEST(GpuDialectTargetHooks, BuildsTheGpuOps) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                      mlir::gpu::GPUDialect>();
  mlir::OpBuilder builder(&context);
  mlir::Location loc = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<mlir::func::FuncOp>(
      loc, "kernel", builder.getFunctionType({builder.getF32Type()}, {}));
  builder.setInsertionPointToStart(func.addEntryBlock());

  GpuDialectTargetHooks hooks(/*warpSize=*/64, /*global=*/1, /*shared=*/3);
  EXPECT_EQ(hooks.getWarpSize(), 64u);
  EXPECT_EQ(hooks.getGlobalAddressSpace(), 1u);
  EXPECT_EQ(hooks.getSharedAddressSpace(), 3u);
  mlir::Value pid = hooks.buildProgramId(builder, loc, Axis::Y);
  mlir::Value nprog = hooks.buildNumPrograms(builder, loc, Axis::Z);
  mlir::Value tid = hooks.buildThreadId(builder, loc);
  hooks.buildBarrier(builder, loc);
  mlir::Value one = builder.create<mlir::arith::ConstantIntOp>(loc, 1, 32);
  mlir::Value shuffled = hooks.buildShuffle(
      builder, loc, func.getArgument(0), ShuffleKind::Xor, one);
  builder.create<mlir::func::ReturnOp>(loc);

  for (mlir::Value v : {pid, nprog, tid})
    EXPECT_TRUE(v.getType().isInteger(32));
  EXPECT_TRUE(shuffled.getType().isF32());
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  for (const char *expected :
       {"gpu.block_id  y", "gpu.grid_dim  z", "gpu.thread_id  x",
        "gpu.barrier", "gpu.shuffle  xor", "arith.index_cast",
        "arith.constant 64 : i32"})
    EXPECT_NE(text.find(expected), std::string::npos)
        << "no '" << expected << "' in\n"
        << text;
}

//===-- PluginBase ---------------------------------------------------------------===//

using namespace tegula::plugin;

class KitDevice : public DeviceBase {
public:
  explicit KitDevice(PluginBase &plugin) : DeviceBase(plugin) {
    props.struct_size = sizeof(props);
    props.name = "kit device";
    props.arch = "kitarch";
    props.warp_size = 32;
    props.global_memory = 1 << 20;
  }
  const tg_device_properties &properties() const override { return props; }
  Status createStream(std::unique_ptr<StreamBase> &) override {
    throw std::runtime_error("stream pool exhausted");
  }

private:
  tg_device_properties props{};
};

class KitPlugin : public PluginBase {
public:
  KitPlugin() : PluginBase({"kit", "2.3.4", "Tegula tests", {"a", "b"}}) {}
  Status initialize(uint32_t major, uint32_t) override {
    if (major != TG_PLUGIN_API_MAJOR)
      return Status(TG_ERROR_VERSION_MISMATCH, "wrong major");
    addDevice(std::make_unique<KitDevice>(*this));
    return Status::success();
  }
};

std::pair<int32_t, std::string> take(const tg_plugin_api *api,
                                     tg_error_t *error) {
  if (!error)
    return {TG_SUCCESS, ""};
  tg_error_message_args m{};
  m.struct_size = sizeof(m);
  m.error = error;
  api->error_message(&m);
  tg_error_get_code_args c{};
  c.struct_size = sizeof(c);
  c.error = error;
  api->error_get_code(&c);
  std::string message(m.message, m.message_size);
  tg_error_destroy_args d{};
  d.struct_size = sizeof(d);
  d.error = error;
  api->error_destroy(&d);
  return {c.code, message};
}

class PluginBaseTable : public ::testing::Test {
protected:
  void SetUp() override {
    api = pluginApi<KitPlugin>(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
    ASSERT_NE(api, nullptr);
    tg_plugin_initialize_args init{};
    init.struct_size = sizeof(init);
    init.runtime_major = TG_PLUGIN_API_MAJOR;
    ASSERT_EQ(take(api, api->plugin_initialize(&init)).first, TG_SUCCESS);
    plugin = init.plugin;
    tg_plugin_get_devices_args devices{};
    devices.struct_size = sizeof(devices);
    devices.plugin = plugin;
    ASSERT_EQ(take(api, api->plugin_get_devices(&devices)).first, TG_SUCCESS);
    ASSERT_EQ(devices.num_devices, 1u);
    EXPECT_EQ(devices.status, nullptr);
    device = devices.devices[0];
  }
  void TearDown() override {
    tg_plugin_destroy_args destroy{};
    destroy.struct_size = sizeof(destroy);
    destroy.plugin = plugin;
    EXPECT_EQ(take(api, api->plugin_destroy(&destroy)).first, TG_SUCCESS);
  }
  const tg_plugin_api *api = nullptr;
  tg_plugin_t *plugin = nullptr;
  tg_device_t *device = nullptr;
};

TEST_F(PluginBaseTable, FillsEveryEntryAndNegotiates) {
  EXPECT_EQ(api->struct_size, sizeof(tg_plugin_api));
  EXPECT_EQ(api->major_version, uint32_t(TG_PLUGIN_API_MAJOR));
  const char *first = reinterpret_cast<const char *>(&api->error_destroy);
  const char *end = reinterpret_cast<const char *>(api) + api->struct_size;
  for (const char *entry = first; entry < end; entry += sizeof(void *))
    EXPECT_NE(*reinterpret_cast<void *const *>(entry), nullptr)
        << "entry at offset " << entry - reinterpret_cast<const char *>(api);
  EXPECT_EQ(pluginApi<KitPlugin>(TG_PLUGIN_API_MAJOR + 1, 0), nullptr);
}

TEST_F(PluginBaseTable, ReportsInfoAndProperties) {
  tg_plugin_get_info_args info{};
  info.struct_size = sizeof(info);
  info.plugin = plugin;
  ASSERT_EQ(take(api, api->plugin_get_info(&info)).first, TG_SUCCESS);
  EXPECT_STREQ(info.name, "kit");
  EXPECT_STREQ(info.version, "2.3.4");
  ASSERT_EQ(info.num_targets, 2u);
  EXPECT_STREQ(info.targets[1], "b");

  tg_device_properties props{};
  props.struct_size = sizeof(props);
  tg_device_get_properties_args args{};
  args.struct_size = sizeof(args);
  args.device = device;
  args.properties = &props;
  ASSERT_EQ(take(api, api->device_get_properties(&args)).first, TG_SUCCESS);
  EXPECT_STREQ(props.arch, "kitarch");
  EXPECT_EQ(props.warp_size, 32u);
}

TEST_F(PluginBaseTable, WhatIsNotOverriddenIsUnimplemented) {
  tg_buffer_alloc_args alloc{};
  alloc.struct_size = sizeof(alloc);
  alloc.device = device;
  alloc.size = 64;
  EXPECT_EQ(take(api, api->buffer_alloc(&alloc)),
            std::make_pair(int32_t(TG_ERROR_UNIMPLEMENTED),
                           std::string("buffer_alloc is not implemented")));
  EXPECT_EQ(alloc.buffer, nullptr);

  tg_plugin_compile_args compile{};
  compile.struct_size = sizeof(compile);
  compile.plugin = plugin;
  compile.target = "a";
  EXPECT_EQ(take(api, api->plugin_compile(&compile)),
            std::make_pair(int32_t(TG_ERROR_UNIMPLEMENTED),
                           std::string("compiling for a is not implemented yet")));
}

TEST_F(PluginBaseTable, ExceptionsAndBadArgumentsBecomeErrors) {
  tg_stream_create_args stream{};
  stream.struct_size = sizeof(stream);
  stream.device = device;
  EXPECT_EQ(take(api, api->stream_create(&stream)),
            std::make_pair(int32_t(TG_ERROR_INTERNAL),
                           std::string("internal error: stream pool exhausted")));

  tg_buffer_alloc_args noDevice{};
  noDevice.struct_size = sizeof(noDevice);
  EXPECT_EQ(take(api, api->buffer_alloc(&noDevice)),
            std::make_pair(int32_t(TG_ERROR_INVALID_ARGUMENT),
                           std::string("device is NULL")));

  tg_buffer_alloc_args tiny{};
  tiny.struct_size = sizeof(size_t);
  EXPECT_EQ(take(api, api->buffer_alloc(&tiny)).first,
            TG_ERROR_INVALID_ARGUMENT);
}

TEST(PluginBase, FailingInitializeIsReported) {
  const tg_plugin_api *api =
      pluginApi<KitPlugin>(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR + 1;
  EXPECT_EQ(take(api, api->plugin_initialize(&init)),
            std::make_pair(int32_t(TG_ERROR_VERSION_MISMATCH),
                           std::string("wrong major")));
  EXPECT_EQ(init.plugin, nullptr);
}

//===-- PluginBase: native streams (TG_EXTENSION_TYPE_NATIVE_STREAM) -------------===//

/// Counts synchronize() calls and remembers what it wraps.
class CountingStream : public StreamBase {
public:
  CountingStream(DeviceBase &device, uint64_t native, int &syncs)
      : StreamBase(device), native(native), syncs(syncs) {}
  Status synchronize() override {
    ++syncs;
    return Status::success();
  }
  Status waitEvent(EventBase &) override { return Status::success(); }
  const uint64_t native;
  int &syncs;
};

class NativeDevice : public KitDevice {
public:
  using KitDevice::KitDevice;
  Status createStream(std::unique_ptr<StreamBase> &stream) override {
    stream = std::make_unique<CountingStream>(*this, 0, syncs);
    return Status::success();
  }
  Status wrapNativeStream(uint64_t native,
                          std::unique_ptr<StreamBase> &stream) override {
    if (native == 0xbad)
      return Status(TG_ERROR_INVALID_ARGUMENT, "not a stream of this device");
    stream = std::make_unique<CountingStream>(*this, native, syncs);
    return Status::success();
  }
  int syncs = 0;
};

class NativePlugin : public PluginBase {
public:
  static constexpr const char *nativeStreamHandleType = "KitStream";
  NativePlugin() : PluginBase({"kitnative", "1.0", "Tegula tests", {"a"}}) {}
  Status initialize(uint32_t, uint32_t) override {
    addDevice(std::make_unique<NativeDevice>(*this));
    return Status::success();
  }
};

TEST(PluginBase, NativeStreamsAreAdvertisedOnlyWhenDeclared) {
  EXPECT_EQ(pluginApi<KitPlugin>(TG_PLUGIN_API_MAJOR, 0)->extension_start,
            nullptr);
  const tg_plugin_api *api = pluginApi<NativePlugin>(TG_PLUGIN_API_MAJOR, 0);
  const auto *support =
      reinterpret_cast<const tg_native_stream_support *>(tg_find_extension(
          api->extension_start, TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT));
  ASSERT_NE(support, nullptr);
  EXPECT_EQ(support->base.struct_size, sizeof(tg_native_stream_support));
  EXPECT_STREQ(support->handle_type, "KitStream");
}

TEST(PluginBase, WrapsANativeStreamAndDestroysOnlyTheWrapper) {
  const tg_plugin_api *api = pluginApi<NativePlugin>(TG_PLUGIN_API_MAJOR, 0);
  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  ASSERT_EQ(take(api, api->plugin_initialize(&init)).first, TG_SUCCESS);
  tg_plugin_get_devices_args devices{};
  devices.struct_size = sizeof(devices);
  devices.plugin = init.plugin;
  ASSERT_EQ(take(api, api->plugin_get_devices(&devices)).first, TG_SUCCESS);
  auto &device = static_cast<NativeDevice &>(
      *static_cast<DeviceBase *>(devices.devices[0]));

  auto create = [&](const tg_native_stream_extension *native,
                    tg_stream_t **out) {
    tg_stream_create_args args{};
    args.struct_size = sizeof(args);
    args.device = devices.devices[0];
    args.extension_start = const_cast<tg_extension_base *>(
        native ? &native->base : nullptr);
    auto result = take(api, api->stream_create(&args));
    *out = args.stream;
    return result;
  };
  auto destroy = [&](tg_stream_t *stream) {
    tg_stream_destroy_args args{};
    args.struct_size = sizeof(args);
    args.stream = stream;
    return take(api, api->stream_destroy(&args)).first;
  };

  tg_native_stream_extension native{};
  native.base.struct_size = sizeof(native);
  native.base.type = TG_EXTENSION_TYPE_NATIVE_STREAM;
  native.native_stream = 0x1234;
  tg_stream_t *wrapper = nullptr;
  ASSERT_EQ(create(&native, &wrapper).first, TG_SUCCESS);
  auto *counting = static_cast<CountingStream *>(static_cast<StreamBase *>(wrapper));
  EXPECT_EQ(counting->native, 0x1234u);
  EXPECT_TRUE(counting->wrapsNativeStream);
  EXPECT_EQ(destroy(wrapper), TG_SUCCESS);
  EXPECT_EQ(device.syncs, 0) << "destroying a wrapper must not wait for the "
                                "native stream";

  tg_stream_t *own = nullptr;
  ASSERT_EQ(create(nullptr, &own).first, TG_SUCCESS);
  EXPECT_FALSE(static_cast<StreamBase *>(own)->wrapsNativeStream);
  EXPECT_EQ(destroy(own), TG_SUCCESS);
  EXPECT_EQ(device.syncs, 1) << "a stream of its own is waited for";

  native.native_stream = 0xbad;
  tg_stream_t *refused = nullptr;
  EXPECT_EQ(create(&native, &refused),
            std::make_pair(int32_t(TG_ERROR_INVALID_ARGUMENT),
                           std::string("not a stream of this device")));
  EXPECT_EQ(refused, nullptr);
  native.base.struct_size = sizeof(tg_extension_base);
  EXPECT_EQ(create(&native, &refused).first, TG_ERROR_INVALID_ARGUMENT);

  tg_plugin_destroy_args done{};
  done.struct_size = sizeof(done);
  done.plugin = init.plugin;
  EXPECT_EQ(take(api, api->plugin_destroy(&done)).first, TG_SUCCESS);
}

//===-- PluginBase: what the table answers itself ---------------------------===//

/// An event whose record() fails while |fail| is set.
class KitEvent : public EventBase {
public:
  using EventBase::EventBase;
  Status record(StreamBase &) override {
    return fail ? Status(TG_ERROR_DEVICE, "record failed") : Status::success();
  }
  Status synchronize() override { return Status::success(); }
  Status elapsedSince(EventBase &, float &milliseconds) override {
    milliseconds = 2.5f;
    return Status::success();
  }
  bool fail = false;
};

TEST_F(PluginBaseTable, AnswersWhatNeedsNoDevice) {
  // More than the device's memory never reaches allocate().
  tg_buffer_alloc_args alloc{};
  alloc.struct_size = sizeof(alloc);
  alloc.device = device;
  alloc.size = 2 << 20;
  EXPECT_EQ(take(api, api->buffer_alloc(&alloc)),
            std::make_pair(int32_t(TG_ERROR_OUT_OF_MEMORY),
                           std::string("cannot allocate 2097152 bytes: kit "
                                       "device has 1048576 bytes of memory")));

  // Zero bytes: nothing to do, so the device (which cannot write) is not
  // asked.
  auto &kitDevice = static_cast<DeviceBase &>(*device);
  BufferBase buffer(kitDevice, 16, 0x1000);
  char byte = 0;
  tg_buffer_write_args write{};
  write.struct_size = sizeof(write);
  write.dst = &buffer;
  write.src = &byte;
  EXPECT_EQ(take(api, api->buffer_write(&write)).first, TG_SUCCESS);
  write.size = 1;
  EXPECT_EQ(take(api, api->buffer_write(&write)).first,
            TG_ERROR_UNIMPLEMENTED);

  // The elapsed time of an event never recorded (a failed record counts as
  // none) is refused before the event is asked.
  int syncs = 0;
  CountingStream stream(kitDevice, 0, syncs);
  KitEvent start(kitDevice), end(kitDevice);
  auto record = [&](KitEvent &event) {
    tg_event_record_args args{};
    args.struct_size = sizeof(args);
    args.event = &event;
    args.stream = &stream;
    return take(api, api->event_record(&args)).first;
  };
  tg_event_elapsed_time_args elapsed{};
  elapsed.struct_size = sizeof(elapsed);
  elapsed.start = &start;
  elapsed.end = &end;
  start.fail = true;
  EXPECT_EQ(record(start), TG_ERROR_DEVICE);
  EXPECT_EQ(record(end), TG_SUCCESS);
  EXPECT_EQ(take(api, api->event_elapsed_time(&elapsed)),
            std::make_pair(int32_t(TG_ERROR_INVALID_ARGUMENT),
                           std::string("elapsed time: the start event was "
                                       "never recorded")));
  start.fail = false;
  EXPECT_EQ(record(start), TG_SUCCESS);
  EXPECT_EQ(take(api, api->event_elapsed_time(&elapsed)).first, TG_SUCCESS);
  EXPECT_EQ(elapsed.milliseconds, 2.5f);
}

} // namespace
