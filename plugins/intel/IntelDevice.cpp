//===- IntelDevice.cpp - Memory, streams, modules and launch on Level Zero ===//

#include "IntelDevice.h"
#include "IntelImage.h"

#include "tegula/BackendKit/DeviceSupport.h"
#include "tegula/BackendKit/ExternalTool.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace tegula::intel;
using namespace tegula::plugin;

//===-- LevelZero ---------------------------------------------------------===//

const LevelZero *LevelZero::get(std::string &whyNot) {
  return tegula::backend::loadVendorTableOnce<LevelZero>(whyNot);
}

std::string LevelZero::load() {
  tegula::backend::VendorLibrary library("Level Zero loader");
  if (!library.open({"libze_loader.so.1"}))
    return library.error();
#define TEGULA_ZE_RESOLVE(fn) library.resolve(fn, {#fn});
  TEGULA_ZE_ENTRIES(TEGULA_ZE_RESOLVE)
#undef TEGULA_ZE_RESOLVE
  return library.error();
}

std::string tegula::intel::describe(ze_result_t result) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", static_cast<unsigned>(result));
  const char *name = nullptr;
  switch (result) {
#define TEGULA_ZE_RESULT(r)                                                    \
  case r:                                                                      \
    name = #r;                                                                 \
    break;
    TEGULA_ZE_RESULT(ZE_RESULT_NOT_READY)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_LOST)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNINITIALIZED)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SIZE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    TEGULA_ZE_RESULT(ZE_RESULT_ERROR_UNKNOWN)
#undef TEGULA_ZE_RESULT
  default:
    break;
  }
  return name ? std::string(hex) + " " + name : std::string(hex);
}

int32_t tegula::intel::toErrorCode(ze_result_t result) {
  switch (result) {
  case ZE_RESULT_SUCCESS:
    return TG_SUCCESS;
  case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
  case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
    return TG_ERROR_OUT_OF_MEMORY;
  case ZE_RESULT_ERROR_INVALID_ARGUMENT:
  case ZE_RESULT_ERROR_INVALID_NULL_HANDLE:
  case ZE_RESULT_ERROR_INVALID_NULL_POINTER:
  case ZE_RESULT_ERROR_INVALID_SIZE:
  case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
  case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT:
  case ZE_RESULT_ERROR_INVALID_ENUMERATION:
  case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
  case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX:
  case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE:
    return TG_ERROR_INVALID_ARGUMENT;
  case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
  case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
  case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
  case ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED:
    return TG_ERROR_INVALID_FORMAT;
  case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
    return TG_ERROR_NOT_FOUND;
  case ZE_RESULT_ERROR_UNINITIALIZED:
    return TG_ERROR_UNAVAILABLE;
  default:
    // Lost devices, hangs and the rest.
    return TG_ERROR_DEVICE;
  }
}

namespace {

constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();

/// A zeMemAllocDevice allocation.
class ZeBuffer : public BufferBase {
public:
  ZeBuffer(ZeDevice &device, uint64_t size, void *memory)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(memory)),
        device(device), memory(memory) {}
  // A destructor cannot report failure.
  ~ZeBuffer() override { (void)device.ze.zeMemFree(device.context, memory); }

private:
  ZeDevice &device;
  void *const memory;
};

/// An immediate command list and the event its synchronize waits for.
class ZeStream : public StreamBase {
public:
  /// |owned|: created for this object, else a caller's, which stays.
  ZeStream(ZeDevice &device, ze_command_list_handle_t list, bool owned)
      : StreamBase(device), device(device), list(list), owned(owned) {}
  ~ZeStream() override {
    if (syncEvent)
      (void)device.ze.zeEventDestroy(syncEvent);
    if (syncPool)
      (void)device.ze.zeEventPoolDestroy(syncPool);
    // The kit synchronized an owned stream before deleting it.
    if (owned)
      (void)device.ze.zeCommandListDestroy(list);
  }

  ZeDevice &device;
  const ze_command_list_handle_t list;
  const bool owned;
  /// Level Zero command lists are not thread-safe.
  std::mutex mutex;
  LaunchLog launches;

  /// |append| on the list, under its lock.
  Status append(const std::string &what,
                llvm::function_ref<ze_result_t(ze_command_list_handle_t)> fn) {
    std::lock_guard<std::mutex> lock(mutex);
    return device.check(what, fn(list));
  }

