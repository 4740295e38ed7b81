//===- KernelCacheTest.cpp - The on-disk kernel cache ---------------------===//
//
// tegula::KernelCache: hits and misses, what the key covers, corruption and
// truncation (detected, deleted, rebuilt), folder modes, the default folder,
// and many writers at once (threads and processes) leaving one valid entry
// without a reader ever seeing part of one; trust (entries and folders other
// users could have written are never loaded: the shared-folder attack of
// issue #21), what processes killed mid-compile leave behind, the host CPU in
// host keys, the statistics and clear().
//
//===----------------------------------------------------------------------===//

#include "tegula/KernelCache.h"
#include "tegula/kernel_cache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace tegula;

namespace {

/// A fresh temporary folder, removed with its contents at scope end.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> path;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("tegula-cache-test", path))
      ADD_FAILURE() << "cannot create a temporary folder: " << ec.message();
    dir = std::string(path);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(dir); }
  std::string sub(llvm::StringRef name) const {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

/// Sets (or with nullptr unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name, saved->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

KernelCacheKey sampleKey() {
  KernelCacheKey key;
  key.source = "@triton.jit\ndef add(x, y, out, n, BLOCK: tl.constexpr): ...";
  key.signature = "*fp32:16,*fp32:16,*fp32:16,i32";
  key.constexprs = {{"BLOCK", "1024"}, {"ACTIVATION", "'relu'"}};
  key.options = {{"num_warps", "4"}, {"num_stages", "3"}};
  key.target = "nvidia:sm_90";
  key.pluginName = "nvidia";
  key.pluginVersion = "0.1.0";
  key.compilerVersion = "tegula 0.1.0 (LLVM 19.1.7)";
  return key;
}

KernelCache openCache(const std::string &dir) {
  llvm::Expected<KernelCache> cache = KernelCache::open(dir);
  if (!cache) {
    ADD_FAILURE() << llvm::toString(cache.takeError());
    std::abort();
  }
  return std::move(*cache);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

unsigned modeOf(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return ~0u;
  return st.st_mode & 07777;
}

/// The names of the files in |dir|.
std::set<std::string> filesIn(const std::string &dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    names.insert(llvm::sys::path::filename(it->path()).str());
  return names;
}

/// A blob whose every byte is |fill|: a torn read would mix two fills.
std::string uniformBlob(char fill, size_t size) {
  return std::string(size, fill);
}

bool isUniform(const std::string &blob) {
  return blob.find_first_not_of(blob.empty() ? '\0' : blob[0]) ==
         std::string::npos;
}

//===-- Hits and misses -------------------------------------------------------===//

TEST(KernelCache, MissThenHitAfterStore) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  EXPECT_FALSE(cache.lookup(key));
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "kernel image bytes")));
  std::optional<std::string> hit = cache.lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(*hit, "kernel image bytes");
  // A second instance (another process, in effect) sees the same entry.
  KernelCache other = openCache(tmp.path());
  EXPECT_EQ(other.lookup(key), std::optional<std::string>("kernel image bytes"));
  KernelCache::Statistics s = cache.statistics();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.discarded, 0u);
}

TEST(KernelCache, BinaryEmptyAndLargeBlobsRoundTrip) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  std::mt19937 rng(std::random_device{}());
  std::string large(3 << 20, '\0');
  for (char &c : large)
    c = static_cast<char>(rng());
  std::string withNul("a\0b\0\xff", 5);
  int i = 0;
  for (const std::string &blob : {std::string(), withNul, large}) {
    KernelCacheKey key = sampleKey();
    key.source += std::to_string(i++);
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, blob)));
    std::optional<std::string> hit = cache.lookup(key);
    ASSERT_TRUE(hit) << "blob of " << blob.size() << " bytes";
    EXPECT_TRUE(*hit == blob) << "blob of " << blob.size() << " bytes";
  }
}

TEST(KernelCache, StoreReplacesTheEntry) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "first")));
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "second, longer")));
  EXPECT_EQ(cache.lookup(key), std::optional<std::string>("second, longer"));
}

TEST(KernelCache, EntryPathIsShardedByTheDigest) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  std::string hex = key.hexDigest();
  ASSERT_EQ(hex.size(), 64u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(cache.entryPath(key),
            cache.directory() + "/" + hex.substr(0, 2) + "/" + hex + ".tgk");
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "x")));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(key)));
}

//===-- The key -----------------------------------------------------------------===//

