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

/// CUfunction_attribute values (cuFuncGetAttribute, cuFuncSetAttribute).
enum CUfunctionAttribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};
/// The static shared memory a block needs without the opt-in attribute.
constexpr uint64_t kDefaultSharedMemoryLimit = 48 * 1024;

/// CUjit_option values for cuModuleLoadDataEx.
enum CUjitOption : int {
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/// The CUDA driver entry points the plugin uses: ENTRY(member, (parameter
/// types), (symbols, the first the driver has is taken)); OPTIONAL ones may
/// be missing (cuGetErrorName, cuGetErrorString: errors are then named by
/// number; cuStreamGetCtx, CUDA 9.2 on: checks that a wrapped native
/// stream is ours). cuEventElapsedTime_v2 (CUDA 12.8) fixed the semantics
/// for events recorded in graphs; older drivers have only the first.
#define TEGULA_CUDA_DRIVER_ENTRIES(ENTRY, OPTIONAL)                            \
  OPTIONAL(cuGetErrorName, (CUresult, const char **), ("cuGetErrorName"))     \
  OPTIONAL(cuGetErrorString, (CUresult, const char **), ("cuGetErrorString")) \
  OPTIONAL(cuStreamGetCtx, (CUstream, CUcontext *), ("cuStreamGetCtx"))       \
  ENTRY(cuInit, (unsigned), ("cuInit"))                                       \
  ENTRY(cuDeviceGetCount, (int *), ("cuDeviceGetCount"))                      \
  ENTRY(cuDeviceGet, (CUdevice *, int), ("cuDeviceGet"))                      \
  ENTRY(cuDeviceGetName, (char *, int, CUdevice), ("cuDeviceGetName"))        \
  ENTRY(cuDeviceGetAttribute, (int *, int, CUdevice),                         \
        ("cuDeviceGetAttribute"))                                             \
  ENTRY(cuDeviceTotalMem, (size_t *, CUdevice), ("cuDeviceTotalMem_v2"))      \
  ENTRY(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice),                    \
        ("cuDevicePrimaryCtxRetain"))                                         \
  ENTRY(cuDevicePrimaryCtxRelease, (CUdevice),                                \
        ("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"))        \
  ENTRY(cuCtxGetCurrent, (CUcontext *), ("cuCtxGetCurrent"))                  \
  ENTRY(cuCtxSetCurrent, (CUcontext), ("cuCtxSetCurrent"))                    \
  ENTRY(cuMemAlloc, (CUdeviceptr *, size_t), ("cuMemAlloc_v2"))               \
  ENTRY(cuMemFree, (CUdeviceptr), ("cuMemFree_v2"))                           \
  ENTRY(cuMemcpyHtoDAsync, (CUdeviceptr, const void *, size_t, CUstream),     \
        ("cuMemcpyHtoDAsync_v2"))                                             \
  ENTRY(cuMemcpyDtoHAsync, (void *, CUdeviceptr, size_t, CUstream),           \
        ("cuMemcpyDtoHAsync_v2"))                                             \
  ENTRY(cuMemcpyDtoDAsync, (CUdeviceptr, CUdeviceptr, size_t, CUstream),      \
        ("cuMemcpyDtoDAsync_v2"))                                             \
  ENTRY(cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream),      \
        ("cuMemsetD8Async"))                                                  \
  ENTRY(cuStreamCreate, (CUstream *, unsigned), ("cuStreamCreate"))           \
  ENTRY(cuStreamDestroy, (CUstream), ("cuStreamDestroy_v2"))                  \
  ENTRY(cuStreamSynchronize, (CUstream), ("cuStreamSynchronize"))             \
  ENTRY(cuStreamWaitEvent, (CUstream, CUevent, unsigned),                     \
        ("cuStreamWaitEvent"))                                                \
  ENTRY(cuEventCreate, (CUevent *, unsigned), ("cuEventCreate"))              \
  ENTRY(cuEventDestroy, (CUevent), ("cuEventDestroy_v2"))                     \
  ENTRY(cuEventRecord, (CUevent, CUstream), ("cuEventRecord"))                \
  ENTRY(cuEventSynchronize, (CUevent), ("cuEventSynchronize"))                \
  ENTRY(cuEventElapsedTime, (float *, CUevent, CUevent),                      \
        ("cuEventElapsedTime_v2", "cuEventElapsedTime"))                      \
  ENTRY(cuModuleLoadDataEx,                                                   \
        (CUmodule *, const void *, unsigned, CUjitOption *, void **),         \
        ("cuModuleLoadDataEx"))                                               \
  ENTRY(cuModuleUnload, (CUmodule), ("cuModuleUnload"))                       \
  ENTRY(cuModuleGetFunction, (CUfunction *, CUmodule, const char *),          \
        ("cuModuleGetFunction"))                                              \
  ENTRY(cuFuncSetAttribute, (CUfunction, int, int), ("cuFuncSetAttribute"))   \
  ENTRY(cuFuncGetAttribute, (int *, int, CUfunction), ("cuFuncGetAttribute")) \
  ENTRY(cuLaunchKernel,                                                       \
        (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,        \
         unsigned, unsigned, CUstream, void **, void **),                     \
        ("cuLaunchKernel"))

/// The CUDA driver entry points (TEGULA_CUDA_DRIVER_ENTRIES), resolved from
/// libcuda.so.1: every member is set once load() succeeds, but for the
/// optional ones.
struct CudaDriver {
#define TEGULA_CUDA_MEMBER(name, parameters, symbols)                          \
  CUresult(*name) parameters = nullptr;
  TEGULA_CUDA_DRIVER_ENTRIES(TEGULA_CUDA_MEMBER, TEGULA_CUDA_MEMBER)
#undef TEGULA_CUDA_MEMBER

  /// The process's one table: libcuda.so.1 (or the file
  /// $TEGULA_CUDA_DRIVER_LIBRARY names, for tests) dlopen'ed and its entry points
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

  /// Resolves the entry points; returns why it cannot, or "" (get() calls
  /// it once).
  std::string load();
};

/// The tg_error_code for a failed driver call that returned |result|.
int32_t toErrorCode(CUresult result);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_CUDADRIVER_H
