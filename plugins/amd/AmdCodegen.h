//===- AmdCodegen.h - LLVM IR to AMDGPU code --------------------*- C++ -*-===//
//
// The back half of the AMD plugin's compile, below MLIR, in process on
// libLLVM's AMDGPU target (triple amdgcn-amd-amdhsa, the architecture as
// the CPU, +wavefrontsize64 or +wavefrontsize32):
//
//   prepareForAMDGPU    the kernel an amdgpu_kernel with its flat work-group
//                       size (and waves per EU when asked), the LDS array
//                       given the size the lowering computed, the code
//                       object version as a module flag, the triple and
//                       data layout, every other definition internal
//   optimizeForAMDGPU   verification, LLVM's pipeline, then every intrinsic
//                       and call of the optimized code checked against the
//                       capability table (AmdTargets.h), so that LLVM never
//                       meets one it would abort on
//   emitAMDGPU          AMDGPU assembly or an ELF relocatable object
//
// AmdLinker.h makes the hsaco of the object. Needs LLVM only, so tests
// drive it with hand-written LLVM IR.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDCODEGEN_H
#define TEGULA_PLUGINS_AMD_AMDCODEGEN_H

#include "AmdTargets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tegula::amd {

/// The target triple of every AMD code object.
inline constexpr const char *kAmdTriple = "amdgcn-amd-amdhsa";

/// What prepareForAMDGPU makes of the kernel.
struct AmdKernelConfig {
  /// Work-items per workgroup (num_warps x wave size), exactly.
  unsigned threads = 256;
  /// LDS bytes the lowering's scratch needs; the LDS array gets this size
  /// (none when 0 and unused).
  uint64_t ldsBytes = 0;
  /// 4 or 5 (module flag amdhsa_code_object_version 400 / 500).
  unsigned codeObjectVersion = 5;
  /// amdgpu-waves-per-eu's minimum; 0 lets LLVM decide.
  unsigned wavesPerEu = 0;
};

/// Initializes LLVM's AMDGPU target and its assembly printer and parser;
/// safe to call from several threads, does the work once.
void initializeAMDGPUTarget();

/// Readies |module| as the comment above says, for kernel @|kernel| on
/// |target|. Errors (one line) when the module lacks the kernel or has a
/// symbol @tegula_lds that is not the LDS array.
llvm::Error prepareForAMDGPU(llvm::Module &module, llvm::StringRef kernel,
                             const AmdTarget &target,
                             const AmdKernelConfig &config);

/// Verifies and optimizes |module| (made ready by prepareForAMDGPU) and
/// checks what the optimized code calls: an intrinsic |target| lacks, or
/// any external function (no device library is linked), is an error naming
/// it. A non-empty |pipeline| (new-PM text, the llvm_passes option)
/// replaces the kit's GPU kernel pipeline (getGpuKernelPipeline).
llvm::Error optimizeForAMDGPU(llvm::Module &module, llvm::StringRef kernel,
                              const AmdTarget &target,
                              llvm::StringRef pipeline = "");

/// The assembly (|assembly|) or the relocatable ELF object of |module| for
/// |target|; errors (one line) with LLVM's own.
llvm::Expected<std::string> emitAMDGPU(llvm::Module &module,
                                       const AmdTarget &target,
                                       bool assembly);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDCODEGEN_H