  Status synchronize() override {
    std::lock_guard<std::mutex> lock(mutex);
    if (!syncEvent)
      if (Status status = device.createHostEvent(syncPool, syncEvent);
          !status.ok())
        return status;
    std::string what = launches.describeAndTake("stream synchronize");
    if (Status status = device.check(what, device.ze.zeEventHostReset(syncEvent));
        !status.ok())
      return status;
    if (Status status = device.check(
            what, device.ze.zeCommandListAppendBarrier(list, syncEvent, 0,
                                                       nullptr));
        !status.ok())
      return status;
    return device.check(what,
                        device.ze.zeEventHostSynchronize(syncEvent, kForever));
  }

  Status waitEvent(EventBase &event) override;

private:
  ze_event_pool_handle_t syncPool = nullptr;
  ze_event_handle_t syncEvent = nullptr;
};

/// An event signaled by a global timestamp write, for ordering and timing.
class ZeEvent : public EventBase {
public:
  ZeEvent(ZeDevice &device, ze_event_pool_handle_t pool,
          ze_event_handle_t handle, uint64_t *timestamp)
      : EventBase(device), device(device), pool(pool), handle(handle),
        timestamp(timestamp) {}
  ~ZeEvent() override {
    (void)device.ze.zeEventDestroy(handle);
    (void)device.ze.zeEventPoolDestroy(pool);
    (void)device.ze.zeMemFree(device.context, timestamp);
  }

  Status record(StreamBase &stream) override {
    auto &in = static_cast<ZeStream &>(stream);
    std::lock_guard<std::mutex> lock(mutex);
    // A Level Zero event is signaled once until reset, and resetting one
    // still pending would lose that signal: the previous point must have
    // been reached first.
    if (everRecorded) {
      if (Status status = synchronizeLocked(); !status.ok())
        return status;
      if (Status status =
              device.check("event record", device.ze.zeEventHostReset(handle));
          !status.ok())
        return status;
    }
    return in.append("event record", [&](ze_command_list_handle_t list) {
      return device.ze.zeCommandListAppendWriteGlobalTimestamp(
          list, timestamp, handle, 0, nullptr);
    });
  }

  Status synchronize() override {
    std::lock_guard<std::mutex> lock(mutex);
    return synchronizeLocked();
  }

  Status elapsedSince(EventBase &start, float &milliseconds) override {
    auto &from = static_cast<ZeEvent &>(start);
    if (Status status = from.synchronize(); !status.ok())
      return status;
    if (Status status = synchronize(); !status.ok())
      return status;
    uint64_t mask = device.timestampValidBits >= 64
                        ? ~uint64_t(0)
                        : (uint64_t(1) << device.timestampValidBits) - 1;
    // The clock wraps beyond its valid bits; a difference modulo them is
    // right across one wrap.
    uint64_t ticks = (*timestamp - *from.timestamp) & mask;
    milliseconds = static_cast<float>(static_cast<double>(ticks) *
                                      device.timerResolutionNs / 1e6);
    return Status::success();
  }

  ZeDevice &device;
  const ze_event_pool_handle_t pool;
  const ze_event_handle_t handle;

private:
  Status synchronizeLocked() {
    return device.check("event synchronize",
                        device.ze.zeEventHostSynchronize(handle, kForever));
  }

  /// Host memory the device writes the recorded point's clock into.
  uint64_t *const timestamp;
  std::mutex mutex;
};

Status ZeStream::waitEvent(EventBase &event) {
  // Waiting for an event never recorded waits for nothing (as in CUDA and
  // HIP); Level Zero would wait for a signal that never comes.
  if (!event.everRecorded)
    return Status::success();
  ze_event_handle_t awaited = static_cast<ZeEvent &>(event).handle;
  return append("stream wait event", [&](ze_command_list_handle_t list) {
    return device.ze.zeCommandListAppendWaitOnEvents(list, 1, &awaited);
  });
}

/// The one kernel of a module.
class ZeKernel : public tegula::backend::GpuKernel {
public:
  ZeKernel(ModuleBase &module, ZeDevice &device, ze_module_handle_t handle,
           ze_kernel_handle_t kernel, const IntelImage &image,
           const LaunchLimits &limits)
      : GpuKernel(module, image, limits, image.subGroupSize), device(device),
        handle(handle), kernel(kernel), argSizes(image.argSizes) {}
  ~ZeKernel() override {
    (void)device.ze.zeKernelDestroy(kernel);
    (void)device.ze.zeModuleDestroy(handle);
  }

