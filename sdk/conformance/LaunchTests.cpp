//===- LaunchTests.cpp - Compile, load and launch -------------------------===//
//
// Three kinds of launch test:
//  - Launch.CompiledKernelAttributesAreConsistent: a loaded kernel's
//    attributes (optional) fit the device and respect struct_size.
//  - Launch.FillKernel runs the kernel that Config::fillKernelOptions makes
//    a plugin without a code generator build (a test plugin's built-in
//    kernel), and skips without those options.
//  - Launch.Compiled* compile real kernels: Triton-language sources
//    (kernels/*.py) that `tegula compile` turned into tile bytecode when the
//    SDK was built (KernelCorpus.h). Each compiles on every device, checks
//    the image's metadata, loads it, launches it on several grids (sizes
//    that are not a multiple of the block, and more programs than needed)
//    and compares what it wrote with a C++ reference, the output poisoned
//    with a sentinel first and checked past its end.
//
// A compile that answers TG_ERROR_UNIMPLEMENTED skips (fails when strict),
// as everywhere in the suite. Any other compile error fails, except for a
// plugin run with --fill-kernel: that option says the plugin builds its
// kernels from compile options, not from bytecode, so its answers to real
// bytecode (UNIMPLEMENTED, INVALID_FORMAT, NOT_FOUND) skip the test.
//
//===----------------------------------------------------------------------===//

#include "Fixture.h"
#include "KernelCorpus.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace tegula::conformance {
int launchTestsAnchor = 0;
} // namespace tegula::conformance

using namespace tegula;
using namespace tegula::conformance;