TEST(KernelCacheKey, EveryPartChangesTheDigest) {
  using Mutation = std::pair<const char *, std::function<void(KernelCacheKey &)>>;
  const std::vector<Mutation> mutations = {
      {"source", [](KernelCacheKey &k) { k.source += " "; }},
      {"signature", [](KernelCacheKey &k) { k.signature = "*fp16:16,*fp32:16,*fp32:16,i32"; }},
      {"constexpr value", [](KernelCacheKey &k) { k.constexprs[0].second = "512"; }},
      {"constexpr name", [](KernelCacheKey &k) { k.constexprs[0].first = "BLOCK_M"; }},
      {"constexpr added", [](KernelCacheKey &k) { k.constexprs.push_back({"EVEN", "True"}); }},
      {"option value", [](KernelCacheKey &k) { k.options[0].second = "8"; }},
      {"option added", [](KernelCacheKey &k) { k.options.push_back({"fp_fusion", "0"}); }},
      {"target", [](KernelCacheKey &k) { k.target = "nvidia:sm_90a"; }},
      {"plugin name", [](KernelCacheKey &k) { k.pluginName = "nvidia2"; }},
      {"plugin version", [](KernelCacheKey &k) { k.pluginVersion = "0.1.1"; }},
      {"compiler version", [](KernelCacheKey &k) { k.compilerVersion += "+1"; }},
  };
  std::map<std::string, std::string> seen;
  seen[sampleKey().hexDigest()] = "the unchanged key";
  for (const auto &[what, mutate] : mutations) {
    KernelCacheKey key = sampleKey();
    mutate(key);
    auto [it, inserted] = seen.emplace(key.hexDigest(), what);
    EXPECT_TRUE(inserted) << "changing the " << what
                          << " gives the same digest as " << it->second;
  }
}

TEST(KernelCacheKey, NamedListsAreOrderIndependent) {
  KernelCacheKey a = sampleKey(), b = sampleKey();
  std::reverse(b.constexprs.begin(), b.constexprs.end());
  std::reverse(b.options.begin(), b.options.end());
  EXPECT_EQ(a.hexDigest(), b.hexDigest());
}

TEST(KernelCacheKey, FieldBoundariesAreEncoded) {
  KernelCacheKey a = sampleKey(), b = sampleKey();
  a.source = "ab";
  a.signature = "c";
  b.source = "a";
  b.signature = "bc";
  EXPECT_NE(a.hexDigest(), b.hexDigest());
  // A value moved between constexprs and options is a different key.
  KernelCacheKey c = sampleKey(), d = sampleKey();
  c.constexprs.push_back({"num_warps", "8"});
  d.options.push_back({"num_warps", "8"});
  EXPECT_NE(c.hexDigest(), d.hexDigest());
  KernelCacheKey e = sampleKey(), f = sampleKey();
  e.constexprs = {{"ab", "c"}};
  f.constexprs = {{"a", "bc"}};
  EXPECT_NE(e.hexDigest(), f.hexDigest());
}

TEST(KernelCacheKey, DigestIsStableAcrossBuilds) {
  // The encoding is part of the on-disk format: changing it silently orphans
  // every cache. Update this digest only together with kFormatVersion. The
  // expected value was computed independently, by a Python transcription of
  // the encoding documented in docs/runtime.md.
  KernelCacheKey key;
  key.source = "s";
  key.signature = "i32";
  key.constexprs = {{"B", "16"}};
  key.options = {{"num_warps", "4"}};
  key.target = "host:x86_64";
  key.pluginName = "host";
  key.pluginVersion = "1.0";
  key.compilerVersion = "tegula test";
  EXPECT_EQ(key.hexDigest(),
            "fdc23056204bf88f406bc32d0aba562b921421d1b0a0c39c7d7db399bfc8e1c8");
}

TEST(KernelCacheKey, DefaultCompilerVersionNamesTegulaAndLLVM) {
  KernelCacheKey key;
  EXPECT_EQ(key.compilerVersion.rfind("tegula ", 0), 0u) << key.compilerVersion;
  EXPECT_NE(key.compilerVersion.find("LLVM 19"), std::string::npos)
      << key.compilerVersion;
}

//===-- Corruption ----------------------------------------------------------------===//

class KernelCacheCorruption : public ::testing::Test {
protected:
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  std::string payload = std::string(1000, 'k') + "end";
  std::string good;

  void SetUp() override {
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, payload)));
    good = readFile(cache.entryPath(key));
    ASSERT_EQ(good.size(), KernelCache::kHeaderSize + payload.size());
  }

  /// Writes |bytes| as the entry, then requires a miss that deletes it, and
  /// that a new store makes it a hit again.
  void expectRejected(const std::string &bytes, const std::string &what) {
    SCOPED_TRACE(what);
    std::string path = cache.entryPath(key);
    writeFile(path, bytes);
    uint64_t discarded = cache.statistics().discarded;
    EXPECT_FALSE(cache.lookup(key)) << "a damaged entry was returned";
    EXPECT_FALSE(llvm::sys::fs::exists(path)) << "the damaged entry was kept";
    EXPECT_EQ(cache.statistics().discarded, discarded + 1);
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, payload)));
    EXPECT_EQ(cache.lookup(key), std::optional<std::string>(payload));
  }
};

TEST_F(KernelCacheCorruption, FlippedByteAnywhereIsDetected) {
  // Magic, checksum, version, header size, payload size, key digest, the
  // first, middle and last payload bytes.
  for (size_t offset : {size_t(0), size_t(7), size_t(8), size_t(15),
                        size_t(16), size_t(20), size_t(24), size_t(31),
                        size_t(32), size_t(63), size_t(64),
                        size_t(64 + 500), good.size() - 1}) {
    std::string bad = good;
    bad[offset] ^= 0x10;
    expectRejected(bad, "byte " + std::to_string(offset) + " flipped");
  }
}

