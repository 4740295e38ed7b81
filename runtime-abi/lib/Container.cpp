//===- Container.cpp - Reading and writing kernel containers --------------===//
//
// The format is documented in tegula/container.h and docs/runtime.md. The
// reader trusts nothing: every length, offset and count is checked against
// the bytes actually present before it is used, with overflow-safe
// arithmetic, and each failure names what was wrong.
//
//===----------------------------------------------------------------------===//

#include "tegula/container.h"

#include "Objects.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tegula::runtime;

namespace {

constexpr uint8_t kMagic[8] = {'T', 'G', 'K', 'C', '\r', '\n', 0x1a, '\n'};
constexpr size_t kHeaderSize = 32;
constexpr size_t kEntrySize = 32;
constexpr size_t kMetadataFixedSize = 16;
constexpr size_t kAlignment = 16;

//===-- CRC-32 (ISO-HDLC, reflected 0xEDB88320), as zlib computes it -------===//

std::array<uint32_t, 256> makeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

uint32_t crc32(const uint8_t *data, size_t size) {
  static const std::array<uint32_t, 256> table = makeCrcTable();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i)
    c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

//===-- Little-endian helpers ----------------------------------------------===//

uint64_t readLE(const uint8_t *p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i)
    value = (value << 8) | p[i];
  return value;
}

