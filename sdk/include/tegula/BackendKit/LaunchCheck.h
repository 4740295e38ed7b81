//===- tegula/BackendKit/LaunchCheck.h - Launches checked once -*- C++ -*-===//
//
// What every backend checks of a launch before its driver sees it: a grid
// with no zero dimension and within the device's limits, the block shape
// the code was compiled for, enough packed argument bytes, and shared
// memory within the device's limit. The runtime has already checked the
// arguments against the kernel's metadata; these are the checks only the
// plugin can make. With them, two pieces of every GPU runtime's launch:
// the kernelParams array of pointers into the packed arguments, and the
// log of the kernels a stream ran since its last synchronize, which names
// them when an asynchronous failure surfaces. Header only.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_LAUNCHCHECK_H
#define TEGULA_BACKENDKIT_LAUNCHCHECK_H

#include "tegula/BackendKit/PluginBase.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace tegula::plugin {

/// What a launch of one kernel must respect. Zeros mean "no limit".
struct LaunchLimits {
  /// The largest grid the device takes, per axis.
  uint32_t maxGrid[3] = {0, 0, 0};
  /// The block the code was compiled for ({0, 0, 0}: any block), and how
  /// to say it ("4 warps of 32").
  uint32_t block[3] = {0, 0, 0};
  std::string blockDescription;
  /// Bytes of packed arguments the kernel reads.
  uint64_t packedArgsSize = 0;
  /// The kernel's own shared memory per block, and the most a block may
  /// have with the launch's dynamic shared memory added.
  uint64_t sharedBytes = 0;
  uint64_t maxSharedBytes = 0;
};

/// "(x, y, z)".
inline std::string dims(const uint32_t values[3]) {
  return "(" + std::to_string(values[0]) + ", " + std::to_string(values[1]) +
         ", " + std::to_string(values[2]) + ")";
}

/// Success, or TG_ERROR_INVALID_ARGUMENT (TG_ERROR_OUT_OF_RANGE for shared
/// memory) naming |kernel| and what |request| asks beyond |limits|.
inline Status checkLaunch(const std::string &kernel,
                          const LaunchRequest &request,
                          const LaunchLimits &limits) {
  for (int d = 0; d < 3; ++d) {
    if (request.grid[d] == 0)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "kernel " + kernel + ": grid " + dims(request.grid) +
                        " has a zero dimension: every dimension of a launch "
                        "grid must be at least 1");
    if (limits.maxGrid[d] && request.grid[d] > limits.maxGrid[d])
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "kernel " + kernel + ": grid " + dims(request.grid) +
                        " exceeds the device's limit " + dims(limits.maxGrid));
  }
  if (limits.block[0] && (request.block[0] != limits.block[0] ||
                          request.block[1] != limits.block[1] ||
                          request.block[2] != limits.block[2]))
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "kernel " + kernel + " was compiled for blocks of " +
                      std::to_string(uint64_t(limits.block[0]) *
                                     limits.block[1] * limits.block[2]) +
                      " threads (" + limits.blockDescription +
                      "), the launch asks for " + dims(request.block));
  if (request.packedArgsSize < limits.packedArgsSize)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "kernel " + kernel + " reads " +
                      std::to_string(limits.packedArgsSize) +
                      " bytes of packed arguments, the launch passes " +
                      std::to_string(request.packedArgsSize));
  if (request.packedArgsSize && !request.packedArgs)
    return Status(TG_ERROR_INVALID_ARGUMENT, "packed_args is NULL");
  uint64_t shared = limits.sharedBytes + request.dynamicSharedMemory;
  if (limits.maxSharedBytes && shared > limits.maxSharedBytes)
    return Status(TG_ERROR_OUT_OF_RANGE,
                  "kernel " + kernel + " needs " + std::to_string(shared) +
                      " bytes of shared memory per block (" +
                      std::to_string(limits.sharedBytes) + " its own, " +
                      std::to_string(request.dynamicSharedMemory) +
                      " asked by the launch); the device allows " +
                      std::to_string(limits.maxSharedBytes));
  return Status::success();
}

/// A kernel's arguments as the kernel ABI packs them (packArgumentOffsets),
/// and the array of one pointer per argument that CUDA's and HIP's
/// kernelParams take.
class KernelArguments {
public:
  explicit KernelArguments(const std::vector<uint32_t> &sizes)
      : offsets(sizes.size()) {
    size = packArgumentOffsets(sizes.data(), sizes.size(), offsets.data());
  }

  /// Bytes of packed arguments the kernel reads.
  uint64_t packedSize() const { return size; }

  /// One pointer per argument into |storage|, which receives an
  /// 8-byte-aligned copy of |packed| (packedSize() bytes): valid while
  /// |storage| lives unchanged. Empty for a kernel without arguments.
  std::vector<void *> pointers(const void *packed,
                               std::vector<uint64_t> &storage) const {
    std::vector<void *> result;
    pointers(packed, storage, result);
    return result;
  }

  /// The same into |params|: both vectors keep their capacity, so that a
  /// caller reusing them allocates nothing per launch.
  void pointers(const void *packed, std::vector<uint64_t> &storage,
                std::vector<void *> &params) const {
    storage.assign((size + 7) / 8, 0);
    if (size)
      std::memcpy(storage.data(), packed, size);
    params.clear();
    for (size_t offset : offsets)
      params.push_back(reinterpret_cast<char *>(storage.data()) + offset);
  }

private:
  std::vector<size_t> offsets;
  uint64_t size = 0;
};

/// The kernels launched in a stream since it was last synchronized, each
/// named once, so that an asynchronous failure can say which ran; past
/// about 200 characters of names the rest are "...". Thread-safe.
class LaunchLog {
public:
  void note(const std::string &name) {
    std::lock_guard<std::mutex> lock(mutex);
    if (dropped || launched.find(name) != std::string::npos)
      return;
    if (launched.size() > 200) {
      launched += ", ...";
      dropped = true;
      return;
    }
    launched += (launched.empty() ? "" : ", ") + name;
  }

  /// The names so far ("a, b", "" for none); the log starts again.
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string names;
    names.swap(launched);
    dropped = false;
    return names;
  }

  /// |wait| naming the kernels so far, for the error of a wait that failed:
  /// "stream synchronize (kernels launched in the stream since its last
  /// synchronize: a, b)" for "stream synchronize", |wait| alone when there
  /// were none; the log starts again.
  std::string describeAndTake(std::string wait) {
    std::string names = take();
    if (!names.empty())
      wait += " (kernels launched in the stream since its last synchronize: " +
              names + ")";
    return wait;
  }

private:
  std::mutex mutex;
  std::string launched;
  bool dropped = false;
};

} // namespace tegula::plugin

#endif // TEGULA_BACKENDKIT_LAUNCHCHECK_H
