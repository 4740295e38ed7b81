//===- ZeOnOpenCL.cpp - A Level Zero driver running on OpenCL for tests ---===//
//
// libtegula_ze_opencl.so: a Level Zero driver that the real Level Zero loader
// loads through ZE_ENABLE_ALT_DRIVERS, executing everything on Intel's OpenCL
// CPU runtime. It lets the intel plugin's whole launch path (module build,
// kernel arguments, launches, copies, events) run real SPIR-V end to end where
// there is no Intel GPU. It exports only the loader's ze/zet/zes
// Get...ProcAddrTable functions and two test hooks:
//
//   void tegulaZeTestFailNext(const char *entryPoint, ze_result_t result);
//       the next call of that entry point returns |result|, doing nothing
//   uint64_t tegulaZeTestCallCount(const char *entryPoint);
//       how many times that entry point was called
//
// Level Zero memory maps one to one onto cl_intel_unified_shared_memory; an
// immediate command list is an in-order cl_command_queue. A Level Zero event
// may be waited on before anything signals it, which OpenCL events cannot
// express, so each ze event holds a cl user event: commands wait on it, and a
// signaling command's completion callback sets it complete.
//
//===----------------------------------------------------------------------===//

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Test hooks
//===----------------------------------------------------------------------===//

std::mutex hookMutex;
std::map<std::string, uint64_t> callCounts;
std::map<std::string, ze_result_t> failures;

/// Counts a call of |entryPoint| and answers the failure asked for it, if any.
ze_result_t enter(const char *entryPoint) {
  std::lock_guard<std::mutex> lock(hookMutex);
  ++callCounts[entryPoint];
  auto failure = failures.find(entryPoint);
  if (failure == failures.end())
    return ZE_RESULT_SUCCESS;
  ze_result_t result = failure->second;
  failures.erase(failure);
  return result;
}

/// Every entry point starts with this: the implementations below are named
/// after their entry points without the "ze" prefix.
#define TEGULA_ZE_ENTER()                                                      \
  do {                                                                         \
    ze_result_t injected = enter((std::string("ze") + __func__).c_str());      \
    if (injected != ZE_RESULT_SUCCESS)                                         \
      return injected;                                                         \
  } while (false)

//===----------------------------------------------------------------------===//
// The OpenCL runtime
//===----------------------------------------------------------------------===//

struct Runtime {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  /// One context for every ze context: USM pointers then work in all.
  cl_context context = nullptr;
  std::string deviceName;
  std::vector<uint32_t> subGroupSizes;
  clHostMemAllocINTEL_fn hostMemAlloc = nullptr;
  clDeviceMemAllocINTEL_fn deviceMemAlloc = nullptr;
  clSharedMemAllocINTEL_fn sharedMemAlloc = nullptr;
  clMemBlockingFreeINTEL_fn memBlockingFree = nullptr;
  clGetMemAllocInfoINTEL_fn getMemAllocInfo = nullptr;
  clSetKernelArgMemPointerINTEL_fn setKernelArgMemPointer = nullptr;
  clEnqueueMemcpyINTEL_fn enqueueMemcpy = nullptr;
  clEnqueueMemFillINTEL_fn enqueueMemFill = nullptr;
};

Runtime runtime;
std::once_flag runtimeOnce;
ze_result_t runtimeResult = ZE_RESULT_ERROR_UNINITIALIZED;
std::atomic<bool> initialized{false};

template <typename Fn> Fn extension(const char *name) {
  return reinterpret_cast<Fn>(
      clGetExtensionFunctionAddressForPlatform(runtime.platform, name));
}

std::string platformName(cl_platform_id platform) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size) !=
      CL_SUCCESS)
    return "";
  std::string name(size, '\0');
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, name.data(), nullptr);
  return name.c_str();
}

/// Finds Intel's platform (never PoCL's), its first device and the USM
/// functions; anything missing leaves the driver uninitialized.
ze_result_t startRuntime() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0)
    return ZE_RESULT_ERROR_UNINITIALIZED;
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    if (platformName(platform).find("Intel") != std::string::npos) {
      runtime.platform = platform;
      break;
    }
  }
  if (!runtime.platform)
    return ZE_RESULT_ERROR_UNINITIALIZED;
  cl_uint devices = 0;
  if (clGetDeviceIDs(runtime.platform, CL_DEVICE_TYPE_ALL, 1, &runtime.device,
                     &devices) != CL_SUCCESS ||
      devices == 0)
    return ZE_RESULT_ERROR_UNINITIALIZED;
  runtime.hostMemAlloc =
      extension<clHostMemAllocINTEL_fn>("clHostMemAllocINTEL");
  runtime.deviceMemAlloc =
      extension<clDeviceMemAllocINTEL_fn>("clDeviceMemAllocINTEL");
  runtime.sharedMemAlloc =
      extension<clSharedMemAllocINTEL_fn>("clSharedMemAllocINTEL");
  runtime.memBlockingFree =
      extension<clMemBlockingFreeINTEL_fn>("clMemBlockingFreeINTEL");
  runtime.getMemAllocInfo =
      extension<clGetMemAllocInfoINTEL_fn>("clGetMemAllocInfoINTEL");
  runtime.setKernelArgMemPointer = extension<clSetKernelArgMemPointerINTEL_fn>(
      "clSetKernelArgMemPointerINTEL");
  runtime.enqueueMemcpy =
      extension<clEnqueueMemcpyINTEL_fn>("clEnqueueMemcpyINTEL");
  runtime.enqueueMemFill =
      extension<clEnqueueMemFillINTEL_fn>("clEnqueueMemFillINTEL");
  if (!runtime.hostMemAlloc || !runtime.deviceMemAlloc ||
      !runtime.sharedMemAlloc || !runtime.memBlockingFree ||
      !runtime.getMemAllocInfo || !runtime.setKernelArgMemPointer ||
      !runtime.enqueueMemcpy || !runtime.enqueueMemFill)
    return ZE_RESULT_ERROR_UNINITIALIZED;
  cl_int error = CL_SUCCESS;
  runtime.context =
      clCreateContext(nullptr, 1, &runtime.device, nullptr, nullptr, &error);
  if (error != CL_SUCCESS)
    return ZE_RESULT_ERROR_UNINITIALIZED;

  size_t size = 0;
  clGetDeviceInfo(runtime.device, CL_DEVICE_NAME, 0, nullptr, &size);
  std::string name(size, '\0');
  clGetDeviceInfo(runtime.device, CL_DEVICE_NAME, size, name.data(), nullptr);
  runtime.deviceName = name.c_str();
  size = 0;
  if (clGetDeviceInfo(runtime.device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0,
                      nullptr, &size) == CL_SUCCESS) {
    std::vector<size_t> sizes(size / sizeof(size_t));
    clGetDeviceInfo(runtime.device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, size,
                    sizes.data(), nullptr);
    for (size_t subGroupSize : sizes)
      runtime.subGroupSizes.push_back(static_cast<uint32_t>(subGroupSize));
  }
  return ZE_RESULT_SUCCESS;
}

template <typename T> T deviceInfo(cl_device_info param) {
  T value{};
  clGetDeviceInfo(runtime.device, param, sizeof(T), &value, nullptr);
  return value;
}

ze_result_t fromCl(cl_int error) {
  switch (error) {
  case CL_SUCCESS:
    return ZE_RESULT_SUCCESS;
  case CL_OUT_OF_HOST_MEMORY:
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  case CL_OUT_OF_RESOURCES:
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
  case CL_INVALID_BUFFER_SIZE:
    return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
  case CL_INVALID_WORK_GROUP_SIZE:
  case CL_INVALID_WORK_ITEM_SIZE:
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  case CL_INVALID_GLOBAL_WORK_SIZE:
    return ZE_RESULT_ERROR_INVALID_SIZE;
  case CL_INVALID_ARG_INDEX:
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  case CL_INVALID_ARG_SIZE:
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
  case CL_INVALID_KERNEL_NAME:
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  case CL_INVALID_VALUE:
  case CL_INVALID_ARG_VALUE:
  case CL_INVALID_KERNEL_ARGS:
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  default:
    return ZE_RESULT_ERROR_UNKNOWN;
  }
}

