//===- Cache.cpp - `tegula cache` -----------------------------------------===//
//
// tegula cache [dir|stats|clear]: the on-disk kernel cache
// (tegula/KernelCache.h) that `tegula compile` and Python launches share.
// `stats` prints what the folder holds and the hits and misses every
// process added up (TEGULA_CACHE_STATS=1 prints one process's at its exit);
// `clear` removes every entry.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tegula/KernelCache.h"

#include <cstdio>
#include <string>

using namespace tegula;

namespace {

const char *kUsage =
    "usage: tegula cache dir|stats|clear\n"
    "\n"
    "The on-disk kernel cache of `tegula compile` and of Python launches:\n"
    "$TEGULA_CACHE_DIR, else $XDG_CACHE_HOME/tegula, else ~/.cache/tegula\n"
    "(the user's own subfolder <folder>/<uid> of a folder others may write).\n"
    "  dir    the folder\n"
    "  stats  entries, bytes, stale files and the hits and misses of every\n"
    "         process since the last clear\n"
    "  clear  removes every entry\n";

} // namespace

int tegula::cli::runCache(const std::vector<std::string> &args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.size() != 1 ||
      (args[0] != "dir" && args[0] != "stats" && args[0] != "clear")) {
    std::fprintf(stderr, "tegula cache: %s\n\n%s",
                 args.empty() ? "name what to do"
                              : ("unknown request '" + args[0] + "'").c_str(),
                 kUsage);
    return 2;
  }
  llvm::Expected<KernelCache> cache = KernelCache::openDefault();
  if (!cache) {
    std::fprintf(stderr, "tegula cache: error: %s\n",
                 llvm::toString(cache.takeError()).c_str());
    return 1;
  }
  const std::string &request = args[0];
  if (request == "dir") {
    std::printf("%s\n", cache->directory().c_str());
    return cache->trusted() ? 0 : 1;
  }
  if (!cache->trusted()) {
    // open() has printed the warning.
    std::fprintf(stderr, "tegula cache: error: %s\n",
                 cache->untrustedReason().c_str());
    return 1;
  }
  if (request == "clear") {
    llvm::Expected<size_t> removed = cache->clear();
    if (!removed) {
      std::fprintf(stderr, "tegula cache: error: %s\n",
                   llvm::toString(removed.takeError()).c_str());
      return 1;
    }
    std::printf("removed %zu entries from %s\n", *removed,
                cache->directory().c_str());
    return 0;
  }
  KernelCache::DiskStatistics s = cache->statisticsOnDisk();
  const KernelCache::Statistics &t = s.totals;
  std::printf("folder:      %s\n", cache->directory().c_str());
  std::printf("entries:     %llu (%llu bytes)\n",
              (unsigned long long)s.entries, (unsigned long long)s.bytes);
  std::printf("stale files: %llu\n", (unsigned long long)s.staleFiles);
  std::printf("hits:        %llu\n", (unsigned long long)t.hits);
  std::printf("misses:      %llu\n", (unsigned long long)t.misses);
  std::printf("compiles:    %llu\n", (unsigned long long)t.compiles);
  std::printf("stores:      %llu (%llu failed)\n",
              (unsigned long long)t.stores,
              (unsigned long long)t.storeFailures);
  std::printf("discarded:   %llu (damaged)\n", (unsigned long long)t.discarded);
  std::printf("refused:     %llu (not trusted)\n",
              (unsigned long long)t.refused);
  return 0;
}
