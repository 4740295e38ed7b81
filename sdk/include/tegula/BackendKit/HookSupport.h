//===- tegula/BackendKit/HookSupport.h - Helpers for TargetHooks -*- C++ -*-===//
//
// What TargetHooks implementations build again and again: where the builder
// is (the llvm.func and module it inserts into), external functions of the
// target's runtime declared once, NUL-terminated string constants shared by
// equal text, and the printf lines of `tl.device_print` and a failed
// `tl.device_assert` (formatDevicePrint, formatAssertFailure), so that a
// target with a printf (CUDA's vprintf, HIP's, OpenCL's) only emits the
// call, as Triton's TargetInfoBase::printf does.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_HOOKSUPPORT_H
#define TEGULA_BACKENDKIT_HOOKSUPPORT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tegula::backend {

/// The llvm.func |builder| inserts into, or null.
mlir::LLVM::LLVMFuncOp getEnclosingLLVMFunction(mlir::OpBuilder &builder);

/// The module |builder| inserts into, or null.
mlir::ModuleOp getEnclosingModule(mlir::OpBuilder &builder);

/// External function |name| of |type| in |module|: declared at the start
/// of the module unless it is there. Fails, with an error at |loc| naming
/// |who| (e.g. "host target hooks"), when |name| is taken by something
/// else.
mlir::FailureOr<mlir::LLVM::LLVMFuncOp>
declareExternalFunction(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::ModuleOp module, llvm::StringRef name,
                        mlir::LLVM::LLVMFunctionType type,
                        llvm::StringRef who);

/// An internal constant global in |addressSpace| holding |text| and a NUL:
/// an existing `tegula_str_<n>` global with the same bytes, or a new one
/// with the first free <n>.
mlir::LLVM::GlobalOp getOrCreateStringGlobal(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             mlir::ModuleOp module,
                                             llvm::StringRef text,
                                             unsigned addressSpace = 0);

/// An argument of callExternalFunction: a value, or text, passed as the
/// address of its NUL-terminated constant copy (getOrCreateStringGlobal).
class ExternalArgument {
public:
  ExternalArgument(mlir::Value value) : value(value) {}
  ExternalArgument(llvm::StringRef text) : text(text), isText(true) {}
  ExternalArgument(const char *text) : text(text), isText(true) {}
  ExternalArgument(const std::string &text) : text(text), isText(true) {}

  mlir::Value value;
  llvm::StringRef text;
  bool isText = false;
};

/// Calls the external function |name| of |type| (a runtime's printf,
/// assert or builtin) with |args|, declaring it in the enclosing module on
/// first use (declareExternalFunction, errors naming |who|). Text lives in
/// |stringSpace| and its address is cast to the parameter's address space
/// where they differ (CUDA: strings in global memory, parameters generic).
/// Fails, after an error at |loc|, outside a module or when |name| is
/// taken.
mlir::FailureOr<mlir::LLVM::CallOp>
callExternalFunction(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef name, mlir::LLVM::LLVMFunctionType type,
                     llvm::ArrayRef<ExternalArgument> args, llvm::StringRef who,
                     unsigned stringSpace = 0);

/// An llvm.mlir.constant of type i32 or i64.
mlir::Value constantI32(mlir::OpBuilder &builder, mlir::Location loc,
                        int32_t value);
mlir::Value constantI64(mlir::OpBuilder &builder, mlir::Location loc,
                        int64_t value);

/// The address of |module|'s external `[0 x i8]` array @|symbol| in
/// |addressSpace| (the shared memory a target's scratch lives in; its code
/// generator sizes it), declared with |alignment| on first use. An error at
/// |loc| naming |who| and a poison pointer when |builder| is outside a
/// module or @|symbol| is something else.
mlir::Value getOrDeclareSharedArray(mlir::OpBuilder &builder,
                                    mlir::Location loc, llvm::StringRef symbol,
                                    unsigned addressSpace, unsigned alignment,
                                    llvm::StringRef who);

/// A printf call: the format and its arguments (i32 for %u, i64 for %lld
/// and %llu and the hexadecimal forms, f64 for %f, as C's varargs promote
/// them).
struct PrintfCall {
  std::string format;
  llvm::SmallVector<mlir::Value> args;
};

/// |text| for a printf format: every '%' doubled, line breaks as spaces (a
/// print is one line).
std::string escapePrintfText(llvm::StringRef text);

/// True when |index| is a constant below zero: the value printed or
/// asserted is a scalar, not an element of a tile.
bool isScalarIndex(mlir::Value index);

/// |value| (an integer or an index) as an i64, sign- or zero-extended.
mlir::Value toI64(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Value value, bool isSigned);

/// |value| (a float of any width) as an f64, extended or truncated, as C's
/// varargs pass it to %f.
mlir::Value toF64(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Value value);

/// The line `tl.device_print` writes for one element, as Triton's GPU
/// backends print it: "pid (%u, %u, %u) idx (%lld) PREFIX VALUE\n" from the
/// i32 |programIds|, the element's linear |index| (no idx for a scalar,
/// isScalarIndex), the op's |prefix| (given a leading space when it lacks
/// one) and |value| (integers as %lld or %llu by |isSigned|, floats as %f
/// of the f64 value, pointers as 0x%llx; |hex| prints an integer's or a
/// float's bits as 0x with one digit per 4 bits); a null |value| prints the
/// prefix alone. Fails, with an error naming |who| ("nvidia print"), for an
/// index that is not an integer or a value of another type.
mlir::FailureOr<PrintfCall>
formatDevicePrint(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::ValueRange programIds, llvm::StringRef prefix,
                  mlir::Value index, mlir::Value value, bool isSigned, bool hex,
                  llvm::StringRef who);

/// The line a failed `tl.device_assert` writes before the target stops the
/// kernel: "device_assert failed at FILE:LINE in FUNCTION: MESSAGE (program
/// (%u, %u, %u), element %lld)\n" (no element for a scalar), the line the
/// host plugin makes its launch error of. Fails, naming |who|, for an
/// index that is not an integer.
mlir::FailureOr<PrintfCall> formatAssertFailure(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::ValueRange programIds,
    llvm::StringRef message, llvm::StringRef file, unsigned line,
    llvm::StringRef function, mlir::Value index, llvm::StringRef who);

/// The line an access outside its buffer writes in the debug mode
/// (tile.out_of_bounds) before the target stops the kernel: "out-of-bounds
/// ACCESS at FILE:LINE in FUNCTION: index %lld is outside [%lld, %lld)
/// (program (%u, %u, %u))\n", the line the host plugin makes its launch
/// error of. |index|, |begin| and |end| are i64 element indices.
PrintfCall formatBoundsFailure(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::ValueRange programIds,
                               llvm::StringRef access, llvm::StringRef file,
                               unsigned line, llvm::StringRef function,
                               mlir::Value index, mlir::Value begin,
                               mlir::Value end);

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_HOOKSUPPORT_H