#define TEGULA_ZE_CHECK_INIT()                                                 \
  do {                                                                         \
    if (!initialized.load())                                                   \
      return ZE_RESULT_ERROR_UNINITIALIZED;                                    \
  } while (false)

uint64_t nowNanoseconds() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

struct Driver {};
struct Device {};
Driver theDriver;
Device theDevice;

ze_driver_handle_t driverHandle() {
  return reinterpret_cast<ze_driver_handle_t>(&theDriver);
}
ze_device_handle_t deviceHandle() {
  return reinterpret_cast<ze_device_handle_t>(&theDevice);
}

struct Context {};

struct CommandList {
  cl_command_queue queue = nullptr;
  bool synchronous = false;
};

struct EventPool {
  uint32_t count = 0;
};

struct Event {
  std::mutex mutex;
  /// Complete once signaled; a reset replaces it with a fresh one, so
  /// commands already waiting on the old one keep their meaning.
  cl_event signal = nullptr;
};

enum class ArgumentKind { Bytes, Pointer, Local };

struct Module {
  cl_program program = nullptr;
  std::vector<std::string> kernelNames;
  /// Kernel name -> what each of its parameters is, from the SPIR-V.
  std::map<std::string, std::vector<ArgumentKind>> parameters;
};

struct BuildLog {
  std::string text;
};

struct Argument {
  bool set = false;
  std::vector<uint8_t> bytes;
  /// Bytes of local memory, for an ArgumentKind::Local argument.
  size_t size = 0;
};

struct Kernel {
  /// Arguments are captured at append time, as Level Zero's are: they live
  /// here and are all set on the cl_kernel, under this mutex, per launch.
  std::mutex mutex;
  cl_kernel kernel = nullptr;
  std::string name;
  std::vector<ArgumentKind> kinds;
  std::vector<Argument> arguments;
  uint32_t groupSize[3] = {1, 1, 1};
};

template <typename T, typename H> T *from(H handle) {
  return reinterpret_cast<T *>(handle);
}

//===----------------------------------------------------------------------===//
// SPIR-V parameters
//===----------------------------------------------------------------------===//

/// What a module's SPIR-V says that OpenCL does not: which parameters of
/// each entry point are pointers, and to which memory (Level Zero passes a
/// pointer as its 8 bytes, OpenCL must be told), and the size of each
/// specialization constant (Level Zero gives only the value's address).
struct SpirvFacts {
  std::map<std::string, std::vector<ArgumentKind>> parameters;
  std::map<uint32_t, size_t> specConstantSizes;
};

SpirvFacts parseSpirv(const uint8_t *data, size_t size) {
  SpirvFacts facts;
  if (size < 20 || size % 4 != 0)
    return facts;
  std::vector<uint32_t> words(size / 4);
  std::memcpy(words.data(), data, size);
  if (words[0] != 0x07230203)
    return facts;
  constexpr uint32_t opEntryPoint = 15, opTypeBool = 20, opTypeInt = 21,
                     opTypeFloat = 22, opTypePointer = 32,
                     opSpecConstantTrue = 48, opSpecConstantFalse = 49,
                     opSpecConstant = 50, opFunction = 54,
                     opFunctionParameter = 55, opFunctionEnd = 56,
                     opDecorate = 71, decorationSpecId = 1;
  std::map<uint32_t, std::string> entryPoints;
  std::map<uint32_t, uint32_t> pointerStorage;
  std::map<uint32_t, std::vector<uint32_t>> functionParameters;
  std::map<uint32_t, uint32_t> specIds;
  std::map<uint32_t, size_t> typeSizes;
  std::map<uint32_t, uint32_t> specConstantTypes;
  uint32_t currentFunction = 0;
  for (size_t i = 5; i < words.size();) {
    uint32_t opcode = words[i] & 0xffff, count = words[i] >> 16;
    if (count == 0 || i + count > words.size())
      break;
    const uint32_t *operands = &words[i + 1];
    if (opcode == opEntryPoint && count >= 4) {
      const char *text = reinterpret_cast<const char *>(&operands[2]);
      size_t maxLength = (count - 3) * 4;
      entryPoints[operands[1]] = std::string(text, strnlen(text, maxLength));
    } else if (opcode == opTypePointer && count >= 4) {
      pointerStorage[operands[0]] = operands[1];
    } else if (opcode == opTypeBool && count >= 2) {
      typeSizes[operands[0]] = 1;
    } else if ((opcode == opTypeInt || opcode == opTypeFloat) && count >= 3) {
      typeSizes[operands[0]] = operands[1] / 8;
    } else if ((opcode == opSpecConstant || opcode == opSpecConstantTrue ||
                opcode == opSpecConstantFalse) &&
               count >= 3) {
      specConstantTypes[operands[1]] = operands[0];
    } else if (opcode == opDecorate && count >= 4 &&
               operands[1] == decorationSpecId) {
      specIds[operands[0]] = operands[2];
    } else if (opcode == opFunction && count >= 5) {
      currentFunction = operands[1];
      functionParameters[currentFunction];
    } else if (opcode == opFunctionParameter && count >= 3 && currentFunction) {
      functionParameters[currentFunction].push_back(operands[0]);
    } else if (opcode == opFunctionEnd) {
      currentFunction = 0;
    }
    i += count;
  }
  for (const auto &[constant, specId] : specIds) {
    auto type = specConstantTypes.find(constant);
    if (type != specConstantTypes.end() && typeSizes.count(type->second))
      facts.specConstantSizes[specId] = typeSizes[type->second];
  }
  for (const auto &[function, name] : entryPoints) {
    std::vector<ArgumentKind> &kinds = facts.parameters[name];
    for (uint32_t type : functionParameters[function]) {
      auto pointer = pointerStorage.find(type);
      ArgumentKind kind = ArgumentKind::Bytes;
      if (pointer != pointerStorage.end()) {
        if (pointer->second == 5 || pointer->second == 8)
          kind = ArgumentKind::Pointer;
        else if (pointer->second == 4)
          kind = ArgumentKind::Local;
      }
      kinds.push_back(kind);
    }
  }
  return facts;
}

//===----------------------------------------------------------------------===//
// Command helpers
//===----------------------------------------------------------------------===//

/// The cl user events of |events|, as they stand now.
ze_result_t waitList(uint32_t count, ze_event_handle_t *events,
                     std::vector<cl_event> &list) {
  if (count && !events)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  for (uint32_t i = 0; i < count; ++i) {
    if (!events[i])
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    Event *event = from<Event>(events[i]);
    std::lock_guard<std::mutex> lock(event->mutex);
    clRetainEvent(event->signal);
    list.push_back(event->signal);
  }
  return ZE_RESULT_SUCCESS;
}

void releaseAll(std::vector<cl_event> &list) {
  for (cl_event event : list)
    clReleaseEvent(event);
  list.clear();
}

void CL_CALLBACK completeUserEvent(cl_event, cl_int, void *userData) {
  cl_event signal = static_cast<cl_event>(userData);
  // A host signal may have come first: setting it twice is harmless.
  clSetUserEventStatus(signal, CL_COMPLETE);
  clReleaseEvent(signal);
}