namespace {

/// Placeholder bytecode: the plugins that build the fill kernel on request
/// ignore it.
const char kPlaceholderBytecode[] = "tegula conformance: fill_u32";

const char *codeName(int32_t code) {
  switch (code) {
  case TG_SUCCESS:
    return "TG_SUCCESS";
  case TG_ERROR_UNKNOWN:
    return "TG_ERROR_UNKNOWN";
  case TG_ERROR_INVALID_ARGUMENT:
    return "TG_ERROR_INVALID_ARGUMENT";
  case TG_ERROR_NOT_FOUND:
    return "TG_ERROR_NOT_FOUND";
  case TG_ERROR_OUT_OF_MEMORY:
    return "TG_ERROR_OUT_OF_MEMORY";
  case TG_ERROR_UNIMPLEMENTED:
    return "TG_ERROR_UNIMPLEMENTED";
  case TG_ERROR_UNAVAILABLE:
    return "TG_ERROR_UNAVAILABLE";
  case TG_ERROR_VERSION_MISMATCH:
    return "TG_ERROR_VERSION_MISMATCH";
  case TG_ERROR_INVALID_FORMAT:
    return "TG_ERROR_INVALID_FORMAT";
  case TG_ERROR_OUT_OF_RANGE:
    return "TG_ERROR_OUT_OF_RANGE";
  case TG_ERROR_DEVICE:
    return "TG_ERROR_DEVICE";
  case TG_ERROR_INTERNAL:
    return "TG_ERROR_INTERNAL";
  }
  return "an unknown code";
}

/// What one kernel argument's metadata must say. |divisibility| is what the
/// signature promised (1: nothing); the image may claim that or any divisor
/// of it (0 or 1: unknown), never more.
struct ExpectedArg {
  tg_arg_kind kind;
  tg_scalar_type type;
  uint32_t divisibility;
};

constexpr ExpectedArg pointerTo(tg_scalar_type type) {
  return {TG_ARG_POINTER, type, 16};
}
constexpr ExpectedArg scalar(tg_scalar_type type) {
  return {TG_ARG_SCALAR, type, 1};
}

/// The integer type of the other signedness, or |type| itself.
uint32_t otherSignedness(uint32_t type) {
  switch (type) {
  case TG_TYPE_I8:
    return TG_TYPE_U8;
  case TG_TYPE_I16:
    return TG_TYPE_U16;
  case TG_TYPE_I32:
    return TG_TYPE_U32;
  case TG_TYPE_I64:
    return TG_TYPE_U64;
  case TG_TYPE_U8:
    return TG_TYPE_I8;
  case TG_TYPE_U16:
    return TG_TYPE_I16;
  case TG_TYPE_U32:
    return TG_TYPE_I32;
  case TG_TYPE_U64:
    return TG_TYPE_I64;
  }
  return type;
}

/// Whether metadata type |got| describes a signature's |want|. Integers of
/// either signedness match: tile IR integers are signless, as in Triton, so
/// the bytecode says `i32` for a `u32` of the signature and a plugin cannot
/// know better.
bool sameType(uint32_t got, uint32_t want) {
  return got == want || got == otherSignedness(want);
}

uint32_t ceilDiv(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

/// A sentinel for float outputs: a quiet NaN no arithmetic here produces.
const uint32_t kFloatPoison = 0x7FC0DEAD;
const uint32_t kPoison = 0xDEADBEEF;

class Launch : public DeviceTest {
protected:
  /// Compiles |kernel| for |device| into |image|. Leaves it empty, having
  /// skipped or failed the test with the reason, when the compile fails.
  void compileCorpusKernel(tegula::Device &device, const CorpusKernel &kernel,
                           std::optional<Image> &image) {
    try {
      image.emplace(device.compile(kernel.bytecode, kernel.size));
      return;
    } catch (const Error &error) {
      const int32_t code = error.code();
      const std::string what = std::string("compiling ") + kernel.file +
                               " (kernel " + kernel.name + ") for " +
                               device.target() + " answered " + codeName(code) +
                               ": " + error.what();
      if (!config().fillKernelOptions.empty() &&
          (code == TG_ERROR_UNIMPLEMENTED || code == TG_ERROR_INVALID_FORMAT ||
           code == TG_ERROR_NOT_FOUND))
        GTEST_SKIP() << "the plugin builds its kernels from compile options "
                        "(--fill-kernel) and does not compile tile bytecode: "
                     << what;
      if (code == TG_ERROR_UNIMPLEMENTED && !config().strict)
        GTEST_SKIP() << "not implemented by the plugin: " << what;
      if (code == TG_ERROR_UNIMPLEMENTED)
        ADD_FAILURE() << "not implemented by the plugin, and the run is "
                         "strict: "
                      << what;
      else
        ADD_FAILURE() << what;
    }
  }

  /// Checks the image's metadata: the kernel's name, the device's target
  /// (or its backend's, for a portable image), the arguments' kinds and
  /// types, divisibility no stronger than the signature's.
  void checkMetadata(const Image &image, tegula::Device &device,
                     const CorpusKernel &kernel,
                     const std::vector<ExpectedArg> &args) {
    const tg_kernel_metadata *meta = image.metadata();
    ASSERT_NE(meta, nullptr) << "an image without metadata";
    ASSERT_NE(meta->name, nullptr);
    EXPECT_STREQ(meta->name, kernel.name);
    ASSERT_NE(meta->target, nullptr);
    std::string target = meta->target;
    EXPECT_TRUE(target == device.target() || target == device.backend())
        << "the image's target '" << target << "' should be the device's, '"
        << device.target() << "' (or '" << device.backend()
        << "' for a portable image)";
    EXPECT_GT(image.size(), 0u) << "an empty image";
    ASSERT_EQ(meta->num_args, args.size()) << "arguments of " << kernel.name;
    ASSERT_NE(meta->args, nullptr);
    for (size_t i = 0; i < args.size(); ++i) {
      SCOPED_TRACE("argument " + std::to_string(i));
      const tg_kernel_arg &arg = meta->args[i];
      EXPECT_EQ(arg.kind, uint32_t(args[i].kind));
      EXPECT_TRUE(sameType(arg.type, args[i].type))
          << "type " << arg.type << ", want " << args[i].type
          << " (tg_scalar_type)";
      EXPECT_TRUE(arg.divisibility <= 1 ||
                  args[i].divisibility % arg.divisibility == 0)
          << "the image assumes divisibility by " << arg.divisibility
          << "; the signature promised " << args[i].divisibility;
    }
  }

  /// For each device: compiles |kernel|, checks its metadata against
  /// |args|, loads it and runs |body|. Runtime errors in |body| fail the
  /// test (UNIMPLEMENTED skips it unless strict).
  void onEachDevice(
      const CorpusKernel &kernel, const std::vector<ExpectedArg> &args,
      const std::function<void(tegula::Device &, const tg_kernel_metadata *,
                               Kernel &)> &body) {
    for (tegula::Device &device : devices) {
      SCOPED_TRACE(device.name() + ", " + kernel.file);
      std::optional<Image> image;
      compileCorpusKernel(device, kernel, image);
      if (!image)
        return;
      checkMetadata(*image, device, kernel, args);
      if (HasFatalFailure())
        return;
      guarded([&] {
        Kernel loaded =
            device.loadKernel(image->data(), image->size(), kernel.name);
        body(device, image->metadata(), loaded);
      });
      if (HasFatalFailure() || IsSkipped())
        return;
    }
  }

  /// The block for a kernel compiled from Triton: num_warps warps of the
  /// device's warp size (one thread on a device whose program is a thread).
  static Dim3 blockFor(const tg_kernel_metadata *meta,
                       const tegula::Device &device) {
    uint32_t warps = std::max<uint32_t>(meta->num_warps, 1);
    uint32_t warp = std::max<uint32_t>(device.properties().warpSize, 1);
    return {warps * warp, 1, 1};
  }
};

//===-- A built-in kernel
//---------------------------------------------------===//

TEST_F(Launch, FillKernel) {
  if (config().fillKernelOptions.empty())
    GTEST_SKIP() << "no built-in kernel asked for (--fill-kernel, "
                    "TEGULA_CONFORMANCE_FILL_KERNEL): this test is for "
                    "plugins without a code generator; Launch.Compiled* "
                    "compile real kernels";
  std::vector<tg_compile_option> options;
  for (const auto &[key, value] : config().fillKernelOptions)
    options.push_back({key.c_str(), value.c_str()});

  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      Image image = device.compile(kPlaceholderBytecode,
                                   sizeof(kPlaceholderBytecode) - 1, options);
      const tg_kernel_metadata *meta = image.metadata();
      ASSERT_NE(meta, nullptr);
      ASSERT_STREQ(meta->name, "fill_u32");
      EXPECT_EQ(std::string(meta->target), device.target())
          << "the image's target should be the device's";
      ASSERT_EQ(meta->num_args, 3u);
      EXPECT_EQ(meta->args[0].kind, uint32_t(TG_ARG_POINTER));
      EXPECT_EQ(meta->args[1].kind, uint32_t(TG_ARG_SCALAR));
      EXPECT_EQ(meta->args[2].kind, uint32_t(TG_ARG_SCALAR));

      Kernel kernel = device.loadKernel(image.data(), image.size(), "fill_u32");
      const int32_t n = 1000;
      const size_t slack = 24;
      Buffer out = device.allocate((n + slack) * 4);
      out.write(std::vector<uint32_t>(n + slack, kPoison));

      // Synchronously, with more threads than elements.
      ArgPack args(meta);
      args.add(out).add(uint32_t(0x01020304)).add(int32_t(n));
      kernel.launch({(n + 127) / 128, 1, 1}, {128, 1, 1}, args);
      std::vector<uint32_t> got = out.read<uint32_t>(n + slack);
      for (int32_t i = 0; i < n + int32_t(slack); ++i) {
        uint32_t want = i < n ? 0x01020304u : kPoison;
        ASSERT_EQ(got[i], want) << "element " << i;
      }

      // In a stream, ordered after a memset and before a read.
      Stream stream = device.createStream();
      out.memset(0, (n + slack) * 4, 0, &stream);
      ArgPack again(meta);
      again.add(out).add(uint32_t(7)).add(int32_t(n / 2));
      kernel.launch({4, 1, 1}, {256, 1, 1}, again, &stream);
      std::vector<uint32_t> after(n + slack, kPoison);
      out.read(after.data(), after.size() * 4, 0, &stream);
      stream.synchronize();
      for (int32_t i = 0; i < n + int32_t(slack); ++i)
        ASSERT_EQ(after[i], i < n / 2 ? 7u : 0u) << "element " << i;
    });
  }
}

