//===- KernelCache.cpp - On-disk cache of compiled kernels ----------------===//
//
// Entry format (version 1; integers little-endian):
//
//   0   8  magic "TGKCACHE"
//   8   8  xxh3_64 of bytes [16, end of file)
//   16  4  format version (1)
//   20  4  header size (64)
//   24  8  payload size (file size - 64)
//   32  32 SHA-256 of the key's canonical serialization
//   64  .  payload
//
// The checksum covers everything after itself, header fields included, so a
// flipped bit anywhere but in the magic (checked on its own) is caught.
//
//===----------------------------------------------------------------------===//

#include "tegula/KernelCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace tegula;

#ifndef TEGULA_VERSION_STRING
#error "TEGULA_VERSION_STRING must be defined by the build"
#endif

namespace {

constexpr char kMagic[8] = {'T', 'G', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr size_t kChecksumOffset = 8;
constexpr size_t kChecksummedFrom = 16;
constexpr size_t kVersionOffset = 16;
constexpr size_t kHeaderSizeOffset = 20;
constexpr size_t kPayloadSizeOffset = 24;
constexpr size_t kDigestOffset = 32;

//===-- Canonical key encoding ---------------------------------------------===//

void appendU64(std::string &out, uint64_t value) {
  char bytes[8];
  support::endian::write64le(bytes, value);
  out.append(bytes, 8);
}

/// A tagged, length-prefixed field.
void appendField(std::string &out, StringRef tag, StringRef value) {
  out += tag;
  appendU64(out, value.size());
  out += value;
}

/// A tagged list of (name, value) pairs, sorted so order does not matter.
void appendList(std::string &out, StringRef tag,
                std::vector<std::pair<std::string, std::string>> list) {
  std::sort(list.begin(), list.end());
  out += tag;
  appendU64(out, list.size());
  for (const auto &[name, value] : list) {
    appendU64(out, name.size());
    out += name;
    appendU64(out, value.size());
    out += value;
  }
}

//===-- Entries --------------------------------------------------------------===//

std::string encodeEntry(const std::array<uint8_t, 32> &digest,
                        StringRef payload) {
  std::string entry(KernelCache::kHeaderSize, '\0');
  std::memcpy(entry.data(), kMagic, sizeof(kMagic));
  support::endian::write32le(entry.data() + kVersionOffset,
                             KernelCache::kFormatVersion);
  support::endian::write32le(entry.data() + kHeaderSizeOffset,
                             KernelCache::kHeaderSize);
  support::endian::write64le(entry.data() + kPayloadSizeOffset,
                             payload.size());
  std::memcpy(entry.data() + kDigestOffset, digest.data(), digest.size());
  entry += payload;
  uint64_t checksum = xxh3_64bits(StringRef(entry).drop_front(kChecksummedFrom));
  support::endian::write64le(entry.data() + kChecksumOffset, checksum);
  return entry;
}

/// The payload of |entry| if it is a valid entry for |digest|; otherwise
/// nothing, and |why| says what is wrong.
std::optional<StringRef> decodeEntry(StringRef entry,
                                     const std::array<uint8_t, 32> &digest,
                                     const char *&why) {
  why = nullptr;
  if (entry.size() < KernelCache::kHeaderSize)
    why = "shorter than the header";
  else if (std::memcmp(entry.data(), kMagic, sizeof(kMagic)) != 0)
    why = "not a kernel cache entry (bad magic)";
  else if (xxh3_64bits(entry.drop_front(kChecksummedFrom)) !=
           support::endian::read64le(entry.data() + kChecksumOffset))
    why = "bad checksum";
  else if (support::endian::read32le(entry.data() + kVersionOffset) !=
           KernelCache::kFormatVersion)
    why = "another format version";
  else if (support::endian::read32le(entry.data() + kHeaderSizeOffset) !=
               KernelCache::kHeaderSize ||
           support::endian::read64le(entry.data() + kPayloadSizeOffset) !=
               entry.size() - KernelCache::kHeaderSize)
    why = "wrong sizes in the header";
  else if (std::memcmp(entry.data() + kDigestOffset, digest.data(),
                       digest.size()) != 0)
    why = "the entry of another key";
  if (why)
    return std::nullopt;
  return entry.drop_front(KernelCache::kHeaderSize);
}

//===-- Trust, warnings, statistics -------------------------------------------===//

bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

std::mutex &warnMutex() {
  static std::mutex mutex;
  return mutex;
}

/// Prints "tegula: warning: <message>" once per process per |path| and
/// reason (|message| names both).
void warnOnce(const std::string &message) {
  std::lock_guard<std::mutex> lock(warnMutex());
  static std::set<std::string> *warned = new std::set<std::string>();
  if (!warned->insert(message).second)
    return;
  std::fprintf(stderr, "tegula: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

/// TEGULA_CACHE_DEBUG=1: one line per entry found damaged.
void debugLine(const std::string &message) {
  if (!envFlag("TEGULA_CACHE_DEBUG"))
    return;
  std::lock_guard<std::mutex> lock(warnMutex());
  std::fprintf(stderr, "tegula: kernel cache: %s\n", message.c_str());
  std::fflush(stderr);
}

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", unsigned(mode & 07777));
  return text;
}

/// Why a file or folder with |st| must not be trusted, or "".
std::string untrusted(const struct stat &st) {
  uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0)
    return "is owned by user " + std::to_string(st.st_uid) +
           ", neither you (user " + std::to_string(me) + ") nor root";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "is writable by " +
           std::string((st.st_mode & S_IWOTH) ? "others" : "its group") +
           " (mode " + octal(st.st_mode) + ")";
  return "";
}

/// Chooses the folder to use for |requested|, an existing folder: itself
/// when only the user (or root) can write it; the user's own subfolder
/// `<requested>/<uid>` (created 0700) when others may write to it but so may
/// the user; otherwise none. Returns the folder and, when it must not be
/// used, why (naming the path).
std::pair<std::string, std::string> chooseFolder(const std::string &requested) {
  struct stat st;
  if (::stat(requested.c_str(), &st) != 0)
    return {requested, "kernel cache folder " + requested +
                           " cannot be examined: " + std::strerror(errno)};
  uid_t me = ::geteuid();
  bool ownerOk = st.st_uid == me || st.st_uid == 0;
  bool shared = st.st_mode & (S_IWGRP | S_IWOTH);
  if (ownerOk && !shared)
    return {requested, ""};
  if (shared && ::access(requested.c_str(), W_OK | X_OK) == 0) {
    // A folder others may write to (/tmp's 1777, a group's folder): they
    // may add entries, so only the user's own subfolder is used.
    SmallString<256> sub(requested);
    sys::path::append(sub, std::to_string(me));
    std::string path(sub);
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
      return {path, "cannot create the kernel cache folder " + path + ": " +
                        std::strerror(errno)};
    struct stat own;
    if (::lstat(path.c_str(), &own) != 0)
      return {path, "kernel cache folder " + path + " cannot be examined: " +
                        std::strerror(errno)};
    if (!S_ISDIR(own.st_mode))
      return {path, "kernel cache folder " + path +
                        " is not a folder (someone else may have put it "
                        "there); not using the cache"};
    if (own.st_uid != me)
      return {path, "kernel cache folder " + path + " is owned by user " +
                        std::to_string(own.st_uid) + ", not by you (user " +
                        std::to_string(me) + "); not using the cache"};
    if (own.st_mode & (S_IWGRP | S_IWOTH))
      return {path, "kernel cache folder " + path + " " + untrusted(own) +
                        "; not using the cache"};
    return {path, ""};
  }
  return {requested, "kernel cache folder " + requested + " " +
                         untrusted(st) + "; not using the cache"};
}

/// The host's name cut to what a file name may hold.
const std::string &hostId() {
  static const std::string id = [] {
    char name[256] = {0};
    if (::gethostname(name, sizeof(name) - 1) != 0)
      return std::string("localhost");
    std::string out;
    for (const char *c = name; *c && out.size() < 32; ++c)
      out += (isAlnum(*c) || *c == '-' || *c == '.') ? *c : '_';
    return out.empty() ? std::string("localhost") : out;
  }();
  return id;
}

bool processIsGone(long pid) {
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

/// Whether the file |fd| is still the one at |path|.
bool sameFile(int fd, const std::string &path) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

constexpr const char *kStatsFile = "stats";
const char *const kStatNames[] = {"hits",   "misses",        "discarded",
                                  "stores", "store-failures", "compiles",
                                  "refused"};
std::atomic<uint64_t> KernelCache::Counters::*const kStatFields[] = {
    &KernelCache::Counters::hits,          &KernelCache::Counters::misses,
    &KernelCache::Counters::discarded,     &KernelCache::Counters::stores,
    &KernelCache::Counters::storeFailures, &KernelCache::Counters::compiles,
    &KernelCache::Counters::refused};

/// The totals in |text| (`stats`: one "name value" line each).
std::map<std::string, uint64_t> parseStats(StringRef text) {
  std::map<std::string, uint64_t> out;
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    auto [name, value] = line.trim().split(' ');
    uint64_t n;
    if (!value.trim().getAsInteger(10, n))
      out[name.str()] = n;
  }
  return out;
}

/// Adds |counters| to `<dir>/stats` under an flock; quietly does nothing
/// when the folder is gone or not the user's.
void addToStatsFile(const std::string &dir,
                    const KernelCache::Counters &counters) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      !untrusted(st).empty())
    return;
  std::string path = dir + "/" + kStatsFile;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
                                    O_NONBLOCK, 0600);
  if (fd < 0)
    return;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && untrusted(st).empty() &&
      ::flock(fd, LOCK_EX) == 0) {
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0;)
      text.append(buffer, static_cast<size_t>(n));
    std::map<std::string, uint64_t> totals = parseStats(text);
    std::string out;
    for (size_t i = 0; i < std::size(kStatNames); ++i)
      out += std::string(kStatNames[i]) + " " +
             std::to_string(totals[kStatNames[i]] +
                            (counters.*kStatFields[i]).load()) +
             "\n";
    if (::ftruncate(fd, 0) == 0)
      (void)!::pwrite(fd, out.data(), out.size(), 0);
  }
  ::close(fd);
}

