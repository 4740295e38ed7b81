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
#include <initializer_list>
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
  /// An integer field that is one of |allowed|.
  uint64_t oneOf(llvm::StringRef key, llvm::ArrayRef<uint64_t> allowed);
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

/// An image's header fields and payloads, written once: a plugin's image
/// type lists them in `template <typename Fields> void visit(Fields &)`,
/// calling, for each, one of
///
///   fields.string(key, member, nonEmpty = false)
///   fields.integer(key, member, min, max)
///   fields.integerOr(key, member, fallback, min, max)  (may be absent)
///   fields.oneOf(key, member, {allowed...})
///   fields.strings(key, member)                         (vector<string>)
///   fields.integers(key, member, {allowed...})          (vector<uint32_t>)
///   fields.payload(member, what, minSize = 0, prefix = "")
///
/// and names its format as `static constexpr KernelImageFormat kFormat`.
/// writeImage and readImage then encode and decode it, so that no plugin
/// writes a reader of untrusted bytes of its own: every field is checked
/// (ImageHeader), and a payload shorter than |minSize| or not starting with
/// |prefix| is "invalid <description>: the payload is not <what>".

/// The visitor writeImage runs: it only reads the fields it is shown.
class ImageWriter {
public:
  void string(llvm::StringRef key, const std::string &value,
              bool /*nonEmpty*/ = false) {
    header[key] = value;
  }
  template <typename Int>
  void integer(llvm::StringRef key, const Int &value, uint64_t, uint64_t) {
    header[key] = static_cast<int64_t>(value);
  }
  template <typename Int>
  void integerOr(llvm::StringRef key, const Int &value, uint64_t, uint64_t,
                 uint64_t) {
    header[key] = static_cast<int64_t>(value);
  }
  template <typename Int>
  void oneOf(llvm::StringRef key, const Int &value,
             std::initializer_list<uint64_t>) {
    header[key] = static_cast<int64_t>(value);
  }
  void strings(llvm::StringRef key, const std::vector<std::string> &values);
  void integers(llvm::StringRef key, const std::vector<uint32_t> &values,
                llvm::ArrayRef<uint32_t> allowed);
  void payload(const std::string &bytes, llvm::StringRef /*what*/,
               size_t /*minSize*/ = 0, llvm::StringRef /*prefix*/ = "") {
    payloads.push_back(bytes);
  }

  llvm::json::Object header;
  llvm::SmallVector<llvm::StringRef, 2> payloads;
};

/// The visitor readImage runs over a decoded image.
class ImageReader {
public:
  ImageReader(const KernelImageFormat &format, const KernelImageView &view)
      : format(format), view(view), header(format, view.header) {}

  void string(llvm::StringRef key, std::string &out, bool nonEmpty = false) {
    out = header.string(key, nonEmpty);
  }
  template <typename Int>
  void integer(llvm::StringRef key, Int &out, uint64_t min, uint64_t max) {
    out = static_cast<Int>(header.integer(key, min, max));
  }
  template <typename Int>
  void integerOr(llvm::StringRef key, Int &out, uint64_t fallback,
                 uint64_t min, uint64_t max) {
    out = static_cast<Int>(header.integerOr(key, fallback, min, max));
  }
  template <typename Int>
  void oneOf(llvm::StringRef key, Int &out,
             std::initializer_list<uint64_t> allowed) {
    out = static_cast<Int>(header.oneOf(key, allowed));
  }
  void strings(llvm::StringRef key, std::vector<std::string> &out) {
    out = header.strings(key);
  }
  void integers(llvm::StringRef key, std::vector<uint32_t> &out,
                llvm::ArrayRef<uint32_t> allowed) {
    out = header.integers(key, allowed);
  }
  void payload(std::string &out, llvm::StringRef what, size_t minSize = 0,
               llvm::StringRef prefix = "");

  /// Success, or the first field or payload that was bad.
  llvm::Error error() const;

private:
  const KernelImageFormat &format;
  const KernelImageView &view;
  ImageHeader header;
  unsigned nextPayload = 0;
  std::string badPayload;
};

/// |image| encoded in Image::kFormat.
template <typename Image> std::string writeImage(const Image &image) {
  ImageWriter writer;
  // visit() takes its fields by reference for the reader's sake; the
  // writer only reads them.
  const_cast<Image &>(image).visit(writer);
  return writeKernelImage(Image::kFormat, std::move(writer.header),
                          writer.payloads);
}

/// The Image in |size| bytes at |data|, or a one-line error: not an image of
/// Image::kFormat at its version, or a bad field or payload.
template <typename Image>
llvm::Expected<Image> readImage(const void *data, size_t size) {
  llvm::Expected<KernelImageView> view =
      readKernelImage(Image::kFormat, data, size);
  if (!view)
    return view.takeError();
  Image image;
  ImageReader reader(Image::kFormat, *view);
  image.visit(reader);
  if (llvm::Error error = reader.error())
    return std::move(error);
  return image;
}

/// What a GPU plugin's launcher needs of a kernel, as header fields:
/// "kernel", "target" ("<backend>:<arch>", the device target compiled for),
/// "arch" (the arch of the code), "num_warps", "shared_bytes" (dynamic
/// shared memory a block needs) and "arg_sizes" (bytes of each packed
/// argument, in order). A GPU image type derives from it and visits it
/// first.
struct LaunchFields {
  std::string kernelName;
  std::string target;
  std::string arch;
  uint32_t numWarps = 1;
  uint64_t sharedBytes = 0;
  std::vector<uint32_t> argSizes;

  template <typename Fields> void visit(Fields &fields) {
    fields.string("kernel", kernelName, /*nonEmpty=*/true);
    fields.string("target", target, /*nonEmpty=*/true);
    fields.string("arch", arch, /*nonEmpty=*/true);
    fields.integer("num_warps", numWarps, 1, 1024);
    fields.integer("shared_bytes", sharedBytes, 0, UINT32_MAX);
    fields.integers("arg_sizes", argSizes, {1, 2, 4, 8});
  }
};

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_KERNELIMAGE_H
