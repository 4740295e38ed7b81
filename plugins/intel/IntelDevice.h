//===- IntelDevice.h - Level Zero memory, streams and launch ----*- C++ -*-===//
//
// A Level Zero device of the Intel plugin, through the loader
// (libze_loader.so.1) loaded at run time (LevelZero, below). Written to the
// Level Zero 1.4 API that Debian's headers describe:
//
//  - Context: one per device, made at discovery.
//  - Memory: zeMemAllocDevice / zeMemFree; copies and fills appended to the
//    stream's command list, or, for a NULL stream, to the device's
//    synchronous immediate command list, so they complete before the call
//    returns ("complete before returning").
//  - Streams: asynchronous immediate command lists on the device's compute
//    queue group, or wrappers of a caller's immediate command list. Level
//    Zero 1.4 has no host synchronize for an immediate list: a stream
//    synchronizes by appending a barrier that signals its own event and
//    waiting for that event.
//  - Events: host-visible events that zeCommandListAppendWriteGlobalTimestamp
//    signals after writing the device's clock into host memory, so two of
//    them time the work between; the clock's resolution comes from the
//    device properties.
//  - Modules: an Intel image (IntelImage.h) that the kit's checkImage
//    accepts and whose required sub-group size the device has; its SPIR-V
//    goes to zeModuleCreate, whose build log is the error when it fails.
//  - Launch: checked by the kit's GpuKernel, then every argument set with
//    zeKernelSetArgumentValue and the kernel appended, under the kernel's
//    lock (arguments are the kernel's state until the append captures them).
//    A work-group is num_warps sub-groups, the size the SPIR-V requires.
//
// Level Zero command lists are not thread-safe: every list is used under
// its own lock.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELDEVICE_H
#define TEGULA_PLUGINS_INTEL_INTELDEVICE_H

#include "tegula/BackendKit/LaunchCheck.h"
#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/VendorLibrary.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <level_zero/ze_api.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tegula::intel {

/// The Level Zero entry points the plugin calls.
// clang-format off
#define TEGULA_ZE_ENTRIES(X)                                                   \
  X(zeInit) X(zeDriverGet) X(zeDeviceGet) X(zeDeviceGetProperties)             \
  X(zeDeviceGetComputeProperties) X(zeDeviceGetMemoryProperties)               \
  X(zeDeviceGetCommandQueueGroupProperties)                                    \
  X(zeContextCreate) X(zeContextDestroy)                                       \
  X(zeCommandListCreateImmediate) X(zeCommandListDestroy)                      \
  X(zeCommandListAppendBarrier) X(zeCommandListAppendMemoryCopy)               \
  X(zeCommandListAppendMemoryFill) X(zeCommandListAppendLaunchKernel)          \
  X(zeCommandListAppendWaitOnEvents)                                           \
  X(zeCommandListAppendWriteGlobalTimestamp)                                   \
  X(zeEventPoolCreate) X(zeEventPoolDestroy) X(zeEventCreate)                  \
  X(zeEventDestroy) X(zeEventHostSynchronize) X(zeEventHostReset)              \
  X(zeMemAllocDevice) X(zeMemAllocHost) X(zeMemFree)                           \
  X(zeModuleCreate) X(zeModuleDestroy) X(zeModuleBuildLogGetString)            \
  X(zeModuleBuildLogDestroy)                                                   \
  X(zeKernelCreate) X(zeKernelDestroy) X(zeKernelSetGroupSize)                 \
  X(zeKernelSetArgumentValue) X(zeKernelGetProperties)
// clang-format on

/// The Level Zero entry points, resolved from the loader.
struct LevelZero {
  TEGULA_ZE_ENTRIES(TEGULA_VENDOR_MEMBER)

  /// The process's one table, loaded on the first call; null, with
  /// |whyNot| saying why, when the loader cannot be used.
  static const LevelZero *get(std::string &whyNot);

  /// Resolves the entry points; returns why it cannot, or "".
  std::string load();
};

/// "0x78000001 ZE_RESULT_ERROR_UNINITIALIZED", or the hex value alone for a
/// result Level Zero 1.4 does not name.
std::string describe(ze_result_t result);