/// Makes |signal| (may be null) complete once |command| completes, then
/// releases |command|.
void signalOnCompletion(cl_event command, ze_event_handle_t signal) {
  if (signal) {
    Event *event = from<Event>(signal);
    cl_event user = nullptr;
    {
      std::lock_guard<std::mutex> lock(event->mutex);
      user = event->signal;
      clRetainEvent(user);
    }
    if (clSetEventCallback(command, CL_COMPLETE, completeUserEvent, user) !=
        CL_SUCCESS)
      completeUserEvent(command, CL_COMPLETE, user);
  }
  clReleaseEvent(command);
}

/// Finishes an append whose command is |command| (null when enqueuing
/// failed with |error|).
ze_result_t finishAppend(CommandList *list, cl_int error, cl_event command,
                         ze_event_handle_t signal,
                         std::vector<cl_event> &waits) {
  releaseAll(waits);
  if (error != CL_SUCCESS)
    return fromCl(error);
  signalOnCompletion(command, signal);
  if (list->synchronous)
    clFinish(list->queue);
  return ZE_RESULT_SUCCESS;
}

cl_event newUserEvent() {
  cl_int error = CL_SUCCESS;
  cl_event event = clCreateUserEvent(runtime.context, &error);
  return error == CL_SUCCESS ? event : nullptr;
}

bool isComplete(cl_event event) {
  cl_int status = CL_QUEUED;
  clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                 &status, nullptr);
  return status == CL_COMPLETE;
}

struct TimestampWrite {
  uint64_t *destination;
  cl_event gate;
};

void CL_CALLBACK writeTimestamp(cl_event, cl_int, void *userData) {
  auto *write = static_cast<TimestampWrite *>(userData);
  *write->destination = nowNanoseconds();
  clSetUserEventStatus(write->gate, CL_COMPLETE);
  clReleaseEvent(write->gate);
  delete write;
}

//===----------------------------------------------------------------------===//
// Global, driver and device
//===----------------------------------------------------------------------===//

ze_result_t Init(ze_init_flags_t flags) {
  TEGULA_ZE_ENTER();
  if (flags & ~static_cast<ze_init_flags_t>(ZE_INIT_FLAG_GPU_ONLY))
    return flags == ZE_INIT_FLAG_VPU_ONLY ? ZE_RESULT_ERROR_UNINITIALIZED
                                          : ZE_RESULT_ERROR_INVALID_ENUMERATION;
  std::call_once(runtimeOnce, [] {
    runtimeResult = startRuntime();
    initialized = runtimeResult == ZE_RESULT_SUCCESS;
  });
  return runtimeResult;
}

ze_result_t DriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*pCount == 0 || !phDrivers) {
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = 1;
  phDrivers[0] = driverHandle();
  return ZE_RESULT_SUCCESS;
}

ze_result_t DriverGetApiVersion(ze_driver_handle_t hDriver,
                                ze_api_version_t *version) {
  TEGULA_ZE_ENTER();
  if (!hDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!version)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *version = ZE_API_VERSION_1_4;
  return ZE_RESULT_SUCCESS;
}

ze_result_t DriverGetProperties(ze_driver_handle_t hDriver,
                                ze_driver_properties_t *pDriverProperties) {
  TEGULA_ZE_ENTER();
  if (!hDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pDriverProperties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  static const char uuid[ZE_MAX_DRIVER_UUID_SIZE + 1] = "tegula-ze-opencl";
  std::memcpy(pDriverProperties->uuid.id, uuid, ZE_MAX_DRIVER_UUID_SIZE);
  pDriverProperties->driverVersion = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t
DriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                             ze_driver_extension_properties_t *properties) {
  TEGULA_ZE_ENTER();
  if (!hDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *pCount = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t DeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                      ze_device_handle_t *phDevices) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*pCount == 0 || !phDevices) {
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = 1;
  phDevices[0] = deviceHandle();
  return ZE_RESULT_SUCCESS;
}

ze_result_t DeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                ze_device_handle_t *phSubdevices) {
  TEGULA_ZE_ENTER();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *pCount = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t DeviceGetProperties(ze_device_handle_t hDevice,
                                ze_device_properties_t *properties) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!properties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  properties->type = ZE_DEVICE_TYPE_GPU;
  properties->vendorId = 0x8086;
  const char *deviceId = std::getenv("TEGULA_ZE_TEST_DEVICE_ID");
  properties->deviceId =
      deviceId ? static_cast<uint32_t>(std::strtoul(deviceId, nullptr, 0)) : 0;
  properties->flags = 0;
  properties->subdeviceId = 0;
  properties->coreClockRate =
      deviceInfo<cl_uint>(CL_DEVICE_MAX_CLOCK_FREQUENCY);
  properties->maxMemAllocSize =
      deviceInfo<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  properties->maxHardwareContexts = 1;
  properties->maxCommandQueuePriority = 0;
  properties->numThreadsPerEU = 1;
  properties->physicalEUSimdWidth = 16;
  properties->numEUsPerSubslice = 1;
  properties->numSubslicesPerSlice =
      deviceInfo<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS);
  properties->numSlices = 1;
  // Nanoseconds per tick: ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES (not _1_2)
  // reads timerResolution as a period.
  properties->timerResolution = 1;
  properties->timestampValidBits = 64;
  properties->kernelTimestampValidBits = 64;
  static const char uuid[ZE_MAX_DEVICE_UUID_SIZE + 1] = "tegula-ze-device";
  std::memcpy(properties->uuid.id, uuid, ZE_MAX_DEVICE_UUID_SIZE);
  std::snprintf(properties->name, ZE_MAX_DEVICE_NAME,
                "Tegula Level Zero test device (%s)",
                runtime.deviceName.c_str());
  return ZE_RESULT_SUCCESS;
}

ze_result_t
DeviceGetComputeProperties(ze_device_handle_t hDevice,
                           ze_device_compute_properties_t *properties) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!properties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  properties->maxTotalGroupSize =
      static_cast<uint32_t>(deviceInfo<size_t>(CL_DEVICE_MAX_WORK_GROUP_SIZE));
  size_t sizes[3] = {1, 1, 1};
  clGetDeviceInfo(runtime.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(sizes),
                  sizes, nullptr);
  properties->maxGroupSizeX = static_cast<uint32_t>(sizes[0]);
  properties->maxGroupSizeY = static_cast<uint32_t>(sizes[1]);
  properties->maxGroupSizeZ = static_cast<uint32_t>(sizes[2]);
  properties->maxGroupCountX = 0x7fffffff;
  properties->maxGroupCountY = 0x7fffffff;
  properties->maxGroupCountZ = 0x7fffffff;
  properties->maxSharedLocalMemory =
      static_cast<uint32_t>(deviceInfo<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE));
  uint32_t count = static_cast<uint32_t>(
      std::min<size_t>(runtime.subGroupSizes.size(), ZE_SUBGROUPSIZE_COUNT));
  properties->numSubGroupSizes = count;
  for (uint32_t i = 0; i < count; ++i)
    properties->subGroupSizes[i] = runtime.subGroupSizes[i];
  return ZE_RESULT_SUCCESS;
}

ze_result_t
DeviceGetModuleProperties(ze_device_handle_t hDevice,
                          ze_device_module_properties_t *properties) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!properties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  properties->spirvVersionSupported = ZE_MAKE_VERSION(1, 4);
  properties->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 |
                      ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
  ze_device_fp_flags_t fp =
      ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
      ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_FMA;
  properties->fp16flags = fp;
  properties->fp32flags = fp;
  properties->fp64flags = fp;
  properties->maxArgumentsSize =
      static_cast<uint32_t>(deviceInfo<size_t>(CL_DEVICE_MAX_PARAMETER_SIZE));
  properties->printfBufferSize =
      static_cast<uint32_t>(deviceInfo<size_t>(CL_DEVICE_PRINTF_BUFFER_SIZE));
  std::memset(&properties->nativeKernelSupported, 0,
              sizeof(properties->nativeKernelSupported));
  return ZE_RESULT_SUCCESS;
}

