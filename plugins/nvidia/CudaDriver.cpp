//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

using namespace tegula::nvidia;

namespace {

/// Resolves the first of |names| that |library| exports into |fn|; false
/// when none.
template <typename Fn>
bool resolve(void *library, std::initializer_list<const char *> names,
             Fn &fn) {
  for (const char *name : names) {
    fn = reinterpret_cast<Fn>(dlsym(library, name));
    if (fn)
      return true;
  }
  return false;
}

} // namespace

const CudaDriver *CudaDriver::get(std::string &whyNot) {
  static std::once_flag once;
  static CudaDriver *table = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    // Never deleted: see get()'s contract.
    auto *candidate = new CudaDriver();
    failure = candidate->load();
    if (failure.empty())
      table = candidate;
    else
      delete candidate;
  });
  whyNot = failure;
  return table;
}

std::string CudaDriver::load() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string("no CUDA driver found (") +
           (why ? why : "libcuda.so.1 cannot be loaded") + ")";
  }
  resolve(library, {"cuGetErrorName"}, cuGetErrorName);
  resolve(library, {"cuGetErrorString"}, cuGetErrorString);
  resolve(library, {"cuStreamGetCtx"}, cuStreamGetCtx);
#define TG_CUDA_REQUIRE(member, ...)                                           \
  if (!resolve(library, {__VA_ARGS__}, member))                                \
    return std::string("the CUDA driver (libcuda.so.1) lacks ") +             \
           *std::initializer_list<const char *>{__VA_ARGS__}.begin();
  TG_CUDA_REQUIRE(cuInit, "cuInit")
  TG_CUDA_REQUIRE(cuDeviceGetCount, "cuDeviceGetCount")
  TG_CUDA_REQUIRE(cuDeviceGet, "cuDeviceGet")
  TG_CUDA_REQUIRE(cuDeviceGetName, "cuDeviceGetName")
  TG_CUDA_REQUIRE(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  TG_CUDA_REQUIRE(cuDeviceTotalMem, "cuDeviceTotalMem_v2")
  TG_CUDA_REQUIRE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  TG_CUDA_REQUIRE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
                  "cuDevicePrimaryCtxRelease")
  TG_CUDA_REQUIRE(cuCtxGetCurrent, "cuCtxGetCurrent")
  TG_CUDA_REQUIRE(cuCtxSetCurrent, "cuCtxSetCurrent")
  TG_CUDA_REQUIRE(cuMemAlloc, "cuMemAlloc_v2")
  TG_CUDA_REQUIRE(cuMemFree, "cuMemFree_v2")
  TG_CUDA_REQUIRE(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
  TG_CUDA_REQUIRE(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
  TG_CUDA_REQUIRE(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")
  TG_CUDA_REQUIRE(cuMemsetD8Async, "cuMemsetD8Async")
  TG_CUDA_REQUIRE(cuStreamCreate, "cuStreamCreate")
  TG_CUDA_REQUIRE(cuStreamDestroy, "cuStreamDestroy_v2")
  TG_CUDA_REQUIRE(cuStreamSynchronize, "cuStreamSynchronize")
  TG_CUDA_REQUIRE(cuStreamWaitEvent, "cuStreamWaitEvent")
  TG_CUDA_REQUIRE(cuEventCreate, "cuEventCreate")
  TG_CUDA_REQUIRE(cuEventDestroy, "cuEventDestroy_v2")
  TG_CUDA_REQUIRE(cuEventRecord, "cuEventRecord")
  TG_CUDA_REQUIRE(cuEventSynchronize, "cuEventSynchronize")
  // CUDA 12.8 added a _v2 (same signature, fixed semantics for events
  // recorded in graphs); older drivers have only the first.
  TG_CUDA_REQUIRE(cuEventElapsedTime, "cuEventElapsedTime_v2",
                  "cuEventElapsedTime")
  TG_CUDA_REQUIRE(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  TG_CUDA_REQUIRE(cuModuleUnload, "cuModuleUnload")
  TG_CUDA_REQUIRE(cuModuleGetFunction, "cuModuleGetFunction")
  TG_CUDA_REQUIRE(cuFuncSetAttribute, "cuFuncSetAttribute")
  TG_CUDA_REQUIRE(cuLaunchKernel, "cuLaunchKernel")
#undef TG_CUDA_REQUIRE
  return "";
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr;
  std::string text;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    text = std::string(name) + " (" + std::to_string(result) + ")";
  else
    text = "CUDA error " + std::to_string(result);
  const char *meaning = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &meaning) == CUDA_SUCCESS &&
      meaning)
    text += std::string(": ") + meaning;
  return text;
}

int CudaDriver::attribute(int attr, CUdevice device) const {
  int value = 0;
  if (cuDeviceGetAttribute(&value, attr, device) != CUDA_SUCCESS)
    return 0;
  return value;
}

int32_t tegula::nvidia::toErrorCode(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return TG_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE:
    return TG_ERROR_INVALID_ARGUMENT;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return TG_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_NOT_FOUND:
    return TG_ERROR_NOT_FOUND;
  case 200: // CUDA_ERROR_INVALID_IMAGE
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return TG_ERROR_INVALID_FORMAT;
  case 3:   // CUDA_ERROR_NOT_INITIALIZED
  case 4:   // CUDA_ERROR_DEINITIALIZED
  case 100: // CUDA_ERROR_NO_DEVICE
    return TG_ERROR_UNAVAILABLE;
  default:
    // Faults in kernels (illegal address, assert, launch failure, ...) and
    // the rest.
    return TG_ERROR_DEVICE;
  }
}
