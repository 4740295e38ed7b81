//===- Error.h - The runtime's error objects --------------------*- C++ -*-===//
//
// tegula_error_t, created by the runtime (for its own checks and for errors
// translated from a plugin) and freed by the user with tegula_error_destroy.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_RUNTIME_LIB_ERROR_H
#define TEGULA_RUNTIME_LIB_ERROR_H

#include "tegula/runtime.h"

#include <exception>
#include <new>
#include <string>

/// A runtime error. `isStatic` marks the preallocated out-of-memory error,
/// which tegula_error_destroy leaves alone.
struct tegula_error {
  tg_error_code code;
  std::string message;
  bool isStatic = false;
};

namespace tegula::runtime {

/// A new error; never throws (falls back to a static out-of-memory error).
tegula_error_t *makeError(tg_error_code code, std::string message) noexcept;

/// printf-style makeError.
__attribute__((format(printf, 2, 3))) tegula_error_t *
makeErrorf(tg_error_code code, const char *format, ...) noexcept;

/// Maps a code read from a plugin to a known tg_error_code (unknown values
/// become TG_ERROR_UNKNOWN; TG_SUCCESS on an error object also does).
tg_error_code normalizeCode(int code) noexcept;

/// Runs |body| (returning tegula_error_t*) and turns escaping C++ exceptions
/// into errors: nothing may be thrown out of the C API.
template <typename Body> tegula_error_t *guard(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeError(TG_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return makeError(TG_ERROR_INTERNAL,
                     std::string("internal error: ") + e.what());
  } catch (...) {
    return makeError(TG_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

} // namespace tegula::runtime

/// Returns an INVALID_ARGUMENT error from the enclosing C entry point when
/// |cond| holds; |what| names the offending argument.
#define TEGULA_REJECT_IF(cond, what)                                           \
  do {                                                                         \
    if (cond)                                                                  \
      return ::tegula::runtime::makeErrorf(TG_ERROR_INVALID_ARGUMENT, "%s: %s", \
                                           __func__, what);                    \
  } while (0)

#endif // TEGULA_RUNTIME_LIB_ERROR_H
