//===- HostLauncher.cpp - Running a grid of programs on the CPU -----------===//

#include "HostLauncher.h"

#include "tegula/BackendKit/HostQueues.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

using namespace tegula::host;
using tegula::plugin::HostBuffer;
using tegula::plugin::Status;

namespace tegula::host::detail {

/// What the runtime functions reach through tg_host_program::launch: the
/// launch's first failure, and whether programs should stop being handed
/// out.
/// The threads of a SIMT program: a barrier, and the slots shuffles
/// exchange values through.
class SimtGroup {
public:
  explicit SimtGroup(unsigned threads) : threads(threads), slots(threads) {}

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t seen = generation;
    if (++arrived == threads) {
      arrived = 0;
      ++generation;
      wake.notify_all();
      return;
    }
    wake.wait(lock, [&] { return generation != seen; });
  }

  uint32_t shuffle(uint32_t thread, uint32_t bits, uint32_t kind,
                   uint32_t offset, uint32_t warpSize) {
    slots[thread] = bits;
    barrier();
    uint32_t lane = thread % warpSize, source = lane;
    switch (kind) {
    case 0: source = lane ^ offset; break;
    case 1: source = lane >= offset ? lane - offset : lane; break;
    case 2: source = lane + offset; break;
    default: source = offset; break;
    }
    if (source >= warpSize)
      source = lane;
    uint32_t value = slots[thread - lane + source];
    barrier();
    return value;
  }

private:
  const unsigned threads;
  std::vector<uint32_t> slots;
  std::mutex mutex;
  std::condition_variable wake;
  unsigned arrived = 0;
  uint64_t generation = 0;
};

class LaunchState {
public:
  /// The program's threads of a SIMT launch, else null.
  SimtGroup *simt = nullptr;

  /// Records |status| unless a failure is recorded already; stops the launch.
  void fail(Status status) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure.ok())
        return;
      failure = std::move(status);
    }
    stop.store(true, std::memory_order_relaxed);
  }
  bool stopped() const { return stop.load(std::memory_order_relaxed); }
  Status result() {
    std::lock_guard<std::mutex> lock(mutex);
    return failure;
  }

private:
  std::atomic<bool> stop{false};
  std::mutex mutex;
  Status failure;
};

} // namespace tegula::host::detail

using tegula::host::detail::LaunchState;
using tegula::host::detail::SimtGroup;

namespace {

/// The one lock every print line is written under.
std::mutex &printMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string oneLine(const char *text) {
  std::string line = text ? text : "";
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

std::string programIds(const tg_host_program &program) {
  return "(" + std::to_string(program.program_id[0]) + ", " +
         std::to_string(program.program_id[1]) + ", " +
         std::to_string(program.program_id[2]) + ")";
}

std::string toString(unsigned __int128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + unsigned(value % 10)));
    value /= 10;
  } while (value);
  return digits;
}

} // namespace

Status tegula::host::checkGrid(const uint32_t grid[3], uint64_t &programs) {
  std::string shape = "(" + std::to_string(grid[0]) + ", " +
                      std::to_string(grid[1]) + ", " +
                      std::to_string(grid[2]) + ")";
  for (int i = 0; i < 3; ++i)
    if (grid[i] == 0)
      return Status(TG_ERROR_INVALID_ARGUMENT,
                    "grid " + shape +
                        " has a zero dimension: every dimension of a launch "
                        "grid must be at least 1");
  unsigned __int128 total =
      (unsigned __int128)grid[0] * grid[1] * (unsigned __int128)grid[2];
  if (total > kMaxPrograms)
    return Status(TG_ERROR_INVALID_ARGUMENT,
                  "grid " + shape + " has " + toString(total) +
                      " programs; a host launch runs at most " +
                      std::to_string(kMaxPrograms));
  programs = static_cast<uint64_t>(total);
  return Status::success();
}

std::string tegula::host::formatPrintLine(const tg_host_program &program,
                                          const char *prefix, int64_t index,
                                          uint64_t bits, uint32_t kind) {
  std::string line = "pid " + programIds(program);
  if (index >= 0)
    line += " idx (" + std::to_string(index) + ")";
  // Triton's front end makes the prefix " name: "; a bare "name:" gets the
  // same spacing here.
  std::string text = oneLine(prefix);
  if (text.empty() || text.front() != ' ')
    text.insert(text.begin(), ' ');
  uint32_t how = kind & 0xff;
  if (how == TG_HOST_PRINT_NONE) {
    // The prefix alone: "pid (0, 0, 0) hello".
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    return line + text + '\n';
  }
  if (text.back() != ' ')
    text.push_back(' ');
  line += text;

  unsigned width = (kind >> 8) & 0xff;
  char value[64];
  if ((kind & TG_HOST_PRINT_HEX) && how != TG_HOST_PRINT_POINTER &&
      how != TG_HOST_PRINT_FLOAT) {
    uint64_t mask = width == 0 || width >= 64 ? ~uint64_t(0)
                                              : (uint64_t(1) << width) - 1;
    std::snprintf(value, sizeof(value), "0x%0*" PRIx64, int((width + 3) / 4),
                  bits & mask);
  } else if (how == TG_HOST_PRINT_SIGNED) {
    std::snprintf(value, sizeof(value), "%" PRId64, static_cast<int64_t>(bits));
  } else if (how == TG_HOST_PRINT_FLOAT) {
    double number;
    std::memcpy(&number, &bits, sizeof(number));
    std::snprintf(value, sizeof(value), "%f", number);
  } else if (how == TG_HOST_PRINT_POINTER) {
    std::snprintf(value, sizeof(value), "0x%" PRIx64, bits);
  } else {
    std::snprintf(value, sizeof(value), "%" PRIu64, bits);
  }
  line += value;
  line += '\n';
  return line;
}

