//===- tegula/BackendKit/CompileSupport.h - What every compiler needs -*- C++ -*-===//
//
// Small pieces every plugin's compile path uses between reading tile
// bytecode and writing its image: errors collected from an MLIRContext as
// one line each (with file:line:col), the kernel ABI's scalar type of an
// MLIR type, a type's text, the module a bytecode block holds; and below
// MLIR, one-line errors, LLVM's diagnostics captured instead of printed (or
// exiting the process), internalizing all but the kernel, and LLVM pass
// pipelines (O3, or any pipeline text) for a target machine.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_COMPILESUPPORT_H
#define TEGULA_BACKENDKIT_COMPILESUPPORT_H

#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class DiagnosticHandler;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace tegula::backend {

/// Keeps the errors the context reports while it lives (warnings and
/// remarks are dropped: nothing prints to stderr from a plugin), each as
/// one line led by its file:line:col, notes appended.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);

  bool empty() const { return errors.empty(); }
  /// The errors on one line, "; " between them; |fallback| when none.
  std::string text(const std::string &fallback) const;

private:
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler handler;
};

/// The tg_scalar_type of |type|; false for a type the kernel ABI lacks.
bool toScalarType(mlir::Type type, tg_scalar_type &out);

/// |type| as MLIR prints it.
std::string typeText(mlir::Type type);

/// The ops of |block| as one module: the module itself when the bytecode
/// holds exactly one, else a new module that takes them all.
mlir::OwningOpRef<mlir::ModuleOp> takeModule(mlir::Block &block,
                                             mlir::MLIRContext &context);

/// An error holding |message| on one line (newlines become spaces): errors
/// cross the plugin ABI as one line.
llvm::Error oneLineError(const llvm::Twine &message);

/// Collects the errors LLVM reports through |context| while it lives and
/// drops its warnings and remarks: without a handler LLVM prints them to
/// stderr and exits the process on an error (e.g. "no libcall available"
/// in code generation), which a plugin must never do.
class LLVMDiagnosticCapture {
public:
  explicit LLVMDiagnosticCapture(llvm::LLVMContext &context);
  ~LLVMDiagnosticCapture();
  LLVMDiagnosticCapture(const LLVMDiagnosticCapture &) = delete;
  LLVMDiagnosticCapture &operator=(const LLVMDiagnosticCapture &) = delete;

  /// The errors so far, "; " between them, or "".
  std::string text() const;

private:
  llvm::LLVMContext &context;
  std::unique_ptr<llvm::DiagnosticHandler> previous;
  std::vector<std::string> errors;
};

/// Gives every definition of |module| but the function |keep| (and LLVM's
/// own `llvm.*` globals) internal linkage, so that the optimizer may
/// inline, specialize and drop them.
void internalizeAllBut(llvm::Module &module, llvm::StringRef keep);

/// Runs |machine|'s code generator on |module| (its triple and data layout
/// already |machine|'s) and returns the assembly text or the object file,
/// as |assembly| says. Errors, one line: "<who> cannot compile a module for
/// triple ..." for a module setKernelTarget did not prepare, "<who> cannot
/// emit ..." when the target has no such output, "<who> cannot compile the
/// kernel for <target>: <LLVM's errors>" when code generation reports any.
llvm::Expected<std::string> emitMachineCode(llvm::Module &module,
                                            llvm::TargetMachine &machine,
                                            bool assembly, llvm::StringRef who,
                                            llvm::StringRef target);

/// Runs LLVM's default O3 module pipeline for |machine| on |module|, loop
/// unrolling on; |vectorize| turns the loop and SLP vectorizers on (CPUs)
/// or off (GPUs, whose vectors come from the layouts).
void optimizeModuleO3(llvm::Module &module, llvm::TargetMachine *machine,
                      bool vectorize);

/// Runs |pipeline|, LLVM new-pass-manager text such as "default<O1>" or
/// "function(instcombine,gvn)", for |machine| on |module|; |vectorize| as
/// for optimizeModuleO3 (it applies to the default<...> pipelines). Fails,
/// with LLVM's reason, when the text does not parse.
llvm::Error runLLVMPipeline(llvm::Module &module, llvm::TargetMachine *machine,
                            llvm::StringRef pipeline, bool vectorize);

/// The LLVM passes for a GPU kernel the distributed lowering made: LLVM
/// 19's O1 without half its InstCombines and the passes kernels have no use
/// for (no vectorizers: vectors come from the layouts), for runLLVMPipeline
/// or KernelPasses::builtIn. |targetPasses|, function passes of the target
/// ("nvvm-reflect,nvvm-intr-range"), run first.
std::string getGpuKernelPipeline(llvm::StringRef targetPasses = "");

/// Runs |Initializers| (a target's LLVMInitialize<Target>TargetInfo,
/// ...Target, ...TargetMC, ...AsmPrinter, which libLLVM exports for every
/// target it was built with) once per process, so that a plugin names and
/// links only its own target.
template <void (*...Initializers)()> void initializeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] { (Initializers(), ...); });
}

/// A GPU target machine for |triple| and |cpu| with |features| (the target
/// initialized): code generation at LLVM's Default level, multiplies and
/// adds free to fuse as Triton's enable_fp_fusion (on by default) lets
/// them. |who| names the target in errors ("NVPTX").
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef triple, llvm::StringRef cpu,
                    llvm::StringRef features, llvm::StringRef who);

/// Makes |module| |machine|'s (triple and data layout) and keeps its
/// kernel |kernel| alone external (internalizeAllBut); fails when
/// |module| does not define @|kernel|.
llvm::Error setKernelTarget(llvm::Module &module, llvm::StringRef kernel,
                            llvm::TargetMachine &machine);

/// The LLVM passes a backend runs between translation and code generation.
struct KernelPasses {
  /// The backend's pipeline, new-pass-manager text ("default<O2>").
  llvm::StringRef builtIn;
  /// The user's replacement for it; "" for none.
  llvm::StringRef custom;
  /// How the user spelled |custom| ("llvm_passes", an environment
  /// variable) and, when not "", where it came from, for its error.
  llvm::StringRef customName = "llvm_passes";
  llvm::StringRef customOrigin;
  /// The loop and SLP vectorizers (for CPUs).
  bool vectorize = false;
};

/// Verifies |module| and runs |passes| on it for |machine| (null: none),
/// LLVM's diagnostics captured. Errors, one line: "the LLVM IR of kernel
/// <kernel> is invalid: ...", "<customName>='<custom>' (<customOrigin>) is
/// not an LLVM pass pipeline: ..." (for the built-in one, "the built-in
/// LLVM pass pipeline does not parse: ..."), "optimizing kernel <kernel>
/// failed: <LLVM's errors>".
llvm::Error optimizeKernel(llvm::Module &module, llvm::StringRef kernel,
                           llvm::TargetMachine *machine,
                           const KernelPasses &passes);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_COMPILESUPPORT_H