TEST_F(KernelCacheCorruption, TruncatedOrExtendedEntryIsDetected) {
  for (size_t length : {size_t(0), size_t(1), size_t(8), size_t(16),
                        size_t(63), size_t(64), size_t(65),
                        good.size() / 2, good.size() - 1})
    expectRejected(good.substr(0, length),
                   "truncated to " + std::to_string(length) + " bytes");
  expectRejected(good + "x", "one byte appended");
}

TEST_F(KernelCacheCorruption, EntryOfAnotherKeyIsRejected) {
  KernelCacheKey other = sampleKey();
  other.target = "nvidia:sm_80";
  ASSERT_FALSE(llvm::errorToBool(cache.store(other, "other kernel")));
  // A valid entry with a valid checksum, but at the wrong key's path.
  expectRejected(readFile(cache.entryPath(other)), "another key's entry");
  EXPECT_EQ(cache.lookup(other), std::optional<std::string>("other kernel"));
}

TEST_F(KernelCacheCorruption, UnreadableEntryIsAMiss) {
  // A folder where the entry file should be: not readable as a file.
  std::string path = cache.entryPath(key);
  ASSERT_FALSE(llvm::sys::fs::remove(path));
  ASSERT_FALSE(llvm::sys::fs::create_directory(path));
  EXPECT_FALSE(cache.lookup(key));
}

//===-- Folders -----------------------------------------------------------------===//

TEST(KernelCacheFolder, CreatedWithMode0700EntriesWith0600) {
  TempDir tmp;
  // Without a umask the modes below can only come from the cache itself.
  mode_t oldMask = ::umask(0);
  std::string dir = tmp.sub("a/b/tegula");
  KernelCache cache = openCache(dir);
  KernelCacheKey key = sampleKey();
  llvm::Error stored = cache.store(key, "x");
  ::umask(oldMask);
  ASSERT_FALSE(llvm::errorToBool(std::move(stored)));
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(tmp.sub("a")), 0700u) << "created parents are private too";
  std::string entry = cache.entryPath(key);
  EXPECT_EQ(modeOf(llvm::sys::path::parent_path(entry).str()), 0700u);
  EXPECT_EQ(modeOf(entry), 0600u);
}

TEST(KernelCacheFolder, ExistingFolderKeepsItsMode) {
  TempDir tmp;
  std::string dir = tmp.sub("shared");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  openCache(dir);
  EXPECT_EQ(modeOf(dir), 0755u);
}

TEST(KernelCacheFolder, OpenFailsOnAFile) {
  TempDir tmp;
  std::string file = tmp.sub("file");
  writeFile(file, "not a folder");
  llvm::Expected<KernelCache> cache = KernelCache::open(file);
  ASSERT_FALSE(cache);
  std::string message = llvm::toString(cache.takeError());
  EXPECT_NE(message.find(file), std::string::npos) << message;
  llvm::Expected<KernelCache> empty = KernelCache::open("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(llvm::toString(empty.takeError()),
            "the kernel cache folder name is empty");
}

TEST(KernelCacheFolder, StoreThatCannotWriteFailsWithTheReason) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  // A file where the entry's folder belongs: no mode bits involved, so this
  // fails for root too.
  std::string shard =
      llvm::sys::path::parent_path(cache.entryPath(sampleKey())).str();
  writeFile(shard, "in the way");
  llvm::Error error = cache.store(sampleKey(), "x");
  ASSERT_TRUE(!!error);
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find(shard), std::string::npos) << message;
  EXPECT_EQ(cache.statistics().storeFailures, 1u);
  EXPECT_EQ(cache.statistics().stores, 0u);
}

TEST(KernelCacheFolder, DefaultFollowsTegulaCacheDirThenXdgThenHome) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv tegula("TEGULA_CACHE_DIR", "/var/tmp/kernels");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(llvm::cantFail(KernelCache::defaultDirectory()),
              "/var/tmp/kernels");
  }
  {
    ScopedEnv tegula("TEGULA_CACHE_DIR", "");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(llvm::cantFail(KernelCache::defaultDirectory()), "/xdg/tegula");
  }
  {
    ScopedEnv tegula("TEGULA_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(llvm::cantFail(KernelCache::defaultDirectory()),
              "/home/someone/.cache/tegula");
  }
  {
    // The XDG specification: a relative XDG_CACHE_HOME is ignored.
    ScopedEnv tegula("TEGULA_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache");
    EXPECT_EQ(llvm::cantFail(KernelCache::defaultDirectory()),
              "/home/someone/.cache/tegula");
  }
  {
    ScopedEnv tegula("TEGULA_CACHE_DIR", "rel");
    llvm::SmallString<128> cwd;
    ASSERT_FALSE(llvm::sys::fs::current_path(cwd));
    EXPECT_EQ(llvm::cantFail(KernelCache::defaultDirectory()),
              std::string(cwd) + "/rel");
  }
}