void writeLE(std::vector<uint8_t> &out, size_t at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

void appendLE(std::vector<uint8_t> &out, uint64_t value, int bytes) {
  out.resize(out.size() + bytes);
  writeLE(out, out.size() - bytes, value, bytes);
}

void appendString(std::vector<uint8_t> &out, const std::string &s) {
  appendLE(out, s.size(), 4);
  out.insert(out.end(), s.begin(), s.end());
}

void padTo(std::vector<uint8_t> &out, size_t alignment) {
  out.resize((out.size() + alignment - 1) / alignment * alignment, 0);
}

//===-- Metadata owned by a container --------------------------------------===//

/// A tg_kernel_metadata with storage for its strings and arrays. Never moved
/// after `link()` (it is held by unique_ptr), so the pointers stay valid.
struct OwnedMetadata {
  std::string name, target, specialization;
  uint32_t numWarps = 0, sharedMemory = 0;
  std::vector<std::string> argNames;
  std::vector<tg_kernel_arg> args;
  tg_kernel_metadata view{};

  void link() {
    for (size_t i = 0; i < args.size(); ++i)
      args[i].name = argNames[i].c_str();
    view = tg_kernel_metadata{};
    view.struct_size = sizeof(view);
    view.name = name.c_str();
    view.target = target.c_str();
    view.num_warps = numWarps;
    view.shared_memory = sharedMemory;
    view.num_args = static_cast<uint32_t>(args.size());
    view.args = args.empty() ? nullptr : args.data();
    view.specialization = specialization.c_str();
  }
};

/// Checks the `<backend>` or `<backend>:<arch>` shape of a target.
bool isValidTarget(const std::string &target) {
  size_t colon = target.find(':');
  std::string backend = target.substr(0, colon);
  if (backend.empty())
    return false;
  for (char c : backend)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  if (colon == std::string::npos)
    return true;
  std::string arch = target.substr(colon + 1);
  if (arch.empty())
    return false;
  for (char c : arch)
    if (!std::isgraph(static_cast<unsigned char>(c)) || c == ':')
      return false;
  return true;
}

/// Reads fields from one metadata record, never past its end.
class RecordReader {
public:
  RecordReader(const uint8_t *data, size_t size) : data(data), size(size) {}

  bool u32(uint32_t &value) {
    if (size - pos < 4)
      return false;
    value = static_cast<uint32_t>(readLE(data + pos, 4));
    pos += 4;
    return true;
  }
  bool string(std::string &value) {
    uint32_t length;
    if (!u32(length) || size - pos < length)
      return false;
    value.assign(reinterpret_cast<const char *>(data + pos), length);
    pos += length;
    return true;
  }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

} // namespace

struct tegula_container {
  struct Entry {
    std::unique_ptr<OwnedMetadata> metadata;
    size_t imageOffset;
    size_t imageSize;
  };
  std::vector<uint8_t> bytes;
  uint32_t major = 0, minor = 0;
  std::vector<Entry> entries;
};

struct tegula_container_writer {
  struct Entry {
    std::unique_ptr<OwnedMetadata> metadata;
    std::vector<uint8_t> image;
  };
  std::vector<Entry> entries;
  std::vector<uint8_t> output;
};

namespace {

tegula_error_t *formatError(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

tegula_error_t *formatError(const char *format, ...) {
  char buffer[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buffer, sizeof(buffer), format, ap);
  va_end(ap);
  return makeError(TG_ERROR_INVALID_FORMAT,
                   std::string("invalid kernel container: ") + buffer);
}

/// Fails unless [offset, offset + size) lies within [begin, end).
tegula_error_t *checkRange(size_t index, const char *what, uint64_t offset,
                           uint64_t size, uint64_t begin, uint64_t end) {
  if (offset < begin || offset > end || size > end - offset)
    return formatError("entry %zu: %s (offset %llu, size %llu) lies outside "
                       "the data area [%llu, %llu)",
                       index, what, static_cast<unsigned long long>(offset),
                       static_cast<unsigned long long>(size),
                       static_cast<unsigned long long>(begin),
                       static_cast<unsigned long long>(end));
  return nullptr;
}

tegula_error_t *parseMetadata(size_t index, const uint8_t *data, size_t size,
                              OwnedMetadata &meta) {
  if (size < kMetadataFixedSize)
    return formatError("entry %zu: metadata record is %zu bytes, needs at "
                       "least %zu",
                       index, size, kMetadataFixedSize);
  RecordReader reader(data, size);
  uint32_t numArgs = 0, reserved = 0;
  reader.u32(meta.numWarps);
  reader.u32(meta.sharedMemory);
  reader.u32(numArgs);
  reader.u32(reserved);
  if (!reader.string(meta.target))
    return formatError("entry %zu: metadata target runs past its record",
                       index);
  if (!reader.string(meta.name))
    return formatError("entry %zu: metadata name runs past its record", index);
  if (!reader.string(meta.specialization))
    return formatError(
        "entry %zu: metadata specialization runs past its record", index);
  if (!isValidTarget(meta.target))
    return formatError("entry %zu: malformed target '%s'", index,
                       meta.target.c_str());
  if (meta.name.empty())
    return formatError("entry %zu: kernel name is empty", index);
  // Each argument takes at least 16 bytes: a count beyond that is a lie that
  // would otherwise make us reserve absurd amounts of memory.
  if (numArgs > size / 16)
    return formatError("entry %zu: %u arguments cannot fit in a %zu-byte "
                       "metadata record",
                       index, numArgs, size);
  for (uint32_t i = 0; i < numArgs; ++i) {
    tg_kernel_arg arg{};
    std::string name;
    if (!reader.u32(arg.kind) || !reader.u32(arg.type) ||
        !reader.u32(arg.divisibility) || !reader.string(name))
      return formatError("entry %zu: argument %u runs past its metadata record",
                         index, i);
    meta.args.push_back(arg);
    meta.argNames.push_back(std::move(name));
  }
  meta.link();
  return nullptr;
}

tegula_error_t *parse(tegula_container &c) {
  const uint8_t *data = c.bytes.data();
  const size_t size = c.bytes.size();
  if (size < sizeof(kMagic)) {
    if (size && std::memcmp(data, kMagic, size) != 0)
      return formatError("bad magic (not a Tegula kernel container)");
    return formatError("truncated: %zu bytes, the header alone is %zu", size,
                       kHeaderSize);
  }
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    return formatError("bad magic (not a Tegula kernel container)");
  if (size < kHeaderSize)
    return formatError("truncated: %zu bytes, the header alone is %zu", size,
                       kHeaderSize);

  c.major = static_cast<uint32_t>(readLE(data + 8, 2));
  c.minor = static_cast<uint32_t>(readLE(data + 10, 2));
  if (c.major != TEGULA_CONTAINER_MAJOR)
    return makeErrorf(TG_ERROR_VERSION_MISMATCH,
                      "unsupported kernel container version %u.%u (this "
                      "runtime reads %u.x)",
                      c.major, c.minor, TEGULA_CONTAINER_MAJOR);
  const uint64_t count = readLE(data + 12, 4);
  const uint64_t declaredSize = readLE(data + 16, 8);
  const uint32_t storedCrc = static_cast<uint32_t>(readLE(data + 24, 4));
  const uint64_t entrySize = readLE(data + 28, 2);
  if (size < declaredSize)
    return formatError("truncated: %zu of %llu bytes", size,
                       static_cast<unsigned long long>(declaredSize));
  if (size > declaredSize)
    return formatError("%llu bytes past the declared end (file size %llu)",
                       static_cast<unsigned long long>(size - declaredSize),
                       static_cast<unsigned long long>(declaredSize));
  if (entrySize < kEntrySize)
    return formatError("entry size %llu is smaller than %zu",
                       static_cast<unsigned long long>(entrySize), kEntrySize);
  uint32_t actualCrc = crc32(data + kHeaderSize, size - kHeaderSize);
  if (actualCrc != storedCrc)
    return formatError("checksum mismatch (stored 0x%08x, computed 0x%08x)",
                       storedCrc, actualCrc);
  // count < 2^32 and entrySize < 2^16: the product cannot overflow.
  const uint64_t tableEnd = kHeaderSize + count * entrySize;
  if (tableEnd > size)
    return formatError("entry table (%llu entries of %llu bytes) runs past "
                       "the end of the file",
                       static_cast<unsigned long long>(count),
                       static_cast<unsigned long long>(entrySize));

  for (size_t i = 0; i < count; ++i) {
    const uint8_t *entry = data + kHeaderSize + i * entrySize;
    uint64_t imageOffset = readLE(entry, 8), imageSize = readLE(entry + 8, 8);
    uint64_t metaOffset = readLE(entry + 16, 8), metaSize = readLE(entry + 24, 8);
    if (tegula_error_t *error =
            checkRange(i, "image", imageOffset, imageSize, tableEnd, size))
      return error;
    if (tegula_error_t *error =
            checkRange(i, "metadata", metaOffset, metaSize, tableEnd, size))
      return error;
    auto meta = std::make_unique<OwnedMetadata>();
    if (tegula_error_t *error =
            parseMetadata(i, data + metaOffset, metaSize, *meta))
      return error;
    c.entries.push_back({std::move(meta), static_cast<size_t>(imageOffset),
                         static_cast<size_t>(imageSize)});
  }
  return nullptr;
}

void serializeMetadata(std::vector<uint8_t> &out, const OwnedMetadata &meta) {
  appendLE(out, meta.numWarps, 4);
  appendLE(out, meta.sharedMemory, 4);
  appendLE(out, meta.args.size(), 4);
  appendLE(out, 0, 4);
  appendString(out, meta.target);
  appendString(out, meta.name);
  appendString(out, meta.specialization);
  for (size_t i = 0; i < meta.args.size(); ++i) {
    appendLE(out, meta.args[i].kind, 4);
    appendLE(out, meta.args[i].type, 4);
    appendLE(out, meta.args[i].divisibility, 4);
    appendString(out, meta.argNames[i]);
  }
}

} // namespace

extern "C" {

tegula_error_t *tegula_container_read(const void *data, size_t size,
                                      tegula_container_t **out) {
  TEGULA_REJECT_IF(!out || (!data && size), "data or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    auto container = std::make_unique<tegula_container>();
    const uint8_t *bytes = static_cast<const uint8_t *>(data);
    container->bytes.assign(bytes, bytes + size);
    if (tegula_error_t *error = parse(*container))
      return error;
    *out = container.release();
    return nullptr;
  });
}

tegula_error_t *tegula_container_read_file(const char *path,
                                           tegula_container_t **out) {
  TEGULA_REJECT_IF(!path || !out, "path or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return makeErrorf(TG_ERROR_NOT_FOUND, "cannot open %s: %s", path,
                        std::strerror(errno));
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    if (file.bad())
      return makeErrorf(TG_ERROR_UNKNOWN, "cannot read %s", path);
    tegula_error_t *error = tegula_container_read(bytes.data(), bytes.size(), out);
    if (error) {
      tegula_error_t *named = makeErrorf(
          tegula_error_get_code(error), "%s: %s", path,
          tegula_error_get_message(error));
      tegula_error_destroy(error);
      return named;
    }
    return nullptr;
  });
}

