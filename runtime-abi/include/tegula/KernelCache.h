//===- tegula/KernelCache.h - On-disk cache of compiled kernels -*- C++ -*-===//
//
// A compiled kernel is expensive to make and cheap to keep. KernelCache keeps
// the bytes a compile produced (a kernel image or a whole container) in a
// folder on disk, under a key that covers everything the result depends on,
// and gives them back to a later process that asks with the same key.
//
//   tegula::KernelCacheKey key;
//   key.source = kernelSource;        // and signature, constexprs, options,
//   key.target = "nvidia:sm_90";      // target, plugin name and version
//   ...
//   llvm::Expected<tegula::KernelCache> cache =
//       tegula::KernelCache::openDefault();
//   llvm::Expected<std::string> image = cache->getOrCompile(key, [&] {
//     return compileForReal();
//   });
//
// Guarantees:
//  - A reader never sees half an entry: entries are written to a temporary
//    file in the same folder and renamed into place.
//  - An entry whose checksum, length, format or key does not match is never
//    returned: lookup() deletes it and reports a miss, so it is rebuilt
//    (TEGULA_CACHE_DEBUG=1 prints one line saying why).
//  - Nothing another user could have written is loaded (docs/runtime.md,
//    "Trust"): a folder owned by someone other than the user or root is not
//    used, a folder others may write to (a shared 1777 folder) is used only
//    through the user's own subfolder `<folder>/<uid>` (mode 0700), and an
//    entry owned by another user, writable by others or not a regular file
//    is a miss. Each refusal prints one warning line, once per process per
//    path and reason.
//  - Several threads and processes may use one folder at once; two of them
//    storing the same key leave one complete entry (the last rename wins).
//    getOrCompile() additionally lets one of them compile while the others
//    wait for its result (an flock(2) lock, released by the kernel when its
//    holder dies); temporary files and locks of dead processes are removed.
//  - Folders the cache creates are mode 0700, entries 0600: compiled kernels
//    of one user are not readable by others.
//  - TEGULA_CACHE_STATS=1 prints each folder's hits and misses at exit; the
//    totals are also kept in `<folder>/stats` (statisticsOnDisk()).
//
// This library uses LLVM Support (hashing, files, locks) and is separate from
// libtegula_runtime, which must not load LLVM. docs/runtime.md describes the
// entry format.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_KERNELCACHE_H
#define TEGULA_KERNELCACHE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tegula {

/// Everything a compiled kernel depends on. Two keys name the same entry
/// exactly when their canonical serializations (serialize()) are equal: every
/// field counts, lengths are part of the encoding (so "ab"+"c" differs from
/// "a"+"bc"), and the named lists (constexprs, options) are sorted first, so
/// their order does not matter.
struct KernelCacheKey {
  /// The kernel's source text (or the tile bytecode it is compiled from).
  std::string source;
  /// The kernel's specialized signature, as the front end prints it (argument
  /// types in order, with divisibility), e.g. "*fp32:16,*fp32:16,i32".
  std::string signature;
  /// The `tl.constexpr` values, name and printed value.
  std::vector<std::pair<std::string, std::string>> constexprs;
  /// Compile options (num_warps, num_stages, ...), key and value.
  std::vector<std::pair<std::string, std::string>> options;
  /// The container target, `<backend>:<arch>`, e.g. "nvidia:sm_90".
  std::string target;
  /// The plugin that compiles it and the plugin's own version.
  std::string pluginName;
  std::string pluginVersion;
  /// The compiler's identity: defaultCompilerVersion() unless the caller
  /// knows better (a build that changes code generation without changing the
  /// version should add a build id here, or it will hit stale entries).
  std::string compilerVersion = defaultCompilerVersion();

  /// "tegula <version> (LLVM <version>)" of this build.
  static std::string defaultCompilerVersion();

  /// The exact CPU the host plugin compiles for, as LLVM sees it:
  /// "<llvm::sys::getHostCPUName()> <sorted +feature,-feature list>". A key
  /// for a `host:` target must hold it (the C API adds it as the option
  /// "host-cpu"): the target names only the architecture, the image is built
  /// for this CPU's features, and a cache shared between machines must not
  /// serve one of them code the other compiled.
  static const std::string &hostCpu();

  /// The canonical byte encoding of the key (see the struct's comment).
  std::string serialize() const;
  /// SHA-256 of serialize().
  std::array<uint8_t, 32> digest() const;
  /// digest() as 64 lowercase hex digits.
  std::string hexDigest() const;
};

/// A folder of cached compile results; see the file comment for the
/// guarantees. Cheap to move; every member may be called from several threads
/// at once.
class KernelCache {
public:
  /// The format version written into each entry. Entries of another version
  /// are treated as corrupt (deleted and rebuilt).
  static constexpr uint32_t kFormatVersion = 1;
  /// Size of the header in front of the payload of each entry.
  static constexpr size_t kHeaderSize = 64;

