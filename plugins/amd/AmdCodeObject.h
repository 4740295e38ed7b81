//===- AmdCodeObject.h - What a code object says of its kernel --*- C++ -*-===//
//
// Reads a kernel's resource use from an AMDGPU code object (hsaco): the
// AMDGPU metadata note (NT_AMDGPU_METADATA, a MessagePack map whose
// "amdhsa.kernels" has one map per kernel) holds what the compiler
// allocated, the numbers hipFuncGetAttribute answers from on a device.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDCODEOBJECT_H
#define TEGULA_PLUGINS_AMD_AMDCODEOBJECT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace tegula::amd {

/// A kernel's entry in the code object's metadata; a field the metadata
/// lacks is empty.
struct KernelResources {
  std::optional<uint32_t> vgprCount;           // .vgpr_count
  std::optional<uint32_t> agprCount;           // .agpr_count (gfx90a on)
  std::optional<uint32_t> sgprCount;           // .sgpr_count
  std::optional<uint32_t> vgprSpillCount;      // .vgpr_spill_count
  std::optional<uint32_t> sgprSpillCount;      // .sgpr_spill_count
  std::optional<uint32_t> groupSegmentSize;    // .group_segment_fixed_size
  std::optional<uint32_t> privateSegmentSize;  // .private_segment_fixed_size
  std::optional<uint32_t> maxFlatWorkgroupSize; // .max_flat_workgroup_size
};

/// The metadata of kernel |kernelName| in the code object |hsaco|; an error
/// when it is no ELF file, has no AMDGPU metadata note or no such kernel.
llvm::Expected<KernelResources> readKernelResources(llvm::StringRef hsaco,
                                                    llvm::StringRef kernelName);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDCODEOBJECT_H
