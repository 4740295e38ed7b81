//===- HostImage.cpp - The host plugin's kernel image format --------------===//

#include "HostImage.h"

using namespace tegula::host;

const tegula::backend::KernelImageFormat tegula::host::kHostImageFormat = {
    kHostImageMagic, kHostImageVersion, /*numPayloads=*/1, "host kernel image",
    "the host plugin"};

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
  return backend::writeKernelImage(kHostImageFormat, std::move(header),
                                   {image.object});
}

llvm::Expected<HostImage> tegula::host::readHostImage(const void *data,
                                                      size_t size) {
  llvm::Expected<backend::KernelImageView> view =
      backend::readKernelImage(kHostImageFormat, data, size);
  if (!view)
    return view.takeError();
  backend::ImageHeader header(kHostImageFormat, view->header);
  HostImage image;
  image.kernelName = header.string("kernel", /*nonEmpty=*/true);
  image.target = header.string("target", /*nonEmpty=*/true);
  image.cpu = header.string("cpu");
  image.features = header.strings("features");
  image.scratchBytes = header.integer("scratch_bytes", 0, INT64_MAX);
  image.packedArgsSize = header.integer("packed_args_size", 0, INT64_MAX);
  image.simtThreads = header.integerOr("simt_threads", 1, 1, 1024);
  if (llvm::Error error = header.error())
    return error;
  image.object = view->payloads[0].str();
  return image;
}
