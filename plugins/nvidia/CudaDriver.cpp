//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include "tegula/BackendKit/DeviceSupport.h"
#include "tegula/BackendKit/VendorLibrary.h"

#include <cstdlib>
#include <string>

using namespace tegula::nvidia;

const CudaDriver *CudaDriver::get(std::string &whyNot) {
  return tegula::backend::loadVendorTableOnce<CudaDriver>(whyNot);
}

std::string CudaDriver::load() {
  tegula::backend::VendorLibrary library("CUDA driver");
  // A library the user names is the only one tried (the tests point it at
  // a double of libcuda faking several GPUs, tests/runtime/FakeCuda.cpp).
  const char *chosen = std::getenv("TEGULA_CUDA_DRIVER_LIBRARY");
  if (!library.open({chosen && *chosen ? chosen : "libcuda.so.1"}))
    return library.error();
#define TEGULA_CUDA_SYMBOLS(...) {__VA_ARGS__}
#define TEGULA_CUDA_REQUIRED(name, parameters, symbols)                        \
  library.resolve(name, TEGULA_CUDA_SYMBOLS symbols);
#define TEGULA_CUDA_OPTIONAL(name, parameters, symbols)                        \
  library.resolve(name, TEGULA_CUDA_SYMBOLS symbols, /*required=*/false);
  TEGULA_CUDA_DRIVER_ENTRIES(TEGULA_CUDA_REQUIRED, TEGULA_CUDA_OPTIONAL)
#undef TEGULA_CUDA_REQUIRED
#undef TEGULA_CUDA_OPTIONAL
#undef TEGULA_CUDA_SYMBOLS
  return library.error();
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr, *meaning = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &meaning) != CUDA_SUCCESS)
    meaning = nullptr;
  return tegula::backend::describeDriverError("CUDA", result, name, meaning);
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
