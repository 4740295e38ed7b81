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
// "code_object_version", and one payload:
// the hsaco.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDIMAGE_H
#define TEGULA_PLUGINS_AMD_AMDIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tegula::amd {

/// The magic bytes every AMD image begins with.
inline constexpr char kAmdImageMagic[8] = {'T', 'G', 'A', 'M',
                                           'D', 'H', 'S', 'A'};
/// The format version this plugin writes and reads.
inline constexpr uint32_t kAmdImageVersion = 1;
/// The format: kAmdImageMagic, kAmdImageVersion, the hsaco.
extern const backend::KernelImageFormat kAmdImageFormat;

/// A decoded AMD image.
struct AmdImage : backend::LaunchFields {
  /// Lanes per wavefront of the code (64 or 32).
  uint32_t waveSize = 64;
  /// The code object version (4 or 5).
  uint32_t codeObjectVersion = 5;
  /// LDS bytes the code object allocates statically.
  uint64_t ldsBytes = 0;
  std::string hsaco;
};

/// Encodes |image| in the format above.
std::string writeAmdImage(const AmdImage &image);

/// Decodes |size| bytes at |data|; an error (a one-line message) when they
/// are not an AMD image of this version or carry no ELF code object.
llvm::Expected<AmdImage> readAmdImage(const void *data, size_t size);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDIMAGE_H
