//===- Error.cpp - The runtime's error objects ----------------------------===//

#include "Error.h"

#include <cstdarg>
#include <cstdio>

using namespace tegula::runtime;

tegula_error_t *tegula::runtime::makeError(tg_error_code code,
                                           std::string message) noexcept {
  try {
    return new tegula_error{code, std::move(message)};
  } catch (...) {
    static tegula_error outOfMemory{TG_ERROR_OUT_OF_MEMORY,
                                    std::string(), /*isStatic=*/true};
    return &outOfMemory;
  }
}

tegula_error_t *tegula::runtime::makeErrorf(tg_error_code code,
                                            const char *format, ...) noexcept {
  char buffer[2048];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buffer, sizeof(buffer), format, ap);
  va_end(ap);
  return makeError(code, buffer);
}

tg_error_code tegula::runtime::normalizeCode(int code) noexcept {
  if (code > TG_SUCCESS && code <= TG_ERROR_INTERNAL)
    return static_cast<tg_error_code>(code);
  return TG_ERROR_UNKNOWN;
}

extern "C" {

tg_error_code tegula_error_get_code(const tegula_error_t *error) {
  return error ? error->code : TG_SUCCESS;
}

const char *tegula_error_get_message(const tegula_error_t *error) {
  if (!error)
    return "";
  if (error->isStatic)
    return "out of memory";
  return error->message.c_str();
}

void tegula_error_destroy(tegula_error_t *error) {
  if (error && !error->isStatic)
    delete error;
}

} // extern "C"