TEST(KernelCacheFolder, OpenDefaultCreatesTheXdgFolder) {
  TempDir tmp;
  ScopedEnv tegula("TEGULA_CACHE_DIR", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", tmp.sub("xdg").c_str());
  llvm::Expected<KernelCache> cache = KernelCache::openDefault();
  ASSERT_TRUE(!!cache) << llvm::toString(cache.takeError());
  EXPECT_EQ(cache->directory(), tmp.sub("xdg/tegula"));
  EXPECT_TRUE(llvm::sys::fs::is_directory(tmp.sub("xdg/tegula")));
}

//===-- Concurrency -----------------------------------------------------------===//

/// |iterations| times: store a uniform blob (fill |fill|, a size of its own)
/// and look the key up, which must give a whole blob of one writer. Returns
/// the number of bad reads.
int hammer(const KernelCache &cache, const KernelCacheKey &key, char fill,
           int iterations) {
  int bad = 0;
  auto sizeFor = [](char c) -> size_t {
    return 4096 + 977 * size_t(static_cast<unsigned char>(c));
  };
  size_t size = sizeFor(fill);
  for (int i = 0; i < iterations; ++i) {
    if (llvm::Error error = cache.store(key, uniformBlob(fill, size))) {
      llvm::consumeError(std::move(error));
      ++bad;
    }
    std::optional<std::string> blob = cache.lookup(key);
    // The entry exists from the first store on: a miss is a bad read too.
    if (!blob || blob->empty() || !isUniform(*blob) ||
        blob->size() != sizeFor((*blob)[0]))
      ++bad;
  }
  return bad;
}

/// The entry's folder holds exactly the entry: one file, no temporaries,
/// no lock files.
void expectOnlyTheEntry(const KernelCache &cache, const KernelCacheKey &key) {
  std::string entry = cache.entryPath(key);
  std::set<std::string> files =
      filesIn(llvm::sys::path::parent_path(entry).str());
  EXPECT_EQ(files, std::set<std::string>{
                       llvm::sys::path::filename(entry).str()});
  EXPECT_TRUE(cache.lookup(key));
}

TEST(KernelCacheConcurrency, EightThreadsWritingOneKey) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back(
        [&, t] { bad += hammer(cache, key, static_cast<char>('a' + t), 100); });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(cache.statistics().discarded, 0u) << "a reader saw a torn entry";
  expectOnlyTheEntry(cache, key);
}

TEST(KernelCacheConcurrency, TwoProcessesWritingOneKey) {
  TempDir tmp;
  KernelCacheKey key = sampleKey();
  pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    // The child reports through its exit status only.
    KernelCache cache = openCache(tmp.path());
    int bad = hammer(cache, key, 'c', 300);
    ::_exit(bad == 0 && cache.statistics().discarded == 0 ? 0 : 1);
  }
  KernelCache cache = openCache(tmp.path());
  int bad = hammer(cache, key, 'p', 300);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child process saw a bad entry";
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(cache.statistics().discarded, 0u);
  expectOnlyTheEntry(cache, key);
}

//===-- getOrCompile --------------------------------------------------------===//

TEST(KernelCacheCompile, CompilesOnceThenHits) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  int compiles = 0;
  auto compile = [&]() -> llvm::Expected<std::string> {
    ++compiles;
    return std::string("image");
  };
  EXPECT_EQ(llvm::cantFail(cache.getOrCompile(sampleKey(), compile)), "image");
  EXPECT_EQ(llvm::cantFail(cache.getOrCompile(sampleKey(), compile)), "image");
  EXPECT_EQ(compiles, 1);
  expectOnlyTheEntry(cache, sampleKey());
}

TEST(KernelCacheCompile, CompileErrorsPassThroughAndStoreNothing) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  llvm::Expected<std::string> result =
      cache.getOrCompile(sampleKey(), []() -> llvm::Expected<std::string> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "tl.dot expects 2-D operands");
      });
  ASSERT_FALSE(result);
  EXPECT_EQ(llvm::toString(result.takeError()), "tl.dot expects 2-D operands");
  EXPECT_FALSE(cache.lookup(sampleKey()));
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryPath(sampleKey()) + ".lock"));
}

TEST(KernelCacheCompile, EightThreadsCompileOnce) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  std::atomic<int> compiles{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      llvm::Expected<std::string> image =
          cache.getOrCompile(sampleKey(), [&]() -> llvm::Expected<std::string> {
            ++compiles;
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            return std::string("compiled once");
          });
      if (!image || *image != "compiled once")
        ++wrong;
      if (!image)
        llvm::consumeError(image.takeError());
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(compiles.load(), 1);
  EXPECT_EQ(wrong.load(), 0);
  expectOnlyTheEntry(cache, sampleKey());
}

TEST(KernelCacheCompile, TwoProcessesCompileOnce) {
  TempDir tmp;
  std::string log = tmp.sub("compiles.log");
  auto run = [&](const char *who) {
    KernelCache cache = openCache(tmp.sub("cache"));
    llvm::Expected<std::string> image =
        cache.getOrCompile(sampleKey(), [&]() -> llvm::Expected<std::string> {
          // O_APPEND: both processes' lines survive.
          int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
          std::string line = std::string(who) + "\n";
          (void)!::write(fd, line.data(), line.size());
          ::close(fd);
          std::this_thread::sleep_for(std::chrono::milliseconds(500));
          return std::string("image");
        });
    bool ok = image && *image == "image";
    if (!image)
      llvm::consumeError(image.takeError());
    return ok;
  };
  pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0)
    ::_exit(run("child") ? 0 : 1);
  bool ok = run("parent");
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::string compiled = readFile(log);
  EXPECT_TRUE(compiled == "child\n" || compiled == "parent\n")
      << "compiled by: " << compiled;
}