//===-- Compiled kernels
//------------------------------------------------------===//

const std::vector<ExpectedArg> kFillArgs = {
    pointerTo(TG_TYPE_U32), scalar(TG_TYPE_U32), scalar(TG_TYPE_I32)};
const std::vector<ExpectedArg> kAddArgs = {
    pointerTo(TG_TYPE_F32), pointerTo(TG_TYPE_F32), pointerTo(TG_TYPE_F32),
    scalar(TG_TYPE_I32)};

TEST_F(Launch, CompiledFill) {
  onEachDevice(
      kFillU32, kFillArgs,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        const Dim3 block = blockFor(meta, device);
        // Room for 4 programs past the last n, each writing nothing.
        const int32_t sizes[] = {1, 63, 64, 65, 1000, 4099};
        const size_t capacity = 4099 + 8 * kFillBlock;
        Buffer out = device.allocate(capacity * 4);
        uint32_t value = 0x01020304;
        for (int32_t n : sizes)
          for (uint32_t extra : {0u, 3u}) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", " +
                         std::to_string(extra) + " programs more than needed");
            value += 0x01010101;
            out.write(std::vector<uint32_t>(capacity, kPoison));
            ArgPack args(meta);
            args.add(out).add(value).add(n);
            kernel.launch({ceilDiv(n, kFillBlock) + extra, 1, 1}, block, args);
            std::vector<uint32_t> got = out.read<uint32_t>(capacity);
            for (size_t i = 0; i < capacity; ++i)
              ASSERT_EQ(got[i], i < size_t(n) ? value : kPoison)
                  << "element " << i;
          }
      });
}

