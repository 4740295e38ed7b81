//===- ContainerTest.cpp - The multi-target kernel container --------------===//
//
// Round trips, image selection for a device, and a reader that rejects every
// malformed input with a message naming the problem. The checksum is
// recomputed with zlib here, an implementation independent of the runtime's,
// so that tests can craft files whose only fault is the one under test.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <random>

using namespace tegula;
using namespace tegula::test;

namespace {

/// One kernel with fields that differ per target, so a mixed-up entry shows.
struct TestKernel {
  std::string target;
  std::string image;
  std::vector<tg_kernel_arg> args;
  tg_kernel_metadata meta{};
};

std::vector<TestKernel> fourTargets() {
  std::vector<TestKernel> kernels(4);
  const char *targets[] = {"nvidia:sm_90", "amd:gfx942", "intel",
                           "host:x86_64"};
  for (size_t i = 0; i < 4; ++i) {
    TestKernel &k = kernels[i];
    k.target = targets[i];
    k.image = std::string("image for ") + targets[i];
    k.image.push_back('\0'); // Images are binary: NULs must survive.
    k.image += std::string(i * 37 + 1, char('a' + i));
    k.args = {{"x", TG_ARG_POINTER, TG_TYPE_F32, 16, 0},
              {"n", TG_ARG_SCALAR, TG_TYPE_I32, uint32_t(i), 0}};
  }
  for (size_t i = 0; i < 4; ++i) {
    TestKernel &k = kernels[i];
    k.meta.struct_size = sizeof(k.meta);
    k.meta.name = "add_kernel";
    k.meta.target = k.target.c_str();
    k.meta.num_warps = uint32_t(4 << i);
    k.meta.shared_memory = uint32_t(1024 * i);
    k.meta.num_args = 2;
    k.meta.args = k.args.data();
    k.meta.specialization = "x:div16,n:i32";
  }
  return kernels;
}

std::vector<uint8_t> writeContainer(const std::vector<TestKernel> &kernels) {
  ContainerWriter writer;
  for (const TestKernel &k : kernels)
    writer.add(k.meta, k.image.data(), k.image.size());
  return writer.finish();
}

uint64_t readLE(const std::vector<uint8_t> &b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | b[at + i];
  return v;
}

void writeLE(std::vector<uint8_t> &b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}

/// Recomputes the header's CRC after a test has edited the body.
void fixChecksum(std::vector<uint8_t> &b) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, b.data() + 32, static_cast<uInt>(b.size() - 32));
  writeLE(b, 24, crc, 4);
}

/// Reads |bytes| expecting failure; returns the code and message.
std::pair<tg_error_code, std::string> readError(const std::vector<uint8_t> &b) {
  tegula_container_t *c = nullptr;
  tegula_error_t *e = tegula_container_read(b.data(), b.size(), &c);
  EXPECT_EQ(c, nullptr);
  if (!e) {
    tegula_container_destroy(c);
    return {TG_SUCCESS, "read succeeded"};
  }
  tg_error_code code = tegula_error_get_code(e);
  return {code, takeMessage(e)};
}

