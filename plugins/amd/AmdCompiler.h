//===- AmdCompiler.h - Tile IR to AMD code objects --------------*- C++ -*-===//
//
// The AMD plugin's compile:
//
//   tile module ── num_warps from the options (the kit's pipeline,
//     tegula/BackendKit/TileCompile.h, from here to LLVM IR), checked
//     against the wave size and 1024 work-items
//     ── layouts with AmdLayoutPolicy (wavefront-wide warps, 16-byte
//        accesses; dots on MFMA or WMMA, AmdMatrixUnits.h, else fused
//        multiply-adds)
//     ── lowerTileToLLVM with AmdTargetHooks, distributed over num_warps x
//        wave size lanes, polynomial f32 math (no device library)
//     ── every intrinsic of the lowered module checked against the
//        capability table, with its file:line:col
//     ── LLVM IR ── prepareForAMDGPU, optimizeForAMDGPU (AmdCodegen.h)
//     ── AMDGPU assembly, or an object and its hsaco (AmdLinker.h)
//     ── the image (AmdImage, below)
//
// The image (AmdImage), what the compile returns and the module load will
// accept: one kernel's code object (an hsaco: an AMDGPU ELF shared object
// with its AMDHSA metadata note, what hipModuleLoadData takes) with the
// little the launcher needs to know, in the kit's container
// (tegula/BackendKit/KernelImage.h) with magic "TGAMDHSA": the launch
// fields every GPU image has (LaunchFields: the target is "amd:<arch>",
// shared_bytes the LDS a launch must add, 0: the code object allocates its
// LDS statically), "lds_bytes" (that static LDS, the lowering's scratch),
// "wave_size" and "code_object_version", and one payload: the hsaco.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDCOMPILER_H
#define TEGULA_PLUGINS_AMD_AMDCOMPILER_H

#include "AmdTargets.h"

#include "tegula/BackendKit/KernelImage.h"
#include "tegula/BackendKit/TileCompile.h"

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
                   /*prefix=*/
                   "\x7f"
                   "ELF");
  }
};

/// The AMD plugin's compile for |arch|, a row of getAmdTargets() (the kit's
/// backend::CompilerPlugin finds it). Options:
/// num_warps, num_stages, code_object_version, waves_per_eu, matrix_units,
/// llvm_passes; stages: "llvm-ir", "asm", "hsaco". Unimplemented: printing,
/// an intrinsic the architecture lacks, f64 transcendental math.
llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request,
                  const AmdTarget &arch);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDCOMPILER_H
