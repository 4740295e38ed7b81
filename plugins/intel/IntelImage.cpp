//===- IntelImage.cpp - The Intel plugin's kernel image format ------------===//

#include "IntelImage.h"

using namespace tegula::intel;

const tegula::backend::KernelImageFormat tegula::intel::kIntelImageFormat = {
    kIntelImageMagic, kIntelImageVersion, /*numPayloads=*/1,
    "Intel kernel image", "the intel plugin"};

std::string tegula::intel::writeIntelImage(const IntelImage &image) {
  llvm::json::Object header;
  image.write(header);
  header["sub_group_size"] = static_cast<int64_t>(image.subGroupSize);
  return backend::writeKernelImage(kIntelImageFormat, std::move(header),
                                   {image.spirv});
}

llvm::Expected<IntelImage> tegula::intel::readIntelImage(const void *data,
                                                         size_t size) {
  llvm::Expected<backend::KernelImageView> view =
      backend::readKernelImage(kIntelImageFormat, data, size);
  if (!view)
    return view.takeError();
  IntelImage image;
  backend::ImageHeader header(kIntelImageFormat, view->header);
  image.read(header);
  image.subGroupSize =
      static_cast<uint32_t>(header.integer("sub_group_size", 1, 64));
  if (llvm::Error error = header.error())
    return error;
  if (view->payloads[0].size() < 20)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid Intel kernel image: no SPIR-V");
  image.spirv = view->payloads[0].str();
  return image;
}