TEST(Container, RoundTripOfFourTargets) {
  std::vector<TestKernel> kernels = fourTargets();
  std::vector<uint8_t> bytes = writeContainer(kernels);
  // The writer's checksum is the standard CRC-32, as zlib computes it.
  std::vector<uint8_t> copy = bytes;
  fixChecksum(copy);
  EXPECT_EQ(copy, bytes);

  Container container = Container::read(bytes.data(), bytes.size());
  uint32_t major = 0, minor = 0;
  tegula_container_get_version(container.get(), &major, &minor);
  EXPECT_EQ(major, 1u);
  EXPECT_EQ(minor, 0u);
  ASSERT_EQ(container.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    tegula_container_entry e = container.entry(i);
    const TestKernel &k = kernels[i];
    EXPECT_EQ(e.target, k.target);
    ASSERT_EQ(e.image_size, k.image.size());
    EXPECT_EQ(std::memcmp(e.image, k.image.data(), k.image.size()), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(e.image) % 16,
              reinterpret_cast<uintptr_t>(container.entry(0).image) % 16);
    const tg_kernel_metadata *m = e.metadata;
    EXPECT_STREQ(m->name, "add_kernel");
    EXPECT_STREQ(m->target, k.target.c_str());
    EXPECT_EQ(m->num_warps, k.meta.num_warps);
    EXPECT_EQ(m->shared_memory, k.meta.shared_memory);
    EXPECT_STREQ(m->specialization, "x:div16,n:i32");
    ASSERT_EQ(m->num_args, 2u);
    EXPECT_STREQ(m->args[0].name, "x");
    EXPECT_EQ(m->args[0].kind, uint32_t(TG_ARG_POINTER));
    EXPECT_EQ(m->args[0].type, uint32_t(TG_TYPE_F32));
    EXPECT_EQ(m->args[0].divisibility, 16u);
    EXPECT_STREQ(m->args[1].name, "n");
    EXPECT_EQ(m->args[1].divisibility, uint32_t(i));
  }
}

TEST(Container, FileRoundTrip) {
  TempDir dir;
  std::string path = dir.path() + "/kernel.tgk";
  ContainerWriter writer;
  for (const TestKernel &k : fourTargets())
    writer.add(k.meta, k.image.data(), k.image.size());
  writer.writeFile(path);
  Container container = Container::readFile(path);
  EXPECT_EQ(container.size(), 4u);

  Error error = expectError([&] { Container::readFile(dir.path() + "/none"); });
  EXPECT_EQ(error.code(), TG_ERROR_NOT_FOUND);
  EXPECT_EQ(std::string(error.what()),
            "cannot open " + dir.path() + "/none: No such file or directory");

  std::ofstream(dir.path() + "/bad.tgk") << "garbage!";
  error = expectError([&] { Container::readFile(dir.path() + "/bad.tgk"); });
  EXPECT_EQ(std::string(error.what()),
            dir.path() + "/bad.tgk: invalid kernel container: bad magic (not a "
                         "Tegula kernel container)");
}

TEST(Container, SelectionPrefersTheExactArchThenTheBackend) {
  std::vector<TestKernel> kernels = fourTargets();
  std::vector<uint8_t> bytes = writeContainer(kernels);
  Container c = Container::read(bytes.data(), bytes.size());
  auto select = [&](const char *target) -> std::string {
    size_t index = 99;
    tegula_error_t *e =
        tegula_container_select_target(c.get(), target, nullptr, &index);
    if (e)
      return "error: " + takeMessage(e);
    return c.entry(index).target;
  };
  EXPECT_EQ(select("nvidia:sm_90"), "nvidia:sm_90");
  EXPECT_EQ(select("amd:gfx942"), "amd:gfx942");
  EXPECT_EQ(select("host:x86_64"), "host:x86_64");
  // Intel's image is portable SPIR-V: any Intel device takes it.
  EXPECT_EQ(select("intel:pci_0x0bd5"), "intel");
  EXPECT_EQ(select("nvidia:sm_80"),
            "error: no image for nvidia:sm_80 in the kernel container (it "
            "has: nvidia:sm_90, amd:gfx942, intel, host:x86_64)");

  size_t index = 0;
  tegula_error_t *e =
      tegula_container_select_target(c.get(), "amd:gfx942", "other", &index);
  EXPECT_EQ(tegula_error_get_code(e), TG_ERROR_NOT_FOUND);
  EXPECT_EQ(takeMessage(e), "no image for amd:gfx942 of kernel other in the "
                            "kernel container (it has: nvidia:sm_90, "
                            "amd:gfx942, intel, host:x86_64)");
}