TEST(KernelCacheCompile, UnwritableCacheStillCompiles) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  writeFile(llvm::sys::path::parent_path(cache.entryPath(sampleKey())).str(),
            "in the way");
  llvm::Expected<std::string> image =
      cache.getOrCompile(sampleKey(), []() -> llvm::Expected<std::string> {
        return std::string("image");
      });
  ASSERT_TRUE(!!image) << llvm::toString(image.takeError());
  EXPECT_EQ(*image, "image");
  KernelCache::Statistics s = cache.statistics();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.storeFailures, 1u);
}

//===-- Trust -------------------------------------------------------------------===//

/// The uid "another user" is in these tests: nobody.
constexpr uid_t kOtherUser = 65534;

#define REQUIRE_ROOT()                                                         \
  do {                                                                         \
    if (::geteuid() != 0)                                                      \
      GTEST_SKIP() << "needs root, to make files owned by another user "       \
                      "(uid 65534)";                                           \
  } while (0)

/// chown -R |path| to |uid|.
void chownTree(const std::string &path, uid_t uid) {
  ASSERT_EQ(::lchown(path.c_str(), uid, uid), 0) << path;
  if (!llvm::sys::fs::is_directory(path))
    return;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(path, ec), end;
       it != end && !ec; it.increment(ec))
    ASSERT_EQ(::lchown(it->path().c_str(), uid, uid), 0) << it->path();
}

/// A valid entry for |key| holding |payload|, as another process (or user)
/// with the same code would write it: checksum and all.
std::string validEntryBytes(const KernelCacheKey &key,
                            const std::string &payload) {
  TempDir elsewhere;
  KernelCache cache = openCache(elsewhere.path());
  EXPECT_FALSE(llvm::errorToBool(cache.store(key, payload)));
  return readFile(cache.entryPath(key));
}

/// Writes |bytes| at |path|, creating the folders on the way.
void plant(const std::string &path, const std::string &bytes) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(
      llvm::sys::path::parent_path(path)));
  writeFile(path, bytes);
  ASSERT_EQ(readFile(path), bytes);
}

TEST(KernelCacheTrust, EntryOwnedByAnotherUserIsAMiss) {
  REQUIRE_ROOT();
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "planted code")));
  std::string entry = cache.entryPath(key);
  chownTree(entry, kOtherUser);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(key)) << "another user's entry was loaded";
  EXPECT_FALSE(cache.lookup(key));
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings, "tegula: warning: kernel cache entry " + entry +
                          " is owned by user 65534, neither you (user 0) "
                          "nor root; ignoring it\n")
      << "one line, once";
  EXPECT_TRUE(llvm::sys::fs::exists(entry)) << "not the user's to delete";
  // A store replaces it with the user's own, which loads.
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "own code")));
  EXPECT_EQ(cache.lookup(key), std::optional<std::string>("own code"));
}

TEST(KernelCacheTrust, EntryWritableByOthersOrNotAFileIsAMiss) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "image")));
  std::string entry = cache.entryPath(key);
  for (mode_t mode : {0666, 0620}) {
    ASSERT_EQ(::chmod(entry.c_str(), mode), 0);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.lookup(key)) << "mode " << std::oct << mode;
    std::string warning = testing::internal::GetCapturedStderr();
    if (mode == 0666)
      EXPECT_NE(warning.find(entry + " is writable by others (mode 0666)"),
                std::string::npos)
          << warning;
  }
  // A symbolic link to a valid entry (the cache never writes one).
  std::string real = tmp.sub("real.tgk");
  ASSERT_EQ(::chmod(entry.c_str(), 0600), 0);
  ASSERT_EQ(::rename(entry.c_str(), real.c_str()), 0);
  ASSERT_EQ(::symlink(real.c_str(), entry.c_str()), 0);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(key)) << "a symbolic link was followed";
  EXPECT_NE(testing::internal::GetCapturedStderr().find("symbolic link"),
            std::string::npos);
  // A FIFO: a miss at once, never a reader blocked on it.
  ASSERT_EQ(::unlink(entry.c_str()), 0);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(key));
  testing::internal::GetCapturedStderr();
  EXPECT_GE(cache.statistics().refused, 4u);
}

TEST(KernelCacheTrust, SharedFolderIsUsedThroughAPrivateSubfolder) {
  TempDir tmp;
  std::string shared = tmp.sub("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  KernelCache cache = openCache(shared);
  std::string own = shared + "/" + std::to_string(::geteuid());
  EXPECT_EQ(cache.directory(), own);
  EXPECT_EQ(modeOf(own), 0700u);
  EXPECT_EQ(modeOf(shared), 01777u) << "the shared folder keeps its mode";
  KernelCacheKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "image")));
  EXPECT_EQ(cache.entryPath(key).rfind(own + "/", 0), 0u);
  EXPECT_EQ(openCache(shared).lookup(key), std::optional<std::string>("image"));
}

