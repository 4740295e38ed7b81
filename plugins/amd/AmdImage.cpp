//===- AmdImage.cpp - The AMD plugin's kernel image format ----------------===//

#include "AmdImage.h"

using namespace tegula::amd;

const tegula::backend::KernelImageFormat tegula::amd::kAmdImageFormat = {
    kAmdImageMagic, kAmdImageVersion, /*numPayloads=*/1, "AMD kernel image",
    "the amd plugin"};

std::string tegula::amd::writeAmdImage(const AmdImage &image) {
  llvm::json::Object header;
  image.write(header);
  header["wave_size"] = image.waveSize;
  header["code_object_version"] = image.codeObjectVersion;
  header["lds_bytes"] = image.ldsBytes;
  return backend::writeKernelImage(kAmdImageFormat, std::move(header),
                                   {image.hsaco});
}

llvm::Expected<AmdImage> tegula::amd::readAmdImage(const void *data,
                                                   size_t size) {
  llvm::Expected<backend::KernelImageView> view =
      backend::readKernelImage(kAmdImageFormat, data, size);
  if (!view)
    return view.takeError();
  AmdImage image;
  backend::ImageHeader header(kAmdImageFormat, view->header);
  image.read(header);
  image.waveSize = static_cast<uint32_t>(header.integer("wave_size", 32, 64));
  image.codeObjectVersion =
      static_cast<uint32_t>(header.integer("code_object_version", 4, 5));
  image.ldsBytes = header.integer("lds_bytes", 0, UINT32_MAX);
  if (llvm::Error error = header.error())
    return error;
  if (image.waveSize != 32 && image.waveSize != 64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid AMD kernel image: wave_size " +
                                       std::to_string(image.waveSize) +
                                       " is neither 32 nor 64");
  if (!view->payloads[0].starts_with("\x7f"
                                     "ELF"))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "invalid AMD kernel image: the payload is not an ELF code object");
  image.hsaco = view->payloads[0].str();
  return image;
}