class Registry;
Registry &registry();

/// Every folder used in this process with its counters. At exit it adds
/// them to each folder's `stats` and, with TEGULA_CACHE_STATS=1, prints them.
class Registry {
public:
  Registry() {
    // A forked child starts from zero: what the parent counted is the
    // parent's to report.
    ::pthread_atfork(nullptr, nullptr, [] {
      for (auto &[dir, c] : registry().folders)
        for (auto field : kStatFields)
          ((*c).*field) = 0;
    });
  }
  KernelCache::Counters *forFolder(const std::string &dir) {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<KernelCache::Counters> &slot = folders[dir];
    if (!slot)
      slot = std::make_unique<KernelCache::Counters>();
    return slot.get();
  }
  ~Registry() {
    std::lock_guard<std::mutex> lock(mutex);
    bool print = envFlag("TEGULA_CACHE_STATS");
    for (const auto &[dir, c] : folders) {
      uint64_t used = c->hits + c->misses + c->stores + c->compiles;
      if (!used && !c->refused)
        continue;
      if (used)
        addToStatsFile(dir, *c);
      if (print)
        std::fprintf(stderr,
                     "tegula: kernel cache %s: %llu hits, %llu misses, %llu "
                     "compiles, %llu stores, %llu discarded, %llu refused\n",
                     dir.c_str(), (unsigned long long)c->hits.load(),
                     (unsigned long long)c->misses.load(),
                     (unsigned long long)c->compiles.load(),
                     (unsigned long long)c->stores.load(),
                     (unsigned long long)c->discarded.load(),
                     (unsigned long long)c->refused.load());
    }
  }

private:
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<KernelCache::Counters>> folders;
};

