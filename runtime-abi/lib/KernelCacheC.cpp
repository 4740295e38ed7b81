//===- KernelCacheC.cpp - The C API of the kernel cache -------------------===//

#include "tegula/kernel_cache.h"

#include "tegula/KernelCache.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

/// A malloc'ed copy of |text| for the caller to free.
char *copyOut(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (out)
    std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

int fail(char **error, const std::string &message) {
  if (error)
    *error = copyOut(message);
  return -1;
}

std::string text(const char *value) { return value ? value : ""; }

/// "NAME=VALUE" entries as pairs.
std::vector<std::pair<std::string, std::string>>
pairs(const char *const *entries, size_t count) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; entries && i < count; ++i) {
    std::string entry = text(entries[i]);
    size_t equals = entry.find('=');
    out.emplace_back(entry.substr(0, equals),
                     equals == std::string::npos ? "" : entry.substr(equals + 1));
  }
  return out;
}

tegula::KernelCacheKey toKey(const tegula_cache_key &key) {
  tegula::KernelCacheKey out;
  if (key.source)
    out.source.assign(key.source, key.source_size);
  out.signature = text(key.signature);
  out.constexprs = pairs(key.constexprs, key.num_constexprs);
  out.options = pairs(key.options, key.num_options);
  out.target = text(key.target);
  out.pluginName = text(key.plugin_name);
  out.pluginVersion = text(key.plugin_version);
  // The host plugin compiles for this very CPU (its name and features), not
  // for the architecture the target names.
  if (out.pluginName == "host" ||
      llvm::StringRef(out.target).starts_with("host:"))
    out.options.emplace_back("host-cpu", tegula::KernelCacheKey::hostCpu());
  return out;
}

llvm::Expected<tegula::KernelCache> openCache(const char *directory) {
  return directory ? tegula::KernelCache::open(directory)
                   : tegula::KernelCache::openDefault();
}

bool validKey(const tegula_cache_key *key) {
  return key && key->struct_size >= sizeof(tegula_cache_key);
}

} // namespace

extern "C" {

int tegula_cache_lookup(const char *directory, const tegula_cache_key *key,
                        void **data, size_t *size, char **error) {
  if (error)
    *error = nullptr;
  if (!validKey(key) || !data || !size)
    return fail(error, "tegula_cache_lookup: key, data or size is NULL, or "
                       "key.struct_size is too small");
  *data = nullptr;
  *size = 0;
  llvm::Expected<tegula::KernelCache> cache = openCache(directory);
  if (!cache)
    return fail(error, llvm::toString(cache.takeError()));
  std::optional<std::string> entry = cache->lookup(toKey(*key));
  if (!entry)
    return 0;
  void *bytes = std::malloc(entry->size() ? entry->size() : 1);
  if (!bytes)
    return fail(error, "out of memory reading a cache entry");
  std::memcpy(bytes, entry->data(), entry->size());
  *data = bytes;
  *size = entry->size();
  return 1;
}

int tegula_cache_store(const char *directory, const tegula_cache_key *key,
                       const void *data, size_t size, char **error) {
  if (error)
    *error = nullptr;
  if (!validKey(key) || (!data && size))
    return fail(error, "tegula_cache_store: key or data is NULL, or "
                       "key.struct_size is too small");
  llvm::Expected<tegula::KernelCache> cache = openCache(directory);
  if (!cache)
    return fail(error, llvm::toString(cache.takeError()));
  if (llvm::Error failure = cache->store(
          toKey(*key), llvm::StringRef(static_cast<const char *>(data), size)))
    return fail(error, llvm::toString(std::move(failure)));
  return 0;
}

int tegula_cache_default_directory(char **path, char **error) {
  if (error)
    *error = nullptr;
  if (!path)
    return fail(error, "tegula_cache_default_directory: path is NULL");
  llvm::Expected<std::string> directory =
      tegula::KernelCache::defaultDirectory();
  if (!directory)
    return fail(error, llvm::toString(directory.takeError()));
  *path = copyOut(*directory);
  return 0;
}

void tegula_cache_free(void *pointer) { std::free(pointer); }

} // extern "C"