  /// zeKernelGetProperties: private memory per work-item, spill memory
  /// (spills = spillMemSize / 4, the NVIDIA count's analogue), static shared
  /// local memory, and max sub-groups x their size. Level Zero reports no
  /// register count.
  Status attributes(tg_kernel_attributes &attrs) override {
    ze_kernel_properties_t properties{};
    properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    if (Status status =
            device.check("kernel " + name + ": reading its properties",
                         device.ze.zeKernelGetProperties(kernel, &properties));
        !status.ok())
      return status;
    attrs.local_memory = properties.privateMemSize;
    attrs.spills = properties.spillMemSize / 4;
    attrs.shared_memory = properties.localMemSize;
    if (properties.maxNumSubgroups && properties.maxSubgroupSize)
      attrs.max_threads_per_block =
          properties.maxNumSubgroups * properties.maxSubgroupSize;
    return Status::success();
  }

protected:
  Status launchChecked(const LaunchRequest &request,
                       std::vector<void *> &params,
                       uint64_t sharedBytes) override {
    (void)sharedBytes;
    // The SPIR-V declares its shared local memory itself; Level Zero would
    // only give more as a local-memory argument the kernel does not have.
    if (request.dynamicSharedMemory)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "kernel " + name + ": a launch on " + device.name +
                        " cannot add dynamic shared local memory (asked " +
                        std::to_string(request.dynamicSharedMemory) +
                        " bytes): the intel plugin's kernels declare their "
                        "own");
    ze_group_count_t groups{request.grid[0], request.grid[1], request.grid[2]};
    std::string what = "launching kernel " + name;
    // The arguments are the kernel's state until the append captures them.
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < params.size(); ++i)
      if (Status status = device.check(
              what + ": argument " + std::to_string(i),
              device.ze.zeKernelSetArgumentValue(
                  kernel, static_cast<uint32_t>(i), argSizes[i], params[i]));
          !status.ok())
        return status;
    Status status = device.enqueue(
        what, request.stream, [&](ze_command_list_handle_t list) {
          return device.ze.zeCommandListAppendLaunchKernel(
              list, kernel, &groups, nullptr, 0, nullptr);
        });
    if (status.ok() && request.stream)
      static_cast<ZeStream *>(request.stream)->launches.note(name);
    return status;
  }

private:
  ZeDevice &device;
  const ze_module_handle_t handle;
  const ze_kernel_handle_t kernel;
  const std::vector<uint32_t> argSizes;
  std::mutex mutex;
};

void *at(BufferBase &buffer, uint64_t offset) {
  return reinterpret_cast<void *>(
      static_cast<uintptr_t>(buffer.deviceAddress() + offset));
}

/// "16, 32" for |sizes|.
std::string listed(const std::vector<uint32_t> &sizes) {
  std::string text;
  for (uint32_t size : sizes)
    text += (text.empty() ? "" : ", ") + std::to_string(size);
  return text.empty() ? "none" : text;
}

} // namespace

//===-- ZeDevice ----------------------------------------------------------===//

ZeDevice::~ZeDevice() {
  if (syncList)
    (void)ze.zeCommandListDestroy(syncList);
  if (context)
    (void)ze.zeContextDestroy(context);
}

Status ZeDevice::check(const std::string &what, ze_result_t result) const {
  if (result == ZE_RESULT_SUCCESS)
    return Status::success();
  return Status(toErrorCode(result), what + ": " + describe(result));
}

Status ZeDevice::open() {
  ze_context_desc_t contextDesc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  if (Status status = check("zeContextCreate",
                            ze.zeContextCreate(driver, &contextDesc, &context));
      !status.ok())
    return status;

  uint32_t groupCount = 0;
  if (Status status = check("zeDeviceGetCommandQueueGroupProperties",
                            ze.zeDeviceGetCommandQueueGroupProperties(
                                device, &groupCount, nullptr));
      !status.ok())
    return status;
  std::vector<ze_command_queue_group_properties_t> groups(groupCount);
  for (auto &group : groups)
    group.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  if (Status status = check("zeDeviceGetCommandQueueGroupProperties",
                            ze.zeDeviceGetCommandQueueGroupProperties(
                                device, &groupCount, groups.data()));
      !status.ok())
    return status;
  auto compute = std::find_if(groups.begin(), groups.end(), [](auto &group) {
    return group.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE;
  });
  if (compute == groups.end())
    return Status(TG_ERROR_UNAVAILABLE, "the device has no compute queue");
  computeOrdinal = static_cast<uint32_t>(compute - groups.begin());

  ze_command_queue_desc_t queueDesc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                    nullptr,
                                    computeOrdinal,
                                    0,
                                    0,
                                    ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  return check("zeCommandListCreateImmediate (synchronous)",
               ze.zeCommandListCreateImmediate(context, device, &queueDesc,
                                               &syncList));
}