Registry &registry() {
  // Destroyed at exit, after every KernelCache of a function's scope.
  static Registry instance;
  return instance;
}

//===-- Stale files ------------------------------------------------------------===//

enum class Stale { No, Yes };

/// Whether |name| in |folder| is a temporary file or lock that no live
/// process holds. Locks (`*.lock`, flock'ed while held) are tested by taking
/// them: |takenLock| then holds the descriptor, to be closed after the file
/// is removed.
Stale staleness(const std::string &folder, StringRef name, int &takenLock) {
  takenLock = -1;
  std::string path = folder + "/" + name.str();
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return Stale::No;
  auto old = [&] { return std::time(nullptr) - st.st_mtime > 3600; };
  size_t at;
  if ((at = name.find(".tgk.tmp-")) != StringRef::npos) {
    // store()'s temporary files: "<hex>.tgk.tmp-<host>-<pid>-XXXXXXXX".
    StringRef rest = name.drop_front(at + strlen(".tgk.tmp-"));
    size_t dash = rest.rfind('-');
    if (dash != StringRef::npos) {
      StringRef hostAndPid = rest.take_front(dash);
      size_t pidDash = hostAndPid.rfind('-');
      long pid;
      if (pidDash != StringRef::npos &&
          !hostAndPid.drop_front(pidDash + 1).getAsInteger(10, pid)) {
        if (hostAndPid.take_front(pidDash) == hostId())
          return processIsGone(pid) ? Stale::Yes : Stale::No;
        return old() ? Stale::Yes : Stale::No;
      }
    }
    // An older format (no pid): only when it is an hour old.
    return old() ? Stale::Yes : Stale::No;
  }
  if ((at = name.find(".tgk.lock-")) != StringRef::npos) {
    // llvm::LockFileManager's unique lock files (earlier versions):
    // "<host> <pid>", left behind by a process killed while holding it.
    auto buffer = MemoryBuffer::getFile(path);
    if (buffer) {
      auto [host, pidText] = (*buffer)->getBuffer().trim().split(' ');
      long pid;
      if (!pidText.getAsInteger(10, pid) && !host.empty()) {
        char here[256] = {0};
        ::gethostname(here, sizeof(here) - 1);
        if (host == here)
          return processIsGone(pid) ? Stale::Yes : Stale::No;
      }
    }
    return old() ? Stale::Yes : Stale::No;
  }
  if (name.ends_with(".tgk.lock")) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
      return Stale::No;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && sameFile(fd, path)) {
      takenLock = fd;
      return Stale::Yes;
    }
    ::close(fd);
  }
  return Stale::No;
}