ze_result_t DeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *properties) {
  TEGULA_ZE_ENTER();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*pCount == 0 || !properties) {
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = 1;
  properties[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
  properties[0].maxMemoryFillPatternSize = 128;
  properties[0].numQueues = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t
DeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                          ze_device_memory_properties_t *properties) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (*pCount == 0 || !properties) {
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = 1;
  properties[0].flags = 0;
  properties[0].maxClockRate = 0;
  properties[0].maxBusWidth = 0;
  properties[0].totalSize = deviceInfo<cl_ulong>(CL_DEVICE_GLOBAL_MEM_SIZE);
  std::snprintf(properties[0].name, ZE_MAX_DEVICE_NAME, "host memory");
  return ZE_RESULT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

ze_result_t ContextCreate(ze_driver_handle_t hDriver,
                          const ze_context_desc_t *desc,
                          ze_context_handle_t *phContext) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phContext)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *phContext = reinterpret_cast<ze_context_handle_t>(new Context);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ContextDestroy(ze_context_handle_t hContext) {
  TEGULA_ZE_ENTER();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete from<Context>(hContext);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ContextGetStatus(ze_context_handle_t hContext) {
  TEGULA_ZE_ENTER();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  return ZE_RESULT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

ze_result_t checkAllocation(size_t size, size_t alignment, void **pptr) {
  if (!pptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (size == 0 || size > deviceInfo<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE))
    return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
  if ((alignment & (alignment - 1)) != 0 || alignment > UINT32_MAX)
    return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
  return ZE_RESULT_SUCCESS;
}

ze_result_t allocated(void *pointer, cl_int error, void **pptr) {
  if (error != CL_SUCCESS || !pointer)
    return error == CL_SUCCESS ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                               : fromCl(error);
  *pptr = pointer;
  return ZE_RESULT_SUCCESS;
}

ze_result_t MemAllocDevice(ze_context_handle_t hContext,
                           const ze_device_mem_alloc_desc_t *deviceDesc,
                           size_t size, size_t alignment,
                           ze_device_handle_t hDevice, void **pptr) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext || !hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!deviceDesc)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ze_result_t result = checkAllocation(size, alignment, pptr))
    return result;
  cl_int error = CL_SUCCESS;
  void *pointer =
      runtime.deviceMemAlloc(runtime.context, runtime.device, nullptr, size,
                             static_cast<cl_uint>(alignment), &error);
  return allocated(pointer, error, pptr);
}

ze_result_t MemAllocHost(ze_context_handle_t hContext,
                         const ze_host_mem_alloc_desc_t *hostDesc, size_t size,
                         size_t alignment, void **pptr) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!hostDesc)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ze_result_t result = checkAllocation(size, alignment, pptr))
    return result;
  cl_int error = CL_SUCCESS;
  void *pointer = runtime.hostMemAlloc(runtime.context, nullptr, size,
                                       static_cast<cl_uint>(alignment), &error);
  return allocated(pointer, error, pptr);
}

ze_result_t MemAllocShared(ze_context_handle_t hContext,
                           const ze_device_mem_alloc_desc_t *deviceDesc,
                           const ze_host_mem_alloc_desc_t *hostDesc,
                           size_t size, size_t alignment,
                           ze_device_handle_t hDevice, void **pptr) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!deviceDesc || !hostDesc)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ze_result_t result = checkAllocation(size, alignment, pptr))
    return result;
  cl_int error = CL_SUCCESS;
  void *pointer =
      runtime.sharedMemAlloc(runtime.context, runtime.device, nullptr, size,
                             static_cast<cl_uint>(alignment), &error);
  return allocated(pointer, error, pptr);
}

ze_result_t MemFree(ze_context_handle_t hContext, void *ptr) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!ptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  return fromCl(runtime.memBlockingFree(runtime.context, ptr));
}

ze_result_t
MemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                      ze_memory_allocation_properties_t *pMemAllocProperties,
                      ze_device_handle_t *phDevice) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!ptr || !pMemAllocProperties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  cl_unified_shared_memory_type_intel type = CL_MEM_TYPE_UNKNOWN_INTEL;
  runtime.getMemAllocInfo(runtime.context, ptr, CL_MEM_ALLOC_TYPE_INTEL,
                          sizeof(type), &type, nullptr);
  void *base = nullptr;
  runtime.getMemAllocInfo(runtime.context, ptr, CL_MEM_ALLOC_BASE_PTR_INTEL,
                          sizeof(base), &base, nullptr);
  switch (type) {
  case CL_MEM_TYPE_HOST_INTEL:
    pMemAllocProperties->type = ZE_MEMORY_TYPE_HOST;
    break;
  case CL_MEM_TYPE_DEVICE_INTEL:
    pMemAllocProperties->type = ZE_MEMORY_TYPE_DEVICE;
    break;
  case CL_MEM_TYPE_SHARED_INTEL:
    pMemAllocProperties->type = ZE_MEMORY_TYPE_SHARED;
    break;
  default:
    pMemAllocProperties->type = ZE_MEMORY_TYPE_UNKNOWN;
    base = nullptr;
    break;
  }
  // Live allocations have distinct bases, which makes them ids.
  pMemAllocProperties->id = reinterpret_cast<uintptr_t>(base);
  pMemAllocProperties->pageSize = base ? 4096 : 0;
  if (phDevice)
    *phDevice = pMemAllocProperties->type == ZE_MEMORY_TYPE_DEVICE ||
                        pMemAllocProperties->type == ZE_MEMORY_TYPE_SHARED
                    ? deviceHandle()
                    : nullptr;
  return ZE_RESULT_SUCCESS;
}

ze_result_t MemGetAddressRange(ze_context_handle_t hContext, const void *ptr,
                               void **pBase, size_t *pSize) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!ptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  void *base = nullptr;
  size_t size = 0;
  runtime.getMemAllocInfo(runtime.context, ptr, CL_MEM_ALLOC_BASE_PTR_INTEL,
                          sizeof(base), &base, nullptr);
  runtime.getMemAllocInfo(runtime.context, ptr, CL_MEM_ALLOC_SIZE_INTEL,
                          sizeof(size), &size, nullptr);
  if (!base)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (pBase)
    *pBase = base;
  if (pSize)
    *pSize = size;
  return ZE_RESULT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

