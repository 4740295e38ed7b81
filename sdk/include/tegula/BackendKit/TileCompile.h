//===- tegula/BackendKit/TileCompile.h - The kit's compile pipeline -*- C++ -*-===//
//
// The steps every backend's compile takes between the tile bytecode it is
// handed and the LLVM module its code generator turns into a binary:
//
//   readTileBytecode        bytecode -> verified tile module (version
//                           errors told by the reader itself)
//   resolveNumWarps         the num_warps option, else the module's, checked
//                           against the target's warp and block sizes
//   runLayoutStages         the target's LayoutPolicy assigns layouts; loop-
//                           invariant conversions leave their loops; loads
//                           feeding shared-memory operands are pipelined
//   lowerKernel             middle/'s lowering with the target's hooks
//   describeKernel          the kernel ABI's view of the arguments
//                           (CompiledImage metadata and packed sizes) and
//                           the scratch / shared-memory limit
//   translateKernel         LLVM dialect -> LLVM IR
//
// compileToLLVM runs them all with a backend's answers (PipelineTarget),
// and compileRequest wraps a backend's compile of one module in what every
// plugin's compile does around it (a fresh context, the bytecode, the stage
// times); a backend's compile is then its options, its PipelineTarget, and
// its code generator (tegula/BackendKit/CompileSupport.h
// has the LLVM pipeline runner, ExternalTool.h the tool runner,
// KernelImage.h the container). Every failure is a CompileError: a
// tg_error_code and one line, MLIR's diagnostics (with file:line:col)
// included. Compiles share nothing: each uses its own MLIRContext
// (prepareCompileContext), so several may run at once.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_TILECOMPILE_H
#define TEGULA_BACKENDKIT_TILECOMPILE_H

#include "tegula/BackendKit/PluginBase.h"
#include "tegula/BackendKit/TargetTable.h"
#include "tegula/Conversion/TileToLLVM.h"
#include "tegula/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tegula::backend {

class LayoutPolicy;
class TargetHooks;

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

/// An llvm::Error holding a CompileError (newlines become spaces).
llvm::Error compileError(int32_t code, const llvm::Twine &message);

/// The code (TG_ERROR_INTERNAL for an error that is not a CompileError) and
/// the one-line message of |error|, which it consumes.
std::pair<int32_t, std::string> takeCompileError(llvm::Error error);

/// |error| as the Status a plugin returns (success for no error).
plugin::Status toStatus(llvm::Error error);

/// |error| (consumed) with its code made TG_ERROR_UNIMPLEMENTED when its
/// message contains one of |markers|: the words with which a backend's
/// hooks or checks refuse a feature the target lacks. Other errors, and
/// success, pass unchanged.
llvm::Error unimplementedIfAny(llvm::Error error,
                               llvm::ArrayRef<llvm::StringRef> markers);

/// The wall-clock time of each stage of one compile, in order.
class StageClock {
public:
  StageClock() : start(std::chrono::steady_clock::now()) {}
  /// Records the time since the last lap (or the clock's creation) as
  /// |stage|.
  void lap(const char *stage);
  const std::vector<std::pair<std::string, double>> &stages() const {
    return seconds;
  }
  /// Each stage as "<who> <kernel>: <stage> <ms> ms", one line each.
  void print(llvm::raw_ostream &os, llvm::StringRef who,
             llvm::StringRef kernel) const;

private:
  std::chrono::steady_clock::time_point start;
  std::vector<std::pair<std::string, double>> seconds;
};

/// Readies |context| for one compile: no threads of its own (the caller's
/// thread is the compile's), diagnostics without the op's text (errors are
/// one line), the tile dialect loaded and the dialects and LLVM IR
/// translations of the lowering registered.
void prepareCompileContext(mlir::MLIRContext &context);

/// Reads tile-dialect bytecode into |context| (prepared as above) and
/// verifies it. Errors: TG_ERROR_INVALID_FORMAT for input that is not tile
/// bytecode, TG_ERROR_VERSION_MISMATCH for a bytecode format or dialect
/// version this build cannot read, TG_ERROR_INVALID_ARGUMENT for IR that
/// does not verify.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
readTileBytecode(llvm::StringRef bytes, mlir::MLIRContext &context);

/// The warps per program: |requested|, else the module's tile.num_warps,
/// else |fallback|; recorded as the module's tile.num_warps. An error
/// (TG_ERROR_INVALID_ARGUMENT) unless it is a power of 2 with at most
/// |maxThreads| threads of |warpSize|.
llvm::Expected<unsigned> resolveNumWarps(mlir::ModuleOp module,
                                         unsigned requested, unsigned warpSize,
                                         unsigned maxThreads,
                                         unsigned fallback = 4);

