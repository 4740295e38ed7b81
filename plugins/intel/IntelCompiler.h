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

#include <memory>
#include <string>

namespace tegula::intel {

/// How far compileTileModule goes.
enum class IntelStage { LLVMIR, SPIRV, SPIRVAssembly, Image };

/// What a compile is asked to do.
struct IntelCompileOptions {
  /// "pvc", "dg2" or "spirv" (IntelTargets.h).
  std::string target;
  /// Sub-groups per work-group; 0: the module's tile.num_warps, else 4.
  unsigned numWarps = 0;
  /// Software-pipelining depth of loops with shared-memory operands (none
  /// on Intel yet: there is no DPAS family); 0: the kernel's.
  unsigned numStages = 0;
  /// Work-items per sub-group, 16 or 32; 0: the target's default.
  unsigned subGroupSize = 0;
  IntelStage stage = IntelStage::Image;
};

/// A compiled kernel.
struct IntelKernel {
  /// The metadata (name, target "intel:<target>", sub-groups per
  /// work-group as warps, shared local memory, arguments) and, at
  /// IntelStage::Image, the image (IntelImage.h) in |image->data|.
  std::unique_ptr<plugin::CompiledImage> image;
  unsigned subGroupSize = 0;
  /// The LLVM IR the translator reads (text), the SPIR-V module and, at
  /// IntelStage::SPIRVAssembly, its disassembly: each as far as the stage
  /// went.
  std::string llvmIR;
  std::string spirv;
  std::string spirvAssembly;
  /// The time of each stage run: "layouts", "lowering", "translation",
  /// "llvm-opt", "bitcode", "llvm-spirv", "spirv-val", "spirv-dis".
  backend::StageClock clock;
};

/// Compiles the tile kernel |module| in place as |options| says. Errors are
/// backend::CompileErrors: TG_ERROR_INVALID_ARGUMENT for an unknown target,
/// bad options, or a kernel the layouts or the lowering reject;
/// TG_ERROR_UNIMPLEMENTED for an op this backend cannot express yet
/// (tl.device_print, tl.device_assert; the message has the op's
/// file:line:col); TG_ERROR_UNAVAILABLE when no translator is found;
/// TG_ERROR_INTERNAL for a failure past the lowering (the translator's or
/// the validator's complaint included). Safe to call from several threads
/// on different contexts.
llvm::Expected<IntelKernel> compileTileModule(mlir::ModuleOp module,
                                              const IntelCompileOptions &options);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_INTELCOMPILER_H