Status ZeDevice::runNow(
    const std::string &what,
    llvm::function_ref<ze_result_t(ze_command_list_handle_t)> append) {
  std::lock_guard<std::mutex> lock(syncMutex);
  return check(what, append(syncList));
}

Status ZeDevice::enqueue(
    const std::string &what, StreamBase *stream,
    llvm::function_ref<ze_result_t(ze_command_list_handle_t)> append) {
  if (!stream)
    return runNow(what, append);
  return static_cast<ZeStream *>(stream)->append(what, append);
}

Status ZeDevice::createHostEvent(ze_event_pool_handle_t &pool,
                                 ze_event_handle_t &event) {
  ze_event_pool_desc_t poolDesc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
  ze_device_handle_t devices[] = {device};
  if (Status status =
          check("zeEventPoolCreate",
                ze.zeEventPoolCreate(context, &poolDesc, 1, devices, &pool));
      !status.ok())
    return status;
  ze_event_desc_t eventDesc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0,
                            ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
  Status status = check("zeEventCreate", ze.zeEventCreate(pool, &eventDesc,
                                                           &event));
  if (!status.ok()) {
    (void)ze.zeEventPoolDestroy(pool);
    pool = nullptr;
  }
  return status;
}

Status ZeDevice::allocate(uint64_t size, std::unique_ptr<BufferBase> &buffer) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
                                  nullptr, 0, 0};
  void *memory = nullptr;
  // A zero-sized buffer still gets an address of its own; 256-byte
  // alignment, as the other GPU plugins give.
  if (Status status = check(
          "cannot allocate " + std::to_string(size) +
              " bytes (zeMemAllocDevice)",
          ze.zeMemAllocDevice(context, &desc, std::max<uint64_t>(size, 1), 256,
                              device, &memory));
      !status.ok())
    return status;
  buffer = std::make_unique<ZeBuffer>(*this, size, memory);
  return Status::success();
}

Status ZeDevice::write(BufferBase &dst, uint64_t dstOffset, const void *src,
                       uint64_t size, StreamBase *stream) {
  return enqueue("buffer write of " + std::to_string(size) + " bytes", stream,
                 [&](ze_command_list_handle_t list) {
                   return ze.zeCommandListAppendMemoryCopy(
                       list, at(dst, dstOffset), src, size, nullptr, 0,
                       nullptr);
                 });
}

Status ZeDevice::read(void *dst, BufferBase &src, uint64_t srcOffset,
                      uint64_t size, StreamBase *stream) {
  return enqueue("buffer read of " + std::to_string(size) + " bytes", stream,
                 [&](ze_command_list_handle_t list) {
                   return ze.zeCommandListAppendMemoryCopy(
                       list, dst, at(src, srcOffset), size, nullptr, 0,
                       nullptr);
                 });
}

Status ZeDevice::copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
                      uint64_t srcOffset, uint64_t size, StreamBase *stream) {
  return enqueue("buffer copy of " + std::to_string(size) + " bytes", stream,
                 [&](ze_command_list_handle_t list) {
                   return ze.zeCommandListAppendMemoryCopy(
                       list, at(dst, dstOffset), at(src, srcOffset), size,
                       nullptr, 0, nullptr);
                 });
}

Status ZeDevice::memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                        uint8_t value, StreamBase *stream) {
  return enqueue("buffer memset of " + std::to_string(size) + " bytes", stream,
                 [&](ze_command_list_handle_t list) {
                   return ze.zeCommandListAppendMemoryFill(
                       list, at(buffer, offset), &value, 1, size, nullptr, 0,
                       nullptr);
                 });
}

Status ZeDevice::createStream(std::unique_ptr<StreamBase> &stream) {
  ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                               nullptr,
                               computeOrdinal,
                               0,
                               0,
                               ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                               ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list = nullptr;
  if (Status status =
          check("stream create (zeCommandListCreateImmediate)",
                ze.zeCommandListCreateImmediate(context, device, &desc, &list));
      !status.ok())
    return status;
  stream = std::make_unique<ZeStream>(*this, list, /*owned=*/true);
  return Status::success();
}

Status ZeDevice::wrapNativeStream(uint64_t native,
                                  std::unique_ptr<StreamBase> &stream) {
  if (!native)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "a native stream of the intel plugin is an immediate "
                  "ze_command_list_handle_t; got NULL");
  // Level Zero 1.4 cannot say which device or context a command list
  // belongs to: the caller vouches for it.
  auto list = reinterpret_cast<ze_command_list_handle_t>(
      static_cast<uintptr_t>(native));
  stream = std::make_unique<ZeStream>(*this, list, /*owned=*/false);
  return Status::success();
}

