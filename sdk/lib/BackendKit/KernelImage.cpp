//===- KernelImage.cpp - One image container for every plugin -------------===//

#include "tegula/BackendKit/KernelImage.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace tegula::backend;

namespace {

constexpr size_t kMagicBytes = 8;

size_t fixedHeaderSize(const KernelImageFormat &format) {
  return kMagicBytes + 4 + 4 + 8 * size_t(format.numPayloads);
}

llvm::Error invalid(const KernelImageFormat &format, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid " + llvm::Twine(format.description) +
                                     ": " + why);
}

/// The magic as text, without its NUL padding ("TGHOSTK").
llvm::StringRef magicText(const KernelImageFormat &format) {
  return llvm::StringRef(format.magic, kMagicBytes).rtrim('\0');
}

} // namespace

std::string
tegula::backend::writeKernelImage(const KernelImageFormat &format,
                                  llvm::json::Object header,
                                  llvm::ArrayRef<llvm::StringRef> payloads) {
  assert(payloads.size() == format.numPayloads && "wrong number of payloads");
  std::string json;
  {
    llvm::raw_string_ostream os(json);
    os << llvm::json::Value(std::move(header));
  }
  std::string out(format.magic, kMagicBytes);
  {
    llvm::raw_string_ostream os(out);
    auto put = [&](auto value) {
      llvm::support::endian::write(os, value, llvm::endianness::little);
    };
    put(uint32_t(format.version));
    put(static_cast<uint32_t>(json.size()));
    for (llvm::StringRef payload : payloads)
      put(uint64_t(payload.size()));
  }
  out += json;
  for (llvm::StringRef payload : payloads)
    out += payload;
  return out;
}

llvm::Expected<KernelImageView>
tegula::backend::readKernelImage(const KernelImageFormat &format,
                                 const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  const size_t fixed = fixedHeaderSize(format);
  if (!data || size < fixed)
    return invalid(format, "it is " + llvm::Twine(size) +
                               " bytes, shorter than the " +
                               llvm::Twine(fixed) + "-byte header");
  if (std::memcmp(bytes, format.magic, kMagicBytes) != 0)
    return invalid(format, "no " + magicText(format) + " magic (not made by " +
                               format.writer + ")");
  uint32_t version = llvm::support::endian::read32le(bytes + 8);
  if (version != format.version)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine(format.description) + " format version " +
            llvm::Twine(version) + " is not supported (this plugin reads " +
            "version " + llvm::Twine(format.version) + ")");
  uint64_t jsonSize = llvm::support::endian::read32le(bytes + 12);
  llvm::SmallVector<uint64_t, 2> sizes;
  for (unsigned i = 0; i < format.numPayloads; ++i)
    sizes.push_back(llvm::support::endian::read64le(bytes + 16 + 8 * i));
  // Each size is checked against what is left, so that no sum overflows.
  uint64_t rest = size - fixed;
  uint64_t left = rest;
  bool fits = jsonSize <= left;
  left -= fits ? jsonSize : 0;
  for (uint64_t payload : sizes) {
    fits = fits && payload <= left;
    left -= fits ? payload : 0;
  }
  if (!fits || left != 0) {
    std::string announced = std::to_string(jsonSize);
    for (uint64_t payload : sizes)
      announced += " + " + std::to_string(payload);
    return invalid(format, "the header announces " + announced +
                               " bytes, the image has " + llvm::Twine(rest) +
                               " after the header");
  }

  llvm::StringRef text(reinterpret_cast<const char *>(bytes + fixed),
                       jsonSize);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return invalid(format,
                   "bad JSON header: " + llvm::toString(parsed.takeError()));
  llvm::json::Object *header = parsed->getAsObject();
  if (!header)
    return invalid(format, "the JSON header is not an object");

  KernelImageView view;
  view.header = std::move(*header);
  const char *payload = reinterpret_cast<const char *>(bytes + fixed + jsonSize);
  for (uint64_t bytesOfPayload : sizes) {
    view.payloads.emplace_back(payload, bytesOfPayload);
    payload += bytesOfPayload;
  }
  return view;
}

void ImageHeader::fail(llvm::StringRef key, const llvm::Twine &what) {
  if (problem.empty())
    problem = ("the JSON header's \"" + key + "\" is missing or not " + what)
                  .str();
}