ze_result_t EventPoolCreate(ze_context_handle_t hContext,
                            const ze_event_pool_desc_t *desc,
                            uint32_t numDevices, ze_device_handle_t *phDevices,
                            ze_event_pool_handle_t *phEventPool) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phEventPool || (numDevices && !phDevices))
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (desc->count == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  auto *pool = new EventPool;
  pool->count = desc->count;
  *phEventPool = reinterpret_cast<ze_event_pool_handle_t>(pool);
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventPoolDestroy(ze_event_pool_handle_t hEventPool) {
  TEGULA_ZE_ENTER();
  if (!hEventPool)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete from<EventPool>(hEventPool);
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventCreate(ze_event_pool_handle_t hEventPool,
                        const ze_event_desc_t *desc,
                        ze_event_handle_t *phEvent) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hEventPool)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (desc->index >= from<EventPool>(hEventPool)->count)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  cl_event signal = newUserEvent();
  if (!signal)
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  auto *event = new Event;
  event->signal = signal;
  *phEvent = reinterpret_cast<ze_event_handle_t>(event);
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventDestroy(ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event *event = from<Event>(hEvent);
  clReleaseEvent(event->signal);
  delete event;
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventHostSignal(ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event *event = from<Event>(hEvent);
  std::lock_guard<std::mutex> lock(event->mutex);
  clSetUserEventStatus(event->signal, CL_COMPLETE);
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
  TEGULA_ZE_ENTER();
  if (!hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event *event = from<Event>(hEvent);
  cl_event signal = nullptr;
  {
    std::lock_guard<std::mutex> lock(event->mutex);
    signal = event->signal;
    clRetainEvent(signal);
  }
  ze_result_t result = ZE_RESULT_SUCCESS;
  if (timeout == UINT64_MAX) {
    clWaitForEvents(1, &signal);
  } else {
    // Polled: OpenCL has no wait with a timeout.
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::nanoseconds(
                        std::min<uint64_t>(timeout, uint64_t(INT64_MAX)));
    while (!isComplete(signal)) {
      if (std::chrono::steady_clock::now() >= deadline) {
        result = ZE_RESULT_NOT_READY;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  clReleaseEvent(signal);
  return result;
}

ze_result_t EventQueryStatus(ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event *event = from<Event>(hEvent);
  std::lock_guard<std::mutex> lock(event->mutex);
  return isComplete(event->signal) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t resetEvent(Event *event) {
  cl_event fresh = newUserEvent();
  if (!fresh)
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  std::lock_guard<std::mutex> lock(event->mutex);
  clReleaseEvent(event->signal);
  event->signal = fresh;
  return ZE_RESULT_SUCCESS;
}

ze_result_t EventHostReset(ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  return resetEvent(from<Event>(hEvent));
}

//===----------------------------------------------------------------------===//
// Command lists
//===----------------------------------------------------------------------===//

ze_result_t CommandListCreateImmediate(ze_context_handle_t hContext,
                                       ze_device_handle_t hDevice,
                                       const ze_command_queue_desc_t *desc,
                                       ze_command_list_handle_t *phList) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext || !hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phList)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (desc->ordinal != 0 || desc->index != 0)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  cl_int error = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(
      runtime.context, runtime.device, nullptr, &error);
  if (error != CL_SUCCESS)
    return fromCl(error);
  auto *list = new CommandList;
  list->queue = queue;
  list->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
  *phList = reinterpret_cast<ze_command_list_handle_t>(list);
  return ZE_RESULT_SUCCESS;
}

ze_result_t CommandListDestroy(ze_command_list_handle_t hCommandList) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  CommandList *list = from<CommandList>(hCommandList);
  clFinish(list->queue);
  clReleaseCommandQueue(list->queue);
  delete list;
  return ZE_RESULT_SUCCESS;
}

ze_result_t CommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                     ze_event_handle_t hSignalEvent,
                                     uint32_t numWaitEvents,
                                     ze_event_handle_t *phWaitEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numWaitEvents, phWaitEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  cl_event command = nullptr;
  cl_int error = clEnqueueBarrierWithWaitList(
      list->queue, static_cast<cl_uint>(waits.size()),
      waits.empty() ? nullptr : waits.data(), &command);
  return finishAppend(list, error, command, hSignalEvent, waits);
}

ze_result_t CommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList,
                                        void *dstptr, const void *srcptr,
                                        size_t size,
                                        ze_event_handle_t hSignalEvent,
                                        uint32_t numWaitEvents,
                                        ze_event_handle_t *phWaitEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!dstptr || !srcptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numWaitEvents, phWaitEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  cl_event command = nullptr;
  cl_int error =
      runtime.enqueueMemcpy(list->queue, CL_FALSE, dstptr, srcptr, size,
                            static_cast<cl_uint>(waits.size()),
                            waits.empty() ? nullptr : waits.data(), &command);
  return finishAppend(list, error, command, hSignalEvent, waits);
}

ze_result_t CommandListAppendMemoryFill(ze_command_list_handle_t hCommandList,
                                        void *ptr, const void *pattern,
                                        size_t patternSize, size_t size,
                                        ze_event_handle_t hSignalEvent,
                                        uint32_t numWaitEvents,
                                        ze_event_handle_t *phWaitEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!ptr || !pattern)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (patternSize == 0 || patternSize > 128 ||
      (patternSize & (patternSize - 1)) != 0 || size % patternSize != 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numWaitEvents, phWaitEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  cl_event command = nullptr;
  cl_int error =
      runtime.enqueueMemFill(list->queue, ptr, pattern, patternSize, size,
                             static_cast<cl_uint>(waits.size()),
                             waits.empty() ? nullptr : waits.data(), &command);
  return finishAppend(list, error, command, hSignalEvent, waits);
}

ze_result_t CommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                         ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hCommandList || !hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  cl_event command = nullptr;
  cl_int error = clEnqueueMarkerWithWaitList(list->queue, 0, nullptr, &command);
  return finishAppend(list, error, command, hEvent, waits);
}

ze_result_t CommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                          uint32_t numEvents,
                                          ze_event_handle_t *phEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!phEvents)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numEvents, phEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  cl_event command = nullptr;
  cl_int error = clEnqueueBarrierWithWaitList(
      list->queue, static_cast<cl_uint>(waits.size()),
      waits.empty() ? nullptr : waits.data(), &command);
  return finishAppend(list, error, command, nullptr, waits);
}

ze_result_t CommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                        ze_event_handle_t hEvent) {
  TEGULA_ZE_ENTER();
  if (!hCommandList || !hEvent)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  // Done at append time: commands appended before it already hold the old
  // signal, those after it see the fresh one, which is the order a list
  // executes in.
  ze_result_t result = resetEvent(from<Event>(hEvent));
  CommandList *list = from<CommandList>(hCommandList);
  if (result == ZE_RESULT_SUCCESS && list->synchronous)
    clFinish(list->queue);
  return result;
}

ze_result_t CommandListAppendWriteGlobalTimestamp(
    ze_command_list_handle_t hCommandList, uint64_t *dstptr,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!dstptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  CommandList *list = from<CommandList>(hCommandList);
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numWaitEvents, phWaitEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  // The marker's callback writes the time once everything before it has
  // completed; the gate holds what comes after until it has been written.
  cl_event gate = newUserEvent();
  if (!gate) {
    releaseAll(waits);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  cl_event marker = nullptr;
  cl_int error = clEnqueueMarkerWithWaitList(
      list->queue, static_cast<cl_uint>(waits.size()),
      waits.empty() ? nullptr : waits.data(), &marker);
  if (error != CL_SUCCESS) {
    clReleaseEvent(gate);
    return finishAppend(list, error, nullptr, nullptr, waits);
  }
  clRetainEvent(gate);
  auto *write = new TimestampWrite{dstptr, gate};
  if (clSetEventCallback(marker, CL_COMPLETE, writeTimestamp, write) !=
      CL_SUCCESS)
    writeTimestamp(marker, CL_COMPLETE, write);
  clReleaseEvent(marker);
  cl_event command = nullptr;
  error = clEnqueueBarrierWithWaitList(list->queue, 1, &gate, &command);
  clReleaseEvent(gate);
  return finishAppend(list, error, command, hSignalEvent, waits);
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

std::string programBuildLog(cl_program program) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, runtime.device, CL_PROGRAM_BUILD_LOG, 0,
                            nullptr, &size) != CL_SUCCESS)
    return "";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, runtime.device, CL_PROGRAM_BUILD_LOG, size,
                        log.data(), nullptr);
  return log.c_str();
}

/// Level Zero's own build flags (-ze-opt-...) mean nothing to OpenCL.
std::string clBuildOptions(const char *flags) {
  std::string options;
  if (!flags)
    return options;
  std::istringstream words(flags);
  std::string word;
  while (words >> word) {
    if (word.rfind("-ze-", 0) == 0)
      continue;
    if (!options.empty())
      options += ' ';
    options += word;
  }
  return options;
}