TEST(Container, TheRuntimePicksTheImageForEachDevice) {
  // One artifact with a generic testdev image and one for testarch2 only.
  Runtime runtime = makeRuntime(testPlugin("testdev"));
  Device dev0 = runtime.device("testdev:0"), dev1 = runtime.device("testdev:1");
  Image generic = dev0.compile("x", 1, {{"kernel", "fill_u32"}});
  Image specific = dev1.compile("x", 1, {{"kernel", "fill_u32"}});
  tg_kernel_metadata genericMeta = *generic.metadata();
  genericMeta.target = "testdev";
  ContainerWriter writer;
  for (const TestKernel &k : fourTargets())
    writer.add(k.meta, k.image.data(), k.image.size());
  writer.add(genericMeta, generic.data(), generic.size());
  writer.add(*specific.metadata(), specific.data(), specific.size());
  std::vector<uint8_t> bytes = writer.finish();
  Container c = Container::read(bytes.data(), bytes.size());

  EXPECT_STREQ(c.select(dev0).target, "testdev");
  EXPECT_STREQ(c.select(dev1).target, "testdev:testarch2");

  // An image of an arch the device's plugin says it also runs beats a
  // portable one; the device's own arch beats both.
  {
    ContainerWriter compatible;
    compatible.add(genericMeta, generic.data(), generic.size());
    compatible.add(*generic.metadata(), generic.data(), generic.size());
    std::vector<uint8_t> data = compatible.finish();
    Container other = Container::read(data.data(), data.size());
    EXPECT_STREQ(other.select(dev1).target, "testdev:testarch");
    EXPECT_STREQ(other.select(dev0).target, "testdev:testarch");
    size_t index = 0;
    // Selecting by target name alone knows nothing of compatibility.
    tegula_error_t *e = tegula_container_select_target(
        other.get(), "testdev:testarch2", nullptr, &index);
    EXPECT_EQ(e, nullptr);
    EXPECT_EQ(index, 0u);
  }
  // And each image actually runs on its device.
  for (Device device : {dev0, dev1}) {
    tegula_container_entry entry = c.select(device, "fill_u32");
    tegula::Kernel kernel =
        device.loadKernel(entry.image, entry.image_size, "fill_u32");
    Buffer out = device.allocate(64);
    ArgPack args(entry.metadata);
    args.add(out).add(uint32_t(7)).add(int32_t(16));
    kernel.launch({1, 1, 1}, {16, 1, 1}, args);
    EXPECT_EQ(out.read<uint32_t>(16), std::vector<uint32_t>(16, 7u));
  }
}

TEST(Container, RejectsBadMagic) {
  std::vector<uint8_t> bytes = writeContainer(fourTargets());
  bytes[3] ^= 0x20;
  EXPECT_EQ(readError(bytes),
            std::make_pair(TG_ERROR_INVALID_FORMAT,
                           std::string("invalid kernel container: bad magic "
                                       "(not a Tegula kernel container)")));
  EXPECT_EQ(readError({'G', 'I'}).second,
            "invalid kernel container: bad magic (not a Tegula kernel "
            "container)");
}

TEST(Container, RejectsTruncationAtEveryLength) {
  std::vector<uint8_t> bytes = writeContainer(fourTargets());
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + length);
    auto [code, message] = readError(prefix);
    ASSERT_EQ(code, TG_ERROR_INVALID_FORMAT) << length << ": " << message;
    std::string expected =
        length < 32 ? "invalid kernel container: truncated: " +
                          std::to_string(length) +
                          " bytes, the header alone is 32"
                    : "invalid kernel container: truncated: " +
                          std::to_string(length) + " of " +
                          std::to_string(bytes.size()) + " bytes";
    ASSERT_EQ(message, expected) << length;
  }
}

TEST(Container, RejectsTrailingBytesAndBadChecksums) {
  std::vector<uint8_t> bytes = writeContainer(fourTargets());
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(readError(longer).second,
            "invalid kernel container: 1 bytes past the declared end (file "
            "size " + std::to_string(bytes.size()) + ")");
  std::vector<uint8_t> flipped = bytes;
  flipped.back() ^= 1;
  auto [code, message] = readError(flipped);
  EXPECT_EQ(code, TG_ERROR_INVALID_FORMAT);
  EXPECT_EQ(message.rfind("invalid kernel container: checksum mismatch "
                          "(stored 0x",
                          0),
            0u)
      << message;
}