/// Removes (|remove|) or counts the stale files of |folder| (not below it).
size_t sweepFolder(const std::string &folder, bool remove) {
  size_t count = 0;
  std::error_code ec;
  for (sys::fs::directory_iterator it(folder, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    int lock = -1;
    if (staleness(folder, name, lock) == Stale::Yes) {
      ++count;
      if (remove)
        ::unlink(it->path().c_str());
    }
    if (lock >= 0)
      ::close(lock);
  }
  return count;
}

/// The entry subfolders of |dir| ("00" to "ff").
std::vector<std::string> shardFolders(const std::string &dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    struct stat st;
    // A real folder: clear() must not follow a link out of the cache.
    if (name.size() == 2 && isHexDigit(name[0]) && isHexDigit(name[1]) &&
        ::lstat(it->path().c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      out.push_back(it->path());
  }
  return out;
}

/// Deletes |path| if it is still the file |id| (a writer may have renamed a
/// fresh entry over the corrupt one since it was read; that one stays).
void discard(const std::string &path, const sys::fs::UniqueID &id) {
  sys::fs::file_status now;
  if (!sys::fs::status(path, now) && now.getUniqueID() == id)
    sys::fs::remove(path);
}

/// The lock of one entry: an flock(2) on `<entry>.lock`, which the kernel
/// releases when its holder dies, so a killed compile leaves no lock that
/// anyone has to wait out. The holder removes the file before releasing it;
/// a waiter that then gets the lock of the removed file sees that it is no
/// longer the one at the path and tries again.
class EntryLock {
public:
  enum State { Owned, Busy, Failed };
  explicit EntryLock(std::string path) : path(std::move(path)) {}
  EntryLock(const EntryLock &) = delete;
  EntryLock &operator=(const EntryLock &) = delete;
  ~EntryLock() { release(); }

  State tryLock() {
    release();
    for (int attempt = 0; attempt < 16; ++attempt) {
      int fd = ::open(path.c_str(),
                      O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                      0600);
      if (fd < 0)
        return Failed;
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int error = errno;
        ::close(fd);
        return error == EWOULDBLOCK ? Busy : Failed;
      }
      if (sameFile(fd, path)) {
        this->fd = fd;
        return Owned;
      }
      ::close(fd); // The holder removed it: lock the new one.
    }
    return Failed;
  }

  void release() {
    if (fd < 0)
      return;
    ::unlink(path.c_str());
    ::close(fd);
    fd = -1;
  }

private:
  std::string path;
  int fd = -1;
};

Error makeFolder(StringRef path) {
  if (std::error_code ec = sys::fs::create_directories(
          path, /*IgnoreExisting=*/true, sys::fs::perms::owner_all))
    return createStringError(ec, "cannot create the kernel cache folder '%s': %s",
                             path.str().c_str(), ec.message().c_str());
  if (!sys::fs::is_directory(path))
    return createStringError(std::errc::not_a_directory,
                             "kernel cache folder '%s' is not a folder",
                             path.str().c_str());
  return Error::success();
}

} // namespace

