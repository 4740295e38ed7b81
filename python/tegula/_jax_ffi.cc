// The XLA FFI handlers of tegula.jax.kernel_call (docs/jax.md), built by
// tegula/jax.py on first use against the XLA FFI headers jaxlib ships
// (jax.ffi.include_dir()), into Tegula's cache folder.
//
// A handler decodes what XLA gives the custom call -- the operands' and
// results' buffers, the `call_id` attribute naming the launch kernel_call
// recorded while tracing, and on GPUs XLA's stream and device -- and hands
// them to the launch function tegula.jax registered
// (tegula_jax_set_launch), which launches the Tegula kernel on them: on
// the host plugin in place, on a GPU on XLA's stream, with no copy and no
// synchronization. Its error message, if any, becomes the call's error.

#include <cstdint>
#include <string>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

/// (call_id, number of buffers, their addresses -- operands then results --,
/// the native stream or 0, the device ordinal or -1, a buffer for the
/// error message and its size) -> 0, or non-zero with the message written.
using LaunchFn = int (*)(int64_t, int64_t, void **, uint64_t, int32_t, char *, int64_t);

LaunchFn launchFn = nullptr;

ffi::Error launch(int64_t callId, ffi::RemainingArgs args, ffi::RemainingRets rets,
                  uint64_t stream, int32_t device) {
  if (!launchFn)
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                      "tegula.jax: no launch function registered");
  std::vector<void *> buffers;
  buffers.reserve(args.size() + rets.size());
  for (size_t i = 0; i < args.size(); ++i) {
    auto buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    buffers.push_back(buffer->untyped_data());
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    auto buffer = rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    buffers.push_back((*buffer)->untyped_data());
  }
  char message[2048] = {0};
  if (launchFn(callId, static_cast<int64_t>(buffers.size()), buffers.data(), stream, device,
               message, sizeof message) != 0)
    return ffi::Error(ffi::ErrorCode::kInternal, std::string(message));
  return ffi::Error::Success();
}

ffi::Error launchOnHost(int64_t callId, ffi::RemainingArgs args, ffi::RemainingRets rets) {
  return launch(callId, args, rets, 0, -1);
}

ffi::Error launchOnGpu(void *stream, int32_t device, int64_t callId, ffi::RemainingArgs args,
                       ffi::RemainingRets rets) {
  return launch(callId, args, rets, reinterpret_cast<uintptr_t>(stream), device);
}

} // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(TegulaKernelCallHost, launchOnHost,
                              ffi::Ffi::Bind()
                                  .Attr<int64_t>("call_id")
                                  .RemainingArgs()
                                  .RemainingRets());

XLA_FFI_DEFINE_HANDLER_SYMBOL(TegulaKernelCallGpu, launchOnGpu,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<void *>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Attr<int64_t>("call_id")
                                  .RemainingArgs()
                                  .RemainingRets());

extern "C" __attribute__((visibility("default"))) void tegula_jax_set_launch(LaunchFn fn) {
  launchFn = fn;
}