  /// Counters since open(), for tests and diagnostics.
  struct Statistics {
    uint64_t hits = 0;
    uint64_t misses = 0;
    /// Entries found corrupt, truncated, of another format or another key,
    /// and deleted.
    uint64_t discarded = 0;
    uint64_t stores = 0;
    /// store() calls that failed (getOrCompile() swallows these).
    uint64_t storeFailures = 0;
    /// getOrCompile() calls that compiled (the others hit or waited).
    uint64_t compiles = 0;
    /// Entries not trusted (another user's, writable by others, not a
    /// regular file): misses, left alone.
    uint64_t refused = 0;
  };

  /// What a folder holds (statisticsOnDisk()).
  struct DiskStatistics {
    uint64_t entries = 0;
    uint64_t bytes = 0;
    /// Temporary files and locks of processes that are gone.
    uint64_t staleFiles = 0;
    /// The counters of every process that used the folder, added at each
    /// one's exit, since the last clear().
    Statistics totals;
  };

  /// Opens the cache in |directory|, creating it (and missing parents) with
  /// mode 0700. An existing folder keeps its mode, as the XDG base-directory
  /// specification asks. Fails when the folder cannot be created or is not a
  /// folder. A folder that is not trusted (the file comment) opens, but as a
  /// cache that holds nothing and stores nothing: trusted() is false,
  /// untrustedReason() says why, and a warning says so once on stderr.
  static llvm::Expected<KernelCache> open(llvm::StringRef directory);

  /// The default folder: $TEGULA_CACHE_DIR when set and non-empty; otherwise
  /// $XDG_CACHE_HOME/tegula when XDG_CACHE_HOME is an absolute path;
  /// otherwise ~/.cache/tegula. Relative TEGULA_CACHE_DIR values are made
  /// absolute against the current directory. Fails only without a home.
  static llvm::Expected<std::string> defaultDirectory();

  /// open(defaultDirectory()).
  static llvm::Expected<KernelCache> openDefault();

  /// The cache's folder (absolute): the one asked for, or the user's own
  /// subfolder `<folder>/<uid>` of a folder others may write to.
  const std::string &directory() const { return dir; }

  /// Whether the folder may be used; when not, why (one line naming it).
  bool trusted() const { return problem.empty(); }
  const std::string &untrustedReason() const { return problem; }

  /// Where |key|'s entry lives: `<dir>/<first 2 hex digits>/<hex>.tgk`.
  std::string entryPath(const KernelCacheKey &key) const;

  /// The bytes stored for |key|, or nothing. A corrupt, truncated or
  /// mismatching entry is deleted and reported as a miss; so is one that
  /// cannot be read. Never returns part of an entry.
  std::optional<std::string> lookup(const KernelCacheKey &key) const;

  /// Stores |blob| for |key|, replacing any entry, atomically (temporary file
  /// and rename). Fails with the reason when the folder cannot be written.
  llvm::Error store(const KernelCacheKey &key, llvm::StringRef blob) const;

  /// lookup(), and on a miss |compile| then store(). While one thread or
  /// process compiles a key, others asking for the same key wait for it
  /// (up to |waitSeconds|) and then read its entry instead of compiling too;
  /// if that entry does not appear (the owner failed or died, or the wait
  /// timed out) they compile themselves. A failing store() does not fail the
  /// call: the compiled bytes are returned and Statistics::storeFailures
  /// counts it. Errors of |compile| are returned as they are.
  llvm::Expected<std::string>
  getOrCompile(const KernelCacheKey &key,
               llvm::function_ref<llvm::Expected<std::string>()> compile,
               unsigned waitSeconds = 90) const;

  /// The counters so far.
  Statistics statistics() const;

  /// Counts the entries and stale files and reads the totals in `stats`.
  DiskStatistics statisticsOnDisk() const;

  /// Removes temporary files and locks left by dead processes (a process
  /// killed during a compile or a store) anywhere in the folder; returns how
  /// many. store() does this in the entry's subfolder after each store.
  size_t removeStaleFiles() const;

  /// Removes every entry, stale file and the totals; returns how many
  /// entries. Locks held by a running compile stay.
  llvm::Expected<size_t> clear() const;

private:
public:
  /// Internal: the counters of one cache, or of one folder in this process.
  struct Counters {
    std::atomic<uint64_t> hits{0}, misses{0}, discarded{0}, stores{0},
        storeFailures{0}, compiles{0}, refused{0};
  };

private:
  KernelCache(std::string directory, std::string problem);
  void count(std::atomic<uint64_t> Counters::*which) const;

  std::optional<std::string> lookupPath(const std::string &path,
                                        const std::array<uint8_t, 32> &digest,
                                        bool countMiss) const;
  llvm::Expected<std::string>
  compileAndStore(const KernelCacheKey &key,
                  llvm::function_ref<llvm::Expected<std::string>()> compile)
      const;

  std::string dir;
  std::string problem;
  std::unique_ptr<Counters> counters;
  /// This folder's counters for the whole process (TEGULA_CACHE_STATS and
  /// `stats`); owned by a registry that lives until exit.
  Counters *processCounters = nullptr;
};

} // namespace tegula

#endif // TEGULA_KERNELCACHE_H