//===-- KernelCacheKey --------------------------------------------------------===//

std::string KernelCacheKey::defaultCompilerVersion() {
  return "tegula " TEGULA_VERSION_STRING " (LLVM " LLVM_VERSION_STRING ")";
}

const std::string &KernelCacheKey::hostCpu() {
  static const std::string cpu = [] {
    std::vector<std::string> features;
    for (const auto &feature : sys::getHostCPUFeatures())
      features.push_back((feature.getValue() ? "+" : "-") +
                         feature.getKey().str());
    std::sort(features.begin(), features.end(),
              [](const std::string &a, const std::string &b) {
                return StringRef(a).drop_front() < StringRef(b).drop_front();
              });
    return sys::getHostCPUName().str() + " " + join(features, ",");
  }();
  return cpu;
}

std::string KernelCacheKey::serialize() const {
  std::string out("tegula-kernel-cache-key-1");
  out += '\0';
  appendField(out, "source", source);
  appendField(out, "signature", signature);
  appendList(out, "constexprs", constexprs);
  appendList(out, "options", options);
  appendField(out, "target", target);
  appendField(out, "plugin", pluginName);
  appendField(out, "plugin-version", pluginVersion);
  appendField(out, "compiler-version", compilerVersion);
  return out;
}

std::array<uint8_t, 32> KernelCacheKey::digest() const {
  return SHA256::hash(arrayRefFromStringRef(serialize()));
}

std::string KernelCacheKey::hexDigest() const {
  std::array<uint8_t, 32> bytes = digest();
  return toHex(ArrayRef<uint8_t>(bytes), /*LowerCase=*/true);
}

//===-- KernelCache ------------------------------------------------------------===//

KernelCache::KernelCache(std::string directory, std::string problem)
    : dir(std::move(directory)), problem(std::move(problem)),
      counters(std::make_unique<Counters>()),
      processCounters(registry().forFolder(dir)) {}

void KernelCache::count(std::atomic<uint64_t> Counters::*which) const {
  ++(counters.get()->*which);
  ++(processCounters->*which);
}

Expected<KernelCache> KernelCache::open(StringRef directory) {
  if (directory.empty())
    return createStringError(std::errc::invalid_argument,
                             "the kernel cache folder name is empty");
  SmallString<256> path(directory);
  if (std::error_code ec = sys::fs::make_absolute(path))
    return createStringError(ec, "cannot make '%s' absolute: %s",
                             path.c_str(), ec.message().c_str());
  sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  if (Error error = makeFolder(path))
    return error;
  auto [folder, problem] = chooseFolder(std::string(path));
  if (!problem.empty())
    warnOnce(problem);
  return KernelCache(std::move(folder), std::move(problem));
}

Expected<std::string> KernelCache::defaultDirectory() {
  if (const char *explicitDir = std::getenv("TEGULA_CACHE_DIR");
      explicitDir && *explicitDir) {
    SmallString<256> path(explicitDir);
    if (std::error_code ec = sys::fs::make_absolute(path))
      return createStringError(ec, "cannot make '%s' absolute: %s",
                               path.c_str(), ec.message().c_str());
    return std::string(path);
  }
  SmallString<256> path;
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME");
      xdg && *xdg && sys::path::is_absolute(xdg)) {
    path = xdg;
  } else {
    if (!sys::path::home_directory(path))
      return createStringError(
          std::errc::no_such_file_or_directory,
          "no kernel cache folder: TEGULA_CACHE_DIR and XDG_CACHE_HOME are "
          "unset and there is no home folder");
    sys::path::append(path, ".cache");
  }
  sys::path::append(path, "tegula");
  return std::string(path);
}

Expected<KernelCache> KernelCache::openDefault() {
  Expected<std::string> path = defaultDirectory();
  if (!path)
    return path.takeError();
  return open(*path);
}

std::string KernelCache::entryPath(const KernelCacheKey &key) const {
  std::string hex = key.hexDigest();
  SmallString<256> path(dir);
  sys::path::append(path, StringRef(hex).take_front(2), hex + ".tgk");
  return std::string(path);
}

