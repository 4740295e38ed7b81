//===- NvidiaCodegen.h - LLVM IR to PTX and cubin ---------------*- C++ -*-===//
//
// The back half of the NVIDIA plugin's compile, below MLIR: LLVM's NVPTX
// target (in process, from libLLVM) optimizes a kernel's LLVM IR at O3 and
// prints PTX; ptxas, when one is found, assembles the PTX into a cubin.
// Needs LLVM only, so tests drive it with hand-written LLVM IR.
//
// PTX is generated for sm_XY[a] with PTX ISA 8.5 (`+ptx85`, the newest LLVM
// 19 knows). A device target sm_90 is compiled as sm_90a, Hopper's
// arch-specific variant (what wgmma and setmaxnreg need); its code loads on
// sm_90 devices only, which is what the target promises anyway.
//
// ptxas is looked for, in order, at $TEGULA_PTXAS (a path; "none" disables
// ptxas), $CUDA_HOME/bin/ptxas, $CUDA_PATH/bin/ptxas, on PATH, and at
// /usr/local/cuda/bin/ptxas. Without one, images carry PTX only and the
// driver compiles it when the module is loaded.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIACODEGEN_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIACODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tegula::nvidia {

/// The PTX ISA version every image uses (LLVM subtarget feature).
inline constexpr const char *kPtxFeatures = "+ptx85";
/// The external functions generated code may call: the CUDA device
/// runtime's, which ptxas and the driver's JIT provide.
inline constexpr const char *kDeviceRuntimeFunctions[] = {"vprintf",
                                                          "__assertfail"};

/// Initializes LLVM's NVPTX target and its assembly printer; safe to call
/// from several threads, does the work once.
void initializeNVPTXTarget();

/// The compute capability of "sm_XY" or "sm_XYa" as XY (90 for "sm_90a");
/// 0 when |arch| is not of that form.
unsigned getSmVersion(llvm::StringRef arch);

/// The arch code is generated for when compiling for device target
/// |target|: sm_90 becomes sm_90a, every other arch stays itself.
std::string getCodegenArch(llvm::StringRef target);

/// True when the "nvvm.annotations" metadata of |module| marks @|name| as a
/// kernel.
bool isMarkedKernel(const llvm::Module &module, llvm::StringRef name);

/// Readies |module| for PTX emission for |arch| and optimizes it at O3: sets
/// the NVPTX triple and data layout, makes every definition but the kernel
/// @|kernel| internal, verifies the IR, and checks that @|kernel| is marked
/// as a kernel and that the optimized code calls no external function but
/// kDeviceRuntimeFunctions (a libm call left by a math op would otherwise
/// fail in ptxas). |passes| replaces the built-in pass pipeline (LLVM's
/// textual pipeline syntax) when not empty. Errors are one line.
llvm::Error optimizeForNVPTX(llvm::Module &module, llvm::StringRef kernel,
                             llvm::StringRef arch,
                             llvm::StringRef passes = "");

/// Prints |module| (made ready by optimizeForNVPTX) as PTX for |arch|.
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    llvm::StringRef arch);

/// The ptxas to use, or nothing; then |whyNot| says where it was looked
/// for, or that it is disabled. |chosen|: the value of the compile option
/// that TEGULA_PTXAS sets (a path, "none", or "" to search CUDA_HOME,
/// CUDA_PATH, PATH and /usr/local/cuda); without it, TEGULA_PTXAS itself.
std::optional<std::string>
findPtxas(std::string &whyNot,
          std::optional<std::string> chosen = std::nullopt);

/// Assembles |ptx| for |arch| with the ptxas at |ptxas| (-O3 unless
/// |options|, more ptxas options separated by spaces, choose a level), in
/// temporary files that are removed afterwards. Returns the cubin, or an
/// error with ptxas's exit status and its first lines of output.
llvm::Expected<std::string> assemblePTX(llvm::StringRef ptxas,
                                        llvm::StringRef ptx,
                                        llvm::StringRef arch,
                                        llvm::StringRef options = "");

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIACODEGEN_H