void giveBuildLog(ze_module_build_log_handle_t *phBuildLog, std::string text) {
  if (!phBuildLog)
    return;
  auto *log = new BuildLog;
  log->text = std::move(text);
  *phBuildLog = reinterpret_cast<ze_module_build_log_handle_t>(log);
}

ze_result_t ModuleCreate(ze_context_handle_t hContext,
                         ze_device_handle_t hDevice,
                         const ze_module_desc_t *desc,
                         ze_module_handle_t *phModule,
                         ze_module_build_log_handle_t *phBuildLog) {
  TEGULA_ZE_ENTER();
  TEGULA_ZE_CHECK_INIT();
  if (!hContext || !hDevice)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phModule || !desc->pInputModule)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV)
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  if (desc->inputSize == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  const ze_module_constants_t *constants = desc->pConstants;
  if (constants && constants->numConstants &&
      (!constants->pConstantIds || !constants->pConstantValues))
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  SpirvFacts facts = parseSpirv(desc->pInputModule, desc->inputSize);
  cl_int error = CL_SUCCESS;
  cl_program program = clCreateProgramWithIL(
      runtime.context, desc->pInputModule, desc->inputSize, &error);
  if (error != CL_SUCCESS) {
    giveBuildLog(phBuildLog, "clCreateProgramWithIL failed (" +
                                 std::to_string(error) +
                                 "): the SPIR-V could not be read");
    return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
  }
  for (uint32_t i = 0; constants && i < constants->numConstants; ++i) {
    uint32_t id = constants->pConstantIds[i];
    auto size = facts.specConstantSizes.find(id);
    if (size == facts.specConstantSizes.end() ||
        !constants->pConstantValues[i] ||
        clSetProgramSpecializationConstant(program, id, size->second,
                                           constants->pConstantValues[i]) !=
            CL_SUCCESS) {
      giveBuildLog(phBuildLog, "no specialization constant " +
                                   std::to_string(id) + " in the module");
      clReleaseProgram(program);
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
  }
  std::string options = clBuildOptions(desc->pBuildFlags);
  error = clBuildProgram(program, 1, &runtime.device, options.c_str(), nullptr,
                         nullptr);
  std::string log = programBuildLog(program);
  if (error != CL_SUCCESS) {
    if (log.empty())
      log = "clBuildProgram failed (" + std::to_string(error) + ")";
    giveBuildLog(phBuildLog, log);
    clReleaseProgram(program);
    return error == CL_BUILD_PROGRAM_FAILURE ||
                   error == CL_INVALID_BUILD_OPTIONS
               ? ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
               : fromCl(error);
  }
  giveBuildLog(phBuildLog, log);
  auto *module = new Module;
  module->program = program;
  module->parameters = std::move(facts.parameters);
  size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size);
  std::string names(size, '\0');
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(),
                   nullptr);
  std::istringstream list(names.c_str());
  std::string name;
  while (std::getline(list, name, ';'))
    if (!name.empty())
      module->kernelNames.push_back(name);
  *phModule = reinterpret_cast<ze_module_handle_t>(module);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ModuleDestroy(ze_module_handle_t hModule) {
  TEGULA_ZE_ENTER();
  if (!hModule)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Module *module = from<Module>(hModule);
  clReleaseProgram(module->program);
  delete module;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                 const char **pNames) {
  TEGULA_ZE_ENTER();
  if (!hModule)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pCount)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Module *module = from<Module>(hModule);
  uint32_t total = static_cast<uint32_t>(module->kernelNames.size());
  if (*pCount == 0 || !pNames) {
    *pCount = total;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = std::min(*pCount, total);
  for (uint32_t i = 0; i < *pCount; ++i)
    pNames[i] = module->kernelNames[i].c_str();
  return ZE_RESULT_SUCCESS;
}

ze_result_t
ModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
  TEGULA_ZE_ENTER();
  if (!hModuleBuildLog)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete from<BuildLog>(hModuleBuildLog);
  return ZE_RESULT_SUCCESS;
}

