//===- HostImage.h - The host plugin's kernel image format ------*- C++ -*-===//
//
// What the host plugin's compile returns and its module load accepts: one
// kernel as a relocatable ELF object for the CPU it was compiled on, with
// the little the launcher needs to know. Only ever read by the plugin that
// wrote it (HostKernelABI.h says what the object's function looks like).
//
// The kit's container (tegula/BackendKit/KernelImage.h) with magic
// "TGHOSTK\0" and one payload, the ELF object. Its JSON header:
//   "kernel"           the kernel's symbol
//   "target"           "host:<arch>"
//   "cpu"              the CPU the code was tuned for
//   "features"         ["+avx2", "-avx512f", ...]: the subtarget features it
//                      assumes
//   "scratch_bytes"    scratch per program (64-aligned)
//   "packed_args_size" bytes of packed arguments the kernel reads
//   "simt_threads"     optional: threads per program of a SIMT image (1 when
//                      absent)
// backend::writeImage and backend::readImage<HostImage> encode and decode
// it.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTIMAGE_H
#define TEGULA_PLUGINS_HOST_HOSTIMAGE_H

#include "tegula/BackendKit/KernelImage.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tegula::host {

/// A decoded host image.
struct HostImage {
  static constexpr backend::KernelImageFormat kFormat = {
      "TGHOSTK", /*version=*/1, /*numPayloads=*/1, "host kernel image",
      "the host plugin"};

  /// The kernel's symbol in |object|.
  std::string kernelName;
  /// The container target, "host:<arch>".
  std::string target;
  /// The CPU the object was tuned for (llvm::sys::getHostCPUName()).
  std::string cpu;
  /// The subtarget features the object assumes, "+name" or "-name".
  std::vector<std::string> features;
  /// Scratch bytes each program needs (0: none).
  uint64_t scratchBytes = 0;
  /// Bytes of packed arguments the kernel reads.
  uint64_t packedArgsSize = 0;
  /// Threads per program: 1, or a SIMT image's numWarps x warp size.
  uint64_t simtThreads = 1;
  /// The ELF relocatable object.
  std::string object;

  template <typename Fields> void visit(Fields &fields) {
    fields.string("kernel", kernelName, /*nonEmpty=*/true);
    fields.string("target", target, /*nonEmpty=*/true);
    fields.string("cpu", cpu);
    fields.strings("features", features);
    fields.integer("scratch_bytes", scratchBytes, 0, INT64_MAX);
    fields.integerOr("simt_threads", simtThreads, 1, 1, 1024);
    fields.integer("packed_args_size", packedArgsSize, 0, INT64_MAX);
    fields.payload(object, "an object");
  }
};

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTIMAGE_H
