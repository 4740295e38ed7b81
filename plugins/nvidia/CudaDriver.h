//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The part of the CUDA driver API (libcuda.so.1) the plugin uses, declared
// here rather than taken from cuda.h so that the plugin builds on machines
// without the CUDA toolkit, and resolved with dlsym from the driver, which
// is dlopen'ed at run time and never linked: the plugin loads on machines
// without it. Values are the driver API's, which keeps them stable across
// releases; versioned entry points are named as libcuda exports them
// (cuMemAlloc_v2, ...) and use the legacy default stream for a NULL stream.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_CUDADRIVER_H
#define TEGULA_PLUGINS_NVIDIA_CUDADRIVER_H

#include "tegula/plugin.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tegula::nvidia {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_ASSERT = 710;

enum CUdeviceAttribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
/// The static shared memory a block needs without the opt-in attribute.
constexpr uint64_t kDefaultSharedMemoryLimit = 48 * 1024;

/// CUjit_option values for cuModuleLoadDataEx.
enum CUjitOption : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/// The CUDA driver entry points the plugin uses, resolved from libcuda.so.1.
/// Every member is set once load() succeeds, but for the ones marked
/// optional.
struct CudaDriver {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  /// Optional: errors are then named by number only.
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  /// Optional.
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;

  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;

  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t,
                              CUstream) = nullptr;

  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  /// Optional (CUDA 9.2 on): checks that a wrapped native stream is ours.
  CUresult (*cuStreamGetCtx)(CUstream, CUcontext *) = nullptr;

  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;

  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjitOption *, void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;

  /// The process's one table: libcuda.so.1 dlopen'ed and its entry points
  /// resolved on the first call. Null, with |whyNot| saying why ("no CUDA
  /// driver found (...)", "the CUDA driver (libcuda.so.1) lacks
  /// cuMemAlloc_v2"), when the driver cannot be used. The driver and the
  /// table stay for the life of the process (the driver registers exit
  /// handlers and threads of its own; devices of every plugin instance
  /// refer to the table).
  static const CudaDriver *get(std::string &whyNot);

  /// "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected" for
  /// |result|, as far as the driver names it.
  std::string describe(CUresult result) const;

  /// An attribute, or 0 when the driver does not know it.
  int attribute(int attr, CUdevice device) const;

private:
  /// Resolves the entry points; returns why it cannot, or "".
  std::string load();
};

/// The tg_error_code for a failed driver call that returned |result|.
int32_t toErrorCode(CUresult result);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_CUDADRIVER_H