Status ZeDevice::createEvent(std::unique_ptr<EventBase> &event) {
  ze_event_pool_handle_t pool = nullptr;
  ze_event_handle_t handle = nullptr;
  if (Status status = createHostEvent(pool, handle); !status.ok())
    return status;
  ze_host_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr,
                                0};
  void *slot = nullptr;
  Status status =
      check("event create (zeMemAllocHost)",
            ze.zeMemAllocHost(context, &desc, sizeof(uint64_t), 8, &slot));
  if (!status.ok()) {
    (void)ze.zeEventDestroy(handle);
    (void)ze.zeEventPoolDestroy(pool);
    return status;
  }
  event = std::make_unique<ZeEvent>(*this, pool, handle,
                                    static_cast<uint64_t *>(slot));
  return Status::success();
}

Status ZeDevice::loadModule(const void *data, size_t size,
                            std::unique_ptr<ModuleBase> &module) {
  llvm::Expected<IntelImage> decoded =
      tegula::backend::readImage<IntelImage>(data, size);
  if (!decoded)
    return Status(TG_ERROR_INVALID_FORMAT, llvm::toString(decoded.takeError()));
  const IntelImage &image = *decoded;
  if (Status status = tegula::backend::checkImage(*this, image); !status.ok())
    return status;
  if (std::find(subGroupSizes.begin(), subGroupSizes.end(),
                image.subGroupSize) == subGroupSizes.end())
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "kernel " + image.kernelName + " needs sub-groups of " +
                      std::to_string(image.subGroupSize) + "; " + name +
                      " runs sub-groups of " + listed(subGroupSizes));
  uint64_t groupSize = uint64_t(image.numWarps) * image.subGroupSize;
  if (groupSize > maxGroupSize)
    return Status(TG_ERROR_OUT_OF_RANGE,
                  "kernel " + image.kernelName + " runs work-groups of " +
                      std::to_string(groupSize) + " work-items; " + name +
                      " allows " + std::to_string(maxGroupSize));

  // The driver's own compiler options (Intel's GPU driver takes e.g.
  // -ze-opt-large-register-file, -ze-opt-disable).
  const char *buildFlags = std::getenv("TEGULA_INTEL_MODULE_BUILD_FLAGS");
  ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                        nullptr,
                        ZE_MODULE_FORMAT_IL_SPIRV,
                        image.spirv.size(),
                        reinterpret_cast<const uint8_t *>(image.spirv.data()),
                        buildFlags ? buildFlags : "",
                        nullptr};
  ze_module_handle_t handle = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  ze_result_t built = ze.zeModuleCreate(context, device, &desc, &handle, &log);
  std::string buildLog;
  if (log) {
    size_t logSize = 0;
    if (ze.zeModuleBuildLogGetString(log, &logSize, nullptr) ==
            ZE_RESULT_SUCCESS &&
        logSize > 1) {
      buildLog.resize(logSize);
      if (ze.zeModuleBuildLogGetString(log, &logSize, buildLog.data()) !=
          ZE_RESULT_SUCCESS)
        buildLog.clear();
      buildLog.resize(std::strlen(buildLog.c_str()));
    }
    (void)ze.zeModuleBuildLogDestroy(log);
  }
  if (built != ZE_RESULT_SUCCESS) {
    std::string what = "building the SPIR-V of kernel " + image.kernelName +
                       " (zeModuleCreate)";
    Status status = check(what, built);
    if (!buildLog.empty())
      status = Status(status.code(),
                      status.message() + ": " +
                          tegula::backend::firstLines(buildLog, 8));
    return status;
  }

  ze_kernel_handle_t kernel = nullptr;
  ze_kernel_desc_t kernelDesc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                              image.kernelName.c_str()};
  Status status =
      check("the SPIR-V of kernel " + image.kernelName +
                " has no kernel of that name (zeKernelCreate)",
            ze.zeKernelCreate(handle, &kernelDesc, &kernel));
  if (status.ok())
    status = check("zeKernelSetGroupSize",
                   ze.zeKernelSetGroupSize(
                       kernel, static_cast<uint32_t>(groupSize), 1, 1));
  if (!status.ok()) {
    if (kernel)
      (void)ze.zeKernelDestroy(kernel);
    (void)ze.zeModuleDestroy(handle);
    return status;
  }
  module = std::make_unique<SingleKernelModule<ZeKernel>>(
      *this, image.kernelName, *this, handle, kernel, image, limits);
  return Status::success();
}