TEST_F(Launch, CompiledKernelAttributesAreConsistent) {
  // kernel_get_attributes (plugin ABI 1.2) is optional: a plugin that
  // cannot tell answers TG_ERROR_UNIMPLEMENTED. What it does tell must fit
  // the device, and it writes nothing past the caller's struct_size.
  onEachDevice(
      kAddF32, kAddArgs,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        tg_kernel_attributes attrs{};
        attrs.struct_size = sizeof(attrs);
        tegula_error_t *error =
            tegula_kernel_get_attributes(kernel.get(), &attrs);
        if (error) {
          const int32_t code = tegula_error_get_code(error);
          const std::string message = tegula_error_get_message(error);
          tegula_error_destroy(error);
          EXPECT_EQ(code, TG_ERROR_UNIMPLEMENTED)
              << "kernel_get_attributes failed: " << message;
          return;
        }
        const uint32_t unknown = TG_KERNEL_ATTRIBUTE_UNKNOWN;
        const DeviceProperties props = device.properties();
        if (attrs.registers != unknown)
          EXPECT_GT(attrs.registers, 0u) << "a kernel without registers";
        if (attrs.max_threads_per_block != unknown) {
          EXPECT_GE(attrs.max_threads_per_block, blockFor(meta, device)[0])
              << "the kernel cannot have the block it was compiled for";
          if (props.maxThreadsPerBlock)
            EXPECT_LE(attrs.max_threads_per_block, props.maxThreadsPerBlock);
        }
        if (attrs.shared_memory != unknown && props.sharedMemoryPerBlock)
          EXPECT_LE(attrs.shared_memory, props.sharedMemoryPerBlock);

        struct {
          tg_kernel_attributes attrs;
        } canary;
        std::memset(&canary, 0x5a, sizeof(canary));
        canary.attrs.struct_size =
            TG_STRUCT_SIZE(tg_kernel_attributes, registers);
        canary.attrs.extension_start = nullptr;
        error = tegula_kernel_get_attributes(kernel.get(), &canary.attrs);
        ASSERT_EQ(error, nullptr) << tegula_error_get_message(error);
        EXPECT_EQ(canary.attrs.registers, attrs.registers);
        EXPECT_EQ(canary.attrs.spills, 0x5a5a5a5au)
            << "kernel_get_attributes wrote past the caller's struct_size";
        EXPECT_EQ(canary.attrs.scalar_register_spills, 0x5a5a5a5au)
            << "kernel_get_attributes wrote past the caller's struct_size";
      });
}

TEST_F(Launch, CompiledVectorAdd) {
  std::mt19937 rng = seededGenerator();
  onEachDevice(
      kAddF32, kAddArgs,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        const Dim3 block = blockFor(meta, device);
        const int32_t sizes[] = {1, 127, 128, 129, 1000, 5000};
        const size_t capacity = 5000 + 4 * kAddBlock;
        std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
        std::vector<float> x(capacity), y(capacity);
        for (size_t i = 0; i < capacity; ++i) {
          x[i] = uniform(rng);
          y[i] = uniform(rng);
        }
        Buffer bx = device.allocate(capacity * 4),
               by = device.allocate(capacity * 4),
               out = device.allocate(capacity * 4);
        bx.write(x);
        by.write(y);
        for (int32_t n : sizes)
          for (uint32_t extra : {0u, 2u}) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", " +
                         std::to_string(extra) + " programs more than needed");
            out.write(std::vector<uint32_t>(capacity, kFloatPoison));
            ArgPack args(meta);
            args.add(bx).add(by).add(out).add(n);
            kernel.launch({ceilDiv(n, kAddBlock) + extra, 1, 1}, block, args);
            std::vector<uint32_t> got = out.read<uint32_t>(capacity);
            for (size_t i = 0; i < capacity; ++i)
              ASSERT_EQ(got[i],
                        i < size_t(n) ? bitsOf(x[i] + y[i]) : kFloatPoison)
                  << "element " << i << ": " << x[i] << " + " << y[i];
          }
        // The inputs are read, not written.
        std::vector<float> xAfter = bx.read<float>(capacity);
        ASSERT_EQ(std::memcmp(xAfter.data(), x.data(), capacity * 4), 0)
            << "the kernel wrote to its input";
      });
}

