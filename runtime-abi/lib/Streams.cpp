//===- Streams.cpp - Streams and events -----------------------------------===//

#include "Objects.h"

using namespace tegula::runtime;

extern "C" {

tegula_error_t *tegula_stream_create(tegula_device_t *device,
                                     tegula_stream_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    auto stream = std::make_unique<tegula_stream>();
    tg_stream_create_args args{};
    args.device = device->handle;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(device->plugin, stream_create, args))
      return error;
    if (!args.stream)
      return makeErrorf(TG_ERROR_INTERNAL,
                        "%s: stream_create returned no stream",
                        device->plugin->name.c_str());
    stream->device = device;
    stream->handle = args.stream;
    *out = stream.release();
    return nullptr;
  });
}

tegula_error_t *tegula_stream_create_native(tegula_device_t *device,
                                            uint64_t native_stream,
                                            tegula_stream_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  *out = nullptr;
  const Plugin *plugin = device->plugin;
  // A plugin skips extension types it does not know: it would create a new
  // stream, unordered with the caller's. Only a plugin that says it can wrap
  // gets the extension.
  const auto *support =
      reinterpret_cast<const tg_native_stream_support *>(tg_find_extension(
          plugin->api->extension_start,
          TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT));
  if (!support)
    return makeErrorf(TG_ERROR_UNIMPLEMENTED,
                      "%s: the plugin cannot launch on a native stream (it "
                      "does not offer TG_EXTENSION_TYPE_NATIVE_STREAM_SUPPORT)",
                      plugin->name.c_str());
  return guard([&]() -> tegula_error_t * {
    auto stream = std::make_unique<tegula_stream>();
    tg_native_stream_extension extension{};
    extension.base.struct_size = sizeof(extension);
    extension.base.type = TG_EXTENSION_TYPE_NATIVE_STREAM;
    extension.base.next = nullptr;
    extension.native_stream = native_stream;
    tg_stream_create_args args{};
    args.extension_start = &extension.base;
    args.device = device->handle;
    if (tegula_error_t *error = TEGULA_PLUGIN_CALL(plugin, stream_create, args))
      return error;
    if (!args.stream)
      return makeErrorf(TG_ERROR_INTERNAL,
                        "%s: stream_create returned no stream for the native "
                        "stream 0x%llx",
                        plugin->name.c_str(),
                        static_cast<unsigned long long>(native_stream));
    stream->device = device;
    stream->handle = args.stream;
    stream->native = true;
    *out = stream.release();
    return nullptr;
  });
}

tegula_error_t *tegula_stream_destroy(tegula_stream_t *stream) {
  if (!stream)
    return nullptr;
  tg_stream_destroy_args args{};
  args.stream = stream->handle;
  tegula_error_t *error =
      TEGULA_PLUGIN_CALL(stream->device->plugin, stream_destroy, args);
  delete stream;
  return error;
}

tegula_error_t *tegula_stream_synchronize(tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!stream, "stream is NULL");
  tg_stream_synchronize_args args{};
  args.stream = stream->handle;
  return TEGULA_PLUGIN_CALL(stream->device->plugin, stream_synchronize, args);
}

tegula_error_t *tegula_stream_wait_event(tegula_stream_t *stream,
                                         tegula_event_t *event) {
  TEGULA_REJECT_IF(!stream || !event, "stream or event is NULL");
  TEGULA_REJECT_IF(stream->device->plugin != event->device->plugin,
                   "the stream and the event belong to different plugins");
  tg_stream_wait_event_args args{};
  args.stream = stream->handle;
  args.event = event->handle;
  return TEGULA_PLUGIN_CALL(stream->device->plugin, stream_wait_event, args);
}

tegula_error_t *tegula_event_create(tegula_device_t *device,
                                    tegula_event_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    auto event = std::make_unique<tegula_event>();
    tg_event_create_args args{};
    args.device = device->handle;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(device->plugin, event_create, args))
      return error;
    if (!args.event)
      return makeErrorf(TG_ERROR_INTERNAL, "%s: event_create returned no event",
                        device->plugin->name.c_str());
    event->device = device;
    event->handle = args.event;
    *out = event.release();
    return nullptr;
  });
}

tegula_error_t *tegula_event_destroy(tegula_event_t *event) {
  if (!event)
    return nullptr;
  tg_event_destroy_args args{};
  args.event = event->handle;
  tegula_error_t *error =
      TEGULA_PLUGIN_CALL(event->device->plugin, event_destroy, args);
  delete event;
  return error;
}

tegula_error_t *tegula_event_record(tegula_event_t *event,
                                    tegula_stream_t *stream) {
  TEGULA_REJECT_IF(!event || !stream, "event or stream is NULL");
  TEGULA_REJECT_IF(event->device != stream->device,
                   "the event and the stream belong to different devices");
  tg_event_record_args args{};
  args.event = event->handle;
  args.stream = stream->handle;
  return TEGULA_PLUGIN_CALL(event->device->plugin, event_record, args);
}

tegula_error_t *tegula_event_synchronize(tegula_event_t *event) {
  TEGULA_REJECT_IF(!event, "event is NULL");
  tg_event_synchronize_args args{};
  args.event = event->handle;
  return TEGULA_PLUGIN_CALL(event->device->plugin, event_synchronize, args);
}

tegula_error_t *tegula_event_elapsed_time(tegula_event_t *start,
                                          tegula_event_t *end,
                                          float *milliseconds) {
  TEGULA_REJECT_IF(!start || !end || !milliseconds,
                   "start, end or milliseconds is NULL");
  TEGULA_REJECT_IF(start->device->plugin != end->device->plugin,
                   "the events belong to different plugins");
  tg_event_elapsed_time_args args{};
  args.start = start->handle;
  args.end = end->handle;
  tegula_error_t *error =
      TEGULA_PLUGIN_CALL(start->device->plugin, event_elapsed_time, args);
  *milliseconds = error ? 0.0f : args.milliseconds;
  return error;
}

} // extern "C"