TEST(Container, RejectsUnknownMajorVersionsAcceptsNewerMinors) {
  std::vector<uint8_t> bytes = writeContainer(fourTargets());
  for (uint16_t major : {0, 2, 0xFFFF}) {
    std::vector<uint8_t> other = bytes;
    writeLE(other, 8, major, 2);
    EXPECT_EQ(readError(other),
              std::make_pair(TG_ERROR_VERSION_MISMATCH,
                             "unsupported kernel container version " +
                                 std::to_string(major) +
                                 ".0 (this runtime reads 1.x)"));
  }
  // A newer minor only adds what older readers may skip.
  std::vector<uint8_t> newer = bytes;
  writeLE(newer, 10, 7, 2);
  Container c = Container::read(newer.data(), newer.size());
  uint32_t major = 0, minor = 0;
  tegula_container_get_version(c.get(), &major, &minor);
  EXPECT_EQ(major, 1u);
  EXPECT_EQ(minor, 7u);
  EXPECT_EQ(c.size(), 4u);
}

TEST(Container, RejectsOutOfRangeOffsets) {
  const std::vector<uint8_t> bytes = writeContainer(fourTargets());
  const uint64_t size = bytes.size();
  const uint64_t tableEnd = 32 + 4 * 32;
  auto withField = [&](size_t entry, size_t field, uint64_t value) {
    std::vector<uint8_t> b = bytes;
    writeLE(b, 32 + entry * 32 + field, value, 8);
    fixChecksum(b);
    return readError(b);
  };
  auto range = [&](size_t entry, const char *what, uint64_t offset,
                   uint64_t length) {
    return "invalid kernel container: entry " + std::to_string(entry) + ": " +
           what + " (offset " + std::to_string(offset) + ", size " +
           std::to_string(length) + ") lies outside the data area [" +
           std::to_string(tableEnd) + ", " + std::to_string(size) + ")";
  };
  uint64_t imageSize = readLE(bytes, 32 + 8, 8);
  uint64_t metaOffset = readLE(bytes, 32 + 3 * 32 + 16, 8);
  uint64_t metaSize = readLE(bytes, 32 + 3 * 32 + 24, 8);
  // Image offset past the end.
  EXPECT_EQ(withField(0, 0, size + 1),
            std::make_pair(TG_ERROR_INVALID_FORMAT,
                           range(0, "image", size + 1, imageSize)));
  // Image starting in range but running past the end.
  EXPECT_EQ(withField(0, 8, size).second,
            range(0, "image", readLE(bytes, 32, 8), size));
  // A size that would wrap around 2^64.
  EXPECT_EQ(withField(0, 8, ~0ull).second,
            range(0, "image", readLE(bytes, 32, 8), ~0ull));
  // Metadata pointing into the header.
  EXPECT_EQ(withField(3, 16, 8).second, range(3, "metadata", 8, metaSize));
  EXPECT_EQ(withField(3, 16, ~0ull - 1).second,
            range(3, "metadata", ~0ull - 1, metaSize));
  (void)metaOffset;

  // An entry table longer than the file.
  std::vector<uint8_t> b = bytes;
  writeLE(b, 12, 1000000, 4);
  EXPECT_EQ(readError(b).second,
            "invalid kernel container: entry table (1000000 entries of 32 "
            "bytes) runs past the end of the file");
  b = bytes;
  writeLE(b, 28, 8, 2);
  EXPECT_EQ(readError(b).second,
            "invalid kernel container: entry size 8 is smaller than 32");
}