TEST_F(Launch, CompiledRowSum) {
  std::mt19937 rng = seededGenerator();
  const std::vector<ExpectedArg> expected = {
      pointerTo(TG_TYPE_F32), pointerTo(TG_TYPE_F32), scalar(TG_TYPE_I32),
      scalar(TG_TYPE_I32), scalar(TG_TYPE_I32)};
  onEachDevice(
      kRowSumF32, expected,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        const Dim3 block = blockFor(meta, device);
        struct Shape {
          int32_t rows, cols, stride;
        };
        // Rows and columns that are and are not multiples of the tile, a stride
        // wider than the row, no columns at all.
        const Shape shapes[] = {{1, 1, 1},   {3, 31, 32},   {4, 32, 32},
                                {5, 33, 40}, {9, 100, 101}, {13, 64, 64},
                                {6, 0, 8},   {2, 200, 257}};
        const int32_t outSlack = 4 * kRowSumRows;
        // Small integers: every order of summation gives the exact sum.
        std::uniform_int_distribution<int> small(-8, 8);
        for (const Shape &s : shapes)
          for (uint32_t extra : {0u, 2u}) {
            SCOPED_TRACE("rows " + std::to_string(s.rows) + ", cols " +
                         std::to_string(s.cols) + ", stride " +
                         std::to_string(s.stride) + ", " +
                         std::to_string(extra) + " programs more than needed");
            // Padding between rows and after the last one is NaN: a load the
            // masks should have stopped shows up in the sums.
            const size_t inputSize = size_t(s.rows) * s.stride + kRowSumBlock;
            std::vector<float> x(inputSize, std::nanf(""));
            std::vector<float> want(s.rows + outSlack, 0.0f);
            for (int32_t r = 0; r < s.rows; ++r)
              for (int32_t c = 0; c < s.cols; ++c) {
                float v = float(small(rng));
                x[size_t(r) * s.stride + c] = v;
                want[r] += v;
              }
            Buffer bx = device.allocate(inputSize * 4),
                   out = device.allocate((s.rows + outSlack) * 4);
            bx.write(x);
            out.write(std::vector<uint32_t>(s.rows + outSlack, kFloatPoison));
            ArgPack args(meta);
            args.add(bx).add(out).add(s.rows).add(s.cols).add(s.stride);
            kernel.launch({ceilDiv(s.rows, kRowSumRows) + extra, 1, 1}, block,
                          args);
            std::vector<uint32_t> got = out.read<uint32_t>(s.rows + outSlack);
            for (int32_t r = 0; r < s.rows + outSlack; ++r) {
              float gotValue;
              std::memcpy(&gotValue, &got[r], 4);
              ASSERT_EQ(got[r], r < s.rows ? bitsOf(want[r]) : kFloatPoison)
                  << "row " << r << ": got " << gotValue << ", want "
                  << (r < s.rows ? want[r] : std::nanf(""));
            }
          }
      });
}

TEST_F(Launch, CompiledAtomicCounter) {
  const std::vector<ExpectedArg> expected = {
      pointerTo(TG_TYPE_I32), pointerTo(TG_TYPE_I32), pointerTo(TG_TYPE_I32),
      scalar(TG_TYPE_I32), scalar(TG_TYPE_I32)};
  onEachDevice(
      kAtomicCounter, expected,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        const Dim3 block = blockFor(meta, device);
        struct Case {
          int32_t n, bins;
        };
        // Everything on one bin, a few bins, one element.
        const Case cases[] = {
            {1, 1}, {64 * 37 + 5, 3}, {10000, 7}, {64 * 200, 1}};
        const int32_t kSlack = 16;
        const int kRepeats = 3;
        const int32_t kUntouched = int32_t(kPoison);
        for (const Case &c : cases) {
          SCOPED_TRACE("n = " + std::to_string(c.n) + ", " +
                       std::to_string(c.bins) + " bins");
          const uint32_t programs = ceilDiv(c.n, kAtomicBlock);
          // counter[0] counts; counter[1..] must stay as they are.
          std::vector<int32_t> counterInit(kSlack, kUntouched);
          counterInit[0] = 0;
          std::vector<int32_t> binsInit(c.bins + kSlack, kUntouched);
          std::fill(binsInit.begin(), binsInit.begin() + c.bins, 0);
          Buffer counter = device.allocate(kSlack * 4),
                 tickets = device.allocate((programs + kSlack) * 4),
                 bins = device.allocate((c.bins + kSlack) * 4);
          counter.write(counterInit);
          tickets.write(std::vector<int32_t>(programs + kSlack, kUntouched));
          bins.write(binsInit);
          // Three launches, nothing reset in between: the atomics of each add
          // to what the previous ones left.
          for (int repeat = 0; repeat < kRepeats; ++repeat) {
            ArgPack args(meta);
            args.add(counter).add(tickets).add(bins).add(c.n).add(c.bins);
            kernel.launch({programs, 1, 1}, block, args);
          }

          std::vector<int32_t> gotCounter = counter.read<int32_t>(kSlack);
          ASSERT_EQ(gotCounter[0], int32_t(kRepeats * programs))
              << "programs that took a ticket, over " << kRepeats
              << " launches";
          for (int32_t i = 1; i < kSlack; ++i)
            ASSERT_EQ(gotCounter[i], kUntouched) << "counter element " << i;

          // The last launch's tickets: each of its programs got its own.
          std::vector<int32_t> gotTickets =
              tickets.read<int32_t>(programs + kSlack);
          for (uint32_t i = programs; i < programs + kSlack; ++i)
            ASSERT_EQ(gotTickets[i], kUntouched) << "ticket " << i;
          std::vector<int32_t> sorted(gotTickets.begin(),
                                      gotTickets.begin() + programs);
          std::sort(sorted.begin(), sorted.end());
          for (uint32_t i = 0; i < programs; ++i)
            ASSERT_EQ(sorted[i], int32_t((kRepeats - 1) * programs + i))
                << "the tickets of the last launch should be "
                << (kRepeats - 1) * programs << " to "
                << kRepeats * programs - 1 << ", each once";

          std::vector<int32_t> gotBins = bins.read<int32_t>(c.bins + kSlack);
          for (int32_t b = 0; b < c.bins + kSlack; ++b) {
            int32_t want = kUntouched;
            if (b < c.bins)
              want = kRepeats * (c.n / c.bins + (b < c.n % c.bins ? 1 : 0));
            ASSERT_EQ(gotBins[b], want) << "bin " << b;
          }
        }
      });
}

