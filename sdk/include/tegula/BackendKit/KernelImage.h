//===- tegula/BackendKit/KernelImage.h - One image container -*- C++ -*-===//
//
// The container every plugin's compile writes and its module load reads:
// what the plugin's code generator made (an object, PTX and a cubin, a code
// object, SPIR-V, ...) with a JSON header of what its launcher needs. Only
// the plugin that wrote an image reads it; the format is the kit's, so that
// no backend writes its own reader of untrusted bytes.
//
// Layout (little-endian), for a format with P payloads:
//
//   offset 0        8 bytes  the format's magic (names the plugin)
//   offset 8        u32      the format's version
//   offset 12       u32      header size N: the JSON text that follows
//   offset 16       P x u64  the size of each payload, in order
//   offset 16+8P    N bytes  JSON header (llvm/Support/JSON.h), an object
//   offset 16+8P+N  the payloads, back to back
//
// A reader refuses another magic or version, sizes that do not add up to
// the image's, and a header that is not a JSON object; ImageHeader then
// reads its fields, each missing or malformed one an error naming it.
// Unknown fields are ignored, so a later writer of the same version may add
// fields.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_KERNELIMAGE_H
#define TEGULA_BACKENDKIT_KERNELIMAGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tegula::backend {

/// One plugin's image format.
struct KernelImageFormat {
  /// Exactly 8 bytes; the last is usually NUL ("TGHOSTK\0").
  const char *magic;
  /// The version this plugin writes and reads.
  uint32_t version;
  /// How many payloads every image of the format carries.
  unsigned numPayloads;
  /// What errors call the image: "host kernel image", "NVIDIA kernel
  /// image".
  const char *description;
  /// Who writes it, for the wrong-magic error: "the host plugin".
  const char *writer;
};

/// Encodes |header| and |payloads| (exactly format.numPayloads of them).
std::string writeKernelImage(const KernelImageFormat &format,
                             llvm::json::Object header,
                             llvm::ArrayRef<llvm::StringRef> payloads);

/// A decoded image: the header and views of the payloads into the bytes
/// that were read (valid as long as they are).
struct KernelImageView {
  llvm::json::Object header;
  llvm::SmallVector<llvm::StringRef, 2> payloads;
};

/// Decodes |size| bytes at |data|. Errors, one line each: "invalid
/// <description>: <why>" for bytes that are not an image of |format|, and
/// "<description> format version V is not supported (this plugin reads
/// version W)".
llvm::Expected<KernelImageView> readKernelImage(const KernelImageFormat &format,
                                                const void *data, size_t size);

/// Reads the fields of a decoded header, remembering the first that is
/// missing or out of range; error() then names it.
class ImageHeader {
public:
  ImageHeader(const KernelImageFormat &format, const llvm::json::Object &header)
      : format(format), header(header) {}

  /// A string field; |nonEmpty| refuses "".
  std::string string(llvm::StringRef key, bool nonEmpty = false);
  /// An integer field from |min| to |max|.
  uint64_t integer(llvm::StringRef key, uint64_t min, uint64_t max);
  /// An optional integer field: |fallback| when absent.
  uint64_t integerOr(llvm::StringRef key, uint64_t fallback, uint64_t min,
                     uint64_t max);
  /// An array of strings.
  std::vector<std::string> strings(llvm::StringRef key);
  /// An array of integers, each one of |allowed|.
  std::vector<uint32_t> integers(llvm::StringRef key,
                                 llvm::ArrayRef<uint32_t> allowed);

  /// Success, or "invalid <description>: the JSON header's <key> is missing
  /// or not <what>" for the first bad field.
  llvm::Error error() const;

private:
  void fail(llvm::StringRef key, const llvm::Twine &what);

  const KernelImageFormat &format;
  const llvm::json::Object &header;
  std::string problem;
};

/// What a GPU plugin's launcher needs of a kernel, as header fields:
/// "kernel", "target" ("<backend>:<arch>", the device target compiled for),
/// "arch" (the arch of the code), "num_warps", "shared_bytes" (dynamic
/// shared memory a block needs) and "arg_sizes" (bytes of each packed
/// argument, in order).
struct LaunchFields {
  std::string kernelName;
  std::string target;
  std::string arch;
  uint32_t numWarps = 1;
  uint64_t sharedBytes = 0;
  std::vector<uint32_t> argSizes;

  /// Adds the fields to |header|.
  void write(llvm::json::Object &header) const;
  /// Reads the fields from |header| (errors through it).
  void read(ImageHeader &header);
};

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_KERNELIMAGE_H