std::string ImageHeader::string(llvm::StringRef key, bool nonEmpty) {
  std::optional<llvm::StringRef> value = header.getString(key);
  if (!value || (nonEmpty && value->empty())) {
    fail(key, nonEmpty ? "a non-empty string" : "a string");
    return "";
  }
  return value->str();
}

uint64_t ImageHeader::integer(llvm::StringRef key, uint64_t min,
                              uint64_t max) {
  std::optional<int64_t> value = header.getInteger(key);
  if (!value || *value < 0 || uint64_t(*value) < min || uint64_t(*value) > max) {
    fail(key, "an integer from " + llvm::Twine(min) + " to " +
                  llvm::Twine(max));
    return min;
  }
  return static_cast<uint64_t>(*value);
}

uint64_t ImageHeader::integerOr(llvm::StringRef key, uint64_t fallback,
                                uint64_t min, uint64_t max) {
  return header.get(key) ? integer(key, min, max) : fallback;
}

uint64_t ImageHeader::oneOf(llvm::StringRef key,
                            llvm::ArrayRef<uint64_t> allowed) {
  std::optional<int64_t> value = header.getInteger(key);
  if (!value || !llvm::is_contained(allowed, uint64_t(*value))) {
    std::string list;
    for (uint64_t each : allowed)
      list += (list.empty() ? "" : " or ") + std::to_string(each);
    fail(key, list);
    return allowed.empty() ? 0 : allowed.front();
  }
  return static_cast<uint64_t>(*value);
}

std::vector<std::string> ImageHeader::strings(llvm::StringRef key) {
  std::vector<std::string> out;
  const llvm::json::Array *array = header.getArray(key);
  if (!array) {
    fail(key, "an array of strings");
    return out;
  }
  for (const llvm::json::Value &entry : *array) {
    std::optional<llvm::StringRef> text = entry.getAsString();
    if (!text) {
      fail(key, "an array of strings");
      return {};
    }
    out.push_back(text->str());
  }
  return out;
}

std::vector<uint32_t> ImageHeader::integers(llvm::StringRef key,
                                            llvm::ArrayRef<uint32_t> allowed) {
  std::vector<uint32_t> out;
  auto what = [&] {
    std::string list;
    for (uint32_t value : allowed)
      list += (list.empty() ? "" : ", ") + std::to_string(value);
    return "an array of " + list;
  };
  const llvm::json::Array *array = header.getArray(key);
  if (!array) {
    fail(key, what());
    return out;
  }
  for (const llvm::json::Value &entry : *array) {
    std::optional<int64_t> value = entry.getAsInteger();
    if (!value || !llvm::is_contained(allowed, *value)) {
      fail(key, what());
      return {};
    }
    out.push_back(static_cast<uint32_t>(*value));
  }
  return out;
}

llvm::Error ImageHeader::error() const {
  if (problem.empty())
    return llvm::Error::success();
  return invalid(format, problem);
}

void ImageWriter::strings(llvm::StringRef key,
                          const std::vector<std::string> &values) {
  llvm::json::Array array;
  for (const std::string &value : values)
    array.push_back(value);
  header[key] = std::move(array);
}

void ImageWriter::integers(llvm::StringRef key,
                           const std::vector<uint32_t> &values,
                           llvm::ArrayRef<uint32_t>) {
  llvm::json::Array array;
  for (uint32_t value : values)
    array.push_back(static_cast<int64_t>(value));
  header[key] = std::move(array);
}

void ImageReader::payload(std::string &out, llvm::StringRef what,
                          size_t minSize, llvm::StringRef prefix) {
  assert(nextPayload < view.payloads.size() && "more payloads than the format");
  llvm::StringRef bytes = view.payloads[nextPayload++];
  if ((bytes.size() < minSize || !bytes.starts_with(prefix)) &&
      badPayload.empty())
    badPayload = what.str();
  out = bytes.str();
}

llvm::Error ImageReader::error() const {
  if (llvm::Error error = header.error())
    return error;
  if (!badPayload.empty())
    return invalid(format, "the payload is not " + badPayload);
  return llvm::Error::success();
}