std::optional<std::string>
KernelCache::lookupPath(const std::string &path,
                        const std::array<uint8_t, 32> &digest,
                        bool countMiss) const {
  auto miss = [&]() -> std::optional<std::string> {
    if (countMiss)
      count(&Counters::misses);
    return std::nullopt;
  };
  if (!trusted())
    return miss();
  // No symbolic links (the cache writes none) and no blocking on a FIFO.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) {
      count(&Counters::refused);
      warnOnce("kernel cache entry " + path +
                         " is a symbolic link; ignoring it");
    }
    return miss();
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return miss();
  }
  std::string why = S_ISREG(st.st_mode) ? untrusted(st) : "is not a file";
  if (!why.empty()) {
    // Someone else could have written it: never loaded, left alone (a
    // store renames a fresh entry over it).
    ::close(fd);
    count(&Counters::refused);
    warnOnce("kernel cache entry " + path + " " + why +
                       "; ignoring it");
    return miss();
  }
  sys::fs::UniqueID id(st.st_dev, st.st_ino);
  // Read, not mmap (IsVolatile): a file truncated under a mapping would
  // raise SIGBUS instead of failing the checksum.
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getOpenFile(
      fd, path, /*FileSize=*/-1, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/true);
  ::close(fd);
  if (!buffer)
    return miss();
  const char *reason = nullptr;
  std::optional<StringRef> payload =
      decodeEntry((*buffer)->getBuffer(), digest, reason);
  if (!payload) {
    count(&Counters::discarded);
    debugLine(path + ": " + reason + "; deleted, to be rebuilt");
    discard(path, id);
    return miss();
  }
  count(&Counters::hits);
  return payload->str();
}

std::optional<std::string>
KernelCache::lookup(const KernelCacheKey &key) const {
  return lookupPath(entryPath(key), key.digest(), /*countMiss=*/true);
}

Error KernelCache::store(const KernelCacheKey &key, StringRef blob) const {
  auto fail = [&](Error error) {
    count(&Counters::storeFailures);
    return error;
  };
  if (!trusted())
    return fail(createStringError(std::errc::permission_denied, "%s",
                                  problem.c_str()));
  std::string path = entryPath(key);
  StringRef folder = sys::path::parent_path(path);
  if (Error error = makeFolder(folder))
    return fail(std::move(error));

  // A temporary file in the entry's own folder, so that the rename below is
  // atomic; it is removed if the process dies before keep(), except by
  // SIGKILL: its name holds the host and pid for removeStaleFiles().
  Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(
      path + ".tmp-" + hostId() + "-" + std::to_string(::getpid()) +
          "-%%%%%%%%",
      sys::fs::perms::owner_read | sys::fs::perms::owner_write);
  if (!temp)
    return fail(createStringError(
        inconvertibleErrorCode(), "cannot create a temporary file in '%s': %s",
        folder.str().c_str(), toString(temp.takeError()).c_str()));
  {
    raw_fd_ostream out(temp->FD, /*shouldClose=*/false);
    out << encodeEntry(key.digest(), blob);
    out.flush();
    if (out.has_error()) {
      std::error_code ec = out.error();
      out.clear_error();
      consumeError(temp->discard());
      return fail(createStringError(ec, "cannot write '%s': %s",
                                    temp->TmpName.c_str(),
                                    ec.message().c_str()));
    }
  }
  if (Error error = temp->keep(path))
    return fail(createStringError(inconvertibleErrorCode(),
                                  "cannot rename a cache entry to '%s': %s",
                                  path.c_str(),
                                  toString(std::move(error)).c_str()));
  count(&Counters::stores);
  // What processes killed in this folder (during a store or a compile)
  // left behind; every path that writes entries comes here.
  sweepFolder(folder.str(), /*remove=*/true);
  return Error::success();
}