TEST_F(Launch, CompiledProgramIds) {
  onEachDevice(kProgramIds, {pointerTo(TG_TYPE_I32)},
               [&](tegula::Device &device, const tg_kernel_metadata *meta,
                   Kernel &kernel) {
                 const Dim3 block = blockFor(meta, device);
                 const Dim3 grids[] = {{1, 1, 1}, {7, 1, 1},   {1, 5, 1},
                                       {5, 3, 1}, {33, 17, 1}, {4, 3, 2},
                                       {2, 1, 6}, {1, 1, 3}};
                 const size_t kSlack = 16;
                 for (const Dim3 &grid : grids) {
                   SCOPED_TRACE("grid (" + std::to_string(grid[0]) + ", " +
                                std::to_string(grid[1]) + ", " +
                                std::to_string(grid[2]) + ")");
                   const size_t programs = size_t(grid[0]) * grid[1] * grid[2];
                   const size_t size = programs * kProgramIdsRecord + kSlack;
                   Buffer out = device.allocate(size * 4);
                   out.write(std::vector<uint32_t>(size, kPoison));
                   ArgPack args(meta);
                   args.add(out);
                   kernel.launch(grid, block, args);
                   std::vector<uint32_t> got = out.read<uint32_t>(size);
                   for (uint32_t z = 0; z < grid[2]; ++z)
                     for (uint32_t y = 0; y < grid[1]; ++y)
                       for (uint32_t x = 0; x < grid[0]; ++x) {
                         const uint32_t want[kProgramIdsRecord] = {
                             x, y, z, grid[0], grid[1], grid[2]};
                         size_t at = ((size_t(z) * grid[1] + y) * grid[0] + x) *
                                     kProgramIdsRecord;
                         for (int i = 0; i < kProgramIdsRecord; ++i)
                           ASSERT_EQ(got[at + i], want[i])
                               << "program (" << x << ", " << y << ", " << z
                               << "), value " << i
                               << " (x, y, z, num_programs 0, 1, 2)";
                       }
                   for (size_t i = programs * kProgramIdsRecord; i < size; ++i)
                     ASSERT_EQ(got[i], kPoison)
                         << "element " << i << ", past the records";
                 }
               });
}