/// The tg_error_code for a failed Level Zero call that returned |result|.
int32_t toErrorCode(ze_result_t result);

/// One Level Zero device with its own context. Properties are filled at
/// discovery (|props|, |limits|, |subGroupSizes|, ...).
class ZeDevice : public plugin::PropertiesDevice {
public:
  ZeDevice(plugin::PluginBase &plugin, const LevelZero &ze,
           ze_driver_handle_t driver, ze_device_handle_t device,
           std::string name, std::string arch)
      : PropertiesDevice(plugin, std::move(name), std::move(arch)), ze(ze),
        driver(driver), device(device) {}
  ~ZeDevice() override;

  using Status = plugin::Status;
  using Buffer = plugin::BufferBase;
  using Stream = plugin::StreamBase;

  /// Creates the context and the synchronous command list; called once at
  /// discovery, before the device is listed.
  Status open();

  /// zeMemAllocDevice.
  Status allocate(uint64_t size, std::unique_ptr<Buffer> &buffer) override;
  /// zeCommandListAppendMemoryCopy from host memory.
  Status write(Buffer &dst, uint64_t dstOffset, const void *src, uint64_t size,
               Stream *stream) override;
  /// zeCommandListAppendMemoryCopy to host memory.
  Status read(void *dst, Buffer &src, uint64_t srcOffset, uint64_t size,
              Stream *stream) override;
  /// zeCommandListAppendMemoryCopy within the device.
  Status copy(Buffer &dst, uint64_t dstOffset, Buffer &src, uint64_t srcOffset,
              uint64_t size, Stream *stream) override;
  /// zeCommandListAppendMemoryFill with a one-byte pattern.
  Status memset(Buffer &buffer, uint64_t offset, uint64_t size, uint8_t value,
                Stream *stream) override;
  /// An asynchronous immediate command list.
  Status createStream(std::unique_ptr<Stream> &stream) override;
  /// Wraps |native|, an immediate ze_command_list_handle_t of this device's
  /// context, which the caller owns: the wrapper never destroys it.
  Status wrapNativeStream(uint64_t native,
                          std::unique_ptr<Stream> &stream) override;
  /// A host-visible event with a timestamp slot.
  Status createEvent(std::unique_ptr<plugin::EventBase> &event) override;
  /// zeModuleCreate of the image's SPIR-V, zeKernelCreate.
  Status loadModule(const void *image, size_t size,
                    std::unique_ptr<plugin::ModuleBase> &module) override;

  /// Success for ZE_RESULT_SUCCESS, else Status(code for |result|,
  /// "<what>: <describe(result)>").
  Status check(const std::string &what, ze_result_t result) const;

  /// Makes the NULL stream's appends: |append| on the synchronous command
  /// list, under its lock, so the work is done when it returns.
  Status runNow(const std::string &what,
                llvm::function_ref<ze_result_t(ze_command_list_handle_t)>
                    append);

  /// Appends |what| on |stream|'s list, or on the synchronous list when
  /// |stream| is NULL.
  Status enqueue(const std::string &what, Stream *stream,
                 llvm::function_ref<ze_result_t(ze_command_list_handle_t)>
                     append);

  /// A host-visible event pool of one event and its event, for a stream's
  /// synchronize or an event's timestamp.
  Status createHostEvent(ze_event_pool_handle_t &pool, ze_event_handle_t &event);

  const LevelZero &ze;
  const ze_driver_handle_t driver;
  const ze_device_handle_t device;
  ze_context_handle_t context = nullptr;
  /// The command queue group with compute (the lists' ordinal).
  uint32_t computeOrdinal = 0;
  /// The device's launch limits (maxGrid, maxSharedBytes).
  plugin::LaunchLimits limits;
  /// The most work-items in a work-group.
  uint32_t maxGroupSize = 0;
  /// The sub-group sizes the device runs, from its compute properties.
  std::vector<uint32_t> subGroupSizes;
  /// Nanoseconds per tick of the global timestamp, and how many of its
  /// bits count (it wraps beyond them).
  uint64_t timerResolutionNs = 1;
  uint32_t timestampValidBits = 64;

private:
  ze_command_list_handle_t syncList = nullptr;
  std::mutex syncMutex;
};

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELDEVICE_H
