//===- tegula/BackendKit/HostQueues.h - Host memory and queues -*- C++ -*-===//
//
// A reusable kit for CPU-like backends, built on PluginBase.h: host memory
// as device memory, in-order queues run by worker threads, and events that
// mark points in them. A backend whose "device" is (or shares memory with)
// the host derives its device from HostMemoryDevice and gets buffer copies,
// streams and events that pass the conformance suite; it still allocates
// (HostMemoryDevice::allocate) and, if it runs code, launches kernels itself,
// submitting the work with HostStream::submit so it is ordered with the rest.
//
// The host plugin (plugins/host) and the SDK's sample plugin
// (examples/sample-plugin) are built on it. Header-only and standard C++17,
// like PluginBase.h.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_HOSTQUEUES_H
#define TEGULA_BACKENDKIT_HOSTQUEUES_H

#include "tegula/BackendKit/PluginBase.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace tegula::plugin {

/// Host memory as device memory: the buffer's device address is its host
/// address. Owns memory from std::aligned_alloc (or std::malloc), which it
/// frees with std::free.
class HostBuffer : public BufferBase {
public:
  /// The default alignment of allocateAligned: a cache line, and the widest
  /// vector register (AVX-512) a code generator may use.
  static constexpr uint64_t kAlignment = 64;

  /// Takes ownership of |bytes| (from std::aligned_alloc or std::malloc),
  /// which holds at least |size| bytes.
  HostBuffer(DeviceBase &device, void *bytes, uint64_t size)
      : BufferBase(device, size, reinterpret_cast<uintptr_t>(bytes)),
        bytes(static_cast<uint8_t *>(bytes)) {}
  ~HostBuffer() override { std::free(bytes); }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;

  uint8_t *data() const { return bytes; }

  /// |size| bytes aligned to |alignment| (a power of two, at least
  /// sizeof(void *)), rounded up to a multiple of it, 0 bytes to one unit;
  /// NULL when the size overflows or memory is exhausted. Free with
  /// std::free (the HostBuffer that owns it does).
  static void *allocateAligned(uint64_t size, uint64_t alignment = kAlignment) {
    uint64_t rounded = std::max<uint64_t>(
        (size + alignment - 1) / alignment * alignment, alignment);
    if (rounded < size)
      return nullptr;
    return std::aligned_alloc(alignment, rounded);
  }

private:
  uint8_t *bytes;
};

/// An in-order queue run by one worker thread: work runs in the order it was
/// enqueued, one item at a time. Destroying the stream runs what is still
/// queued, then stops the thread.
class HostStream : public StreamBase {
public:
  explicit HostStream(DeviceBase &device)
      : StreamBase(device), worker([this] { run(); }) {}
  ~HostStream() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    worker.join();
  }

  /// Queues |work| behind everything enqueued so far.
  void enqueue(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(work));
    }
    wake.notify_all();
  }

  /// Runs |work| in |stream| (a HostStream), or now when |stream| is NULL,
  /// as the ABI's NULL stream means "complete before returning".
  static void submit(StreamBase *stream, std::function<void()> work) {
    if (stream)
      static_cast<HostStream *>(stream)->enqueue(std::move(work));
    else
      work();
  }

  Status synchronize() override {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [this] { return queue.empty() && !busy; });
    return Status::success();
  }

  /// |event| must be a HostEvent.
  Status waitEvent(EventBase &event) override;

private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty())
        return; // Stopping, and everything ran.
      std::function<void()> work = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      work();
      lock.lock();
      busy = false;
      if (queue.empty())
        idle.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, idle;
  std::deque<std::function<void()>> queue;
  bool busy = false;
  bool stopping = false;
  std::thread worker; // Last: starts after the members it uses.
};

/// A point in a HostStream. Each record() starts a new generation; the
/// stream's worker completes it, stamping the time.
class HostEvent : public EventBase {
public:
  using EventBase::EventBase;