//===-- The runtime functions generated code calls ------------------------===//

extern "C" void tegula_host_print(const tg_host_program *program,
                                  const char *prefix, int64_t index,
                                  uint64_t bits, uint32_t kind) {
  try {
    std::string line = formatPrintLine(*program, prefix, index, bits, kind);
    std::lock_guard<std::mutex> lock(printMutex());
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  } catch (...) {
    // Out of memory while formatting: the line is lost, the launch goes on.
  }
}

extern "C" void tegula_host_assert_fail(const tg_host_program *program,
                                        const char *message, const char *file,
                                        uint32_t line, const char *function,
                                        int64_t index) {
  try {
    std::string text = "device_assert failed at " + oneLine(file) + ":" +
                       std::to_string(line) + " in " + oneLine(function) +
                       ": " + oneLine(message) + " (program " +
                       programIds(*program);
    if (index >= 0)
      text += ", element " + std::to_string(index);
    text += ")";
    if (auto *state = static_cast<LaunchState *>(program->launch))
      state->fail(Status(TG_ERROR_DEVICE, std::move(text)));
  } catch (...) {
    if (auto *state = static_cast<LaunchState *>(program->launch))
      state->fail(Status(TG_ERROR_DEVICE, "device_assert failed"));
  }
}

extern "C" void tegula_host_bounds_fail(const tg_host_program *program,
                                        const char *access, const char *file,
                                        uint32_t line, const char *function,
                                        int64_t index, int64_t begin,
                                        int64_t end) {
  auto *state = static_cast<LaunchState *>(program->launch);
  try {
    std::string text = "out-of-bounds " + oneLine(access) + " at " +
                       oneLine(file) + ":" + std::to_string(line) + " in " +
                       oneLine(function) + ": index " + std::to_string(index) +
                       " is outside [" + std::to_string(begin) + ", " +
                       std::to_string(end) + ") (program " +
                       programIds(*program) + ")";
    if (state)
      state->fail(Status(TG_ERROR_DEVICE, std::move(text)));
  } catch (...) {
    if (state)
      state->fail(Status(TG_ERROR_DEVICE, "out-of-bounds access"));
  }
}

extern "C" void tegula_host_barrier(const tg_host_program *program) {
  if (auto *state = static_cast<LaunchState *>(program->launch))
    if (state->simt)
      state->simt->barrier();
}

extern "C" uint32_t tegula_host_shuffle(const tg_host_program *program,
                                        uint32_t bits, uint32_t kind,
                                        uint32_t offset, uint32_t warpSize) {
  auto *state = static_cast<LaunchState *>(program->launch);
  if (!state || !state->simt || warpSize == 0)
    return bits;
  return state->simt->shuffle(program->thread_id, bits, kind, offset,
                              warpSize);
}

namespace {

/// A SIMT launch: |threads| threads run every program together, one program
/// after the other, with one shared scratch.
Status runSimt(KernelEntry entry, const void *args, const uint32_t grid[3],
               uint64_t programs, uint64_t scratchBytes, unsigned threads) {
  void *scratch = nullptr;
  if (scratchBytes) {
    scratch = HostBuffer::allocateAligned(scratchBytes, HostBuffer::kAlignment);
    if (!scratch)
      return Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot allocate " + std::to_string(scratchBytes) +
                        " bytes of shared memory for a program");
  }
  LaunchState state;
  SimtGroup group(threads);
  state.simt = &group;
  // Threads start behind a gate: if the system refuses one, those started
  // leave without running anything.
  std::mutex gateMutex;
  std::condition_variable gate;
  int open = 0; // 0 waiting, 1 run, -1 abandon
  auto body = [&](unsigned thread) {
    {
      std::unique_lock<std::mutex> lock(gateMutex);
      gate.wait(lock, [&] { return open != 0; });
      if (open < 0)
        return;
    }
    tg_host_program program{};
    std::memcpy(program.num_programs, grid, sizeof(program.num_programs));
    program.scratch = scratch;
    program.launch = &state;
    program.thread_id = thread;
    program.num_threads = threads;
    for (uint64_t i = 0; i < programs; ++i) {
      uint64_t rest = i / grid[0];
      program.program_id[0] = static_cast<uint32_t>(i % grid[0]);
      program.program_id[1] = static_cast<uint32_t>(rest % grid[1]);
      program.program_id[2] = static_cast<uint32_t>(rest / grid[1]);
      runProgram(entry, args, &program);
      // Every thread sees the same stop flag after the barrier.
      group.barrier();
      if (state.stopped())
        return;
    }
  };
  std::vector<std::thread> workers;
  Status status = Status::success();
  try {
    for (unsigned t = 1; t < threads; ++t)
      workers.emplace_back(body, t);
  } catch (const std::system_error &error) {
    status = Status(TG_ERROR_OUT_OF_MEMORY,
                    "cannot start the " + std::to_string(threads) +
                        " threads of a SIMT program: " + error.what());
  }
  {
    std::lock_guard<std::mutex> lock(gateMutex);
    open = status.ok() ? 1 : -1;
  }
  gate.notify_all();
  if (status.ok())
    body(0);
  for (std::thread &worker : workers)
    worker.join();
  std::free(scratch);
  return status.ok() ? state.result() : status;
}

} // namespace

