//===- AmdImage.h - The AMD plugin's kernel image format --------*- C++ -*-===//
//
// What the AMD plugin's compile returns and its module load will accept:
// one kernel's code object (an hsaco: an AMDGPU ELF shared object with its
// AMDHSA metadata note, what hipModuleLoadData takes) with the little the
// launcher needs to know. Only ever read by the plugin that wrote it.
//
// The kit's container (tegula/BackendKit/KernelImage.h) with magic
// "TGAMDHSA", the launch fields every GPU image has (LaunchFields: the
// target is "amd:<arch>", shared_bytes the LDS a launch must add,
// 0: the code object allocates its LDS statically), "lds_bytes"
// (that static LDS, the lowering's scratch), "wave_size" and
// "code_object_version", and one payload: the hsaco.
// backend::writeImage and backend::readImage<AmdImage> encode and decode
// it.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDIMAGE_H
#define TEGULA_PLUGINS_AMD_AMDIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include <cstdint>
#include <string>

namespace tegula::amd {

/// A decoded AMD image.
struct AmdImage : backend::LaunchFields {
  static constexpr backend::KernelImageFormat kFormat = {
      "TGAMDHSA", /*version=*/1, /*numPayloads=*/1, "AMD kernel image",
      "the amd plugin"};

  /// Lanes per wavefront of the code (64 or 32).
  uint32_t waveSize = 64;
  /// The code object version (4 or 5).
  uint32_t codeObjectVersion = 5;
  /// LDS bytes the code object allocates statically.
  uint64_t ldsBytes = 0;
  std::string hsaco;

  template <typename Fields> void visit(Fields &fields) {
    LaunchFields::visit(fields);
    fields.oneOf("wave_size", waveSize, {32, 64});
    fields.oneOf("code_object_version", codeObjectVersion, {4, 5});
    fields.integer("lds_bytes", ldsBytes, 0, UINT32_MAX);
    fields.payload(hsaco, "an ELF code object", /*minSize=*/4,
                   /*prefix=*/"\x7f"
                              "ELF");
  }
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDIMAGE_H
