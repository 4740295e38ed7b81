//===- SpirvTools.h - SPIR-V validation and disassembly ---------*- C++ -*-===//
//
// SPIRV-Tools (Debian's spirv-tools package: libSPIRV-Tools.a, linked into
// the plugin) in process: every module the plugin returns has passed its
// validator, and the `spirv-asm` stage is its disassembler's text.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_SPIRVTOOLS_H
#define TEGULA_PLUGINS_INTEL_SPIRVTOOLS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tegula::intel {

/// Validates |binary| as a SPIR-V 1.4 module (SPV_ENV_UNIVERSAL_1_4, the
/// rules `spirv-val --target-env spv1.4` applies). The error names the
/// validator's first complaint, with the instruction it is about.
llvm::Error validateSPIRV(llvm::StringRef binary);

/// |binary| as SPIR-V assembly (spirv-dis's text, with friendly names).
llvm::Expected<std::string> disassembleSPIRV(llvm::StringRef binary);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_SPIRVTOOLS_H