void tegula_container_destroy(tegula_container_t *container) {
  delete container;
}

void tegula_container_get_version(const tegula_container_t *c,
                                  uint32_t *major, uint32_t *minor) {
  if (major)
    *major = c ? c->major : 0;
  if (minor)
    *minor = c ? c->minor : 0;
}

size_t tegula_container_get_entry_count(const tegula_container_t *c) {
  return c ? c->entries.size() : 0;
}

tegula_error_t *tegula_container_get_entry(const tegula_container_t *c,
                                           size_t index,
                                           tegula_container_entry *entry) {
  TEGULA_REJECT_IF(!c || !entry, "container or entry is NULL");
  TEGULA_REJECT_IF(entry->struct_size <
                       TG_STRUCT_SIZE(tegula_container_entry, metadata),
                   "entry.struct_size too small");
  if (index >= c->entries.size())
    return makeErrorf(TG_ERROR_OUT_OF_RANGE,
                      "entry %zu out of range (%zu entries)", index,
                      c->entries.size());
  const tegula_container::Entry &e = c->entries[index];
  entry->target = e.metadata->target.c_str();
  entry->image = c->bytes.data() + e.imageOffset;
  entry->image_size = e.imageSize;
  entry->metadata = &e.metadata->view;
  return nullptr;
}