ze_result_t
ModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog,
                        size_t *pSize, char *pBuildLog) {
  TEGULA_ZE_ENTER();
  if (!hModuleBuildLog)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pSize)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const std::string &text = from<BuildLog>(hModuleBuildLog)->text;
  if (!pBuildLog) {
    *pSize = text.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*pSize == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  size_t copied = std::min(*pSize - 1, text.size());
  std::memcpy(pBuildLog, text.data(), copied);
  pBuildLog[copied] = '\0';
  *pSize = copied + 1;
  return ZE_RESULT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

ze_result_t KernelCreate(ze_module_handle_t hModule,
                         const ze_kernel_desc_t *desc,
                         ze_kernel_handle_t *phKernel) {
  TEGULA_ZE_ENTER();
  if (!hModule)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!desc || !phKernel || !desc->pKernelName)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Module *module = from<Module>(hModule);
  if (std::find(module->kernelNames.begin(), module->kernelNames.end(),
                desc->pKernelName) == module->kernelNames.end())
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  cl_int error = CL_SUCCESS;
  cl_kernel clKernel =
      clCreateKernel(module->program, desc->pKernelName, &error);
  if (error != CL_SUCCESS)
    return fromCl(error);
  auto *kernel = new Kernel;
  kernel->kernel = clKernel;
  kernel->name = desc->pKernelName;
  cl_uint count = 0;
  clGetKernelInfo(clKernel, CL_KERNEL_NUM_ARGS, sizeof(count), &count, nullptr);
  kernel->kinds = module->parameters[kernel->name];
  kernel->kinds.resize(count, ArgumentKind::Bytes);
  kernel->arguments.resize(count);
  size_t required[3] = {0, 0, 0};
  clGetKernelWorkGroupInfo(clKernel, runtime.device,
                           CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(required),
                           required, nullptr);
  if (required[0] && required[1] && required[2])
    for (int i = 0; i < 3; ++i)
      kernel->groupSize[i] = static_cast<uint32_t>(required[i]);
  *phKernel = reinterpret_cast<ze_kernel_handle_t>(kernel);
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelDestroy(ze_kernel_handle_t hKernel) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Kernel *kernel = from<Kernel>(hKernel);
  clReleaseKernel(kernel->kernel);
  delete kernel;
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                               uint32_t groupSizeY, uint32_t groupSizeZ) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!groupSizeX || !groupSizeY || !groupSizeZ)
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  size_t maxSizes[3] = {1, 1, 1};
  clGetDeviceInfo(runtime.device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                  sizeof(maxSizes), maxSizes, nullptr);
  uint64_t total = uint64_t(groupSizeX) * groupSizeY * groupSizeZ;
  if (groupSizeX > maxSizes[0] || groupSizeY > maxSizes[1] ||
      groupSizeZ > maxSizes[2] ||
      total > deviceInfo<size_t>(CL_DEVICE_MAX_WORK_GROUP_SIZE))
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  Kernel *kernel = from<Kernel>(hKernel);
  std::lock_guard<std::mutex> lock(kernel->mutex);
  kernel->groupSize[0] = groupSizeX;
  kernel->groupSize[1] = groupSizeY;
  kernel->groupSize[2] = groupSizeZ;
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelSuggestGroupSize(ze_kernel_handle_t hKernel,
                                   uint32_t globalSizeX, uint32_t globalSizeY,
                                   uint32_t globalSizeZ, uint32_t *groupSizeX,
                                   uint32_t *groupSizeY, uint32_t *groupSizeZ) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!groupSizeX || !groupSizeY || !groupSizeZ)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Kernel *kernel = from<Kernel>(hKernel);
  size_t required[3] = {0, 0, 0};
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(required),
                           required, nullptr);
  if (required[0] && required[1] && required[2]) {
    *groupSizeX = static_cast<uint32_t>(required[0]);
    *groupSizeY = static_cast<uint32_t>(required[1]);
    *groupSizeZ = static_cast<uint32_t>(required[2]);
    return ZE_RESULT_SUCCESS;
  }
  size_t limit = 0;
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                           nullptr);
  size_t maxSizes[3] = {1, 1, 1};
  clGetDeviceInfo(runtime.device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                  sizeof(maxSizes), maxSizes, nullptr);
  // The largest divisor of each global size that still fits what is left of
  // the group size limit, X first.
  uint32_t global[3] = {globalSizeX, globalSizeY, globalSizeZ};
  uint32_t *out[3] = {groupSizeX, groupSizeY, groupSizeZ};
  size_t left = std::max<size_t>(limit, 1);
  for (int i = 0; i < 3; ++i) {
    uint32_t size = 1;
    uint32_t bound = static_cast<uint32_t>(std::min<size_t>(
        {left, maxSizes[i], std::max<uint32_t>(global[i], 1)}));
    for (uint32_t candidate = bound; candidate > 1; --candidate) {
      if (global[i] % candidate == 0) {
        size = candidate;
        break;
      }
    }
    *out[i] = size;
    left /= size;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelSetArgumentValue(ze_kernel_handle_t hKernel,
                                   uint32_t argIndex, size_t argSize,
                                   const void *pArgValue) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Kernel *kernel = from<Kernel>(hKernel);
  std::lock_guard<std::mutex> lock(kernel->mutex);
  if (argIndex >= kernel->arguments.size())
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  Argument argument;
  argument.set = true;
  cl_int error = CL_SUCCESS;
  switch (kernel->kinds[argIndex]) {
  case ArgumentKind::Pointer: {
    if (argSize != sizeof(void *))
      return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    void *pointer = nullptr;
    if (pArgValue)
      std::memcpy(&pointer, pArgValue, sizeof(pointer));
    argument.bytes.resize(sizeof(pointer));
    std::memcpy(argument.bytes.data(), &pointer, sizeof(pointer));
    error = runtime.setKernelArgMemPointer(kernel->kernel, argIndex, pointer);
    break;
  }
  case ArgumentKind::Local:
    if (pArgValue)
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (argSize == 0)
      return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    argument.size = argSize;
    error = clSetKernelArg(kernel->kernel, argIndex, argSize, nullptr);
    break;
  case ArgumentKind::Bytes:
    if (!pArgValue)
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    argument.bytes.assign(static_cast<const uint8_t *>(pArgValue),
                          static_cast<const uint8_t *>(pArgValue) + argSize);
    // Setting it now validates the size at once.
    error = clSetKernelArg(kernel->kernel, argIndex, argSize, pArgValue);
    break;
  }
  if (error != CL_SUCCESS)
    return error == CL_INVALID_ARG_VALUE ? ZE_RESULT_ERROR_INVALID_ARGUMENT
                                         : fromCl(error);
  kernel->arguments[argIndex] = std::move(argument);
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelGetProperties(ze_kernel_handle_t hKernel,
                                ze_kernel_properties_t *pKernelProperties) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pKernelProperties)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Kernel *kernel = from<Kernel>(hKernel);
  ze_kernel_properties_t &properties = *pKernelProperties;
  properties.numKernelArgs = static_cast<uint32_t>(kernel->arguments.size());
  size_t required[3] = {0, 0, 0};
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(required),
                           required, nullptr);
  properties.requiredGroupSizeX = static_cast<uint32_t>(required[0]);
  properties.requiredGroupSizeY = static_cast<uint32_t>(required[1]);
  properties.requiredGroupSizeZ = static_cast<uint32_t>(required[2]);
  properties.requiredNumSubGroups = 0;
  size_t subGroupSize = 0;
  clGetKernelSubGroupInfo(kernel->kernel, runtime.device,
                          CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, nullptr,
                          sizeof(subGroupSize), &subGroupSize, nullptr);
  properties.requiredSubgroupSize = static_cast<uint32_t>(subGroupSize);
  uint32_t maxSubGroupSize = 0;
  for (uint32_t size : runtime.subGroupSizes)
    maxSubGroupSize = std::max(maxSubGroupSize, size);
  properties.maxSubgroupSize =
      subGroupSize ? static_cast<uint32_t>(subGroupSize) : maxSubGroupSize;
  size_t groupLimit = 0;
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_WORK_GROUP_SIZE, sizeof(groupLimit),
                           &groupLimit, nullptr);
  properties.maxNumSubgroups =
      properties.maxSubgroupSize
          ? static_cast<uint32_t>(
                (groupLimit + properties.maxSubgroupSize - 1) /
                properties.maxSubgroupSize)
          : 0;
  cl_ulong local = 0;
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local,
                           nullptr);
  properties.localMemSize = static_cast<uint32_t>(local);
  cl_ulong priv = 0;
  clGetKernelWorkGroupInfo(kernel->kernel, runtime.device,
                           CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv,
                           nullptr);
  properties.privateMemSize = static_cast<uint32_t>(priv);
  properties.spillMemSize = 0;
  std::memset(&properties.uuid, 0, sizeof(properties.uuid));
  return ZE_RESULT_SUCCESS;
}

