//===- CodeGenImpl.h - the kernel code generator ----------------*- C++ -*-===//
//
// Internal to the front end. One CodeGen compiles one kernel: it walks the
// kernel's AST with a scope of PyValues, evaluates constexprs as Python
// would, and builds tile IR through Semantic for everything else. Calls to
// `@jit` functions are inlined at the AST level (a fresh scope over the
// callee's body) unless the callee is `noinline`, which becomes a private
// tile.func and a tile.call.
//
// Errors are thrown as CompileError (from the code generator) or
// SemanticError (from Semantic, converted at the expression that caused
// it), and caught once in compileKernel, which reports them.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_CODEGEN_CODEGENIMPL_H
#define TEGULA_FRONTEND_CODEGEN_CODEGENIMPL_H

#include "PyValue.h"

#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/ModuleLoader.h"
#include "tegula/Frontend/Semantic.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tegula::frontend {

/// A user error at a source location, with the call chain that led there.
struct CompileError {
  SourceLocation loc;
  std::string message;
  /// "in call to 'f'" notes, innermost first.
  std::vector<std::pair<SourceLocation, std::string>> notes;
};

/// The variables of one function activation.
using Scope = llvm::StringMap<PyValue>;

/// How a statement list ended. Return also means "the rest of the function
/// was generated already" (see Cont).
enum class Flow { Normal, Break, Continue, Return };

/// Generates everything that follows the current statement up to the end of
/// the function. A dynamic `if` whose branches return compiles the rest of
/// the function into each branch by calling it; null at a function's end.
using Cont = std::function<void()>;

/// Arguments of a call after binding to parameter names.
struct BoundArgs {
  llvm::StringMap<PyValue> values;
  std::vector<PyValue> varargs;
  const PyValue &get(llvm::StringRef name) const;
  bool has(llvm::StringRef name) const;
};

/// The actual arguments of a call, evaluated.
struct CallArgs {
  std::vector<PyValue> positional;
  std::vector<std::pair<std::string, PyValue>> keywords;
  SourceLocation loc;
};

class CodeGen {
public:
  CodeGen(Module &userModule, Module &stdlib, const CompileOptions &options,
          mlir::MLIRContext &context, ModuleLoader *loader);

  /// Builds the kernel into a new module; throws CompileError.
  mlir::OwningOpRef<mlir::ModuleOp> run();

  //===--- Errors ---------------------------------------------------------===//
  [[noreturn]] void error(SourceLocation loc, const std::string &message);
  mlir::Location mlirLoc(SourceLocation loc);
  /// Points Semantic's next ops at |loc|.
  void at(SourceLocation loc) { sem.setLoc(mlirLoc(loc)); currentLoc = loc; }

  //===--- Expressions (GenExpr.cpp) -------------------------------------===//
  PyValue eval(const Expr *e);
  PyValue evalName(const NameExpr *e);
  /// What |name| denotes in module |m|'s namespace: a @jit function, a
  /// constant, what an import binds it to, or a submodule of a package;
  /// nullopt when none of those.
  std::optional<PyValue> moduleMember(Module *m, llvm::StringRef name,
                                      SourceLocation loc);
  /// What |name| is in the modules |m| imports with `from M import *`
  /// (user modules, and Triton's: tritonStarMember), or nullopt.
  std::optional<PyValue> starImported(Module *m, llvm::StringRef name,
                                      SourceLocation loc);
  /// What `from <path> import *` binds |name| to, for a module of Triton
  /// (`triton.language`, `tegula.language`, `.math`, `.extra...`), or
  /// nullopt when that import does not bind it.
  std::optional<PyValue> tritonStarMember(llvm::StringRef path,
                                          llvm::StringRef name,
                                          SourceLocation loc);
  /// The value of module |m|'s constant |g|, read at |loc|.
  PyValue globalValue(Module *m, const GlobalConstant &g, SourceLocation loc);
  /// What the import of Triton's |qualified| (`triton.language.sum`) gives.
  PyValue tritonImport(llvm::StringRef qualified, SourceLocation loc);
  /// What |name|, bound in |m| by an import of |qualified| (a module of the
  /// user's package, `mypkg.utils.f` or `.utils.f`), denotes: loads the
  /// modules through |loader| and looks the name up there.
  PyValue userImport(Module *m, llvm::StringRef name,
                     llvm::StringRef qualified, SourceLocation loc);
  PyValue evalAttribute(const AttributeExpr *e);
  PyValue evalSubscript(const SubscriptExpr *e);
  PyValue evalUnary(const UnaryExpr *e);
  PyValue evalBinary(const BinaryExpr *e);
  PyValue binaryOp(BinaryOp op, const PyValue &l, const PyValue &r,
                   SourceLocation loc);
  PyValue evalBoolOp(const BoolOpExpr *e);
  PyValue evalCompare(const CompareExpr *e);
  PyValue compareOp(CompareOp op, const PyValue &l, const PyValue &r,
                    SourceLocation loc);
  PyValue evalConditional(const ConditionalExpr *e);
  PyValue evalCall(const CallExpr *e);
  PyValue callValue(const PyValue &callee, CallArgs &args, SourceLocation loc,
                    const std::string &calleeName);
  /// Attribute |name| of value |base| (dtype properties, tensor methods,
  /// namespace members).
  PyValue getAttr(const PyValue &base, llvm::StringRef name, SourceLocation loc);

