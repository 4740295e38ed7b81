//===- HostLauncher.h - Running a grid of programs on the CPU ---*- C++ -*-===//
//
// A launch runs grid[0] * grid[1] * grid[2] program instances, each one call
// of the kernel's entry (HostKernelABI.h) on one thread. ProgramPool is a
// device's persistent pool: the thread that launches plus threads-1 workers
// take programs in chunks from an atomic counter (x fastest, then y, then
// z); each thread owns a 64-byte-aligned scratch buffer that grows to the
// largest size a kernel has asked for and is reused across launches. One
// launch runs at a time; concurrent launches (from several streams or
// threads) take turns.
//
// The runtime functions generated code calls, tegula_host_print and
// tegula_host_assert_fail, are defined here: print writes one whole line to
// stdout under a process-wide mutex and flushes it; a failed assert records
// the first failure of the launch, which then stops handing out programs
// (those running finish) and fails with
//   device_assert failed at FILE:LINE in FUNCTION: MESSAGE
//     (program (x, y, z), element i)
// on one line. Nothing here aborts the process.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTLAUNCHER_H
#define TEGULA_PLUGINS_HOST_HOSTLAUNCHER_H

#include "HostKernelABI.h"

#include "tegula/BackendKit/PluginBase.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tegula::host {

/// A compiled kernel's entry point (HostKernelABI.h).
using KernelEntry = void (*)(const void *packedArgs, tg_host_program *program);

/// Runs one program of a kernel: |entry|(|packedArgs|, |program|). The one
/// place the plugin calls JIT-compiled code. UBSan's -fsanitize=function
/// (TEGULA_SANITIZE=undefined) checks an indirect call by reading a type
/// signature in the 8 bytes before the callee; code LLVM's JIT emitted has
/// none, and at the start of its page those bytes are unmapped: the check
/// would crash the launch, so this call is exempt from it.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
inline void runProgram(KernelEntry entry, const void *packedArgs,
                       tg_host_program *program) {
  entry(packedArgs, program);
}

/// The most programs one launch may have: program ids are i32 in the
/// generated code.
inline constexpr uint64_t kMaxPrograms = (uint64_t(1) << 31) - 1;

/// Checks a launch grid: every dimension at least 1 and at most kMaxPrograms
/// programs in all. Sets |programs| to the product.
plugin::Status checkGrid(const uint32_t grid[3], uint64_t &programs);

/// Formats the line tegula_host_print writes (with its '\n'); exposed for
/// tests. |kind| as HostKernelABI.h describes.
std::string formatPrintLine(const tg_host_program &program,
                            const char *prefix, int64_t index, uint64_t bits,
                            uint32_t kind);

/// A device's threads for running programs.
class ProgramPool {
public:
  /// |threads| (at least 1) threads run the programs of a launch: the
  /// launching thread and threads - 1 workers started here. Fewer workers
  /// when the system refuses to start more.
  explicit ProgramPool(unsigned threads);
  /// Stops and joins the workers; no launch may be running.
  ~ProgramPool();
  ProgramPool(const ProgramPool &) = delete;
  ProgramPool &operator=(const ProgramPool &) = delete;

  /// Runs every program of |grid| (checked with checkGrid) through |entry|
  /// with |packedArgs| and |scratchBytes| of scratch each, and returns when
  /// all have finished: success, the first device_assert failure, or
  /// TG_ERROR_OUT_OF_MEMORY when scratch could not be allocated.
  /// |simtThreads| > 1 (a SIMT image): each program runs on that many
  /// threads of its own, started for the launch, which share its scratch
  /// (the shared memory) and meet in tegula_host_barrier/_shuffle; one
  /// program at a time.
  plugin::Status run(KernelEntry entry, const void *packedArgs,
                     const uint32_t grid[3], uint64_t scratchBytes,
                     unsigned simtThreads = 1);

  /// The threads that run programs, the launching one included.
  unsigned threads() const { return unsigned(workers.size()) + 1; }

private:
  struct Job;
  /// A thread's scratch: 64-byte aligned, grown on demand.
  struct Scratch {
    void *data = nullptr;
    uint64_t size = 0;
    Scratch() = default;
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    ~Scratch();
    /// Makes |data| hold at least |bytes|; false when allocation fails.
    bool reserve(uint64_t bytes);
  };

  void work(unsigned slot);
  static void runPrograms(Job &job, Scratch &scratch);

  /// Held for a whole launch: one launch at a time.
  std::mutex launchMutex;
  std::mutex mutex;
  std::condition_variable wake, finished;
  Job *job = nullptr;
  uint64_t generation = 0;
  unsigned busy = 0;
  bool stopping = false;
  /// [0]: the launching thread's; [i]: worker i-1's.
  std::unique_ptr<Scratch[]> scratch;
  std::vector<std::thread> workers;
};

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTLAUNCHER_H