namespace {
/// The first entry (of |kernel_name|, when not NULL) whose target is one of
/// |targets|, earlier targets first; else NOT_FOUND naming |device_target|.
tegula_error_t *selectFirst(const tegula_container_t *c,
                            const std::vector<std::string> &targets,
                            const char *device_target,
                            const char *kernel_name, size_t *index) {
  for (const std::string &wanted : targets) {
    for (size_t i = 0; i < c->entries.size(); ++i) {
      const OwnedMetadata &meta = *c->entries[i].metadata;
      if (meta.target == wanted && (!kernel_name || meta.name == kernel_name)) {
        *index = i;
        return nullptr;
      }
    }
  }
  std::string have;
  for (const tegula_container::Entry &e : c->entries)
    have += (have.empty() ? "" : ", ") + e.metadata->target;
  return makeErrorf(TG_ERROR_NOT_FOUND,
                    "no image for %s%s%s in the kernel container (it has: %s)",
                    device_target, kernel_name ? " of kernel " : "",
                    kernel_name ? kernel_name : "",
                    have.empty() ? "nothing" : have.c_str());
}
} // namespace

tegula_error_t *tegula_container_select_target(const tegula_container_t *c,
                                               const char *device_target,
                                               const char *kernel_name,
                                               size_t *index) {
  TEGULA_REJECT_IF(!c || !device_target || !index,
                   "container, target or index is NULL");
  std::string target = device_target;
  // An image built for the exact arch beats a portable one of the backend.
  return selectFirst(c, {target, target.substr(0, target.find(':'))},
                     device_target, kernel_name, index);
}

tegula_error_t *tegula_container_select(const tegula_container_t *c,
                                        const tegula_device_t *device,
                                        const char *kernel_name,
                                        size_t *index) {
  TEGULA_REJECT_IF(!c || !device || !index,
                   "container, device or index is NULL");
  // The device's own target, then the archs its plugin says it also runs,
  // then a portable image of the backend.
  std::vector<std::string> targets = {device->target};
  targets.insert(targets.end(), device->compatibleTargets.begin(),
                 device->compatibleTargets.end());
  targets.push_back(device->target.substr(0, device->target.find(':')));
  return selectFirst(c, targets, device->target.c_str(), kernel_name, index);
}

tegula_error_t *
tegula_container_writer_create(tegula_container_writer_t **out) {
  TEGULA_REJECT_IF(!out, "out is NULL");
  return guard([&]() -> tegula_error_t * {
    *out = new tegula_container_writer();
    return nullptr;
  });
}

void tegula_container_writer_destroy(tegula_container_writer_t *writer) {
  delete writer;
}