  /// |stream| must be a HostStream.
  Status record(StreamBase &stream) override {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation = ++recorded;
    }
    static_cast<HostStream &>(stream).enqueue([this, generation] {
      std::lock_guard<std::mutex> lock(mutex);
      completed = std::max(completed, generation);
      time = std::chrono::steady_clock::now();
      done.notify_all();
    });
    return Status::success();
  }

  Status synchronize() override {
    waitFor(currentGeneration());
    return Status::success();
  }

  /// |startEvent| must be a HostEvent.
  Status elapsedSince(EventBase &startEvent, float &milliseconds) override {
    auto &start = static_cast<HostEvent &>(startEvent);
    std::optional<std::chrono::steady_clock::time_point> from = start.stamp(),
                                                         to = stamp();
    if (!from || !to)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "elapsed time needs two recorded, completed events");
    milliseconds = std::chrono::duration<float, std::milli>(*to - *from).count();
    return Status::success();
  }

  /// The latest generation recorded (0: never recorded).
  uint64_t currentGeneration() {
    std::lock_guard<std::mutex> lock(mutex);
    return recorded;
  }
  /// Blocks until generation |generation| has completed (0: at once).
  void waitFor(uint64_t generation) {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return completed >= generation; });
  }

private:
  std::optional<std::chrono::steady_clock::time_point> stamp() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!recorded || completed < recorded)
      return std::nullopt;
    return time;
  }

  std::mutex mutex;
  std::condition_variable done;
  uint64_t recorded = 0, completed = 0;
  std::chrono::steady_clock::time_point time;
};

inline Status HostStream::waitEvent(EventBase &eventBase) {
  auto &event = static_cast<HostEvent &>(eventBase);
  // Waits for the recording current now, not for later ones.
  uint64_t generation = event.currentGeneration();
  enqueue([&event, generation] { event.waitFor(generation); });
  return Status::success();
}

/// A device whose memory is host memory: buffer write, read, copy and memset
/// run as memcpy/memmove/memset, in a HostStream or at once; streams are
/// HostStreams and events HostEvents. A derived class implements allocate()
/// (every buffer a HostBuffer, or derived from it), and loadModule() if it
/// runs code. Properties as PropertiesDevice.
class HostMemoryDevice : public PropertiesDevice {
public:
  using PropertiesDevice::PropertiesDevice;

  // The runtime has checked every range against the buffers' sizes.
  Status write(BufferBase &dst, uint64_t dstOffset, const void *src,
               uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + dstOffset;
    HostStream::submit(stream, [=] { std::memcpy(to, src, size); });
    return Status::success();
  }
  Status read(void *dst, BufferBase &src, uint64_t srcOffset, uint64_t size,
              StreamBase *stream) override {
    const uint8_t *from = data(src) + srcOffset;
    HostStream::submit(stream, [=] { std::memcpy(dst, from, size); });
    return Status::success();
  }
  Status copy(BufferBase &dst, uint64_t dstOffset, BufferBase &src,
              uint64_t srcOffset, uint64_t size, StreamBase *stream) override {
    uint8_t *to = data(dst) + dstOffset;
    const uint8_t *from = data(src) + srcOffset;
    // memmove: a copy within one buffer may overlap.
    HostStream::submit(stream, [=] { std::memmove(to, from, size); });
    return Status::success();
  }
  Status memset(BufferBase &buffer, uint64_t offset, uint64_t size,
                uint8_t value, StreamBase *stream) override {
    uint8_t *to = data(buffer) + offset;
    HostStream::submit(stream, [=] { std::memset(to, value, size); });
    return Status::success();
  }

  Status createStream(std::unique_ptr<StreamBase> &stream) override {
    stream = std::make_unique<HostStream>(*this);
    return Status::success();
  }
  Status createEvent(std::unique_ptr<EventBase> &event) override {
    event = std::make_unique<HostEvent>(*this);
    return Status::success();
  }

protected:
  /// The bytes of |buffer|, a HostBuffer of this device.
  static uint8_t *data(BufferBase &buffer) {
    return static_cast<HostBuffer &>(buffer).data();
  }
};

} // namespace tegula::plugin

#endif // TEGULA_BACKENDKIT_HOSTQUEUES_H
