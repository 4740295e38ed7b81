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

#include <memory>
#include <string>

namespace tegula::amd {

/// How far compileTileModule goes.
enum class AmdStage {
  /// The optimized LLVM IR, as the AMDGPU back end receives it.
  LLVMIR,
  /// AMDGPU assembly.
  Assembly,
  /// The hsaco (the code object alone).
  CodeObject,
  /// The hsaco in an AMD image.
  Image,
};

/// What a compile is asked to do.
struct AmdCompileOptions {
  /// "gfx90a", "gfx942", "gfx1100".
  std::string target;
  /// Warps (wavefronts) per workgroup; 0: the module's, else 4.
  unsigned numWarps = 0;
  /// Software-pipelining depth (1: none); 0: the module's, else 3. Only
  /// loads feeding shared-memory matrix operands are pipelined, and no AMD
  /// dot has any yet.
  unsigned numStages = 0;
  /// 4 or 5.
  unsigned codeObjectVersion = 5;
  /// amdgpu-waves-per-eu; 0: LLVM decides.
  unsigned wavesPerEu = 0;
  /// Dots on the target's matrix unit (MFMA, WMMA) where it takes them;
  /// false: fused multiply-adds.
  bool matrixUnits = true;
  /// LLVM new-PM pipeline text replacing default<O2>; "" for the default.
  std::string llvmPasses;
  AmdStage stage = AmdStage::Image;
};

/// A compiled kernel.
struct AmdKernel {
  /// The metadata the plugin returns (name, target "amd:<arch>", warps,
  /// LDS, arguments) and, at AmdStage::Image, the image in |image->data|.
  std::unique_ptr<plugin::CompiledImage> image;
  /// The stage's output: LLVM IR or assembly text, or the hsaco.
  std::string output;
  /// LDS bytes a workgroup allocates (the code object's group segment).
  uint64_t ldsBytes = 0;
  /// The time of each stage run: "layouts", "lowering", "translation",
  /// "llvm-opt", "codegen", "link".
  backend::StageClock clock;
};

/// Compiles the tile kernel |module| (one public tile.func) in place as
/// |options| says. Errors are backend::CompileErrors:
/// TG_ERROR_INVALID_ARGUMENT for an unknown target, bad options, or a
/// kernel the layouts or the lowering reject; TG_ERROR_UNIMPLEMENTED for
/// what the plugin or the target lacks (printing, an intrinsic, f64
/// transcendental math); TG_ERROR_INTERNAL past the lowering. Safe to call
/// from several threads on different contexts.
llvm::Expected<AmdKernel> compileTileModule(mlir::ModuleOp module,
                                            const AmdCompileOptions &options);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDCOMPILER_H
