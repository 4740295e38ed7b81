//===- CompileSupport.cpp - What every compiler needs ---------------------===//

#include "tegula/BackendKit/CompileSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <algorithm>

using namespace mlir;
using namespace tegula::backend;

namespace {

/// "file:line:col" of |loc|, or "" when it names no position.
std::string describe(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) +
           ":" + std::to_string(file.getColumn());
  if (auto name = dyn_cast<NameLoc>(loc))
    return describe(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return describe(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations()) {
      std::string text = describe(part);
      if (!text.empty())
        return text;
    }
  return "";
}

std::string render(Diagnostic &diagnostic) {
  std::string where = describe(diagnostic.getLocation());
  std::string text = (where.empty() ? "" : where + ": ") + diagnostic.str();
  for (Diagnostic &note : diagnostic.getNotes()) {
    std::string noteWhere = describe(note.getLocation());
    text += " (note: " + (noteWhere.empty() ? "" : noteWhere + ": ") +
            note.str() + ")";
  }
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

} // namespace

DiagnosticCollector::DiagnosticCollector(MLIRContext &context)
    : handler(&context, [this](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
          errors.push_back(render(diagnostic));
        return success();
      }) {}

std::string DiagnosticCollector::text(const std::string &fallback) const {
  if (errors.empty())
    return fallback;
  std::string joined;
  for (const std::string &error : errors)
    joined += (joined.empty() ? "" : "; ") + error;
  return joined;
}


bool tegula::backend::toScalarType(Type type, tg_scalar_type &out) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      out = TG_TYPE_I1;
      return true;
    case 8:
      out = isUnsigned ? TG_TYPE_U8 : TG_TYPE_I8;
      return true;
    case 16:
      out = isUnsigned ? TG_TYPE_U16 : TG_TYPE_I16;
      return true;
    case 32:
      out = isUnsigned ? TG_TYPE_U32 : TG_TYPE_I32;
      return true;
    case 64:
      out = isUnsigned ? TG_TYPE_U64 : TG_TYPE_I64;
      return true;
    default:
      return false;
    }
  }
  if (type.isF16())
    out = TG_TYPE_F16;
  else if (type.isBF16())
    out = TG_TYPE_BF16;
  else if (type.isF32())
    out = TG_TYPE_F32;
  else if (type.isF64())
    out = TG_TYPE_F64;
  else if (type.isFloat8E4M3FN())
    out = TG_TYPE_FP8E4M3;
  else if (type.isFloat8E5M2())
    out = TG_TYPE_FP8E5M2;
  else
    return false;
  return true;
}

std::string tegula::backend::typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return os.str();
}

OwningOpRef<ModuleOp> tegula::backend::takeModule(Block &block,
                                                 MLIRContext &context) {
  if (llvm::hasSingleElement(block))
    if (auto module = dyn_cast<ModuleOp>(&block.front())) {
      module->remove();
      return OwningOpRef<ModuleOp>(module);
    }
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  while (!block.empty())
    block.front().moveBefore(module->getBody(), module->getBody()->end());
  return module;
}

void tegula::backend::optimizeModuleO3(llvm::Module &module,
                                       llvm::TargetMachine *machine,
                                       bool vectorize) {
  llvm::cantFail(runLLVMPipeline(module, machine, "default<O3>", vectorize));
}