Expected<std::string>
KernelCache::getOrCompile(const KernelCacheKey &key,
                          function_ref<Expected<std::string>()> compile,
                          unsigned waitSeconds) const {
  std::string path = entryPath(key);
  std::array<uint8_t, 32> digest = key.digest();
  if (std::optional<std::string> hit =
          lookupPath(path, digest, /*countMiss=*/true))
    return std::move(*hit);
  if (!trusted()) {
    count(&Counters::compiles);
    return compile();
  }

  // The lock file sits beside the entry, so its folder must exist. Without
  // it (or without a lock) we compile unlocked, which is only slower.
  std::string folder = sys::path::parent_path(path).str();
  if (Error error = makeFolder(folder))
    consumeError(std::move(error));
  // Until |waitSeconds| have passed: take the lock and compile, or wait
  // for its holder and read what it stored. A lock that cannot be made, or
  // a holder gone without storing, is tried again (a few times, for the
  // former) before compiling unlocked.
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(waitSeconds);
  EntryLock lock(path + ".lock");
  auto pause = std::chrono::milliseconds(1);
  for (unsigned lockErrors = 0; lockErrors < 8;) {
    switch (lock.tryLock()) {
    case EntryLock::Failed:
      ++lockErrors;
      pause = std::chrono::milliseconds(5);
      break;
    case EntryLock::Owned: {
      // Someone may have stored it between our lookup and taking the lock.
      if (std::optional<std::string> hit =
              lookupPath(path, digest, /*countMiss=*/false))
        return std::move(*hit);
      // store() removes what killed processes left in this folder.
      return compileAndStore(key, compile);
    }
    case EntryLock::Busy:
      if (std::optional<std::string> hit =
              lookupPath(path, digest, /*countMiss=*/false))
        return std::move(*hit);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return compileAndStore(key, compile);
}

Expected<std::string> KernelCache::compileAndStore(
    const KernelCacheKey &key,
    function_ref<Expected<std::string>()> compile) const {
  count(&Counters::compiles);
  Expected<std::string> blob = compile();
  if (!blob)
    return blob.takeError();
  // A cache that cannot be written must not stop compilation; store()
  // has counted the failure.
  if (Error error = store(key, *blob))
    consumeError(std::move(error));
  return blob;
}

KernelCache::Statistics KernelCache::statistics() const {
  Statistics s;
  s.hits = counters->hits;
  s.misses = counters->misses;
  s.discarded = counters->discarded;
  s.stores = counters->stores;
  s.storeFailures = counters->storeFailures;
  s.compiles = counters->compiles;
  s.refused = counters->refused;
  return s;
}

KernelCache::DiskStatistics KernelCache::statisticsOnDisk() const {
  DiskStatistics out;
  if (!trusted())
    return out;
  for (const std::string &shard : shardFolders(dir)) {
    std::error_code ec;
    for (sys::fs::directory_iterator it(shard, ec), end; it != end && !ec;
         it.increment(ec)) {
      struct stat st;
      if (StringRef(it->path()).ends_with(".tgk") &&
          ::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ++out.entries;
        out.bytes += static_cast<uint64_t>(st.st_size);
      }
    }
    out.staleFiles += sweepFolder(shard, /*remove=*/false);
  }
  auto buffer = MemoryBuffer::getFile(dir + "/" + kStatsFile);
  if (buffer) {
    std::map<std::string, uint64_t> totals = parseStats((*buffer)->getBuffer());
    out.totals.hits = totals["hits"];
    out.totals.misses = totals["misses"];
    out.totals.discarded = totals["discarded"];
    out.totals.stores = totals["stores"];
    out.totals.storeFailures = totals["store-failures"];
    out.totals.compiles = totals["compiles"];
    out.totals.refused = totals["refused"];
  }
  return out;
}

size_t KernelCache::removeStaleFiles() const {
  if (!trusted())
    return 0;
  size_t removed = 0;
  for (const std::string &shard : shardFolders(dir))
    removed += sweepFolder(shard, /*remove=*/true);
  return removed;
}

Expected<size_t> KernelCache::clear() const {
  if (!trusted())
    return createStringError(std::errc::permission_denied, "%s",
                             problem.c_str());
  size_t removed = 0;
  for (const std::string &shard : shardFolders(dir)) {
    sweepFolder(shard, /*remove=*/true);
    std::error_code ec;
    for (sys::fs::directory_iterator it(shard, ec), end; it != end && !ec;
         it.increment(ec))
      if (StringRef(it->path()).ends_with(".tgk") &&
          !sys::fs::remove(it->path()))
        ++removed;
    // Empty now unless a compile holds a lock in it.
    ::rmdir(shard.c_str());
  }
  ::unlink((dir + "/" + kStatsFile).c_str());
  return removed;
}
