//===- MemoryTests.cpp - Allocation, round trips, copies, memsets ---------===//
//
// Every check compares device memory read back into a poisoned host buffer
// with a model kept on the host, on fresh random data (the seed is in the
// test's output).
//
//===----------------------------------------------------------------------===//

#include "Fixture.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace tegula::conformance {
int memoryTestsAnchor = 0;
} // namespace tegula::conformance

using namespace tegula;
using namespace tegula::conformance;

namespace {

using Memory = DeviceTest;

constexpr uint8_t kPoison = 0xCD;

/// The whole buffer, read into a poisoned host vector.
std::vector<uint8_t> readAll(const Buffer &buffer) {
  std::vector<uint8_t> bytes(buffer.size(), kPoison);
  buffer.read(bytes.data(), bytes.size());
  return bytes;
}

const size_t kSizes[] = {1, 7, 64, 4096, (1u << 20) + 3};

TEST_F(Memory, AllocateAndFree) {
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      std::vector<Buffer> buffers;
      for (uint64_t size : {0ull, 1ull, 13ull, 4096ull, 1ull << 20}) {
        buffers.push_back(device.allocate(size));
        EXPECT_EQ(buffers.back().size(), size);
        if (size) {
          EXPECT_NE(buffers.back().address(), 0u)
              << "a " << size << "-byte buffer at address 0";
        }
      }
      // Live buffers never overlap.
      for (size_t i = 0; i < buffers.size(); ++i)
        for (size_t j = i + 1; j < buffers.size(); ++j) {
          const Buffer &a = buffers[i], &b = buffers[j];
          if (!a.size() || !b.size())
            continue;
          bool disjoint = a.address() + a.size() <= b.address() ||
                          b.address() + b.size() <= a.address();
          EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j
                                << " overlap";
        }
      buffers.clear();
      // Freed memory can be allocated again.
      for (int round = 0; round < 16; ++round)
        EXPECT_EQ(device.allocate(1 << 16).size(), 1u << 16);
    });
  }
}

TEST_F(Memory, WriteThenReadGivesTheSameBytes) {
  std::mt19937 rng = seededGenerator();
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      for (size_t size : kSizes) {
        SCOPED_TRACE(std::to_string(size) + " bytes");
        Buffer buffer = device.allocate(size);
        std::vector<uint8_t> data = randomBytes(rng, size);
        buffer.write(data.data(), size);
        EXPECT_BYTES_EQ(readAll(buffer), data);

        // A part, at an unaligned offset, leaves the rest alone.
        if (size >= 7) {
          std::vector<uint8_t> part = randomBytes(rng, size - 5);
          buffer.write(part.data(), part.size() - 2, /*offset=*/3);
          std::copy(part.begin(), part.end() - 2, data.begin() + 3);
          EXPECT_BYTES_EQ(readAll(buffer), data);
          // And reading a part at an offset.
          std::vector<uint8_t> window(size - 4, kPoison);
          buffer.read(window.data(), window.size(), /*offset=*/1);
          EXPECT_BYTES_EQ(window, std::vector<uint8_t>(data.begin() + 1,
                                                       data.end() - 3));
        }
      }
    });
  }
}

TEST_F(Memory, CopiesBetweenAndWithinBuffers) {
  std::mt19937 rng = seededGenerator();
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      const size_t size = 100'003;
      std::vector<uint8_t> a = randomBytes(rng, size), b = randomBytes(rng, size);
      Buffer bufA = device.allocate(size), bufB = device.allocate(size);
      bufA.write(a.data(), size);
      bufB.write(b.data(), size);

      // Whole buffer.
      bufB.copyFrom(bufA, size);
      b = a;
      EXPECT_BYTES_EQ(readAll(bufB), b);

      // A range between buffers, at unaligned offsets.
      std::vector<uint8_t> fresh = randomBytes(rng, size);
      bufA.write(fresh.data(), size);
      a = fresh;
      bufB.copyFrom(bufA, 5000, /*dstOffset=*/17, /*srcOffset=*/40001);
      std::copy(a.begin() + 40001, a.begin() + 45001, b.begin() + 17);
      EXPECT_BYTES_EQ(readAll(bufB), b);

      // Within one buffer, non-overlapping ranges.
      bufA.copyFrom(bufA, 1000, /*dstOffset=*/0, /*srcOffset=*/size - 1000);
      std::copy(a.end() - 1000, a.end(), a.begin());
      EXPECT_BYTES_EQ(readAll(bufA), a);

      // Zero bytes change nothing.
      bufA.copyFrom(bufB, 0, 5, 9);
      EXPECT_BYTES_EQ(readAll(bufA), a);
    });
  }
}

TEST_F(Memory, MemsetFillsExactlyItsRange) {
  std::mt19937 rng = seededGenerator();
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    guarded([&] {
      const size_t size = 65'537;
      std::vector<uint8_t> model = randomBytes(rng, size);
      Buffer buffer = device.allocate(size);
      buffer.write(model.data(), size);
      const std::vector<std::tuple<uint8_t, size_t, size_t>> fills = {
          {0xA5, 5, size - 12}, {0x00, 0, 1},    {0xFF, size - 1, 1},
          {0x3C, 1000, 0},      {0x00, 0, size}};
      for (auto [value, offset, count] : fills) {
        SCOPED_TRACE("memset " + std::to_string(count) + " bytes at " +
                     std::to_string(offset));
        buffer.memset(value, count, offset);
        std::fill(model.begin() + offset, model.begin() + offset + count,
                  value);
        EXPECT_BYTES_EQ(readAll(buffer), model);
      }
    });
  }
}

TEST_F(Memory, AllocationBeyondGlobalMemoryFails) {
  for (tegula::Device &device : devices) {
    SCOPED_TRACE(device.name());
    uint64_t global = device.properties().globalMemory;
    ASSERT_GT(global, 0u);
    uint64_t tooMuch = global > (UINT64_MAX >> 2) ? UINT64_MAX : global * 4;
    try {
      Buffer buffer = device.allocate(tooMuch);
      ADD_FAILURE() << "allocating " << tooMuch << " bytes on a device with "
                    << global << " succeeded";
    } catch (const Error &error) {
      if (error.code() == TG_ERROR_UNIMPLEMENTED && !config().strict)
        GTEST_SKIP() << "not implemented by the plugin: " << error.what();
      EXPECT_EQ(error.code(), TG_ERROR_OUT_OF_MEMORY) << error.what();
    }
  }
}

} // namespace