/// What runLayoutStages does besides assigning layouts.
struct LayoutStageOptions {
  /// The compile target, for messages ("nvidia:sm_90a").
  std::string target;
  unsigned numWarps = 4;
  /// The software-pipelining depth of loops whose loads feed operands kept
  /// in shared memory: 0 for the module's or each loop's tile.num_stages,
  /// else |defaultStages|; 1 for none.
  unsigned numStages = 0;
  unsigned defaultStages = 3;
  /// Which tile types are such operands (empty: none; nothing is
  /// pipelined).
  std::function<bool(mlir::Type)> isSharedOperand;
};

/// Assigns every tile a layout from |policy| (tile::assignLayouts), moves
/// loop-invariant code out of loops (a conversion of a tile the loop does
/// not change then happens once) and software-pipelines the loads that
/// feed shared-memory operands. TEGULA_DUMP_LAYOUTS=1 prints the module
/// after them on stderr.
llvm::Error runLayoutStages(mlir::ModuleOp module, const LayoutPolicy &policy,
                            const LayoutStageOptions &options);

/// Lowers |module| to the LLVM dialect with |hooks|; an error
/// (TG_ERROR_INVALID_ARGUMENT) with every diagnostic when the lowering, or
/// a hook, reports one.
llvm::Expected<LoweredKernel> lowerKernel(mlir::ModuleOp module,
                                          const TargetHooks &hooks,
                                          const LoweringOptions &options,
                                          llvm::StringRef target);

/// How a kernel's scratch is bounded on a target.
struct ScratchLimit {
  /// The most bytes a program may use.
  uint64_t bytes = UINT32_MAX;
  /// What the scratch is, for the message ("shared memory per block").
  std::string what = "scratch per program";
  /// Who sets the limit ("sm_90a").
  std::string owner = "the kernel ABI";
};

/// The kernel's metadata for |image| (name, target, warps, shared memory,
/// the arguments as the kernel ABI passes them) and, when |packedSizes| is
/// not null, each argument's packed size. Errors
/// (TG_ERROR_INVALID_ARGUMENT): an argument type the ABI cannot pass,
/// scratch over |limit|.
llvm::Error describeKernel(const LoweredKernel &kernel, llvm::StringRef target,
                           unsigned numWarps, const ScratchLimit &limit,
                           plugin::CompiledImage &image,
                           std::vector<uint32_t> *packedSizes = nullptr);

/// The LLVM IR of the lowered |module| in |context|; checks that it
/// defines @|kernel|.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateKernel(mlir::ModuleOp module, llvm::LLVMContext &context,
                llvm::StringRef kernel);

/// A backend's answers to the kit's pipeline for one compile.
struct PipelineTarget {
  PipelineTarget() { lowering.polynomialMath = true; }
  /// |target| with |request|'s num_warps and num_stages options (0, the
  /// kernel's, where the plugin declares none).
  PipelineTarget(const plugin::CompileRequest &request, std::string target,
                 unsigned warpSize, unsigned maxThreads)
      : PipelineTarget() {
    this->target = std::move(target);
    this->warpSize = warpSize;
    this->maxThreads = maxThreads;
    numWarps = static_cast<unsigned>(request.integer("num_warps"));
    numStages = static_cast<unsigned>(request.integer("num_stages"));
  }

  /// The compile target, "<backend>:<arch>" (messages and metadata).
  std::string target;
  /// Threads per warp; 0 for one thread per program (no layouts, one warp
  /// whatever num_warps says).
  unsigned warpSize = 32;
  /// The most threads a program (block, work-group) may have.
  unsigned maxThreads = 1024;
  /// The num_warps option; 0: the module's tile.num_warps, else
  /// |defaultWarps| (resolveNumWarps).
  unsigned numWarps = 0;
  unsigned defaultWarps = 4;
  /// The target's layouts; null: none are assigned (a one-thread model).
  const LayoutPolicy *policy = nullptr;
  /// The num_stages option (LayoutStageOptions::numStages).
  unsigned numStages = 0;
  /// Whether loads feeding the matrix units' shared-memory operands are
  /// software-pipelined (tegula::isSharedMatrixOperand over
  /// |lowering.matrixUnits|).
  bool pipelineSharedOperands = false;
  const TargetHooks *hooks = nullptr;
  /// How the lowering runs; distributed exactly when there is a policy.
  /// Transcendental math is polynomials by default (polynomialMath): a
  /// target that links a math library turns it off.
  LoweringOptions lowering;
  ScratchLimit limit;
  /// The warps the metadata reports; 0: the resolved num_warps.
  unsigned reportedWarps = 0;
  /// The words of the backend's refusals: a lowering error holding one is
  /// TG_ERROR_UNIMPLEMENTED (unimplementedIfAny).
  std::vector<llvm::StringRef> refusalMarkers;
};

/// One kernel on its way through a backend's compile.
struct KernelIR {
  /// The resolved warps per program (1 for one thread per program).
  unsigned numWarps = 1;
  LoweredKernel lowered;
  /// The metadata the plugin returns (describeKernel); the backend puts its
  /// image, or the output of the stage asked for, in |image->data|.
  std::unique_ptr<plugin::CompiledImage> image;
  /// Each argument's packed size, as the image's launch fields record them.
  std::vector<uint32_t> argSizes;
  std::unique_ptr<llvm::LLVMContext> llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  StageClock clock;