TEST(Container, RejectsMalformedMetadata) {
  const std::vector<uint8_t> bytes = writeContainer(fourTargets());
  uint64_t metaOffset = readLE(bytes, 32 + 16, 8);
  uint64_t metaSize = readLE(bytes, 32 + 24, 8);

  std::vector<uint8_t> b = bytes;
  writeLE(b, metaOffset + 16, 0xFFFFFFF0u, 4); // target length
  fixChecksum(b);
  EXPECT_EQ(readError(b).second, "invalid kernel container: entry 0: "
                                 "metadata target runs past its record");

  b = bytes;
  writeLE(b, metaOffset + 8, 0x7FFFFFFF, 4); // num_args
  fixChecksum(b);
  EXPECT_EQ(readError(b).second,
            "invalid kernel container: entry 0: 2147483647 arguments cannot "
            "fit in a " + std::to_string(metaSize) + "-byte metadata record");

  b = bytes;
  writeLE(b, 32 + 24, 10, 8); // metadata size below the fixed part
  fixChecksum(b);
  EXPECT_EQ(readError(b).second, "invalid kernel container: entry 0: metadata "
                                 "record is 10 bytes, needs at least 16");

  b = bytes;
  b[metaOffset + 20] = 'N'; // "nvidia" -> "Nvidia": not a backend name
  fixChecksum(b);
  EXPECT_EQ(readError(b).second, "invalid kernel container: entry 0: "
                                 "malformed target 'Nvidia:sm_90'");
}

TEST(Container, RandomCorruptionNeverCrashes) {
  const std::vector<uint8_t> bytes = writeContainer(fourTargets());
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> b = bytes;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f)
      b[rng() % b.size()] = uint8_t(rng());
    if (rng() % 2)
      fixChecksum(b); // Let the corruption past the checksum.
    tegula_container_t *c = nullptr;
    tegula_error_t *e = tegula_container_read(b.data(), b.size(), &c);
    if (e) {
      EXPECT_NE(std::string(tegula_error_get_message(e)), "");
      tegula_error_destroy(e);
      continue;
    }
    // Whatever was accepted must be safe to walk.
    ++accepted;
    for (size_t k = 0; k < tegula_container_get_entry_count(c); ++k) {
      tegula_container_entry entry{};
      entry.struct_size = sizeof(entry);
      ASSERT_EQ(tegula_container_get_entry(c, k, &entry), nullptr);
      volatile uint8_t sink = 0;
      for (size_t j = 0; j < entry.image_size; ++j)
        sink ^= static_cast<const uint8_t *>(entry.image)[j];
      for (uint32_t a = 0; a < entry.metadata->num_args; ++a)
        sink ^= uint8_t(std::strlen(entry.metadata->args[a].name));
    }
    tegula_container_destroy(c);
  }
  EXPECT_GT(accepted, 0); // Some flips hit only image bytes.
}

TEST(Container, WriterRejectsBadMetadata) {
  std::vector<TestKernel> kernels = fourTargets();
  ContainerWriter writer;
  tg_kernel_metadata meta = kernels[0].meta;
  meta.target = "NVIDIA:sm_90";
  Error error = expectError([&] { writer.add(meta, "x", 1); });
  EXPECT_STREQ(error.what(), "malformed target 'NVIDIA:sm_90': expected "
                             "<backend> or <backend>:<arch>");
  meta.target = "nvidia:";
  EXPECT_EQ(expectError([&] { writer.add(meta, "x", 1); }).code(),
            TG_ERROR_INVALID_ARGUMENT);
  meta = kernels[0].meta;
  meta.name = "";
  error = expectError([&] { writer.add(meta, "x", 1); });
  EXPECT_STREQ(error.what(),
               "tegula_container_writer_add: metadata has no kernel name");
  writer.add(kernels[0].meta, "x", 1);
  error = expectError([&] { writer.add(kernels[0].meta, "y", 1); });
  EXPECT_STREQ(error.what(),
               "the container already has add_kernel for nvidia:sm_90");

  // An empty container is valid; selecting from it says so.
  ContainerWriter empty;
  std::vector<uint8_t> bytes = empty.finish();
  EXPECT_EQ(bytes.size(), 32u);
  Container c = Container::read(bytes.data(), bytes.size());
  size_t index = 0;
  tegula_error_t *e =
      tegula_container_select_target(c.get(), "host:x86_64", nullptr, &index);
  EXPECT_EQ(takeMessage(e), "no image for host:x86_64 in the kernel container "
                            "(it has: nothing)");
}

} // namespace