  //===--- Conversions ---------------------------------------------------===//
  /// A kernel value as an operand of Semantic (tensor or Python number).
  Operand operand(const PyValue &v, SourceLocation loc, llvm::StringRef what);
  TValue tensor(const PyValue &v, SourceLocation loc, llvm::StringRef what);
  std::optional<TValue> optTensor(const PyValue &v, SourceLocation loc,
                                  llvm::StringRef what);
  __int128 constInt(const PyValue &v, SourceLocation loc, llvm::StringRef what);
  bool constBool(const PyValue &v, SourceLocation loc, llvm::StringRef what);
  std::string constString(const PyValue &v, SourceLocation loc,
                          llvm::StringRef what);
  DType constDType(const PyValue &v, SourceLocation loc, llvm::StringRef what);
  /// A shape: a tuple/list of constexpr ints (or a single int).
  std::vector<int64_t> constShape(const PyValue &v, SourceLocation loc,
                                  llvm::StringRef what);
  /// Python truthiness of a constexpr.
  bool truthy(const PyValue &v);
  std::string describe(const PyValue &v);

  //===--- Statements (GenStmt.cpp) --------------------------------------===//
  /// Generates |stmts|; |after| generates what follows them (see Cont).
  Flow genBlock(llvm::ArrayRef<Stmt *> stmts, const Cont &after = nullptr);
  Flow genStmt(const Stmt *s, const Cont &rest);
  void assign(const Expr *target, const PyValue &value);
  Flow genIf(const IfStmt *s, size_t branch, const Cont &rest);
  Flow genFor(const ForStmt *s, const Cont &rest);
  /// Makes the values two branches of a dynamic if give for one name (or
  /// return) agree: equal constexprs stay constexprs; numbers become
  /// tensors; tensor types must match. Conversions are built at the end of
  /// each branch. Appends what the if must yield.
  PyValue unifyBranches(const PyValue &a, const PyValue &b, mlir::Block *thenBlock,
                        mlir::Block *elseBlock, std::vector<TValue> &thenVals,
                        std::vector<TValue> &elseVals, SourceLocation loc,
                        const std::string &what);
  Flow genWhile(const WhileStmt *s);
  void genReturn(const ReturnStmt *s);
  /// The loop-carried variables of |body|: names it assigns that hold
  /// tensors or numbers before the loop (numbers become tensors), sorted,
  /// except |exclude| (the induction variable), with their initial values.
  void loopCarried(llvm::ArrayRef<Stmt *> body, llvm::StringRef exclude,
                   SourceLocation loc, std::vector<std::string> &names,
                   std::vector<TValue> &inits);
  /// The values of |names| at the end of an iteration, of the types they
  /// had before the loop (else a "loop-carried variable" error).
  llvm::SmallVector<mlir::Value> carriedYields(llvm::ArrayRef<std::string> names,
                                               llvm::ArrayRef<TValue> inits,
                                               SourceLocation loc);
  /// Names assigned anywhere in |stmts| (not in nested defs).
  void collectAssigned(llvm::ArrayRef<Stmt *> stmts, llvm::StringSet<> &names);
  bool containsReturn(llvm::ArrayRef<Stmt *> stmts);

