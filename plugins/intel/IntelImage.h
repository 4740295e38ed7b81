//===- IntelImage.h - The Intel plugin's kernel image format ----*- C++ -*-===//
//
// What the Intel plugin's compile returns and its module load accepts: one
// kernel as a validated SPIR-V module with what the launcher needs. Only
// ever read by the plugin that wrote it.
//
// The kit's container (tegula/BackendKit/KernelImage.h) with magic
// "TGSPIRV\0", the launch fields every GPU image has (LaunchFields: the
// target "intel:<target>", the arch "spirv64", num_warps sub-groups per
// work-group, shared_bytes of shared local memory, which the module
// declares itself, and the packed argument sizes), "sub_group_size", and
// one payload: the SPIR-V binary. backend::writeImage and
// backend::readImage<IntelImage> encode and decode it.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELIMAGE_H
#define TEGULA_PLUGINS_INTEL_INTELIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include <cstdint>
#include <string>

namespace tegula::intel {

/// A decoded Intel image.
struct IntelImage : backend::LaunchFields {
  /// Work-items per sub-group the kernel requires (16 or 32).
  uint32_t subGroupSize = 16;
  /// The SPIR-V module (OpEntryPoint Kernel kernelName); at least its
  /// 20-byte header.
  std::string spirv;

  template <typename Fields> void visit(Fields &fields) {
    LaunchFields::visit(fields);
    fields.integer("sub_group_size", subGroupSize, 1, 64);
    fields.payload(spirv, "SPIR-V", /*minSize=*/20);
  }

  static constexpr backend::KernelImageFormat kFormat = {
      "TGSPIRV", /*version=*/1, /*numPayloads=*/1, "Intel kernel image",
      "the intel plugin"};
};

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELIMAGE_H