/// Two compiled kernels in one stream, with copies around them and no
/// synchronization until the end: fill_u32 writes x (as the bits of 1.5f),
/// add_f32 reads it, an asynchronous read takes the result.
TEST_F(Launch, CompiledKernelsInAStream) {
  std::mt19937 rng = seededGenerator();
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    std::optional<Image> fillImage, addImage;
    compileCorpusKernel(device, kFillU32, fillImage);
    if (!fillImage)
      return;
    compileCorpusKernel(device, kAddF32, addImage);
    if (!addImage)
      return;
    checkMetadata(*fillImage, device, kFillU32, kFillArgs);
    checkMetadata(*addImage, device, kAddF32, kAddArgs);
    if (HasFatalFailure())
      return;
    guarded([&] {
      Kernel fill =
          device.loadKernel(fillImage->data(), fillImage->size(), "fill_u32");
      Kernel add =
          device.loadKernel(addImage->data(), addImage->size(), "add_f32");
      const int32_t n = 3001;
      const size_t capacity = n + 2 * kAddBlock;
      std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
      std::vector<float> y(capacity);
      for (float &v : y)
        v = uniform(rng);
      Buffer bx = device.allocate(capacity * 4),
             by = device.allocate(capacity * 4),
             out = device.allocate(capacity * 4);
      out.write(std::vector<uint32_t>(capacity, kFloatPoison));

      Stream stream = device.createStream();
      by.write(y.data(), capacity * 4, 0, &stream);
      bx.memset(0, capacity * 4, 0, &stream);
      ArgPack fillArgs(fillImage->metadata());
      fillArgs.add(bx).add(bitsOf(1.5f)).add(n);
      fill.launch({ceilDiv(n, kFillBlock), 1, 1},
                  blockFor(fillImage->metadata(), device), fillArgs, &stream);
      ArgPack addArgs(addImage->metadata());
      addArgs.add(bx).add(by).add(out).add(n);
      add.launch({ceilDiv(n, kAddBlock), 1, 1},
                 blockFor(addImage->metadata(), device), addArgs, &stream);
      std::vector<uint32_t> got(capacity, 0), gotX(capacity, 0);
      out.read(got.data(), capacity * 4, 0, &stream);
      bx.read(gotX.data(), capacity * 4, 0, &stream);
      stream.synchronize();

      for (size_t i = 0; i < capacity; ++i) {
        ASSERT_EQ(gotX[i], i < size_t(n) ? bitsOf(1.5f) : 0u)
            << "x, element " << i;
        ASSERT_EQ(got[i], i < size_t(n) ? bitsOf(1.5f + y[i]) : kFloatPoison)
            << "out, element " << i;
      }
    });
    if (HasFatalFailure() || IsSkipped())
      return;
  }
}