  //===--- Calls (CodeGen.cpp) -------------------------------------------===//
  BoundArgs bind(const CallArgs &args, llvm::ArrayRef<std::string> params,
                 SourceLocation loc, const std::string &calleeName);
  PyValue callJit(const FunctionDef *f, Module *m, CallArgs &args,
                  SourceLocation loc);
  PyValue callNoInline(const FunctionDef *f, Module *m, BoundArgs &bound,
                       SourceLocation loc);

  //===--- Builtins (Builtins.cpp) ---------------------------------------===//
  PyValue callBuiltin(const std::string &name, CallArgs &args,
                      SourceLocation loc);
  /// Tensor descriptors (Descriptors.cpp): tl.make_tensor_descriptor, the
  /// descriptor's methods and attributes.
  PyValue makeTensorDescriptor(const BoundArgs &b, SourceLocation loc);
  PyValue callDescriptorMethod(const PyValue &desc, const std::string &name,
                               CallArgs &args, SourceLocation loc);
  PyValue descriptorAttr(const PyValue &desc, llvm::StringRef name,
                         SourceLocation loc);
  PyValue callMethod(const PyValue &self, const std::string &name,
                     CallArgs &args, SourceLocation loc);
  /// Builds a reduce or scan whose combiner calls |combine|.
  std::vector<TValue> genCombine(bool isScan, std::vector<TValue> inputs,
                                 int64_t axis, const PyValue &combine,
                                 bool reverse, SourceLocation loc);
  /// True when |name| names a builtin of the `tl` namespace.
  static bool isTlBuiltin(llvm::StringRef name);
  /// The names of the builtins of the `tl` namespace.
  static std::vector<llvm::StringRef> tlBuiltinNames();
  /// Reports `|ns|.|name|`, a member the namespace |ns| ("tl", "tl.math" or
  /// "tl.extra") does not provide: a Triton name Tegula lacks is "not
  /// supported yet", anything else gets the closest known name, if any.
  [[noreturn]] void unknownTlMember(llvm::StringRef ns, llvm::StringRef name,
                                    SourceLocation loc);

  //===--- State ---------------------------------------------------------===//
  Module &userModule;
  Module &stdlib;
  /// Reads the other modules of the user's package; null when the compile
  /// may read none.
  ModuleLoader *loader;
  /// The imports being resolved (module, name), to report cycles.
  std::vector<std::pair<Module *, std::string>> importStack;
  const CompileOptions &options;
  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  Semantic sem;
  mlir::ModuleOp module;

  /// An enclosing loop, for break and continue.
  struct LoopInfo {
    bool isStatic;
    unsigned structuredDepth;
  };

  /// The function being compiled: its module (for global lookups), scope,
  /// and return value.
  struct Frame {
    /// The enclosing loops of this activation, innermost last.
    std::vector<LoopInfo> loops;
    Module *module = nullptr;
    const FunctionDef *function = nullptr;
    Scope scope;
    bool returned = false;
    PyValue returnValue;
    /// How many scf regions (loops, dynamic ifs) enclose the current point.
    unsigned structuredDepth = 0;
    /// The structuredDepth at which `return` is allowed (raised inside a
    /// dynamic if whose branches all end in a return).
    unsigned returnDepth = 0;
    SourceLocation callLoc;
  };
  std::vector<Frame> frames;
  Frame &frame() { return frames.back(); }

  SourceLocation currentLoc;
  /// Statements generated so far (after unrolling and inlining), and how
  /// often the rest of a function was duplicated into returning branches:
  /// both are bounded so that no kernel compiles for minutes.
  uint64_t statementsGenerated = 0;
  uint64_t continuationsGenerated = 0;
  /// Triton types of the results of each noinline helper, by mangled name
  /// (the IR types lose integer signedness).
  llvm::StringMap<std::vector<TType>> helperResults;
};

/// The tensors of a list or tuple argument (shapes, strides, offsets).
std::vector<TValue> tensorList(CodeGen &gen, const PyValue &v,
                               SourceLocation loc, llvm::StringRef what);
/// The constexpr integers of a list, tuple or single int argument.
std::vector<int64_t> intList(CodeGen &gen, const PyValue &v,
                             SourceLocation loc, llvm::StringRef what);

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_CODEGEN_CODEGENIMPL_H
