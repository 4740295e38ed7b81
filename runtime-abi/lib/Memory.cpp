//===- Memory.cpp - Buffers and copies ------------------------------------===//
//
// The runtime checks every offset and size against the buffer it knows, and
// that a stream lives on the buffer's device, so that a plugin never sees an
// out-of-range copy.
//
//===----------------------------------------------------------------------===//

#include "Objects.h"

using namespace tegula::runtime;

namespace {

/// Fails when [offset, offset + size) is not inside |buffer|.
tegula_error_t *checkRange(const char *fn, const char *which,
                           const tegula_buffer *buffer, uint64_t offset,
                           uint64_t size) {
  if (offset > buffer->size || size > buffer->size - offset)
    return makeErrorf(TG_ERROR_OUT_OF_RANGE,
                      "%s: %llu bytes at offset %llu exceed the %llu-byte %s "
                      "buffer",
                      fn, static_cast<unsigned long long>(size),
                      static_cast<unsigned long long>(offset),
                      static_cast<unsigned long long>(buffer->size), which);
  return nullptr;
}

/// Fails when |stream| (nullable) is not on |device|.
tegula_error_t *checkStream(const char *fn, const tegula_stream *stream,
                            const tegula_device *device) {
  if (stream && stream->device != device)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "%s: the stream belongs to %s, the buffer to %s", fn,
                      stream->device->name.c_str(), device->name.c_str());
  return nullptr;
}

tg_stream_t *handleOf(tegula_stream *stream) {
  return stream ? stream->handle : nullptr;
}

} // namespace

extern "C" {

tegula_error_t *tegula_buffer_alloc(tegula_device_t *device, uint64_t size,
                                    tegula_buffer_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    auto buffer = std::make_unique<tegula_buffer>();
    tg_buffer_alloc_args args{};
    args.device = device->handle;
    args.size = size;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(device->plugin, buffer_alloc, args))
      return error;
    if (!args.buffer)
      return makeErrorf(TG_ERROR_INTERNAL, "%s: buffer_alloc returned no buffer",
                        device->plugin->name.c_str());
    buffer->device = device;
    buffer->handle = args.buffer;
    buffer->size = size;
    buffer->address = args.device_address;
    *out = buffer.release();
    return nullptr;
  });
}

tegula_error_t *tegula_buffer_free(tegula_buffer_t *buffer) {
  if (!buffer)
    return nullptr;
  tg_buffer_free_args args{};
  args.buffer = buffer->handle;
  tegula_error_t *error =
      TEGULA_PLUGIN_CALL(buffer->device->plugin, buffer_free, args);
  delete buffer;
  return error;
}

uint64_t tegula_buffer_get_size(const tegula_buffer_t *buffer) {
  return buffer ? buffer->size : 0;
}

uint64_t tegula_buffer_get_device_address(const tegula_buffer_t *buffer) {
  return buffer ? buffer->address : 0;
}

tegula_device_t *tegula_buffer_get_device(const tegula_buffer_t *buffer) {
  return buffer ? buffer->device : nullptr;
}

tegula_error_t *tegula_buffer_write(tegula_buffer_t *dst, uint64_t dst_offset,
                                    const void *src, uint64_t size,
                                    tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!dst || (!src && size), "buffer or source is NULL");
  if (tegula_error_t *error =
          checkRange(__func__, "destination", dst, dst_offset, size))
    return error;
  if (tegula_error_t *error = checkStream(__func__, stream, dst->device))
    return error;
  tg_buffer_write_args args{};
  args.stream = handleOf(stream);
  args.dst = dst->handle;
  args.dst_offset = dst_offset;
  args.src = src;
  args.size = size;
  return TEGULA_PLUGIN_CALL(dst->device->plugin, buffer_write, args);
}

tegula_error_t *tegula_buffer_read(tegula_buffer_t *src, uint64_t src_offset,
                                   void *dst, uint64_t size,
                                   tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!src || (!dst && size), "buffer or destination is NULL");
  if (tegula_error_t *error =
          checkRange(__func__, "source", src, src_offset, size))
    return error;
  if (tegula_error_t *error = checkStream(__func__, stream, src->device))
    return error;
  tg_buffer_read_args args{};
  args.stream = handleOf(stream);
  args.dst = dst;
  args.src = src->handle;
  args.src_offset = src_offset;
  args.size = size;
  return TEGULA_PLUGIN_CALL(src->device->plugin, buffer_read, args);
}

tegula_error_t *tegula_buffer_copy(tegula_buffer_t *dst, uint64_t dst_offset,
                                   tegula_buffer_t *src, uint64_t src_offset,
                                   uint64_t size, tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!dst || !src, "a buffer is NULL");
  if (dst->device->plugin != src->device->plugin)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "%s: cannot copy between %s and %s: different plugins",
                      __func__, src->device->name.c_str(),
                      dst->device->name.c_str());
  if (tegula_error_t *error =
          checkRange(__func__, "destination", dst, dst_offset, size))
    return error;
  if (tegula_error_t *error =
          checkRange(__func__, "source", src, src_offset, size))
    return error;
  if (tegula_error_t *error = checkStream(__func__, stream, dst->device))
    return error;
  tg_buffer_copy_args args{};
  args.stream = handleOf(stream);
  args.dst = dst->handle;
  args.dst_offset = dst_offset;
  args.src = src->handle;
  args.src_offset = src_offset;
  args.size = size;
  return TEGULA_PLUGIN_CALL(dst->device->plugin, buffer_copy, args);
}

tegula_error_t *tegula_buffer_memset(tegula_buffer_t *buffer, uint64_t offset,
                                     uint8_t value, uint64_t size,
                                     tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!buffer, "buffer is NULL");
  if (tegula_error_t *error =
          checkRange(__func__, "destination", buffer, offset, size))
    return error;
  if (tegula_error_t *error = checkStream(__func__, stream, buffer->device))
    return error;
  tg_buffer_memset_args args{};
  args.stream = handleOf(stream);
  args.buffer = buffer->handle;
  args.offset = offset;
  args.size = size;
  args.value = value;
  return TEGULA_PLUGIN_CALL(buffer->device->plugin, buffer_memset, args);
}

} // extern "C"