tegula_error_t *tegula_container_writer_add(tegula_container_writer_t *writer,
                                            const tg_kernel_metadata *md,
                                            const void *image,
                                            size_t image_size) {
  TEGULA_REJECT_IF(!writer || !md, "writer or metadata is NULL");
  TEGULA_REJECT_IF(!image && image_size, "image is NULL");
  TEGULA_REJECT_IF(md->struct_size <
                       TG_STRUCT_SIZE(tg_kernel_metadata, specialization),
                   "metadata.struct_size too small");
  TEGULA_REJECT_IF(!md->name || !*md->name, "metadata has no kernel name");
  TEGULA_REJECT_IF(!md->target, "metadata has no target");
  TEGULA_REJECT_IF(md->num_args && !md->args, "metadata has no argument array");
  if (!isValidTarget(md->target))
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "malformed target '%s': expected <backend> or "
                      "<backend>:<arch>",
                      md->target);
  return guard([&]() -> tegula_error_t * {
    auto meta = std::make_unique<OwnedMetadata>();
    meta->name = md->name;
    meta->target = md->target;
    meta->specialization = md->specialization ? md->specialization : "";
    meta->numWarps = md->num_warps;
    meta->sharedMemory = md->shared_memory;
    for (uint32_t i = 0; i < md->num_args; ++i) {
      tg_kernel_arg arg = md->args[i];
      meta->argNames.push_back(arg.name ? arg.name : "");
      arg.reserved = 0;
      meta->args.push_back(arg);
    }
    meta->link();
    for (const tegula_container_writer::Entry &e : writer->entries)
      if (e.metadata->target == meta->target &&
          e.metadata->name == meta->name &&
          e.metadata->specialization == meta->specialization)
        return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                          "the container already has %s for %s",
                          meta->name.c_str(), meta->target.c_str());
    const uint8_t *bytes = static_cast<const uint8_t *>(image);
    writer->entries.push_back(
        {std::move(meta), std::vector<uint8_t>(bytes, bytes + image_size)});
    return nullptr;
  });
}

tegula_error_t *
tegula_container_writer_finish(tegula_container_writer_t *writer,
                               const void **data, size_t *size) {
  TEGULA_REJECT_IF(!writer || !data || !size, "writer, data or size is NULL");
  return guard([&]() -> tegula_error_t * {
    std::vector<uint8_t> &out = writer->output;
    out.assign(kHeaderSize + writer->entries.size() * kEntrySize, 0);
    std::memcpy(out.data(), kMagic, sizeof(kMagic));
    writeLE(out, 8, TEGULA_CONTAINER_MAJOR, 2);
    writeLE(out, 10, TEGULA_CONTAINER_MINOR, 2);
    writeLE(out, 12, writer->entries.size(), 4);
    writeLE(out, 28, kEntrySize, 2);
    for (size_t i = 0; i < writer->entries.size(); ++i) {
      const tegula_container_writer::Entry &e = writer->entries[i];
      size_t entryAt = kHeaderSize + i * kEntrySize;
      padTo(out, kAlignment);
      size_t metaOffset = out.size();
      serializeMetadata(out, *e.metadata);
      writeLE(out, entryAt + 16, metaOffset, 8);
      writeLE(out, entryAt + 24, out.size() - metaOffset, 8);
      padTo(out, kAlignment);
      writeLE(out, entryAt, out.size(), 8);
      writeLE(out, entryAt + 8, e.image.size(), 8);
      out.insert(out.end(), e.image.begin(), e.image.end());
    }
    writeLE(out, 16, out.size(), 8);
    writeLE(out, 24, crc32(out.data() + kHeaderSize, out.size() - kHeaderSize),
            4);
    *data = out.data();
    *size = out.size();
    return nullptr;
  });
}

tegula_error_t *
tegula_container_writer_write_file(tegula_container_writer_t *writer,
                                   const char *path) {
  TEGULA_REJECT_IF(!writer || !path, "writer or path is NULL");
  const void *data = nullptr;
  size_t size = 0;
  if (tegula_error_t *error = tegula_container_writer_finish(writer, &data, &size))
    return error;
  return guard([&]() -> tegula_error_t * {
    // A per-process name: concurrent writers of one path must not share it.
    std::string temporary =
        std::string(path) + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
      if (!file)
        return makeErrorf(TG_ERROR_UNKNOWN, "cannot create %s: %s",
                          temporary.c_str(), std::strerror(errno));
      file.write(static_cast<const char *>(data),
                 static_cast<std::streamsize>(size));
      if (!file.flush())
        return makeErrorf(TG_ERROR_UNKNOWN, "cannot write %s",
                          temporary.c_str());
    }
    if (std::rename(temporary.c_str(), path) != 0) {
      tegula_error_t *error = makeErrorf(TG_ERROR_UNKNOWN,
                                         "cannot rename %s to %s: %s",
                                         temporary.c_str(), path,
                                         std::strerror(errno));
      std::remove(temporary.c_str());
      return error;
    }
    return nullptr;
  });
}

} // extern "C"