  const std::string &name() const { return lowered.name; }
  /// Sets the image's data to |module|'s text (the "llvm-ir" stages).
  void setDataToLLVMIR();
  /// A CompileError |code|: "kernel <name>: <cause>" (|cause| consumed),
  /// for a code generator's or a tool's failure.
  llvm::Error fail(int32_t code, llvm::Error cause) const;
};

/// The kit's pipeline over |module|: resolveNumWarps, runLayoutStages (when
/// there is a policy), lowerKernel, |beforeTranslation| (a backend's
/// attributes on the lowered llvm.func, or checks of the lowered module),
/// describeKernel and translateKernel, each stage timed in the clock.
llvm::Expected<KernelIR> compileToLLVM(
    mlir::ModuleOp module, const PipelineTarget &target,
    llvm::function_ref<llvm::Error(mlir::ModuleOp, KernelIR &)>
        beforeTranslation = {});

/// A plugin's compile of |request|: its bytecode read into a fresh context
/// (prepared as prepareCompileContext does), |compileModule| run on it, the
/// stage times printed on stderr as "<who> <kernel>: <stage> <ms> ms" when
/// TEGULA_TIME_STAGES=1, and the kernel's image handed back in |image|.
plugin::Status compileRequest(
    const plugin::CompileRequest &request, llvm::StringRef who,
    llvm::function_ref<llvm::Expected<KernelIR>(mlir::ModuleOp)>
        compileModule,
    std::unique_ptr<plugin::CompiledImage> &image);

/// A plugin that compiles with the kit and finds its devices at
/// initialization: compile() is compileRequest over the backend's compile
/// of one module (stage times printed as "tegula <backend> <kernel>: ..."),
/// and initialize() runs discoverDevices and records why there is none.
class CompilerPlugin : public plugin::PluginBase {
public:
  /// The backend's compile of one tile module, for any of its targets,
  /// with or without a device: |module| (one public tile.func) compiled in
  /// place for |request|'s target, options and stage, giving the image, or
  /// the stage's output alone, as the kernel's image data. Errors are
  /// CompileErrors: TG_ERROR_INVALID_ARGUMENT for an unknown target, bad
  /// options, or a kernel the layouts or the lowering reject;
  /// TG_ERROR_UNIMPLEMENTED for what the backend or the target lacks (an
  /// op, a function, an intrinsic); TG_ERROR_INTERNAL for a failure past
  /// the lowering (a code generator's or a tool's, its complaint included).
  /// Called from several threads at once, each compile on its own context.
  using CompileFunction = std::function<llvm::Expected<KernelIR>(
      mlir::ModuleOp module, const plugin::CompileRequest &request)>;

  CompilerPlugin(plugin::PluginInfo info, CompileFunction compileModule)
      : PluginBase(std::move(info)), compileModule(std::move(compileModule)) {}

  /// A backend whose targets are the rows of a static table (TargetTable.h):
  /// the plugin lists their names (in place of |info|'s targets), and its
  /// compile gets the row of the request's target, which the kit checked.
  template <typename Row>
  CompilerPlugin(plugin::PluginInfo info, llvm::ArrayRef<Row> targets,
                 llvm::Expected<KernelIR> (*compileModule)(
                     mlir::ModuleOp module,
                     const plugin::CompileRequest &request, const Row &target))
      : CompilerPlugin(
            withTargets(std::move(info), getTargetNames(targets)),
            [targets, compileModule](mlir::ModuleOp module,
                                     const plugin::CompileRequest &request)
                -> llvm::Expected<KernelIR> {
              const Row *row = findTarget(targets, request.target);
              if (!row)
                return compileError(TG_ERROR_INVALID_ARGUMENT,
                                    "no target '" + request.target + "'");
              return compileModule(module, request, *row);
            }) {}

  plugin::Status initialize(uint32_t, uint32_t) override {
    std::string reason = discoverDevices();
    if (reason.empty() && devices().empty())
      reason = info().name + ": no device the driver lists could be opened";
    setNoDeviceReason(reason);
    return plugin::Status::success();
  }

  plugin::Status
  compile(const plugin::CompileRequest &request,
          std::unique_ptr<plugin::CompiledImage> &image) override {
    return compileRequest(
        request, "tegula " + info().name,
        [&](mlir::ModuleOp module) { return compileModule(module, request); },
        image);
  }

protected:
  /// Fills the device list (addDevice); returns why there is no device, or
  /// "" (no device is not an error; when the list stays empty the kit says
  /// that none of the driver's devices could be opened).
  virtual std::string discoverDevices() = 0;

private:
  static plugin::PluginInfo withTargets(plugin::PluginInfo info,
                                        std::vector<std::string> targets) {
    info.targets = std::move(targets);
    return info;
  }

  CompileFunction compileModule;
};

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_TILECOMPILE_H
