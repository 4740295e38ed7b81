//===- HostImage.cpp - The host plugin's kernel image format --------------===//

#include "HostImage.h"

#include "llvm/Support/EndianStream.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace tegula::host;

namespace {
constexpr size_t kFixedHeader = 24;

llvm::Error invalid(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid host kernel image: " + why);
}
} // namespace

std::string tegula::host::writeHostImage(const HostImage &image) {
  llvm::json::Array features;
  for (const std::string &feature : image.features)
    features.push_back(feature);
  llvm::json::Object header{
      {"kernel", image.kernelName},
      {"target", image.target},
      {"cpu", image.cpu},
      {"features", std::move(features)},
      {"scratch_bytes", static_cast<int64_t>(image.scratchBytes)},
      {"simt_threads", static_cast<int64_t>(image.simtThreads)},
      {"packed_args_size", static_cast<int64_t>(image.packedArgsSize)},
  };
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(header));
  os.flush();

  std::string out(kHostImageMagic, sizeof(kHostImageMagic));
  llvm::raw_string_ostream outStream(out);
  auto put = [&](auto value) {
    llvm::support::endian::write(outStream, value, llvm::endianness::little);
  };
  put(uint32_t(kHostImageVersion));
  put(static_cast<uint32_t>(json.size()));
  put(uint64_t(image.object.size()));
  outStream.flush();
  out += json;
  out += image.object;
  return out;
}

llvm::Expected<HostImage> tegula::host::readHostImage(const void *data,
                                                      size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  if (!data || size < kFixedHeader)
    return invalid("it is " + llvm::Twine(size) + " bytes, shorter than the " +
                   llvm::Twine(kFixedHeader) + "-byte header");
  if (std::memcmp(bytes, kHostImageMagic, sizeof(kHostImageMagic)) != 0)
    return invalid("no TGHOSTK magic (not made by the host plugin)");
  uint32_t version = llvm::support::endian::read32le(bytes + 8);
  if (version != kHostImageVersion)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "host kernel image format version " + llvm::Twine(version) +
            " is not supported (this plugin reads version " +
            llvm::Twine(kHostImageVersion) + ")");
  uint64_t jsonSize = llvm::support::endian::read32le(bytes + 12);
  uint64_t objectSize = llvm::support::endian::read64le(bytes + 16);
  if (jsonSize > size - kFixedHeader ||
      objectSize != size - kFixedHeader - jsonSize)
    return invalid("the header announces " + llvm::Twine(jsonSize) + " + " +
                   llvm::Twine(objectSize) + " bytes, the image has " +
                   llvm::Twine(size - kFixedHeader) + " after the header");

  llvm::StringRef text(reinterpret_cast<const char *>(bytes + kFixedHeader),
                       jsonSize);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return invalid("bad JSON header: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *header = parsed->getAsObject();
  if (!header)
    return invalid("the JSON header is not an object");

  HostImage image;
  auto getString = [&](llvm::StringRef key, std::string &out) -> bool {
    std::optional<llvm::StringRef> value = header->getString(key);
    if (!value)
      return false;
    out = value->str();
    return true;
  };
  auto getSize = [&](llvm::StringRef key, uint64_t &out) -> bool {
    std::optional<int64_t> value = header->getInteger(key);
    if (!value || *value < 0)
      return false;
    out = static_cast<uint64_t>(*value);
    return true;
  };
  const llvm::json::Array *features = header->getArray("features");
  if (!getString("kernel", image.kernelName) || image.kernelName.empty() ||
      !getString("target", image.target) || !getString("cpu", image.cpu) ||
      !features || !getSize("scratch_bytes", image.scratchBytes) ||
      !getSize("packed_args_size", image.packedArgsSize))
    return invalid("the JSON header lacks kernel, target, cpu, features, "
                   "scratch_bytes or packed_args_size");
  if (header->get("simt_threads") &&
      (!getSize("simt_threads", image.simtThreads) || image.simtThreads == 0 ||
       image.simtThreads > 1024))
    return invalid("simt_threads is not a thread count from 1 to 1024");
  for (const llvm::json::Value &feature : *features) {
    std::optional<llvm::StringRef> name = feature.getAsString();
    if (!name)
      return invalid("a feature that is not a string");
    image.features.push_back(name->str());
  }
  image.object.assign(
      reinterpret_cast<const char *>(bytes + kFixedHeader + jsonSize),
      objectSize);
  return image;
}
