//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include "tegula/BackendKit/VendorLibrary.h"

#include <mutex>
#include <string>

using namespace tegula::nvidia;

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
  tegula::backend::VendorLibrary library("CUDA driver");
  if (!library.open({"libcuda.so.1"}))
    return library.error();
  library.resolve(cuGetErrorName, {"cuGetErrorName"}, /*required=*/false);
  library.resolve(cuGetErrorString, {"cuGetErrorString"}, /*required=*/false);
  library.resolve(cuStreamGetCtx, {"cuStreamGetCtx"}, /*required=*/false);
  library.resolve(cuInit, {"cuInit"});
  library.resolve(cuDeviceGetCount, {"cuDeviceGetCount"});
  library.resolve(cuDeviceGet, {"cuDeviceGet"});
  library.resolve(cuDeviceGetName, {"cuDeviceGetName"});
  library.resolve(cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  library.resolve(cuDeviceTotalMem, {"cuDeviceTotalMem_v2"});
  library.resolve(cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  library.resolve(cuDevicePrimaryCtxRelease,
                  {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  library.resolve(cuCtxGetCurrent, {"cuCtxGetCurrent"});
  library.resolve(cuCtxSetCurrent, {"cuCtxSetCurrent"});
  library.resolve(cuMemAlloc, {"cuMemAlloc_v2"});
  library.resolve(cuMemFree, {"cuMemFree_v2"});
  library.resolve(cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"});
  library.resolve(cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"});
  library.resolve(cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
  library.resolve(cuMemsetD8Async, {"cuMemsetD8Async"});
  library.resolve(cuStreamCreate, {"cuStreamCreate"});
  library.resolve(cuStreamDestroy, {"cuStreamDestroy_v2"});
  library.resolve(cuStreamSynchronize, {"cuStreamSynchronize"});
  library.resolve(cuStreamWaitEvent, {"cuStreamWaitEvent"});
  library.resolve(cuEventCreate, {"cuEventCreate"});
  library.resolve(cuEventDestroy, {"cuEventDestroy_v2"});
  library.resolve(cuEventRecord, {"cuEventRecord"});
  library.resolve(cuEventSynchronize, {"cuEventSynchronize"});
  // CUDA 12.8 added a _v2 (same signature, fixed semantics for events
  // recorded in graphs); older drivers have only the first.
  library.resolve(cuEventElapsedTime,
                  {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  library.resolve(cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  library.resolve(cuModuleUnload, {"cuModuleUnload"});
  library.resolve(cuModuleGetFunction, {"cuModuleGetFunction"});
  library.resolve(cuFuncSetAttribute, {"cuFuncSetAttribute"});
  library.resolve(cuLaunchKernel, {"cuLaunchKernel"});
  return library.error();
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