// The attack of issue #21: another user plants an entry with a recomputed
// checksum in a shared 1777 folder, where the victim's key will look.
TEST(KernelCacheTrust, EntryPlantedInASharedFolderIsRefused) {
  REQUIRE_ROOT();
  TempDir tmp;
  std::string shared = tmp.sub("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  KernelCacheKey key = sampleKey();
  std::string evil = validEntryBytes(key, "attacker's code");
  std::string hex = key.hexDigest();
  std::string shard = hex.substr(0, 2) + "/" + hex + ".tgk";
  // Where the entry lies without a private subfolder, and inside the
  // victim's subfolder, made first by the attacker (owned by them, 0777).
  std::string own = shared + "/" + std::to_string(::geteuid());
  plant(shared + "/" + shard, evil);
  plant(own + "/" + shard, evil);
  ASSERT_EQ(::chmod(own.c_str(), 0777), 0);
  chownTree(shared + "/" + hex.substr(0, 2), kOtherUser);
  chownTree(own, kOtherUser);
  ASSERT_EQ(::chown(shared.c_str(), 0, 0), 0);

  testing::internal::CaptureStderr();
  KernelCache cache = openCache(shared);
  EXPECT_FALSE(cache.lookup(key)) << "the planted entry was loaded";
  EXPECT_FALSE(openCache(shared).lookup(key));
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings, "tegula: warning: kernel cache folder " + own +
                          " is owned by user 65534, not by you (user 0); "
                          "not using the cache\n")
      << "one line, once per process";
  EXPECT_FALSE(cache.trusted());
  EXPECT_EQ(cache.untrustedReason(),
            "kernel cache folder " + own +
                " is owned by user 65534, not by you (user 0); not using "
                "the cache");
  // Nothing is stored there, and compiling still works.
  llvm::Error stored = cache.store(key, "victim's code");
  ASSERT_TRUE(!!stored);
  EXPECT_NE(llvm::toString(std::move(stored)).find(own), std::string::npos);
  int compiles = 0;
  llvm::Expected<std::string> image =
      cache.getOrCompile(key, [&]() -> llvm::Expected<std::string> {
        ++compiles;
        return std::string("victim's code");
      });
  ASSERT_TRUE(!!image);
  EXPECT_EQ(*image, "victim's code");
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(readFile(own + "/" + shard), evil);
}

TEST(KernelCacheTrust, FolderOfAnotherUserIsNotUsed) {
  REQUIRE_ROOT();
  TempDir tmp;
  std::string theirs = tmp.sub("theirs");
  KernelCacheKey key = sampleKey();
  std::string hex = key.hexDigest();
  plant(theirs + "/" + hex.substr(0, 2) + "/" + hex + ".tgk",
        validEntryBytes(key, "attacker's code"));
  ASSERT_EQ(::chmod(theirs.c_str(), 0755), 0);
  chownTree(theirs, kOtherUser);
  testing::internal::CaptureStderr();
  KernelCache cache = openCache(theirs);
  EXPECT_FALSE(cache.lookup(key)) << "an entry of another user's folder "
                                     "was loaded";
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warning, "tegula: warning: kernel cache folder " + theirs +
                         " is owned by user 65534, neither you (user 0) nor "
                         "root; not using the cache\n");
}

TEST(KernelCacheTrust, OwnGroupWritableFolderUsesASubfolder) {
  TempDir tmp;
  std::string dir = tmp.sub("group");
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0770), 0);
  KernelCache cache = openCache(dir);
  EXPECT_TRUE(cache.trusted());
  EXPECT_EQ(cache.directory(), dir + "/" + std::to_string(::geteuid()));
}

TEST(KernelCacheTrust, DamagedEntriesSayWhyInDebugMode) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "image")));
  std::string entry = cache.entryPath(key);
  std::string bytes = readFile(entry);
  bytes.back() ^= 1;
  writeFile(entry, bytes);
  {
    ScopedEnv debug("TEGULA_CACHE_DEBUG", "1");
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.lookup(key));
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "tegula: kernel cache: " + entry +
                  ": bad checksum; deleted, to be rebuilt\n");
  }
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, "image")));
  writeFile(entry, "short");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(key));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "")
      << "quiet without TEGULA_CACHE_DEBUG";
}

//===-- What killed processes leave behind ------------------------------------===//

/// The pid of a process that has exited (and been reaped).
pid_t deadPid() {
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  int status;
  ::waitpid(child, &status, 0);
  return child;
}

std::string hostName(bool forFileName) {
  char name[256] = {0};
  ::gethostname(name, sizeof(name) - 1);
  if (!forFileName)
    return name;
  std::string out;
  for (const char *c = name; *c && out.size() < 32; ++c)
    out += (llvm::isAlnum(*c) || *c == '-' || *c == '.') ? *c : '_';
  return out;
}

TEST(KernelCacheStale, CompileKilledWithSigkillLeavesNothingBehind) {
  TempDir tmp;
  KernelCacheKey key = sampleKey();
  std::string started = tmp.sub("started");
  std::string dir = tmp.sub("cache");
  pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    KernelCache cache = openCache(dir);
    (void)cache.getOrCompile(key, [&]() -> llvm::Expected<std::string> {
      writeFile(started, "1");
      for (;;)
        ::pause();
    });
    ::_exit(1);
  }
  for (int i = 0; i < 2000 && !llvm::sys::fs::exists(started); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(llvm::sys::fs::exists(started)) << "the child never compiled";
  ::kill(child, SIGKILL);
  int status;
  ASSERT_EQ(::waitpid(child, &status, 0), child);

  KernelCache cache = openCache(dir);
  auto begin = std::chrono::steady_clock::now();
  llvm::Expected<std::string> image =
      cache.getOrCompile(key, []() -> llvm::Expected<std::string> {
        return std::string("image");
      });
  ASSERT_TRUE(!!image) << llvm::toString(image.takeError());
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5))
      << "waited for the dead process's lock";
  // No lock file of the killed compile is left (issue #21: each kill -9
  // left a .lock-XXXX file).
  expectOnlyTheEntry(cache, key);
}