/// A grid with a zero dimension launches nothing: the runtime refuses it
/// (TG_ERROR_INVALID_ARGUMENT) before the plugin sees it, with and without
/// a stream, and the stream still works. Called directly, past the runtime,
/// the plugin must not crash and must run no program; it should answer with
/// an error (one line), but a plugin that relies on the runtime's check may
/// succeed doing nothing.
TEST_F(Launch, ZeroGridIsAnError) {
  const Dim3 zeroGrids[] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
  const int32_t n = 200;
  const size_t capacity = n + 4 * kFillBlock;

  onEachDevice(
      kFillU32, kFillArgs,
      [&](tegula::Device &device, const tg_kernel_metadata *meta,
          Kernel &kernel) {
        const Dim3 block = blockFor(meta, device);
        Buffer out = device.allocate(capacity * 4);
        out.write(std::vector<uint32_t>(capacity, kPoison));
        Stream stream = device.createStream();
        for (const Dim3 &grid : zeroGrids)
          for (bool inStream : {false, true}) {
            SCOPED_TRACE("grid (" + std::to_string(grid[0]) + ", " +
                         std::to_string(grid[1]) + ", " +
                         std::to_string(grid[2]) + ")" +
                         (inStream ? " in a stream" : ""));
            ArgPack args(meta);
            args.add(out).add(uint32_t(1)).add(n);
            try {
              kernel.launch(grid, block, args, inStream ? &stream : nullptr);
              ADD_FAILURE() << "a launch with a zero grid dimension succeeded";
            } catch (const Error &error) {
              EXPECT_EQ(error.code(), TG_ERROR_INVALID_ARGUMENT)
                  << error.what();
            }
          }
        stream.synchronize();
        std::vector<uint32_t> got = out.read<uint32_t>(capacity);
        for (size_t i = 0; i < capacity; ++i)
          ASSERT_EQ(got[i], kPoison) << "element " << i << " written";
        // The stream is still usable.
        ArgPack args(meta);
        args.add(out).add(uint32_t(7)).add(n);
        kernel.launch({ceilDiv(n, kFillBlock), 1, 1}, block, args, &stream);
        stream.synchronize();
        got = out.read<uint32_t>(capacity);
        for (size_t i = 0; i < capacity; ++i)
          ASSERT_EQ(got[i], i < size_t(n) ? 7u : kPoison) << "element " << i;
      });
  if (HasFatalFailure() || IsSkipped())
    return;

  // Past the runtime: the same image (compiled again, for each device in
  // order), loaded and launched through the plugin ABI.
  DirectPlugin direct(config().pluginPath);
  ASSERT_NE(direct.getApi, nullptr) << direct.loadError;
  const tg_plugin_api *api =
      direct.getApi(TG_PLUGIN_API_MAJOR, TG_PLUGIN_API_MINOR);
  ASSERT_NE(api, nullptr);
  if (!api->buffer_alloc || !api->buffer_free || !api->buffer_write ||
      !api->buffer_read || !api->module_load || !api->module_unload ||
      !api->module_get_kernel || !api->kernel_launch)
    GTEST_SKIP() << "the plugin's table lacks an entry this check needs";

  tg_plugin_initialize_args init{};
  init.struct_size = sizeof(init);
  init.runtime_major = TG_PLUGIN_API_MAJOR;
  init.runtime_minor = TG_PLUGIN_API_MINOR;
  auto [initCode, initMessage] =
      DirectPlugin::take(api, api->plugin_initialize(&init));
  ASSERT_EQ(initCode, TG_SUCCESS) << initMessage;
  tg_plugin_get_devices_args list{};
  list.struct_size = sizeof(list);
  list.plugin = init.plugin;
  auto [listCode, listMessage] =
      DirectPlugin::take(api, api->plugin_get_devices(&list));
  ASSERT_EQ(listCode, TG_SUCCESS) << listMessage;
  ASSERT_EQ(list.num_devices, devices.size());

  for (size_t d = 0; d < list.num_devices && !HasFatalFailure(); ++d) {
    SCOPED_TRACE("directly, device " + std::to_string(d));
    std::optional<Image> image;
    compileCorpusKernel(devices[d], kFillU32, image);
    if (!image)
      break;
    tg_module_load_args load{};
    load.struct_size = sizeof(load);
    load.device = list.devices[d];
    load.image = image->data();
    load.image_size = image->size();
    auto [loadCode, loadMessage] =
        DirectPlugin::take(api, api->module_load(&load));
    ASSERT_EQ(loadCode, TG_SUCCESS) << loadMessage;
    tg_module_get_kernel_args get{};
    get.struct_size = sizeof(get);
    get.module = load.module;
    get.name = "fill_u32";
    auto [getCode, getMessage] =
        DirectPlugin::take(api, api->module_get_kernel(&get));
    EXPECT_EQ(getCode, TG_SUCCESS) << getMessage;

    tg_buffer_alloc_args alloc{};
    alloc.struct_size = sizeof(alloc);
    alloc.device = list.devices[d];
    alloc.size = capacity * 4;
    auto [allocCode, allocMessage] =
        DirectPlugin::take(api, api->buffer_alloc(&alloc));
    EXPECT_EQ(allocCode, TG_SUCCESS) << allocMessage;

    if (getCode == TG_SUCCESS && allocCode == TG_SUCCESS) {
      std::vector<uint32_t> poison(capacity, kPoison);
      tg_buffer_write_args write{};
      write.struct_size = sizeof(write);
      write.dst = alloc.buffer;
      write.src = poison.data();
      write.size = capacity * 4;
      auto [writeCode, writeMessage] =
          DirectPlugin::take(api, api->buffer_write(&write));
      EXPECT_EQ(writeCode, TG_SUCCESS) << writeMessage;

      ArgPack packed; // no metadata: the layout of (u32*, u32, i32)
      packed.add(uint64_t(alloc.device_address)).add(uint32_t(1)).add(n);
      const std::vector<uint8_t> &bytes = packed.bytes();
      for (const Dim3 &grid : zeroGrids) {
        SCOPED_TRACE("grid (" + std::to_string(grid[0]) + ", " +
                     std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
                     ")");
        tg_kernel_launch_args launch{};
        launch.struct_size = sizeof(launch);
        launch.kernel = get.kernel;
        for (int i = 0; i < 3; ++i) {
          launch.grid[i] = grid[i];
          launch.block[i] = 1;
        }
        launch.packed_args = bytes.data();
        launch.packed_args_size = bytes.size();
        auto [code, message] =
            DirectPlugin::take(api, api->kernel_launch(&launch));
        if (code != TG_SUCCESS) {
          EXPECT_FALSE(message.empty()) << "an error without a message";
          EXPECT_EQ(message.find('\n'), std::string::npos)
              << "the message should be one line: " << message;
        }
      }
      std::vector<uint32_t> got(capacity, 0);
      tg_buffer_read_args read{};
      read.struct_size = sizeof(read);
      read.src = alloc.buffer;
      read.dst = got.data();
      read.size = capacity * 4;
      auto [readCode, readMessage] =
          DirectPlugin::take(api, api->buffer_read(&read));
      EXPECT_EQ(readCode, TG_SUCCESS) << readMessage;
      for (size_t i = 0; i < capacity && readCode == TG_SUCCESS; ++i)
        ASSERT_EQ(got[i], kPoison)
            << "element " << i << " written by a launch of zero programs";
    }

    if (allocCode == TG_SUCCESS) {
      tg_buffer_free_args release{};
      release.struct_size = sizeof(release);
      release.buffer = alloc.buffer;
      DirectPlugin::take(api, api->buffer_free(&release));
    }
    tg_module_unload_args unload{};
    unload.struct_size = sizeof(unload);
    unload.module = load.module;
    DirectPlugin::take(api, api->module_unload(&unload));
  }

  tg_plugin_destroy_args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.plugin = init.plugin;
  if (api->plugin_destroy)
    DirectPlugin::take(api, api->plugin_destroy(&destroy));
}

} // namespace
