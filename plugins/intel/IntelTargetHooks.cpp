//===- IntelTargetHooks.cpp - What the lowering asks an Intel GPU ---------===//

#include "IntelTargetHooks.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

using namespace mlir;
using namespace tegula::intel;
using namespace tegula::backend;

namespace {

/// OpenCL's constant address space (UniformConstant), where printf's format
/// must live.
constexpr unsigned kConstantSpace = 2;
/// OpExtInst printf, by the name the translator gives it in LLVM IR.
constexpr const char *kPrintfFunction = "_Z18__spirv_ocl_printfPU3AS2cz";
constexpr const char *kWho = "intel target hooks";
/// CLK_LOCAL_MEM_FENCE of OpenCL C.
constexpr int32_t kLocalMemFence = 1;

/// Calls OpenCL builtin |name| of |type| with |args|, declaring it in the
/// enclosing module on first use; null (after an error at |loc|) when it
/// cannot be declared.
Value callBuiltin(OpBuilder &builder, Location loc, StringRef name,
                  LLVM::LLVMFunctionType type, ValueRange args) {
  SmallVector<tegula::backend::ExternalArgument> operands(args.begin(),
                                                          args.end());
  FailureOr<LLVM::CallOp> call = tegula::backend::callExternalFunction(
      builder, loc, name, type, operands, kWho);
  if (failed(call) || isa<LLVM::LLVMVoidType>(type.getReturnType()))
    return Value();
  return call->getResult();
}

/// size_t |name|(uint dimension), the work-item functions, as an i32.
Value callWorkItemFunction(OpBuilder &builder, Location loc, StringRef name,
                           unsigned dimension) {
  Type i32 = builder.getI32Type();
  auto type = LLVM::LLVMFunctionType::get(builder.getI64Type(), {i32});
  Value result = callBuiltin(builder, loc, name, type,
                             {constantI32(builder, loc, dimension)});
  if (!result)
    return builder.create<LLVM::PoisonOp>(loc, i32);
  // Ids and counts of a launch fit in 32 bits (the launcher checks the
  // grid against them).
  return builder.create<LLVM::TruncOp>(loc, i32, result);
}

/// C's printf format |format| as OpenCL C's printf reads it: 64-bit
/// integers take the length modifier "l" there ("ll" is reserved).
std::string toOpenCLFormat(StringRef format) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    out += format[i];
    if (format[i] != '%')
      continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += format[++i];
      continue;
    }
    // Flags and width, then "ll" becomes "l".
    size_t j = i + 1;
    while (j < format.size() &&
           StringRef("-+ #0123456789.").contains(format[j]))
      out += format[j++];
    if (format.substr(j).starts_with("ll")) {
      out += 'l';
      j += 2;
    }
    i = j - 1;
  }
  return out;
}

/// Calls OpenCL's printf (__spirv_ocl_printf, the translator's name for
/// OpExtInst printf) with |format| as a constant string in address space 2
/// (UniformConstant). f64 arguments (C's promotion of %f) are passed as
/// f32: Xe-HPG has no fp64, and OpenCL's %f takes either.
LogicalResult callPrintf(OpBuilder &builder, Location loc, StringRef format,
                         ValueRange args) {
  Type constantPtr =
      LLVM::LLVMPointerType::get(builder.getContext(), kConstantSpace);
  auto type = LLVM::LLVMFunctionType::get(builder.getI32Type(), {constantPtr},
                                          /*isVarArg=*/true);
  std::string openclFormat = toOpenCLFormat(format);
  SmallVector<tegula::backend::ExternalArgument> operands = {
      StringRef(openclFormat)};
  for (Value arg : args)
    operands.push_back(
        arg.getType().isF64()
            ? builder.create<LLVM::FPTruncOp>(loc, builder.getF32Type(), arg)
            : arg);
  return tegula::backend::callExternalFunction(
      builder, loc, kPrintfFunction, type, operands, kWho, kConstantSpace);
}

} // namespace

