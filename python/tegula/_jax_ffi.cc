// The XLA FFI handlers of tegula.jax.kernel_call (docs/jax.md), built by
// tegula/jax.py on first use against the XLA FFI headers jaxlib ships
// (jax.ffi.include_dir()), into Tegula's cache folder. Nothing of Tegula's
// is linked: the runtime functions the handler calls are handed to it by
// address (tegula_jax_set_runtime).
//
// A handler decodes what XLA gives the custom call -- the operands' and
// results' buffers, the `call_id` attribute naming the launch kernel_call
// recorded while tracing, and on GPUs XLA's stream and device -- and
// launches the Tegula kernel on them, with no copy and no synchronization:
//
//  - In C, from the launch record tegula.jax made for (call_id, device)
//    (tegula_jax_add_record): the kernel handle, the launch config, the
//    packed arguments with the constant scalars in place, and the offsets
//    where the buffers' addresses go. Per call the handler copies the
//    packed template, writes the addresses and calls tegula_kernel_launch:
//    on the host (device -1) on the NULL stream, which completes before
//    returning (as the Python launch on host:0 does); on a GPU on the
//    Tegula stream wrapping XLA's stream (tegula_jax_add_stream).
//  - Else through the Python launch tegula.jax registered
//    (tegula_jax_set_launch), which takes the GIL: when there is no record
//    for the call and device (a debug kernel, an argument the record cannot
//    express, a device not seen yet), no stream wrapper for XLA's stream
//    yet, a buffer the record cannot take (null, or unaligned for a pointer
//    specialized as 16-byte aligned), or while the Python launch is forced
//    (TEGULA_JAX_PYTHON_LAUNCH, Triton launch hooks:
//    tegula_jax_set_python_launch). The Python launch records what was
//    missing, so that the next call runs in C.
//
// An error, in C or Python, becomes the call's error with its message.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

/// (call_id, number of buffers, their addresses -- operands then results --,
/// the native stream or 0, the device ordinal or -1, a buffer for the
/// error message and its size) -> 0, or non-zero with the message written.
using LaunchFn = int (*)(int64_t, int64_t, void **, uint64_t, int32_t, char *, int64_t);

/// The runtime's functions (tegula/runtime.h), by address: errors are
/// tegula_error_t*, kernels tegula_kernel_t*, streams tegula_stream_t*.
using KernelLaunchFn = void *(*)(void *kernel, void *stream, const void *config,
                                 const void *packed, size_t size);
using ErrorMessageFn = const char *(*)(const void *error);
using ErrorDestroyFn = void (*)(void *error);

/// tegula_launch_config of tegula/runtime.h.
struct LaunchConfig {
  size_t struct_size;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t dynamic_shared_memory;
};

/// Where buffer |buffer| (operands then results) goes in the packed
/// arguments; |aligned|: the kernel was specialized for a 16-byte aligned
/// address there.
struct Slot {
  size_t offset;
  int32_t buffer;
  bool aligned;
};

struct Record {
  void *kernel = nullptr;
  LaunchConfig config{};
  std::vector<uint8_t> packed;
  std::vector<Slot> slots;
  int64_t numBuffers = 0;
  std::string name;
};

LaunchFn launchFn = nullptr;
KernelLaunchFn kernelLaunch = nullptr;
ErrorMessageFn errorMessage = nullptr;
ErrorDestroyFn errorDestroy = nullptr;

std::atomic<int> pythonLaunch{0};
std::atomic<int64_t> servedInC{0};
std::atomic<int64_t> servedInPython{0};

std::shared_mutex mutex;  // guards records, streams and the runtime's functions
std::map<std::pair<int64_t, int32_t>, std::shared_ptr<const Record>> records;
std::map<std::pair<int32_t, uint64_t>, void *> streams;

ffi::Error pythonLaunchOf(int64_t callId, std::vector<void *> &buffers, uint64_t stream,
                          int32_t device) {
  if (!launchFn)
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                      "tegula.jax: no launch function registered");
  servedInPython.fetch_add(1, std::memory_order_relaxed);
  char message[2048] = {0};
  if (launchFn(callId, static_cast<int64_t>(buffers.size()), buffers.data(), stream, device,
               message, sizeof message) != 0)
    return ffi::Error(ffi::ErrorCode::kInternal, std::string(message));
  return ffi::Error::Success();
}

/// What one launch in C uses, read together under the lock.
struct Launch {
  std::shared_ptr<const Record> record;
  void *stream = nullptr;  // the Tegula stream; none (NULL) on the host
  KernelLaunchFn launch = nullptr;
  ErrorMessageFn message = nullptr;
  ErrorDestroyFn destroy = nullptr;
};