TEST(KernelCacheStale, FilesOfDeadProcessesAreRemoved) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  KernelCacheKey key = sampleKey();
  std::string entry = cache.entryPath(key);
  std::string folder = llvm::sys::path::parent_path(entry).str();
  pid_t dead = deadPid();
  std::string host = hostName(/*forFileName=*/true);
  // A store killed before its rename, a lock of llvm::LockFileManager (the
  // cache's former lock) whose holder was killed, and an flock lock file of
  // a killed compile.
  plant(entry + ".tmp-" + host + "-" + std::to_string(dead) + "-abcdefgh",
        "half an entry");
  plant(entry + ".lock-12345678", hostName(false) + " " + std::to_string(dead));
  plant(entry + ".lock", "");
  // The same of a live process (this one) stay.
  std::string live = entry + ".tmp-" + host + "-" +
                     std::to_string(::getpid()) + "-abcdefgh";
  plant(live, "being written");
  ASSERT_EQ(filesIn(folder).size(), 4u);
  llvm::Expected<std::string> image =
      cache.getOrCompile(key, []() -> llvm::Expected<std::string> {
        return std::string("image");
      });
  ASSERT_TRUE(!!image);
  std::set<std::string> files = filesIn(folder);
  EXPECT_EQ(files.count(llvm::sys::path::filename(entry).str()), 1u);
  for (const std::string &name : files)
    EXPECT_TRUE(llvm::StringRef(name).ends_with(".tgk") ||
                name == llvm::sys::path::filename(live))
        << "left behind: " << name;
  EXPECT_TRUE(llvm::sys::fs::exists(live)) << "a live process's file went";
}

//===-- The host CPU ------------------------------------------------------------===//

/// The CPU as LLVM describes it, computed here independently of the cache.
std::string thisCpu() {
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.push_back((feature.getValue() ? "+" : "-") +
                       feature.getKey().str());
  std::sort(features.begin(), features.end(),
            [](const std::string &a, const std::string &b) {
              return llvm::StringRef(a).drop_front() <
                     llvm::StringRef(b).drop_front();
            });
  return llvm::sys::getHostCPUName().str() + " " + llvm::join(features, ",");
}

TEST(KernelCacheC, HostKeysHoldTheExactCpu) {
  TempDir tmp;
  const char *source = "def kernel(): pass";
  tegula_cache_key key{};
  key.struct_size = sizeof(key);
  key.source = source;
  key.source_size = std::strlen(source);
  key.signature = "i32";
  key.target = "host:x86_64";
  key.plugin_name = "host";
  key.plugin_version = "0.1.0";
  char *error = nullptr;
  ASSERT_EQ(tegula_cache_store(tmp.path().c_str(), &key, "image", 5, &error), 0)
      << error;
  KernelCacheKey archOnly;
  archOnly.source = source;
  archOnly.signature = "i32";
  archOnly.target = "host:x86_64";
  archOnly.pluginName = "host";
  archOnly.pluginVersion = "0.1.0";
  KernelCache cache = openCache(tmp.path());
  // A machine of the same architecture with another CPU names another entry.
  EXPECT_FALSE(cache.lookup(archOnly))
      << "the host key names the architecture only";
  KernelCacheKey exact = archOnly;
  exact.options.push_back({"host-cpu", thisCpu()});
  EXPECT_EQ(cache.lookup(exact), std::optional<std::string>("image"));
  EXPECT_NE(thisCpu().find(llvm::sys::getHostCPUName().str()),
            std::string::npos);
}

//===-- Statistics and clear -----------------------------------------------------===//

TEST(KernelCacheStats, PrintedAtExitAndAddedUpOnDisk) {
  TempDir tmp;
  std::string dir = tmp.sub("cache");
  std::string log = tmp.sub("stderr");
  KernelCacheKey key = sampleKey();
  for (int run = 0; run < 2; ++run) {
    pid_t child = ::fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
      // A process that exits normally: its counters go out at exit.
      if (!std::freopen(log.c_str(), "w", stderr))
        ::_exit(3);
      setenv("TEGULA_CACHE_STATS", "1", 1);
      KernelCache cache = openCache(dir);
      (void)cache.getOrCompile(key, []() -> llvm::Expected<std::string> {
        return std::string("image");
      });
      std::exit(0);
    }
    int status;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::string expected =
        "tegula: kernel cache " + dir +
        (run == 0 ? ": 0 hits, 1 misses, 1 compiles, 1 stores, 0 discarded, "
                    "0 refused\n"
                  : ": 1 hits, 0 misses, 0 compiles, 0 stores, 0 discarded, "
                    "0 refused\n");
    EXPECT_EQ(readFile(log), expected) << "run " << run;
  }
  KernelCache::DiskStatistics disk = openCache(dir).statisticsOnDisk();
  EXPECT_EQ(disk.entries, 1u);
  EXPECT_EQ(disk.bytes, KernelCache::kHeaderSize + 5);
  EXPECT_EQ(disk.totals.hits, 1u);
  EXPECT_EQ(disk.totals.misses, 1u);
  EXPECT_EQ(disk.totals.compiles, 1u);
  EXPECT_EQ(disk.totals.stores, 1u);
}

