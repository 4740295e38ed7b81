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
//     ── spir64 with the translator's metadata and bitcode dialect, a short LLVM pipeline
//        (IntelCodegen.h)                                     "llvm-ir"
//     ── llvm-spirv-15 (a program)                            "spirv"
//     ── SPIRV-Tools validation in process (SpirvTools.h)
//        └─ disassembly                                       "spirv-asm"
//     ── the image (IntelImage.h)                             "image"
//
// Every MLIR diagnostic of the compile ends up in the returned error, with
// its file:line:col, on one line.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_INTELCOMPILER_H
#define TEGULA_PLUGINS_INTEL_INTELCOMPILER_H

#include "tegula/BackendKit/TileCompile.h"
#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"


namespace tegula::intel {

/// Compiles the tile kernel |module| in place for |request|'s target,
/// options (num_warps, num_stages, sub_group_size: 0 for the target's
/// default) and stage: the image (IntelImage.h), or the "llvm-ir" the
/// translator reads, the "spirv" module or its "spirv-asm" alone, in the
/// returned kernel's image data. Errors are backend::CompileErrors:
/// TG_ERROR_INVALID_ARGUMENT for an unknown target, bad options, or a
/// kernel the layouts or the lowering reject; TG_ERROR_UNIMPLEMENTED for an
/// op this backend cannot express yet (the message has the op's
/// file:line:col); TG_ERROR_UNAVAILABLE when no translator is found;
/// TG_ERROR_INTERNAL for a failure past the lowering (the translator's or
/// the validator's complaint included). Safe to call from several threads
/// on different contexts.
llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELCOMPILER_H
