//===- tegula/plugin_support.hpp - Helpers for writing a plugin -*- C++ -*-===//
//
// Header-only C++ helpers for implementing tegula/plugin.h: the error object,
// argument-struct checks, and a guard that keeps C++ exceptions from crossing
// the C boundary. Optional: a plugin may implement the C ABI any way it likes.
//
// Include this from the plugin only (never from the runtime): it defines
// `struct tg_error`, the plugin's own error object. Build the plugin with
// hidden visibility so each plugin's copy stays private to it.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGIN_SUPPORT_HPP
#define TEGULA_PLUGIN_SUPPORT_HPP

#include "tegula/plugin.h"

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

/// The plugin's error object: a code and a message. `isStatic` marks the one
/// preallocated object returned when allocating an error itself fails.
struct tg_error {
  /// A tg_error_code value (an int: see tg_error_get_code_args).
  int32_t code;
  std::string message;
  bool isStatic = false;
};

namespace tegula::plugin {

/// Returns a new error object with |code| (a tg_error_code value) and
/// |message|. Never throws; when memory is exhausted it returns a shared
/// static out-of-memory error.
inline tg_error_t *makeError(int32_t code, std::string message) noexcept {
  try {
    return new tg_error{code, std::move(message)};
  } catch (...) {
    static tg_error outOfMemory{TG_ERROR_OUT_OF_MEMORY,
                                std::string(), /*isStatic=*/true};
    return &outOfMemory;
  }
}

/// printf-style makeError.
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline tg_error_t *
makeErrorf(int32_t code, const char *format, ...) noexcept {
  char buffer[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buffer, sizeof(buffer), format, ap);
  va_end(ap);
  return makeError(code, buffer);
}

/// Table entry: error_destroy.
inline void errorDestroy(tg_error_destroy_args *args) {
  if (!args || !args->error || args->error->isStatic)
    return;
  delete args->error;
}

/// Table entry: error_message.
inline void errorMessage(tg_error_message_args *args) {
  if (!args)
    return;
  if (!args->error) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  if (args->error->isStatic) {
    static const char kOom[] = "out of memory while reporting an error";
    args->message = kOom;
    args->message_size = sizeof(kOom) - 1;
    return;
  }
  args->message = args->error->message.data();
  args->message_size = args->error->message.size();
}

/// Table entry: error_get_code.
inline void errorGetCode(tg_error_get_code_args *args) {
  if (args)
    args->code = args->error ? args->error->code : TG_SUCCESS;
}

/// Runs |body| (returning tg_error_t*) and turns any escaping C++ exception
/// into an error object: no exception may cross the C ABI.
template <typename Body> tg_error_t *guard(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeError(TG_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return makeErrorf(TG_ERROR_INTERNAL, "internal error: %s", e.what());
  } catch (...) {
    return makeError(TG_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

/// Returns an error unless |args| is non-NULL and large enough to hold every
/// field up to |lastField| (the last field of its first release).
#define TG_CHECK_ARGS(args, Type, lastField)                                   \
  do {                                                                         \
    if (!(args))                                                               \
      return ::tegula::plugin::makeError(TG_ERROR_INVALID_ARGUMENT,            \
                                         #Type " is NULL");                    \
    if ((args)->struct_size < TG_STRUCT_SIZE(Type, lastField))                 \
      return ::tegula::plugin::makeErrorf(                                     \
          TG_ERROR_INVALID_ARGUMENT, #Type ".struct_size is %zu, need %zu",    \
          (size_t)(args)->struct_size,                                         \
          (size_t)TG_STRUCT_SIZE(Type, lastField));                            \
  } while (0)

/// Copies |props| into the caller's |out|, writing only the bytes its
/// `struct_size` covers (the caller may be older or newer than the plugin).
inline void copyProperties(const tg_device_properties &props,
                           tg_device_properties *out) {
  size_t outSize = out->struct_size;
  size_t n = outSize < sizeof(props) ? outSize : sizeof(props);
  const char *src = reinterpret_cast<const char *>(&props);
  char *dst = reinterpret_cast<char *>(out);
  // struct_size and extension_start stay the caller's.
  for (size_t i = offsetof(tg_device_properties, name); i < n; ++i)
    dst[i] = src[i];
}

/// Bytes of a value of tg_scalar_type |type| (plugin.h lists them); 0 for
/// values this header does not know.
inline size_t scalarTypeSize(uint32_t type) {
  switch (type) {
  case TG_TYPE_I1:
  case TG_TYPE_I8:
  case TG_TYPE_U8:
  case TG_TYPE_FP8E4M3:
  case TG_TYPE_FP8E5M2:
    return 1;
  case TG_TYPE_I16:
  case TG_TYPE_U16:
  case TG_TYPE_F16:
  case TG_TYPE_BF16:
    return 2;
  case TG_TYPE_I32:
  case TG_TYPE_U32:
  case TG_TYPE_F32:
    return 4;
  case TG_TYPE_I64:
  case TG_TYPE_U64:
  case TG_TYPE_F64:
    return 8;
  default:
    return 0;
  }
}

/// Bytes a packed kernel argument of tg_arg_kind |kind| and tg_scalar_type
/// |type| takes (runtime.h's kernel ABI): 8 for a pointer, else the
/// scalar's size; 0 for a type this header does not know.
inline size_t packedArgumentSize(uint32_t kind, uint32_t type) {
  return kind == TG_ARG_POINTER ? 8 : scalarTypeSize(type);
}

/// The kernel ABI's packing of arguments whose sizes are |sizes[0..count)|:
/// each at the next multiple of its own size, in order; the whole padded to
/// 8 bytes. Writes each offset to |offsets| (when not NULL) and returns the
/// packed size.
inline size_t packArgumentOffsets(const uint32_t *sizes, size_t count,
                                  size_t *offsets) {
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t size = sizes[i] ? sizes[i] : 1;
    offset = (offset + size - 1) / size * size;
    if (offsets)
      offsets[i] = offset;
    offset += size;
  }
  return (offset + 7) / 8 * 8;
}

} // namespace tegula::plugin

#endif // TEGULA_PLUGIN_SUPPORT_HPP
