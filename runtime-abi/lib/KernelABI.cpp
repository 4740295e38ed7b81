//===- KernelABI.cpp - Packing kernel arguments ---------------------------===//
//
// The one definition of how arguments are laid out for a launch (runtime.h,
// docs/runtime.md): in order, each at a multiple of its own size, pointers as
// 8-byte device addresses, the total rounded up to 8. Every plugin unpacks
// exactly this layout.
//
//===----------------------------------------------------------------------===//

#include "Error.h"

#include "tegula/plugin_support.hpp"

#include <cstring>

using namespace tegula::runtime;

namespace {
constexpr size_t kPointerSize = 8;
constexpr size_t kPackedAlignment = 8;

size_t alignTo(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// The packed size of argument |index|, or an error.
tegula_error_t *argSize(const tg_kernel_arg &arg, size_t index, size_t &size) {
  if (arg.kind == TG_ARG_POINTER) {
    size = kPointerSize;
    return nullptr;
  }
  if (arg.kind != TG_ARG_SCALAR)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "argument %zu (%s): unknown kind %u", index,
                      arg.name ? arg.name : "?", arg.kind);
  size = tegula_scalar_type_size(arg.type);
  if (!size)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "argument %zu (%s): unknown scalar type %u", index,
                      arg.name ? arg.name : "?", arg.type);
  return nullptr;
}
} // namespace

extern "C" {

size_t tegula_scalar_type_size(uint32_t type) {
  return tegula::plugin::scalarTypeSize(type);
}

tegula_error_t *tegula_args_layout(const tg_kernel_metadata *metadata,
                                   size_t *offsets, size_t *packed_size) {
  TEGULA_REJECT_IF(!metadata || !packed_size, "metadata or packed_size is NULL");
  TEGULA_REJECT_IF(metadata->num_args && !metadata->args,
                   "metadata has arguments but no array");
  size_t offset = 0;
  for (size_t i = 0; i < metadata->num_args; ++i) {
    size_t size = 0;
    if (tegula_error_t *error = argSize(metadata->args[i], i, size))
      return error;
    offset = alignTo(offset, size);
    if (offsets)
      offsets[i] = offset;
    offset += size;
  }
  *packed_size = alignTo(offset, kPackedAlignment);
  return nullptr;
}

tegula_error_t *tegula_args_pack(const tg_kernel_metadata *metadata,
                                 const void *const *values, void *out,
                                 size_t capacity, size_t *packed_size) {
  TEGULA_REJECT_IF(!metadata || !packed_size || (!out && capacity),
                   "metadata, out or packed_size is NULL");
  TEGULA_REJECT_IF(!values && metadata->num_args, "values is NULL");
  size_t total = 0;
  if (tegula_error_t *error = tegula_args_layout(metadata, nullptr, &total))
    return error;
  *packed_size = total;
  if (capacity < total)
    return makeErrorf(TG_ERROR_OUT_OF_RANGE,
                      "tegula_args_pack: %zu bytes needed, %zu available",
                      total, capacity);
  char *bytes = static_cast<char *>(out);
  std::memset(bytes, 0, total);
  size_t offset = 0;
  for (size_t i = 0; i < metadata->num_args; ++i) {
    size_t size = 0;
    if (tegula_error_t *error = argSize(metadata->args[i], i, size))
      return error;
    if (!values[i])
      return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                        "tegula_args_pack: no value for argument %zu", i);
    offset = alignTo(offset, size);
    if (metadata->args[i].kind == TG_ARG_SCALAR &&
        metadata->args[i].type == TG_TYPE_I1)
      // Any non-zero byte is true; the ABI carries exactly 0 or 1.
      bytes[offset] = *static_cast<const uint8_t *>(values[i]) ? 1 : 0;
    else
      std::memcpy(bytes + offset, values[i], size);
    offset += size;
  }
  return nullptr;
}

} // extern "C"
