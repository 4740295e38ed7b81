//===- NvidiaImage.cpp - The NVIDIA plugin's kernel image format ----------===//

#include "NvidiaImage.h"

using namespace tegula::nvidia;

const tegula::backend::KernelImageFormat tegula::nvidia::kNvidiaImageFormat = {
    kNvidiaImageMagic, kNvidiaImageVersion, /*numPayloads=*/2,
    "NVIDIA kernel image", "the nvidia plugin"};

std::string tegula::nvidia::writeNvidiaImage(const NvidiaImage &image) {
  llvm::json::Object header;
  image.write(header);
  return backend::writeKernelImage(kNvidiaImageFormat, std::move(header),
                                   {image.ptx, image.cubin});
}

llvm::Expected<NvidiaImage> tegula::nvidia::readNvidiaImage(const void *data,
                                                            size_t size) {
  llvm::Expected<backend::KernelImageView> view =
      backend::readKernelImage(kNvidiaImageFormat, data, size);
  if (!view)
    return view.takeError();
  NvidiaImage image;
  backend::ImageHeader header(kNvidiaImageFormat, view->header);
  image.read(header);
  if (llvm::Error error = header.error())
    return error;
  if (view->payloads[0].empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid NVIDIA kernel image: no PTX");
  image.ptx = view->payloads[0].str();
  image.cubin = view->payloads[1].str();
  return image;
}
