//===- NvidiaImage.cpp - The NVIDIA plugin's kernel image format ----------===//

#include "NvidiaImage.h"

#include "llvm/Support/EndianStream.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace tegula::nvidia;

namespace {
constexpr size_t kFixedHeader = 32;

llvm::Error invalid(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid NVIDIA kernel image: " + why);
}
} // namespace

std::string tegula::nvidia::writeNvidiaImage(const NvidiaImage &image) {
  llvm::json::Array argSizes;
  for (uint32_t size : image.argSizes)
    argSizes.push_back(static_cast<int64_t>(size));
  llvm::json::Object header{
      {"kernel", image.kernelName},
      {"target", image.target},
      {"arch", image.arch},
      {"num_warps", static_cast<int64_t>(image.numWarps)},
      {"shared_bytes", static_cast<int64_t>(image.sharedBytes)},
      {"arg_sizes", std::move(argSizes)},
  };
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(header));
  os.flush();

  std::string out(kNvidiaImageMagic, sizeof(kNvidiaImageMagic));
  llvm::raw_string_ostream outStream(out);
  auto put = [&](auto value) {
    llvm::support::endian::write(outStream, value, llvm::endianness::little);
  };
  put(uint32_t(kNvidiaImageVersion));
  put(static_cast<uint32_t>(json.size()));
  put(uint64_t(image.ptx.size()));
  put(uint64_t(image.cubin.size()));
  outStream.flush();
  out += json;
  out += image.ptx;
  out += image.cubin;
  return out;
}

llvm::Expected<NvidiaImage> tegula::nvidia::readNvidiaImage(const void *data,
                                                            size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  if (!data || size < kFixedHeader)
    return invalid("it is " + llvm::Twine(size) + " bytes, shorter than the " +
                   llvm::Twine(kFixedHeader) + "-byte header");
  if (std::memcmp(bytes, kNvidiaImageMagic, sizeof(kNvidiaImageMagic)) != 0)
    return invalid("no TGNVPTX magic (not made by the nvidia plugin)");
  uint32_t version = llvm::support::endian::read32le(bytes + 8);
  if (version != kNvidiaImageVersion)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "NVIDIA kernel image format version " + llvm::Twine(version) +
            " is not supported (this plugin reads version " +
            llvm::Twine(kNvidiaImageVersion) + ")");
  uint64_t jsonSize = llvm::support::endian::read32le(bytes + 12);
  uint64_t ptxSize = llvm::support::endian::read64le(bytes + 16);
  uint64_t cubinSize = llvm::support::endian::read64le(bytes + 24);
  uint64_t rest = size - kFixedHeader;
  if (jsonSize > rest || ptxSize > rest - jsonSize ||
      cubinSize != rest - jsonSize - ptxSize)
    return invalid("the header announces " + llvm::Twine(jsonSize) + " + " +
                   llvm::Twine(ptxSize) + " + " + llvm::Twine(cubinSize) +
                   " bytes, the image has " + llvm::Twine(rest) +
                   " after the header");

  llvm::StringRef text(reinterpret_cast<const char *>(bytes + kFixedHeader),
                       jsonSize);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return invalid("bad JSON header: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *header = parsed->getAsObject();
  if (!header)
    return invalid("the JSON header is not an object");

  NvidiaImage image;
  auto getString = [&](llvm::StringRef key, std::string &out) -> bool {
    std::optional<llvm::StringRef> value = header->getString(key);
    if (!value)
      return false;
    out = value->str();
    return true;
  };
  auto getNumber = [&](llvm::StringRef key, uint64_t limit,
                       uint64_t &out) -> bool {
    std::optional<int64_t> value = header->getInteger(key);
    if (!value || *value < 0 || uint64_t(*value) > limit)
      return false;
    out = static_cast<uint64_t>(*value);
    return true;
  };
  uint64_t numWarps = 0;
  const llvm::json::Array *argSizes = header->getArray("arg_sizes");
  if (!getString("kernel", image.kernelName) || image.kernelName.empty() ||
      !getString("target", image.target) || !getString("arch", image.arch) ||
      !getNumber("num_warps", 1024, numWarps) || numWarps == 0 ||
      !getNumber("shared_bytes", UINT32_MAX, image.sharedBytes) || !argSizes)
    return invalid("the JSON header lacks kernel, target, arch, num_warps, "
                   "shared_bytes or arg_sizes");
  image.numWarps = static_cast<uint32_t>(numWarps);
  for (const llvm::json::Value &entry : *argSizes) {
    std::optional<int64_t> argSize = entry.getAsInteger();
    if (!argSize || (*argSize != 1 && *argSize != 2 && *argSize != 4 &&
                     *argSize != 8))
      return invalid("an argument size that is not 1, 2, 4 or 8");
    image.argSizes.push_back(static_cast<uint32_t>(*argSize));
  }
  if (ptxSize == 0)
    return invalid("no PTX");
  const char *payload =
      reinterpret_cast<const char *>(bytes + kFixedHeader + jsonSize);
  image.ptx.assign(payload, ptxSize);
  image.cubin.assign(payload + ptxSize, cubinSize);
  return image;
}