//===-- ProgramPool --------------------------------------------------------===//

struct ProgramPool::Job {
  KernelEntry entry = nullptr;
  const void *args = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint64_t total = 0;
  uint64_t chunk = 1;
  uint64_t scratchBytes = 0;
  std::atomic<uint64_t> next{0};
  LaunchState state;
};

ProgramPool::Scratch::~Scratch() { std::free(data); }

bool ProgramPool::Scratch::reserve(uint64_t bytes) {
  if (size >= bytes)
    return true;
  std::free(data);
  data = HostBuffer::allocateAligned(bytes, HostBuffer::kAlignment);
  size = data ? bytes : 0;
  return data != nullptr;
}

ProgramPool::ProgramPool(unsigned threads) {
  threads = std::max(threads, 1u);
  scratch.reset(new Scratch[threads]);
  workers.reserve(threads - 1);
  for (unsigned slot = 1; slot < threads; ++slot) {
    try {
      workers.emplace_back([this, slot] { work(slot); });
    } catch (const std::system_error &) {
      break; // Run with the workers the system gave.
    }
  }
}

ProgramPool::~ProgramPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void ProgramPool::work(unsigned slot) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wake.wait(lock, [&] { return stopping || generation != seen; });
    if (stopping)
      return;
    seen = generation;
    Job *current = job;
    lock.unlock();
    runPrograms(*current, scratch[slot]);
    lock.lock();
    if (--busy == 0)
      finished.notify_all();
  }
}

void ProgramPool::runPrograms(Job &job, Scratch &scratch) {
  if (job.state.stopped())
    return;
  tg_host_program program{};
  std::memcpy(program.num_programs, job.grid, sizeof(job.grid));
  program.launch = &job.state;
  if (job.scratchBytes) {
    if (!scratch.reserve(job.scratchBytes)) {
      job.state.fail(Status(TG_ERROR_OUT_OF_MEMORY,
                            "cannot allocate " +
                                std::to_string(job.scratchBytes) +
                                " bytes of scratch memory for a program"));
      return;
    }
    program.scratch = scratch.data;
  }
  const uint64_t gridX = job.grid[0], gridY = job.grid[1];
  for (;;) {
    uint64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.total)
      return;
    uint64_t end = std::min(begin + job.chunk, job.total);
    for (uint64_t i = begin; i < end; ++i) {
      // A failed assert stops the launch, as a trap stops a GPU kernel.
      if (job.state.stopped())
        return;
      uint64_t rest = i / gridX;
      program.program_id[0] = static_cast<uint32_t>(i % gridX);
      program.program_id[1] = static_cast<uint32_t>(rest % gridY);
      program.program_id[2] = static_cast<uint32_t>(rest / gridY);
      runProgram(job.entry, job.args, &program);
    }
  }
}

Status ProgramPool::run(KernelEntry entry, const void *packedArgs,
                        const uint32_t grid[3], uint64_t scratchBytes,
                        unsigned simtThreads) {
  uint64_t programs = 0;
  Status valid = checkGrid(grid, programs);
  if (!valid.ok())
    return valid;
  if (simtThreads > 1) {
    std::lock_guard<std::mutex> launch(launchMutex);
    return runSimt(entry, packedArgs, grid, programs, scratchBytes,
                   simtThreads);
  }
  Job current;
  current.entry = entry;
  current.args = packedArgs;
  std::memcpy(current.grid, grid, sizeof(current.grid));
  current.total = programs;
  current.scratchBytes = scratchBytes;
  // About eight chunks per thread balance uneven programs without making
  // the counter hot.
  current.chunk = std::clamp<uint64_t>(programs / (uint64_t(threads()) * 8),
                                       1, 64);

  std::lock_guard<std::mutex> launch(launchMutex);
  bool spread = !workers.empty() && programs > current.chunk;
  if (spread) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &current;
      ++generation;
      busy = static_cast<unsigned>(workers.size());
    }
    wake.notify_all();
  }
  runPrograms(current, scratch[0]);
  if (spread) {
    std::unique_lock<std::mutex> lock(mutex);
    finished.wait(lock, [&] { return busy == 0; });
    job = nullptr;
  }
  return current.state.result();
}
