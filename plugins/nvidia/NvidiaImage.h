//===- NvidiaImage.h - The NVIDIA plugin's kernel image format --*- C++ -*-===//
//
// What the NVIDIA plugin's compile returns and its module load accepts: one
// kernel as PTX text and, when ptxas was found at compile time, the cubin
// ptxas made of it, with the little the launcher needs to know. Only ever
// read by the plugin that wrote it.
//
// The kit's container (tegula/BackendKit/KernelImage.h) with magic
// "TGNVPTX\0", the launch fields every GPU image has (LaunchFields), and two
// payloads: the PTX (no terminating NUL), then the cubin (an ELF file; empty
// when none). backend::writeImage and backend::readImage<NvidiaImage>
// encode and decode it.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include <string>

namespace tegula::nvidia {

/// A decoded NVIDIA image: its launch fields (the target is
/// "nvidia:<target>", the arch the code's: sm_90a for an sm_90 target), the
/// PTX (.entry kernelName) and ptxas's output for the arch, or empty.
struct NvidiaImage : backend::LaunchFields {
  static constexpr backend::KernelImageFormat kFormat = {
      "TGNVPTX", /*version=*/1, /*numPayloads=*/2, "NVIDIA kernel image",
      "the nvidia plugin"};

  std::string ptx;
  std::string cubin;

  template <typename Fields> void visit(Fields &fields) {
    LaunchFields::visit(fields);
    fields.payload(ptx, "PTX", /*minSize=*/1);
    fields.payload(cubin, "a cubin");
  }
};

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
