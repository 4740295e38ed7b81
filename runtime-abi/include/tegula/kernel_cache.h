/*===- tegula/kernel_cache.h - The on-disk kernel cache, from C ---*- C -*-===//
 *
 * A C view of tegula::KernelCache (tegula/KernelCache.h) for callers that
 * cannot use C++, such as the Python package through ctypes: look an entry up
 * by its key, store one. libtegula_kernel_cache; not part of
 * libtegula_runtime (it links LLVM Support). Entries are whatever bytes the
 * caller stores (Python stores a one-image kernel container).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TEGULA_KERNEL_CACHE_H
#define TEGULA_KERNEL_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TEGULA_API
#define TEGULA_API __attribute__((visibility("default")))
#endif

/** Everything a cached kernel depends on (tegula::KernelCacheKey). Strings
 *  are NUL-terminated; NULL reads as "". The lists are "NAME=VALUE" texts in
 *  any order. For the host plugin (plugin_name "host" or a "host:" target)
 *  the key also holds the exact CPU (tegula::KernelCacheKey::hostCpu()), as
 *  the option "host-cpu". */
typedef struct tegula_cache_key {
  size_t struct_size;
  const char *source;
  size_t source_size;
  const char *signature;
  const char *const *constexprs;
  size_t num_constexprs;
  /** Compile options, and anything else that changes the result (the
   *  values of the environment variables the options read, a build id). */
  const char *const *options;
  size_t num_options;
  const char *target;
  const char *plugin_name;
  const char *plugin_version;
} tegula_cache_key;

/** Looks |key| up in the cache folder |directory| (NULL: the default,
 *  $TEGULA_CACHE_DIR, else $XDG_CACHE_HOME/tegula, else ~/.cache/tegula).
 *  Returns 1 and the entry's bytes in *|data| / *|size| (free with
 *  tegula_cache_free) on a hit, 0 on a miss, -1 on an error (the folder
 *  cannot be opened) with the message in *|error| (free with
 *  tegula_cache_free). A corrupt entry is deleted and is a miss; so is a
 *  folder or entry that is not trusted (docs/runtime.md, "Trust"), with a
 *  warning on stderr once per path. */
TEGULA_API int tegula_cache_lookup(const char *directory,
                                   const tegula_cache_key *key, void **data,
                                   size_t *size, char **error);

/** Stores |size| bytes at |data| for |key|, atomically. Returns 0, or -1
 *  with the reason in *|error| (free with tegula_cache_free); an untrusted
 *  folder is such an error. */
TEGULA_API int tegula_cache_store(const char *directory,
                                  const tegula_cache_key *key,
                                  const void *data, size_t size, char **error);

/** The folder a NULL |directory| means, in *|path| (free with
 *  tegula_cache_free); 0, or -1 with *|error|. */
TEGULA_API int tegula_cache_default_directory(char **path, char **error);

/** Frees what the functions above returned; NULL is fine. */
TEGULA_API void tegula_cache_free(void *pointer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_KERNEL_CACHE_H */