/// The launch in C of |use| on |buffers|; false (nothing launched) when
/// the Python launch must take the call.
bool launchInC(const Launch &use, const std::vector<void *> &buffers, ffi::Error &error) {
  const Record &record = *use.record;
  if (static_cast<int64_t>(buffers.size()) != record.numBuffers)
    return false;  // the Python launch says what is wrong
  for (const Slot &slot : record.slots) {
    uintptr_t address = reinterpret_cast<uintptr_t>(buffers[slot.buffer]);
    if (!address || (slot.aligned && address % 16))
      return false;
  }
  uint8_t local[512];
  std::vector<uint8_t> heap;
  uint8_t *packed = local;
  if (record.packed.size() > sizeof local) {
    heap.resize(record.packed.size());
    packed = heap.data();
  }
  std::memcpy(packed, record.packed.data(), record.packed.size());
  for (const Slot &slot : record.slots) {
    uint64_t address = reinterpret_cast<uintptr_t>(buffers[slot.buffer]);
    std::memcpy(packed + slot.offset, &address, sizeof address);
  }
  servedInC.fetch_add(1, std::memory_order_relaxed);
  void *err = use.launch(record.kernel, use.stream, &record.config, packed, record.packed.size());
  if (err) {
    const char *text = use.message ? use.message(err) : nullptr;
    std::string message = "TegulaError: " + record.name + ": launch failed: " +
                          (text && *text ? text : "(no message)");
    if (use.destroy)
      use.destroy(err);
    error = ffi::Error(ffi::ErrorCode::kInternal, message);
  }
  return true;
}

ffi::Error launch(int64_t callId, ffi::RemainingArgs args, ffi::RemainingRets rets,
                  uint64_t stream, int32_t device) {
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
  if (!pythonLaunch.load(std::memory_order_relaxed)) {
    Launch use;
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      auto it = records.find({callId, device});
      if (it != records.end() && kernelLaunch) {
        use.record = it->second;
        use.launch = kernelLaunch;
        use.message = errorMessage;
        use.destroy = errorDestroy;
        if (device >= 0) {  // a GPU: the wrapper of XLA's stream, once the Python launch gave it
          auto s = streams.find({device, stream});
          if (s == streams.end())
            use.record.reset();
          else
            use.stream = s->second;
        }
      }
    }
    ffi::Error error = ffi::Error::Success();
    if (use.record && launchInC(use, buffers, error))
      return error;
  }
  return pythonLaunchOf(callId, buffers, stream, device);
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

#define TEGULA_JAX_API extern "C" __attribute__((visibility("default")))

/// The Python launch, for the calls C does not take.
TEGULA_JAX_API void tegula_jax_set_launch(LaunchFn fn) { launchFn = fn; }

/// The runtime's tegula_kernel_launch, tegula_error_get_message and
/// tegula_error_destroy.
TEGULA_JAX_API void tegula_jax_set_runtime(KernelLaunchFn launch, ErrorMessageFn message,
                                           ErrorDestroyFn destroy) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  kernelLaunch = launch;
  errorMessage = message;
  errorDestroy = destroy;
}

/// Non-zero: every call goes to the Python launch.
TEGULA_JAX_API void tegula_jax_set_python_launch(int on) { pythonLaunch.store(on); }

/// The launch in C of call |call_id| on device |device| (-1: the host):
/// |kernel| on |grid| x |block|, with the packed arguments |packed| (|size|
/// bytes), buffer |buffers|[i] (of |num_buffers|) written at |offsets|[i]
/// (|aligned|[i]: only a 16-byte aligned address runs in C). Replaces the
/// record there was. 0, or -1 for an argument that makes no record.
TEGULA_JAX_API int tegula_jax_add_record(int64_t call_id, int32_t device, void *kernel,
                                         const uint32_t *grid, const uint32_t *block,
                                         const uint8_t *packed, size_t size, int64_t num_slots,
                                         const uint64_t *offsets, const int32_t *buffers,
                                         const uint8_t *aligned, int64_t num_buffers,
                                         const char *name) {
  if (!kernel || num_slots < 0 || num_buffers < 0)
    return -1;
  auto record = std::make_shared<Record>();
  record->kernel = kernel;
  record->config.struct_size = sizeof(LaunchConfig);
  for (int i = 0; i < 3; ++i) {
    record->config.grid[i] = grid[i];
    record->config.block[i] = block[i];
  }
  record->packed.assign(packed, packed + size);
  for (int64_t i = 0; i < num_slots; ++i) {
    if (buffers[i] < 0 || buffers[i] >= num_buffers || offsets[i] + 8 > size)
      return -1;
    record->slots.push_back({static_cast<size_t>(offsets[i]), buffers[i], aligned[i] != 0});
  }
  record->numBuffers = num_buffers;
  record->name = name ? name : "kernel";
  std::unique_lock<std::shared_mutex> lock(mutex);
  records[{call_id, device}] = std::move(record);
  return 0;
}

/// Forgets the records launching |kernel| (it is being unloaded).
TEGULA_JAX_API void tegula_jax_remove_kernel(void *kernel) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  for (auto it = records.begin(); it != records.end();)
    it = it->second->kernel == kernel ? records.erase(it) : std::next(it);
}

/// |stream|, the Tegula stream wrapping native stream |native| of GPU
/// |device|, which the GPU handler launches on for XLA's stream |native|.
TEGULA_JAX_API void tegula_jax_add_stream(int32_t device, uint64_t native, void *stream) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  streams[{device, native}] = stream;
}

/// Forgets Tegula stream |stream| (it is being destroyed).
TEGULA_JAX_API void tegula_jax_remove_stream(void *stream) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  for (auto it = streams.begin(); it != streams.end();)
    it = it->second == stream ? streams.erase(it) : std::next(it);
}

/// The calls launched in C and by the Python launch, since the library loaded.
TEGULA_JAX_API void tegula_jax_counts(int64_t *in_c, int64_t *in_python) {
  *in_c = servedInC.load();
  *in_python = servedInPython.load();
}