// LLVM 19's O1 pipeline (`opt -passes='default<O1>' -print-pipeline-passes`)
// without four of its eight InstCombine runs (the one before inlining and
// the three after the loop vectorizer) and without the passes that have
// nothing to do in a kernel (coroutines, OpenMP, annotations, profiles). O1
// rather than O3: the distributed lowering already emits straight-line SIMT
// code, its loops software-pipelined and its accesses vectorized; on NVPTX,
// O3 gave the same attention PTX byte for byte in nearly twice the time,
// and dropping the four InstCombines left the corpus's PTX unchanged but
// for a few integer ops. Shorter hand-made pipelines (without LICM, loop
// rotation, reassociation, ...) were faster still but made ptxas schedule
// attention 10-20% slower. docs/performance.md has the AMDGPU figures.
#define TG_IC "instcombine<max-iterations=1;no-verify-fixpoint>"
#define TG_CFG "simplifycfg<switch-range-to-icmp>"
static constexpr const char *kGpuKernelPipelineRest =
    // Module simplification: attributes, constants, globals.
    "inferattrs,"
    "function<eager-inv>(lower-expect,simplifycfg,sroa<modify-cfg>,"
    "early-cse<>),ipsccp,called-value-propagation,globalopt,"
    "function<eager-inv>(mem2reg," TG_CFG "),always-inline,"
    "require<globals-aa>,function(invalidate<aa>),"
    // Inlining and the function simplification pipeline (O1's, whole).
    "cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,"
    "function<eager-inv;no-rerun>(sroa<modify-cfg>,early-cse<memssa>," TG_CFG
    "," TG_IC ",libcalls-shrinkwrap," TG_CFG ",reassociate,"
    "loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
    "loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"
    "simple-loop-unswitch<no-nontrivial;trivial>)," TG_CFG "," TG_IC ","
    "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),sroa<modify-cfg>,"
    "memcpyopt,sccp,bdce," TG_IC ",adce," TG_CFG "," TG_IC "),function-attrs)),"
    // Module optimization (no vectorization: forced only).
    "deadargelim,globalopt,globaldce,rpo-function-attrs,recompute-globalsaa,"
    "function<eager-inv>(float2int,lower-constant-intrinsics,"
    "loop(loop-rotate<header-duplication;no-prepare-for-lto>,loop-deletion),"
    "loop-distribute,inject-tli-mappings,"
    "loop-vectorize<no-interleave-forced-only;vectorize-forced-only;>,"
    "infer-alignment,loop-load-elim,simplifycfg<forward-switch-cond;"
    "switch-range-to-icmp;switch-to-lookup;no-keep-loops;hoist-common-insts;"
    "sink-common-insts>,vector-combine,loop-unroll<O1>,sroa<preserve-cfg>,"
    "infer-alignment,loop-mssa(licm<allowspeculation>),"
    "alignment-from-assumptions,loop-sink,instsimplify,div-rem-pairs,"
    "tailcallelim,simplifycfg<switch-range-to-icmp;speculate-unpredictables>),"
    "globaldce,constmerge";
#undef TG_IC
#undef TG_CFG

std::string
tegula::backend::getGpuKernelPipeline(llvm::StringRef targetPasses) {
  std::string pipeline = "forceattrs,";
  if (!targetPasses.empty())
    pipeline += "function(" + targetPasses.str() + "),";
  return pipeline + kGpuKernelPipelineRest;
}

