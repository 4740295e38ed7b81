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

#include <cstdint>
#include <string>
#include <vector>

namespace tegula::nvidia {

const std::vector<std::string> &getNvidiaTargets();

/// Shared memory a block may use on |arch| with the opt-in attribute (0 for
/// an unknown arch).
uint64_t getMaxSharedMemory(llvm::StringRef arch);

/// The NVIDIA plugin's backend::CompilerPlugin::CompileFunction, with
/// NvidiaCodegen.h after the kit's pipeline. Options: num_warps,
/// num_stages, mma, wgmma, lowering, llvm_passes, ptxas, ptxas_options;
/// stages: the image (NvidiaImage in NvidiaDevice.h: PTX and, when ptxas is
/// found, a cubin), "llvm-ir", "ptx" or "cubin" (which fails without ptxas).
llvm::Expected<backend::KernelIR>
compileTileModule(mlir::ModuleOp module, const plugin::CompileRequest &request);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
