//===- NvidiaCompiler.h - Tile IR to PTX and cubin --------------*- C++ -*-===//
//
// The NVIDIA plugin's compile, shared with `tegula compile --target nvidia`:
//
//   tile module ── tile.num_warps from the options
//     ── tile::assignLayouts with NvidiaLayoutPolicy (32-thread warps,
//        16-byte accesses; mma.sync or wgmma dots unless
//        TEGULA_NVIDIA_MMA=0, FMA then)
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
// TEGULA_NVIDIA_LOWERING=single-thread selects an interim execution model
// for bring-up and debugging: no layouts, middle/'s one-thread lowering,
// the program's tiles in the block's dynamic shared memory, and only thread
// 0 of each block running the program (the other threads return at once).
// Correct for any kernel the host plugin runs whose scratch fits in shared
// memory, and slow; the default is the distributed lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H

#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::nvidia {

/// A failed compile: a tg_error_code and a one-line message.
class CompileError : public llvm::ErrorInfo<CompileError> {
public:
  static char ID;
  CompileError(int32_t code, std::string message)
      : errorCode(code), text(std::move(message)) {}
  int32_t code() const { return errorCode; }
  std::string message() const override { return text; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  int32_t errorCode;
  std::string text;
};

/// An llvm::Error holding a CompileError.
llvm::Error compileError(int32_t code, const llvm::Twine &message);

/// The code (TG_ERROR_INTERNAL for an error that is not a CompileError) and
/// the message of |error|, which it consumes.
std::pair<int32_t, std::string> takeCompileError(llvm::Error error);

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
};

/// One kernel argument, as the kernel ABI (runtime.h) passes it.
struct NvidiaKernelArg {
  bool isPointer = false;
  /// The scalar type, or the pointee's for a pointer.
  tg_scalar_type type = TG_TYPE_I32;
  /// Known divisibility, 1 when none.
  uint32_t divisibility = 1;
  /// Bytes in the packed arguments: 8 for a pointer, else the type's size.
  uint32_t packedSize = 4;
};

/// A compiled kernel.
struct NvidiaKernel {
  std::string name;
  std::vector<NvidiaKernelArg> args;
  /// The device target compiled for and the arch of the code (sm_90a for
  /// sm_90, see NvidiaCodegen.h).
  std::string target;
  std::string arch;
  unsigned numWarps = 4;
  /// Dynamic shared memory a block needs.
  uint64_t sharedBytes = 0;
  /// At CompileStage::LLVMIR: the optimized LLVM IR.
  std::string llvmIR;
  std::string ptx;
  /// Empty when no ptxas was found; |noCubinReason| then says why.
  std::string cubin;
  std::string noCubinReason;
  /// Wall-clock seconds of each stage run, in order: "layouts", "lowering",
  /// "translation", "llvm-opt", "ptx", "ptxas".
  std::vector<std::pair<std::string, double>> stageSeconds;
};

/// The targets the plugin compiles for.
const std::vector<std::string> &getNvidiaTargets();

/// Shared memory a block may use on |arch| with the opt-in attribute (0 for
/// an unknown arch).
uint64_t getMaxSharedMemory(llvm::StringRef arch);

/// Reads tile-dialect bytecode into |context| (which must have the tile
/// dialect loaded) and verifies it. Errors: TG_ERROR_INVALID_FORMAT for
/// input that is not tile bytecode, TG_ERROR_VERSION_MISMATCH for a dialect
/// version this build cannot read, TG_ERROR_INVALID_ARGUMENT for IR that
/// does not verify.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
readTileBytecode(llvm::StringRef bytes, mlir::MLIRContext &context);

/// Compiles the tile kernel |module| (one public tile.func) in place as
/// |options| says. Errors: TG_ERROR_INVALID_ARGUMENT for an unknown target,
/// bad options, or a kernel the layouts or the lowering reject;
/// TG_ERROR_UNIMPLEMENTED for code that needs a function NVIDIA GPUs lack;
/// TG_ERROR_INTERNAL for a failure past the lowering (ptxas included).
/// Safe to call from several threads on different contexts.
llvm::Expected<NvidiaKernel> compileTileModule(mlir::ModuleOp module,
                                               const NvidiaCompileOptions &options);

/// The image (NvidiaImage.h) of |kernel|, compiled to CompileStage::Image.
std::string writeKernelImage(const NvidiaKernel &kernel);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIACOMPILER_H