llvm::Error tegula::backend::runLLVMPipeline(llvm::Module &module,
                                             llvm::TargetMachine *machine,
                                             llvm::StringRef pipeline,
                                             bool vectorize) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopVectorization = vectorize;
  tuning.SLPVectorization = vectorize;
  llvm::PassBuilder builder(machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  if (llvm::Error error = builder.parsePassPipeline(passes, pipeline))
    return error;
  passes.run(module, modules);
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
tegula::backend::createTargetMachine(llvm::StringRef triple,
                                     llvm::StringRef cpu,
                                     llvm::StringRef features,
                                     llvm::StringRef who) {
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return oneLineError("LLVM has no " + who + " target: " + lookupError);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  // Codegen at Default, not Aggressive: NVPTX then cleans up after its
  // strength reductions with EarlyCSE instead of GVN, for the same PTX in
  // less time.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  if (!machine)
    return oneLineError("cannot create an " + who + " target machine for " +
                        cpu);
  return machine;
}

llvm::Error tegula::backend::setKernelTarget(llvm::Module &module,
                                             llvm::StringRef kernel,
                                             llvm::TargetMachine &machine) {
  llvm::Function *entry = module.getFunction(kernel);
  if (!entry || entry->isDeclaration())
    return oneLineError("the module defines no kernel @" + kernel);
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  internalizeAllBut(module, kernel);
  return llvm::Error::success();
}

llvm::Error tegula::backend::optimizeKernel(llvm::Module &module,
                                            llvm::StringRef kernel,
                                            llvm::TargetMachine *machine,
                                            const KernelPasses &passes) {
  LLVMDiagnosticCapture diagnostics(module.getContext());
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(module, &problemStream))
    return oneLineError("the LLVM IR of kernel " + kernel +
                        " is invalid: " + problemStream.str());
  bool custom = !passes.custom.empty();
  llvm::StringRef text = custom ? passes.custom : passes.builtIn;
  if (llvm::Error error =
          runLLVMPipeline(module, machine, text, passes.vectorize)) {
    std::string what = "the built-in LLVM pass pipeline does not parse: ";
    if (custom)
      what = (passes.customName + "='" + text + "'" +
              (passes.customOrigin.empty()
                   ? std::string()
                   : " (" + passes.customOrigin.str() + ")") +
              " is not an LLVM pass pipeline: ")
                 .str();
    return oneLineError(what + llvm::toString(std::move(error)));
  }
  if (std::string errors = diagnostics.text(); !errors.empty())
    return oneLineError("optimizing kernel " + kernel + " failed: " + errors);
  return llvm::Error::success();
}

llvm::Error tegula::backend::oneLineError(const llvm::Twine &message) {
  std::string text = message.str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

namespace {
/// Keeps the error diagnostics' text in |errors|.
struct CapturingHandler : llvm::DiagnosticHandler {
  explicit CapturingHandler(std::vector<std::string> &errors)
      : errors(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() == llvm::DS_Error) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      errors.push_back(os.str());
    }
    return true;
  }
  std::vector<std::string> &errors;
};
} // namespace

LLVMDiagnosticCapture::LLVMDiagnosticCapture(llvm::LLVMContext &context)
    : context(context), previous(context.getDiagnosticHandler()) {
  context.setDiagnosticHandler(std::make_unique<CapturingHandler>(errors));
}

LLVMDiagnosticCapture::~LLVMDiagnosticCapture() {
  context.setDiagnosticHandler(std::move(previous));
}

std::string LLVMDiagnosticCapture::text() const {
  return llvm::join(errors, "; ");
}

void tegula::backend::internalizeAllBut(llvm::Module &module,
                                        llvm::StringRef keep) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.getName() != keep &&
        !function.getName().starts_with("llvm."))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : module.globals())
    if (!global.isDeclaration() && !global.hasAppendingLinkage() &&
        !global.getName().starts_with("llvm."))
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
}

llvm::Expected<std::string>
tegula::backend::emitMachineCode(llvm::Module &module,
                                 llvm::TargetMachine &machine, bool assembly,
                                 llvm::StringRef who, llvm::StringRef target) {
  const std::string &triple = machine.getTargetTriple().str();
  if (module.getTargetTriple() != triple)
    return oneLineError(who + " cannot compile a module for triple '" +
                        module.getTargetTriple() + "' (" + triple +
                        " expected: prepare it with setKernelTarget)");
  LLVMDiagnosticCapture diagnostics(module.getContext());
  llvm::SmallString<0> out;
  {
    llvm::raw_svector_ostream os(out);
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                    assembly
                                        ? llvm::CodeGenFileType::AssemblyFile
                                        : llvm::CodeGenFileType::ObjectFile))
      return oneLineError(who + " cannot emit " +
                          (assembly ? "assembly" : "an object file") +
                          " for " + target);
    codegen.run(module);
  }
  if (std::string errors = diagnostics.text(); !errors.empty())
    return oneLineError(who + " cannot compile the kernel for " + target +
                        ": " + errors);
  return std::string(out.str());
}