ze_result_t KernelGetName(ze_kernel_handle_t hKernel, size_t *pSize,
                          char *pName) {
  TEGULA_ZE_ENTER();
  if (!hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pSize)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const std::string &name = from<Kernel>(hKernel)->name;
  if (!pName) {
    *pSize = name.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*pSize == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  size_t copied = std::min(*pSize - 1, name.size());
  std::memcpy(pName, name.data(), copied);
  pName[copied] = '\0';
  *pSize = copied + 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t CommandListAppendLaunchKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
    const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
  TEGULA_ZE_ENTER();
  if (!hCommandList || !hKernel)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!pLaunchFuncArgs)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  CommandList *list = from<CommandList>(hCommandList);
  Kernel *kernel = from<Kernel>(hKernel);
  uint32_t counts[3] = {pLaunchFuncArgs->groupCountX,
                        pLaunchFuncArgs->groupCountY,
                        pLaunchFuncArgs->groupCountZ};
  if (!counts[0] || !counts[1] || !counts[2])
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  std::vector<cl_event> waits;
  if (ze_result_t result = waitList(numWaitEvents, phWaitEvents, waits)) {
    releaseAll(waits);
    return result;
  }
  std::lock_guard<std::mutex> lock(kernel->mutex);
  for (size_t i = 0; i < kernel->arguments.size(); ++i) {
    const Argument &argument = kernel->arguments[i];
    if (!argument.set) {
      releaseAll(waits);
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    cl_uint index = static_cast<cl_uint>(i);
    cl_int error = CL_SUCCESS;
    switch (kernel->kinds[i]) {
    case ArgumentKind::Pointer: {
      void *pointer = nullptr;
      std::memcpy(&pointer, argument.bytes.data(), sizeof(pointer));
      error = runtime.setKernelArgMemPointer(kernel->kernel, index, pointer);
      break;
    }
    case ArgumentKind::Local:
      error = clSetKernelArg(kernel->kernel, index, argument.size, nullptr);
      break;
    case ArgumentKind::Bytes:
      error = clSetKernelArg(kernel->kernel, index, argument.bytes.size(),
                             argument.bytes.data());
      break;
    }
    if (error != CL_SUCCESS) {
      releaseAll(waits);
      return fromCl(error);
    }
  }
  size_t global[3], local[3];
  for (int i = 0; i < 3; ++i) {
    local[i] = kernel->groupSize[i];
    global[i] = size_t(counts[i]) * kernel->groupSize[i];
  }
  cl_event command = nullptr;
  cl_int error =
      clEnqueueNDRangeKernel(list->queue, kernel->kernel, 3, nullptr, global,
                             local, static_cast<cl_uint>(waits.size()),
                             waits.empty() ? nullptr : waits.data(), &command);
  return finishAppend(list, error, command, hSignalEvent, waits);
}

//===----------------------------------------------------------------------===//
// What is not faked
//===----------------------------------------------------------------------===//

ze_result_t CommandListCreate(ze_context_handle_t, ze_device_handle_t,
                              const ze_command_list_desc_t *,
                              ze_command_list_handle_t *) {
  TEGULA_ZE_ENTER();
  return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t CommandQueueCreate(ze_context_handle_t, ze_device_handle_t,
                               const ze_command_queue_desc_t *,
                               ze_command_queue_handle_t *) {
  TEGULA_ZE_ENTER();
  return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

/// The loader asks for tables of any minor version; only 1.4's fields are
/// filled, which every 1.x table begins with.
ze_result_t checkVersion(ze_api_version_t version, const void *table) {
  if (!table)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ZE_MAJOR_VERSION(version) != 1)
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  return ZE_RESULT_SUCCESS;
}

} // namespace

//===----------------------------------------------------------------------===//
// Exported tables and hooks
//===----------------------------------------------------------------------===//

extern "C" {

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(
    ze_api_version_t version, ze_global_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnInit = Init;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(
    ze_api_version_t version, ze_driver_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnGet = DriverGet;
  table->pfnGetApiVersion = DriverGetApiVersion;
  table->pfnGetProperties = DriverGetProperties;
  table->pfnGetExtensionProperties = DriverGetExtensionProperties;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(
    ze_api_version_t version, ze_device_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnGet = DeviceGet;
  table->pfnGetSubDevices = DeviceGetSubDevices;
  table->pfnGetProperties = DeviceGetProperties;
  table->pfnGetComputeProperties = DeviceGetComputeProperties;
  table->pfnGetModuleProperties = DeviceGetModuleProperties;
  table->pfnGetCommandQueueGroupProperties =
      DeviceGetCommandQueueGroupProperties;
  table->pfnGetMemoryProperties = DeviceGetMemoryProperties;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(
    ze_api_version_t version, ze_context_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = ContextCreate;
  table->pfnDestroy = ContextDestroy;
  table->pfnGetStatus = ContextGetStatus;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetCommandQueueProcAddrTable(
    ze_api_version_t version, ze_command_queue_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = CommandQueueCreate;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(
    ze_api_version_t version, ze_command_list_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = CommandListCreate;
  table->pfnCreateImmediate = CommandListCreateImmediate;
  table->pfnDestroy = CommandListDestroy;
  table->pfnAppendBarrier = CommandListAppendBarrier;
  table->pfnAppendMemoryCopy = CommandListAppendMemoryCopy;
  table->pfnAppendMemoryFill = CommandListAppendMemoryFill;
  table->pfnAppendLaunchKernel = CommandListAppendLaunchKernel;
  table->pfnAppendSignalEvent = CommandListAppendSignalEvent;
  table->pfnAppendWaitOnEvents = CommandListAppendWaitOnEvents;
  table->pfnAppendEventReset = CommandListAppendEventReset;
  table->pfnAppendWriteGlobalTimestamp = CommandListAppendWriteGlobalTimestamp;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(
    ze_api_version_t version, ze_event_pool_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = EventPoolCreate;
  table->pfnDestroy = EventPoolDestroy;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = EventCreate;
  table->pfnDestroy = EventDestroy;
  table->pfnHostSignal = EventHostSignal;
  table->pfnHostSynchronize = EventHostSynchronize;
  table->pfnQueryStatus = EventQueryStatus;
  table->pfnHostReset = EventHostReset;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(
    ze_api_version_t version, ze_module_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = ModuleCreate;
  table->pfnDestroy = ModuleDestroy;
  table->pfnGetKernelNames = ModuleGetKernelNames;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleBuildLogProcAddrTable(
    ze_api_version_t version, ze_module_build_log_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnDestroy = ModuleBuildLogDestroy;
  table->pfnGetString = ModuleBuildLogGetString;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(
    ze_api_version_t version, ze_kernel_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnCreate = KernelCreate;
  table->pfnDestroy = KernelDestroy;
  table->pfnSetGroupSize = KernelSetGroupSize;
  table->pfnSuggestGroupSize = KernelSuggestGroupSize;
  table->pfnSetArgumentValue = KernelSetArgumentValue;
  table->pfnGetProperties = KernelGetProperties;
  table->pfnGetName = KernelGetName;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *table) {
  if (ze_result_t result = checkVersion(version, table))
    return result;
  table->pfnAllocShared = MemAllocShared;
  table->pfnAllocDevice = MemAllocDevice;
  table->pfnAllocHost = MemAllocHost;
  table->pfnFree = MemFree;
  table->pfnGetAllocProperties = MemGetAllocProperties;
  table->pfnGetAddressRange = MemGetAddressRange;
  return ZE_RESULT_SUCCESS;
}

/// Tables of nothing this driver does. The loader (libze1 1.8.12) refuses a
/// driver lacking any ze, zet or zes table but the experimental ones, of
/// which it still wants zetGetTracerExpProcAddrTable; the others are here
/// so that a newer loader finds them too. Entries left null answer
/// ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
#define TEGULA_ZE_EMPTY_TABLE(prefix, name, type)                              \
  ZE_DLLEXPORT ze_result_t ZE_APICALL prefix##Get##name##ProcAddrTable(        \
      ze_api_version_t version, type *table) {                                 \
    return checkVersion(version, table);                                       \
  }

TEGULA_ZE_EMPTY_TABLE(ze, DeviceExp, ze_device_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, ImageExp, ze_image_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, Image, ze_image_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, Fence, ze_fence_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, EventExp, ze_event_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, KernelExp, ze_kernel_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, Sampler, ze_sampler_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, PhysicalMem, ze_physical_mem_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, VirtualMem, ze_virtual_mem_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, FabricVertexExp, ze_fabric_vertex_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(ze, FabricEdgeExp, ze_fabric_edge_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Device, zet_device_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Context, zet_context_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, CommandList, zet_command_list_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Module, zet_module_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Kernel, zet_kernel_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, MetricGroup, zet_metric_group_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, MetricGroupExp, zet_metric_group_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Metric, zet_metric_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, MetricStreamer, zet_metric_streamer_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, MetricQueryPool, zet_metric_query_pool_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, MetricQuery, zet_metric_query_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, TracerExp, zet_tracer_exp_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zet, Debug, zet_debug_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Driver, zes_driver_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Device, zes_device_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Scheduler, zes_scheduler_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, PerformanceFactor, zes_performance_factor_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Power, zes_power_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Frequency, zes_frequency_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Engine, zes_engine_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Standby, zes_standby_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Firmware, zes_firmware_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Memory, zes_memory_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, FabricPort, zes_fabric_port_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Temperature, zes_temperature_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Psu, zes_psu_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Fan, zes_fan_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Led, zes_led_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Ras, zes_ras_dditable_t)
TEGULA_ZE_EMPTY_TABLE(zes, Diagnostics, zes_diagnostics_dditable_t)

ZE_DLLEXPORT void tegulaZeTestFailNext(const char *entryPoint,
                                       ze_result_t result) {
  if (!entryPoint)
    return;
  std::lock_guard<std::mutex> lock(hookMutex);
  failures[entryPoint] = result;
}

ZE_DLLEXPORT uint64_t tegulaZeTestCallCount(const char *entryPoint) {
  if (!entryPoint)
    return 0;
  std::lock_guard<std::mutex> lock(hookMutex);
  auto count = callCounts.find(entryPoint);
  return count == callCounts.end() ? 0 : count->second;
}

} // extern "C"
