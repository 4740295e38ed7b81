//===- AmdCompiler.h - Tile IR to AMDGPU code objects -----------*- C++ -*-===//
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
//     ── the image (AmdImage.h)
//
// Every MLIR diagnostic of the compile ends up in the returned error, with
// its file:line:col, on one line.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDCOMPILER_H
#define TEGULA_PLUGINS_AMD_AMDCOMPILER_H

#include "tegula/BackendKit/TileCompile.h"
#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"


namespace tegula::amd {

/// Compiles the tile kernel |module| (one public tile.func) in place for
/// |request|'s target, options (num_warps, num_stages, code_object_version,
/// waves_per_eu, matrix_units, llvm_passes) and stage: the image, or the
/// "llvm-ir", "asm" or "hsaco" alone, in the returned kernel's image data.
/// Errors are backend::CompileErrors: TG_ERROR_INVALID_ARGUMENT for an
/// unknown target, bad options, or a kernel the layouts or the lowering
/// reject; TG_ERROR_UNIMPLEMENTED for what the plugin or the target lacks
/// (printing, an intrinsic, f64 transcendental math); TG_ERROR_INTERNAL past
/// the lowering. Safe to call from several threads on different contexts.
llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDCOMPILER_H
