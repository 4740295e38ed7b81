//===- IntelCompiler.h - Tile IR to SPIR-V ----------------------*- C++ -*-===//
//
// The Intel plugin's compile:
//
//   tile module ── sub-groups per work-group from num_warps (the kit's
//     pipeline, tegula/BackendKit/TileCompile.h, from here to LLVM IR)
//     ── layouts with IntelLayoutPolicy (the sub-group is the warp: 16 or
//        32 work-items; 16-byte accesses; dots as FMA)
//     ── lowerTileToLLVM with IntelTargetHooks (OpenCL builtins),
//        distributed over num_warps x sub_group_size work-items,
//        polynomial f32 math
//     ── LLVM IR (LLVM dialect translation)
//     ── spir64 with the translator's metadata and bitcode dialect, a short
//     LLVM pipeline
//        (IntelCodegen.h)                                     "llvm-ir"
//     ── llvm-spirv-15 (a program)                            "spirv"
//     ── SPIRV-Tools validation in process (SpirvTools.h)
//        └─ disassembly                                       "spirv-asm"
//     ── the image (IntelImage.h)                             "image"
//
// compileTileModule compiles for a row of getIntelTargets(), which the
// kit's backend::CompilerPlugin finds for the request. Options:
// num_warps, num_stages, sub_group_size (0: the target's default);
// stages: "llvm-ir" (what the translator reads), "spirv", "spirv-asm".
// TG_ERROR_UNAVAILABLE when no SPIR-V translator is found; unimplemented
// ops are reported with their file:line:col.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELCOMPILER_H
#define TEGULA_PLUGINS_INTEL_INTELCOMPILER_H

#include "IntelTargets.h"

#include "tegula/BackendKit/TileCompile.h"

namespace tegula::intel {

/// What a compile can stop at besides the image.
std::vector<plugin::CompileStage> getIntelCompileStages();
/// Every option that changes the code.
std::vector<plugin::CompileOption> getIntelCompileOptions();

llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request,
                  const IntelTarget &target);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELCOMPILER_H
