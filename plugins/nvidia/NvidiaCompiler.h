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
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tegula::nvidia {

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
/// Compiles |module| for |request|'s target with its options (num_warps,
/// num_stages, mma, wgmma, lowering, llvm_passes, ptxas, ptxas_options) up
/// to its stage: the image (NvidiaImage.h: PTX and, when ptxas is found,
/// a cubin), or the "llvm-ir", "ptx" or "cubin" alone (the cubin stage
/// fails when no ptxas is found), in the returned kernel's image data.
llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
