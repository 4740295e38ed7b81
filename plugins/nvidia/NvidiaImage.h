//===- NvidiaImage.h - The NVIDIA plugin's kernel image format --*- C++ -*-===//
//
// What the NVIDIA plugin's compile returns and its module load accepts: one
// kernel as PTX text and, when ptxas was found at compile time, the cubin
// ptxas made of it, with the little the launcher needs to know. Only ever
// read by the plugin that wrote it.
//
// Layout (little-endian):
//
//   offset 0   8 bytes  magic "TGNVPTX\0"
//   offset 8   u32      format version (kNvidiaImageVersion)
//   offset 12  u32      header size N: the JSON text that follows
//   offset 16  u64      PTX size P
//   offset 24  u64      cubin size C (0: none)
//   offset 32  N bytes  JSON header (llvm/Support/JSON.h), an object:
//                         "kernel"           the kernel's symbol
//                         "target"           "nvidia:<arch>", the device
//                                            target it was compiled for
//                         "arch"             the code's arch (sm_90a for an
//                                            sm_90 target)
//                         "num_warps"        warps per block
//                         "shared_bytes"     dynamic shared memory a block
//                                            needs
//                         "arg_sizes"        [bytes of each packed argument]
//   offset 32+N    P bytes  the PTX (no terminating NUL)
//   offset 32+N+P  C bytes  the cubin (an ELF file)
//
// A reader refuses another magic or version, a truncated image, and a JSON
// header without the fields above; unknown JSON fields are ignored, so a
// later version 1 writer may add fields.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tegula::nvidia {

/// The magic bytes every NVIDIA image begins with.
inline constexpr char kNvidiaImageMagic[8] = {'T', 'G', 'N', 'V',
                                              'P', 'T', 'X', '\0'};
/// The format version this plugin writes and reads.
inline constexpr uint32_t kNvidiaImageVersion = 1;

/// A decoded NVIDIA image.
struct NvidiaImage {
  /// The kernel's symbol in the PTX and the cubin.
  std::string kernelName;
  /// The container target, "nvidia:<arch>".
  std::string target;
  /// The arch the code was generated for ("sm_90a").
  std::string arch;
  uint32_t numWarps = 1;
  /// Dynamic shared memory each block needs (the lowering's scratch).
  uint64_t sharedBytes = 0;
  /// The size of each packed argument (runtime.h's kernel ABI), in order.
  std::vector<uint32_t> argSizes;
  /// The PTX text (.entry kernelName).
  std::string ptx;
  /// ptxas's output for |arch|, or empty.
  std::string cubin;
};

/// Encodes |image| in the format above.
std::string writeNvidiaImage(const NvidiaImage &image);

/// Decodes |size| bytes at |data|; an error (a one-line message) when they
/// are not an NVIDIA image of this version.
llvm::Expected<NvidiaImage> readNvidiaImage(const void *data, size_t size);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