namespace tegula::intel {
namespace {

/// Intel's answers to the generic lowering. Stateless: one instance may
/// serve concurrent compiles. A hook that cannot build what it is asked
/// emits an error at |loc| and returns a poison value (or failure).
class IntelTargetHooks : public backend::TargetHooks {
public:
  explicit IntelTargetHooks(unsigned subGroupSize)
      : subGroupSize(subGroupSize) {}

  unsigned getWarpSize() const override { return subGroupSize; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  /// get_group_id(axis), truncated to i32.
  Value buildProgramId(OpBuilder &builder, Location loc,
                       Axis axis) const override {
    return callWorkItemFunction(builder, loc, "_Z12get_group_idj",
                                static_cast<unsigned>(axis));
  }
  /// get_num_groups(axis), truncated to i32.
  Value buildNumPrograms(OpBuilder &builder, Location loc,
                         Axis axis) const override {
    return callWorkItemFunction(builder, loc, "_Z14get_num_groupsj",
                                static_cast<unsigned>(axis));
  }
  /// get_local_id(0), truncated to i32.
  Value buildThreadId(OpBuilder &builder, Location loc) const override {
    return callWorkItemFunction(builder, loc, "_Z12get_local_idj", 0);
  }
  /// barrier(CLK_LOCAL_MEM_FENCE).
  void buildBarrier(OpBuilder &builder, Location loc) const override {
    MLIRContext *context = builder.getContext();
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                            {builder.getI32Type()});
    callBuiltin(builder, loc, "_Z7barrierj", type,
                {constantI32(builder, loc, kLocalMemFence)});
  }
  /// sub_group_shuffle_xor / _up / _down / sub_group_shuffle of an i32 or
  /// f32 across the sub-group.
  Value buildShuffle(OpBuilder &builder, Location loc, Value value,
                     ShuffleKind kind, Value offset) const override {
    Type type = value.getType();
    if (!type.isInteger(32) && !type.isF32()) {
      emitError(loc) << "intel shuffle: cannot shuffle a value of type " << type
                     << " (i32 or f32 only; the caller splits wider values)";
      return builder.create<LLVM::PoisonOp>(loc, type);
    }
    // The Itanium mangling of gentype f(gentype, uint): 'f' for float, 'j'
    // for uint (an i32 is shuffled as its bits, so signedness is moot).
    std::string name;
    switch (kind) {
    case ShuffleKind::Xor:
      name = "_Z21sub_group_shuffle_xor";
      break;
    case ShuffleKind::Up:
      name = "_Z20sub_group_shuffle_up";
      break;
    case ShuffleKind::Down:
      name = "_Z22sub_group_shuffle_down";
      break;
    case ShuffleKind::Index:
      name = "_Z17sub_group_shuffle";
      break;
    }
    name += type.isF32() ? "fj" : "jj";
    auto functionType =
        LLVM::LLVMFunctionType::get(type, {type, builder.getI32Type()});
    Value result =
        callBuiltin(builder, loc, name, functionType, {value, offset});
    if (!result)
      return builder.create<LLVM::PoisonOp>(loc, type);
    return result;
  }
  /// The module's `tegula_shared` array, 16-byte aligned, sized by the
  /// code generator once the lowering knows the scratch.
  std::optional<SharedScratch> getSharedScratch() const override {
    return SharedScratch{kSharedMemorySymbol, /*alignment=*/16, kWho};
  }
  /// OpenCL's printf(format, args) (the kit's buildPrint and
  /// buildAssertFailure format the host plugin's lines).
  LogicalResult buildPrintf(OpBuilder &builder, Location loc, StringRef format,
                            ValueRange args) const override {
    return callPrintf(builder, loc, format, args);
  }
  /// Nothing: the kernel goes on after a failed assertion's line.
  LogicalResult buildAbort(OpBuilder &, Location, StringRef, StringRef,
                           unsigned, StringRef) const override {
    // SPIR-V for OpenCL cannot stop a kernel: it goes on (see the header).
    return success();
  }

private:
  unsigned subGroupSize;
};

} // namespace

std::unique_ptr<backend::TargetHooks>
createIntelTargetHooks(unsigned subGroupSize) {
  return std::make_unique<IntelTargetHooks>(subGroupSize);
}

} // namespace tegula::intel
