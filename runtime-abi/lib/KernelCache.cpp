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
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LockFileManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

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

/// The payload of |entry| if it is a valid entry for |digest|.
std::optional<StringRef> decodeEntry(StringRef entry,
                                     const std::array<uint8_t, 32> &digest) {
  if (entry.size() < KernelCache::kHeaderSize)
    return std::nullopt;
  if (std::memcmp(entry.data(), kMagic, sizeof(kMagic)) != 0)
    return std::nullopt;
  uint64_t checksum =
      support::endian::read64le(entry.data() + kChecksumOffset);
  if (xxh3_64bits(entry.drop_front(kChecksummedFrom)) != checksum)
    return std::nullopt;
  if (support::endian::read32le(entry.data() + kVersionOffset) !=
          KernelCache::kFormatVersion ||
      support::endian::read32le(entry.data() + kHeaderSizeOffset) !=
          KernelCache::kHeaderSize ||
      support::endian::read64le(entry.data() + kPayloadSizeOffset) !=
          entry.size() - KernelCache::kHeaderSize)
    return std::nullopt;
  if (std::memcmp(entry.data() + kDigestOffset, digest.data(),
                  digest.size()) != 0)
    return std::nullopt;
  return entry.drop_front(KernelCache::kHeaderSize);
}

/// Deletes |path| if it is still the file |id| (a writer may have renamed a
/// fresh entry over the corrupt one since it was read; that one stays).
void discard(const std::string &path, const sys::fs::UniqueID &id) {
  sys::fs::file_status now;
  if (!sys::fs::status(path, now) && now.getUniqueID() == id)
    sys::fs::remove(path);
}

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

KernelCache::KernelCache(std::string directory)
    : dir(std::move(directory)), counters(std::make_unique<Counters>()) {}

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
  return KernelCache(std::string(path));
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
      ++counters->misses;
    return std::nullopt;
  };
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file) {
    consumeError(file.takeError());
    return miss();
  }
  sys::fs::file_status status;
  std::error_code statusError = sys::fs::status(*file, status);
  // Read, not mmap (IsVolatile): a file truncated under a mapping would
  // raise SIGBUS instead of failing the checksum.
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getOpenFile(
      *file, path, /*FileSize=*/-1, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/true);
  sys::fs::closeFile(*file);
  if (!buffer || statusError)
    return miss();
  std::optional<StringRef> payload =
      decodeEntry((*buffer)->getBuffer(), digest);
  if (!payload) {
    ++counters->discarded;
    discard(path, status.getUniqueID());
    return miss();
  }
  ++counters->hits;
  return payload->str();
}

std::optional<std::string>
KernelCache::lookup(const KernelCacheKey &key) const {
  return lookupPath(entryPath(key), key.digest(), /*countMiss=*/true);
}

Error KernelCache::store(const KernelCacheKey &key, StringRef blob) const {
  auto fail = [&](Error error) {
    ++counters->storeFailures;
    return error;
  };
  std::string path = entryPath(key);
  StringRef folder = sys::path::parent_path(path);
  if (Error error = makeFolder(folder))
    return fail(std::move(error));

  // A temporary file in the entry's own folder, so that the rename below is
  // atomic; it is removed if the process dies before keep().
  Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(
      path + ".tmp-%%%%%%%%", sys::fs::perms::owner_read |
                                  sys::fs::perms::owner_write);
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
  ++counters->stores;
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

  // The lock file sits beside the entry, so its folder must exist. Without
  // it (or without a lock) we compile unlocked, which is only slower.
  if (Error error = makeFolder(sys::path::parent_path(path)))
    consumeError(std::move(error));
  // Until |waitSeconds| have passed: take the lock and compile, or wait
  // for its owner and read what it stored. A lock that cannot be made, or
  // an owner gone without storing, is tried again (a few times, for the
  // former) before compiling unlocked.
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(waitSeconds);
  for (unsigned lockErrors = 0; lockErrors < 8;) {
    {
      LockFileManager lock(path);
      switch (lock.getState()) {
      case LockFileManager::LFS_Error:
        ++lockErrors;
        break;
      case LockFileManager::LFS_Owned:
        // Someone may have stored it between our lookup and taking the lock.
        if (std::optional<std::string> hit =
                lookupPath(path, digest, /*countMiss=*/false))
          return std::move(*hit);
        return compileAndStore(key, compile);
      case LockFileManager::LFS_Shared: {
        auto left = std::chrono::duration_cast<std::chrono::seconds>(
            deadline - std::chrono::steady_clock::now());
        lock.waitForUnlock(
            static_cast<unsigned>(std::max<int64_t>(left.count(), 1)));
        if (std::optional<std::string> hit =
                lookupPath(path, digest, /*countMiss=*/false))
          return std::move(*hit);
        break;
      }
      }
    }
    if (std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return compileAndStore(key, compile);
}

Expected<std::string> KernelCache::compileAndStore(
    const KernelCacheKey &key,
    function_ref<Expected<std::string>()> compile) const {
  ++counters->compiles;
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
  return s;
}
