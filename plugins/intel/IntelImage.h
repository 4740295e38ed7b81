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
// one payload: the SPIR-V binary.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELIMAGE_H
#define TEGULA_PLUGINS_INTEL_INTELIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tegula::intel {

inline constexpr char kIntelImageMagic[8] = {'T', 'G', 'S', 'P',
                                             'I', 'R', 'V', '\0'};
inline constexpr uint32_t kIntelImageVersion = 1;
extern const backend::KernelImageFormat kIntelImageFormat;

/// A decoded Intel image.
struct IntelImage : backend::LaunchFields {
  /// Work-items per sub-group the kernel requires (16 or 32).
  uint32_t subGroupSize = 16;
  /// The SPIR-V module (OpEntryPoint Kernel kernelName).
  std::string spirv;
};

/// Encodes |image| in the format above.
std::string writeIntelImage(const IntelImage &image);

/// Decodes |size| bytes at |data|; an error (one line) when they are not an
/// Intel image of this version.
llvm::Expected<IntelImage> readIntelImage(const void *data, size_t size);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELIMAGE_H
