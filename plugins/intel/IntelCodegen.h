//===- IntelCodegen.h - LLVM IR to validated SPIR-V -------------*- C++ -*-===//
//
// The back half of the Intel plugin's compile, below MLIR. LLVM 19 has no
// SPIR-V target in Debian, so SPIR-V comes from the Khronos translator,
// with one lowering for every GPU (the LLVM dialect) and these steps:
//
//   prepareForSPIRV    the module becomes an OpenCL C-like spir64 module:
//                      triple spir64-unknown-unknown and its data layout;
//                      the kernel spir_kernel with !intel_reqd_sub_group_size
//                      and !reqd_work_group_size (mlir-translate drops both,
//                      so they are added here), every other function and
//                      every call spir_func; !opencl.ocl.version 2.0
//                      (without it the translator leaves the builtins
//                      unresolved imports); the shared local memory array
//                      sized; all but the kernel internal; aggregate
//                      phis split; a short LLVM pipeline; then
//                      TranslatorCompat.h (the LLVM 15
//                      bitcode the translator reads, float atomics as CAS
//                      loops) and a check that nothing is left that SPIR-V
//                      cannot resolve
//   writeBitcode       LLVM bitcode of the result
//   translateToSPIRV   llvm-spirv-15 as a program (ExternalTool.h), never
//                      loaded: its library links LLVM 15
//   SpirvTools.h       validation (and disassembly) in process
//
// The translator is looked for at $TEGULA_LLVM_SPIRV (a path; "none"
// disables compiling to SPIR-V), on PATH as llvm-spirv-15, then at
// /usr/bin/llvm-spirv-15 and /usr/lib/llvm-15/bin/llvm-spirv.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELCODEGEN_H
#define TEGULA_PLUGINS_INTEL_INTELCODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tegula::intel {

/// The SPIR triple and data layout (64-bit pointers).
inline constexpr const char *kSpirTriple = "spir64-unknown-unknown";
inline constexpr const char *kSpirDataLayout =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-"
    "v1024:1024-n8:16:32:64";

/// What prepareForSPIRV needs to know of the kernel.
struct SpirvKernelShape {
  /// The kernel function's name.
  std::string kernel;
  /// Work-items per sub-group (!intel_reqd_sub_group_size).
  unsigned subGroupSize = 16;
  /// Work-items per work-group (!reqd_work_group_size X, 1, 1).
  unsigned workGroupSize = 64;
  /// Bytes of the shared local memory array `tegula_shared`.
  uint64_t sharedBytes = 0;
};

/// Makes |module| ready for the translator as described above. Errors, one
/// line: the module defines no such kernel, its IR does not verify, or it
/// calls a function no SPIR-V consumer provides (named).
llvm::Error prepareForSPIRV(llvm::Module &module, const SpirvKernelShape &shape);

/// |module| as LLVM bitcode.
std::string writeBitcode(const llvm::Module &module);

/// The translator to use (see above), or nothing; then |whyNot| says where
/// it was looked for, or that $TEGULA_LLVM_SPIRV disables it.
std::optional<std::string> findTranslator(std::string &whyNot);

/// Runs the translator at |translator| on |bitcode| and returns the SPIR-V
/// module; an error with its exit status and first lines of output.
llvm::Expected<std::string> translateToSPIRV(llvm::StringRef translator,
                                             llvm::StringRef bitcode);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELCODEGEN_H
