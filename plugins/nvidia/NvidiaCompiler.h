//===- NvidiaCompiler.h - Tile IR to PTX and cubin --------------*- C++ -*-===//
//
// The NVIDIA plugin's compile, shared with `tegula compile --target nvidia`:
//
//   tile module ── num_warps from the options (the kit's pipeline,
//     tegula/BackendKit/TileCompile.h, from here to LLVM IR)
//     ── layouts with NvidiaLayoutPolicy (32-thread warps, 16-byte
//        accesses; mma.sync or wgmma dots unless the option mma is off,
//        FMA then)
//     ── lowerTileToLLVM with NvidiaTargetHooks and the plugin's matrix
//        units (NvidiaMatrixUnits.h), distributed over num_warps x 32
//        threads, polynomial f32 math (no libdevice)
//     ── the kernel marked nvvm.kernel, nvvm.maxntid = num_warps x 32,
//        nvvm.minctasm = 1
//     ── LLVM IR (NVVM and LLVM dialect translation)
//     ── O3 and PTX (NvidiaCodegen.h) ── cubin when ptxas is found
//
// Every MLIR diagnostic of the compile ends up in the returned error, with
// its file:line:col, on one line.
//
// The option lowering=single-thread selects an interim execution model
// for bring-up and debugging: no layouts, middle/'s one-thread lowering,
// the program's tiles in the block's dynamic shared memory, and only thread
// 0 of each block running the program (the other threads return at once).
// Correct for any kernel the host plugin runs whose scratch fits in shared
// memory, and slow; the default is the distributed lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H

#include "tegula/BackendKit/TileCompile.h"
#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::nvidia {

/// How far compileTileModule goes.
enum class CompileStage {
  /// The optimized LLVM IR, as the NVPTX back end receives it.
  LLVMIR,
  /// PTX.
  PTX,
  /// PTX and, when ptxas is found, a cubin.
  Image,
};

/// What a compile is asked to do.
struct NvidiaCompileOptions {
  /// The device target: "sm_80", "sm_90", "sm_90a", ...
  std::string target;
  /// Warps per block; 0: the module's tile.num_warps, else 4.
  unsigned numWarps = 0;
  /// Software-pipelining depth of dot loops (1: none); 0: each loop's or
  /// the module's tile.num_stages, else 3.
  unsigned numStages = 0;
  CompileStage stage = CompileStage::Image;
  /// At CompileStage::Image, fail when no ptxas is found (instead of
  /// shipping PTX alone).
  bool requireCubin = false;
  /// Dots on the matrix units (mma.sync, and wgmma on sm_90a when |wgmma|);
  /// FMA otherwise.
  bool mma = true;
  bool wgmma = true;
  /// The interim one-thread execution model (see above) instead of the
  /// distributed lowering.
  bool singleThread = false;
  /// An LLVM pass pipeline replacing the built-in O3 one, or "".
  std::string llvmPasses;
  /// More ptxas options, separated by spaces.
  std::string ptxasOptions;
  /// The ptxas to run: a path, "none", or "" to search for it; nothing:
  /// TEGULA_PTXAS (NvidiaCodegen.h, findPtxas).
  std::optional<std::string> ptxas;
};

/// A compiled kernel.
struct NvidiaKernel {
  /// The metadata the plugin returns (name, target "nvidia:<target>",
  /// warps, dynamic shared memory per block, arguments) and, at
  /// CompileStage::Image, the image (NvidiaImage.h) in |image->data|.
  std::unique_ptr<plugin::CompiledImage> image;
  /// The arch of the code (sm_90a for sm_90, see NvidiaCodegen.h).
  std::string arch;
  /// At CompileStage::LLVMIR: the optimized LLVM IR.
  std::string llvmIR;
  std::string ptx;
  /// Empty when no ptxas was found; |noCubinReason| then says why.
  std::string cubin;
  std::string noCubinReason;
  /// The time of each stage run: "layouts", "lowering", "translation",
  /// "llvm-opt", "ptx", "ptxas".
  backend::StageClock clock;
};

/// The targets the plugin compiles for.
const std::vector<std::string> &getNvidiaTargets();

/// Shared memory a block may use on |arch| with the opt-in attribute (0 for
/// an unknown arch).
uint64_t getMaxSharedMemory(llvm::StringRef arch);

/// Compiles the tile kernel |module| (one public tile.func; its context
/// need not be prepared) in place as |options| says, with the kit's
/// pipeline (tegula/BackendKit/TileCompile.h) and NvidiaCodegen.h. Errors
/// are backend::CompileErrors: TG_ERROR_INVALID_ARGUMENT for an unknown
/// target, bad options, or a kernel the layouts or the lowering reject;
/// TG_ERROR_UNIMPLEMENTED for code that needs a function NVIDIA GPUs lack;
/// TG_ERROR_INTERNAL for a failure past the lowering (ptxas included).
/// Safe to call from several threads on different contexts.
llvm::Expected<NvidiaKernel> compileTileModule(mlir::ModuleOp module,
                                               const NvidiaCompileOptions &options);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
