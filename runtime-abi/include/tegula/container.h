/*===- tegula/container.h - The multi-target kernel container -----*- C -*-===//
 *
 * One file that carries a kernel compiled for several targets at once (say
 * nvidia:sm_90, amd:gfx942, intel, host:x86_64), each image with its
 * metadata; the runtime picks the image for the device at hand.
 *
 * On-disk format, version 1.0. All integers little-endian; offsets are from
 * the start of the file. (docs/runtime.md has the same as a table.)
 *
 *   Header, 32 bytes:
 *     0   8  magic "TGKC\r\n\x1a\n" (54 47 4B 43 0D 0A 1A 0A)
 *     8   2  major version (1)
 *     10  2  minor version (0)
 *     12  4  entry count N
 *     16  8  file size in bytes, header included
 *     24  4  CRC-32 (ISO-HDLC, as zlib's crc32) of bytes [32, file size)
 *     28  2  entry size E (32 in 1.0)
 *     30  2  reserved, 0
 *   Entry table at offset 32, N entries of E bytes (1.0 readers use the first
 *   32 bytes of each and skip the rest):
 *     0   8  image offset      8   8  image size
 *     16  8  metadata offset   24  8  metadata size
 *   Metadata record (at its offset; bytes past the 1.0 fields are ignored):
 *     0   4  num_warps         4   4  shared_memory
 *     8   4  num_args          12  4  reserved, 0
 *     16  .  target, name, specialization: each a u32 length + UTF-8 bytes
 *     .   .  num_args times: u32 kind, u32 type, u32 divisibility,
 *            u32 name length, name bytes
 *   Image and metadata ranges lie after the entry table and inside the file;
 *   the writer aligns each to 16 bytes.
 *
 * Compatibility: a reader accepts its own major version with any minor (a
 * newer minor only adds bytes at the ends of entries and records, or new
 * fields the entry size and record size make skippable); another major is
 * TG_ERROR_VERSION_MISMATCH. Everything else wrong (magic, truncation,
 * checksum, ranges, lengths) is TG_ERROR_INVALID_FORMAT with a message that
 * names the problem.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TEGULA_CONTAINER_H
#define TEGULA_CONTAINER_H

#include "tegula/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEGULA_CONTAINER_MAJOR 1
#define TEGULA_CONTAINER_MINOR 0

typedef struct tegula_container tegula_container_t;
typedef struct tegula_container_writer tegula_container_writer_t;

/** One image in a container. Pointers live as long as the container. */
typedef struct tegula_container_entry {
  size_t struct_size;
  /** Same as metadata->target. */
  const char *target;
  const void *image;
  size_t image_size;
  const tg_kernel_metadata *metadata;
} tegula_container_entry;

/*===-- Reading -----------------------------------------------------------===*/

/** Validates and parses |size| bytes at |data| (copied; the caller may free
 *  them afterwards). */
TEGULA_API tegula_error_t *tegula_container_read(const void *data,
                                                 size_t size,
                                                 tegula_container_t **out);
/** tegula_container_read on a file's contents. */
TEGULA_API tegula_error_t *
tegula_container_read_file(const char *path, tegula_container_t **out);
TEGULA_API void tegula_container_destroy(tegula_container_t *container);

/** The file's format version. */
TEGULA_API void tegula_container_get_version(const tegula_container_t *c,
                                             uint32_t *major, uint32_t *minor);
TEGULA_API size_t
tegula_container_get_entry_count(const tegula_container_t *c);
/** Fills |entry| (caller sets entry->struct_size). */
TEGULA_API tegula_error_t *
tegula_container_get_entry(const tegula_container_t *c, size_t index,
                           tegula_container_entry *entry);

/** Picks the entry for a device whose target is |device_target|
 *  (`<backend>:<arch>`): an entry for exactly that target first, else one
 *  for the bare `<backend>` (an arch-independent image). With |kernel_name|
 *  non-NULL only entries of that kernel count. TG_ERROR_NOT_FOUND lists the
 *  targets the container has. */
TEGULA_API tegula_error_t *
tegula_container_select_target(const tegula_container_t *c,
                               const char *device_target,
                               const char *kernel_name, size_t *index);
/** The entry for |device|: its own target first, then each arch its plugin
 *  says it also runs (tg_device_properties::compatible_archs, best first:
 *  an sm_90 GPU takes an nvidia:sm_90a image), then the bare backend. */
TEGULA_API tegula_error_t *
tegula_container_select(const tegula_container_t *c,
                        const tegula_device_t *device,
                        const char *kernel_name, size_t *index);

/*===-- Writing -----------------------------------------------------------===*/

TEGULA_API tegula_error_t *
tegula_container_writer_create(tegula_container_writer_t **out);
TEGULA_API void
tegula_container_writer_destroy(tegula_container_writer_t *writer);

/** Adds an image with its metadata (both copied). Rejects metadata without
 *  a name or target, a malformed target, and a second image for the same
 *  (target, name, specialization). */
TEGULA_API tegula_error_t *
tegula_container_writer_add(tegula_container_writer_t *writer,
                            const tg_kernel_metadata *metadata,
                            const void *image, size_t image_size);

/** Serializes everything added so far. *|data| lives until the writer is
 *  destroyed or used again. */
TEGULA_API tegula_error_t *
tegula_container_writer_finish(tegula_container_writer_t *writer,
                               const void **data, size_t *size);

/** Serializes and writes to |path| (through a temporary file and a rename,
 *  so a reader never sees half a file). */
TEGULA_API tegula_error_t *
tegula_container_writer_write_file(tegula_container_writer_t *writer,
                                   const char *path);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEGULA_CONTAINER_H */