TEST(KernelCacheStats, ClearRemovesEntriesStaleFilesAndTotals) {
  TempDir tmp;
  KernelCache cache = openCache(tmp.path());
  for (int i = 0; i < 3; ++i) {
    KernelCacheKey key = sampleKey();
    key.source += std::to_string(i);
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, "image")));
  }
  std::string entry = cache.entryPath(sampleKey());
  plant(entry + ".tmp-" + hostName(true) + "-" + std::to_string(deadPid()) +
            "-abcdefgh",
        "half");
  writeFile(tmp.sub("stats"), "hits 7\nmisses 3\n");
  KernelCache::DiskStatistics before = cache.statisticsOnDisk();
  EXPECT_EQ(before.entries, 3u);
  EXPECT_EQ(before.staleFiles, 1u);
  EXPECT_EQ(before.totals.hits, 7u);
  EXPECT_EQ(before.totals.misses, 3u);
  // A link out of the cache, named like an entry folder, is not followed.
  TempDir outside;
  writeFile(outside.sub("keep.tgk"), "not the cache's");
  std::string link;
  for (int i = 0; i < 256 && link.empty(); ++i) {
    char name[3];
    std::snprintf(name, sizeof(name), "%02x", i);
    if (!llvm::sys::fs::exists(tmp.sub(name)))
      link = tmp.sub(name);
  }
  ASSERT_EQ(::symlink(outside.path().c_str(), link.c_str()), 0);
  llvm::Expected<size_t> removed = cache.clear();
  ASSERT_TRUE(!!removed);
  EXPECT_EQ(*removed, 3u);
  EXPECT_TRUE(llvm::sys::fs::exists(outside.sub("keep.tgk")))
      << "clear() followed a link out of the cache";
  ASSERT_EQ(::unlink(link.c_str()), 0);
  KernelCache::DiskStatistics after = cache.statisticsOnDisk();
  EXPECT_EQ(after.entries, 0u);
  EXPECT_EQ(after.staleFiles, 0u);
  EXPECT_EQ(after.totals.hits, 0u);
  EXPECT_EQ(filesIn(tmp.path()), std::set<std::string>{});
}

} // namespace

// The C API (tegula/kernel_cache.h) over the same entries as the C++ one.
TEST(KernelCacheC, LookupStoreAndErrors) {
  TempDir tmp;
  const char *options[] = {"num_warps=4", "env:TEGULA_X=<unset>"};
  const char *source = "def kernel(): pass";
  tegula_cache_key key{};
  key.struct_size = sizeof(key);
  key.source = source;
  key.source_size = std::strlen(source);
  key.signature = "*fp32:16, i32";
  key.options = options;
  key.num_options = 2;
  key.target = "host:x86_64";
  key.plugin_name = "host";
  key.plugin_version = "0.1.0";
  void *data = nullptr;
  size_t size = 0;
  char *error = nullptr;
  EXPECT_EQ(tegula_cache_lookup(tmp.path().c_str(), &key, &data, &size, &error),
            0);
  EXPECT_EQ(error, nullptr);
  ASSERT_EQ(tegula_cache_store(tmp.path().c_str(), &key, "image", 5, &error), 0)
      << error;
  ASSERT_EQ(tegula_cache_lookup(tmp.path().c_str(), &key, &data, &size, &error),
            1);
  EXPECT_EQ(std::string(static_cast<char *>(data), size), "image");
  tegula_cache_free(data);

  // The C++ key with the same fields names the same entry; another option
  // value names another.
  KernelCacheKey same;
  same.source = source;
  same.signature = "*fp32:16, i32";
  same.options = {{"env:TEGULA_X", "<unset>"}, {"num_warps", "4"}};
  same.target = "host:x86_64";
  same.pluginName = "host";
  same.pluginVersion = "0.1.0";
  same.options.push_back({"host-cpu", KernelCacheKey::hostCpu()});
  EXPECT_EQ(openCache(tmp.path()).lookup(same),
            std::optional<std::string>("image"));
  options[0] = "num_warps=8";
  EXPECT_EQ(tegula_cache_lookup(tmp.path().c_str(), &key, &data, &size, &error),
            0);

  key.struct_size = 8;
  EXPECT_EQ(tegula_cache_lookup(tmp.path().c_str(), &key, &data, &size, &error),
            -1);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("struct_size is too small"),
            std::string::npos);
  tegula_cache_free(error);
  key.struct_size = sizeof(key);
  std::string file = tmp.sub("a-file");
  std::ofstream(file) << "x";
  EXPECT_EQ(tegula_cache_store(file.c_str(), &key, "image", 5, &error), -1);
  ASSERT_NE(error, nullptr);
  tegula_cache_free(error);
}
