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
// when none).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tegula::nvidia {

/// The magic bytes every NVIDIA image begins with.
inline constexpr char kNvidiaImageMagic[8] = {'T', 'G', 'N', 'V',
                                              'P', 'T', 'X', '\0'};
/// The format version this plugin writes and reads.
inline constexpr uint32_t kNvidiaImageVersion = 1;
/// The format: kNvidiaImageMagic, kNvidiaImageVersion, PTX and cubin.
extern const backend::KernelImageFormat kNvidiaImageFormat;

/// A decoded NVIDIA image: its launch fields (the target is
/// "nvidia:<target>", the arch the code's: sm_90a for an sm_90 target), the
/// PTX (.entry kernelName) and ptxas's output for the arch, or empty.
struct NvidiaImage : backend::LaunchFields {
  std::string ptx;
  std::string cubin;
};

/// Encodes |image| in the format above.
std::string writeNvidiaImage(const NvidiaImage &image);

/// Decodes |size| bytes at |data|; an error (a one-line message) when they
/// are not an NVIDIA image of this version.
llvm::Expected<NvidiaImage> readNvidiaImage(const void *data, size_t size);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAIMAGE_H
