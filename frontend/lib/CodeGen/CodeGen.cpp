//===- CodeGen.cpp - kernels, calls and errors ----------------------------===//
#include "CodeGenImpl.h"

#include "tegula/Frontend/Lexer.h"
#include "tegula/Frontend/Parser.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
/// The standard library source (tl_stdlib.py), embedded at build time.
#include "StdlibSource.inc"

constexpr unsigned kMaxCallDepth = 64;
} // namespace

const PyValue &BoundArgs::get(llvm::StringRef name) const {
  static const PyValue undefined;
  auto it = values.find(name);
  return it == values.end() ? undefined : it->second;
}

bool BoundArgs::has(llvm::StringRef name) const {
  auto it = values.find(name);
  return it != values.end() && it->second.kind != PyValue::None &&
         it->second.kind != PyValue::Undefined;
}

void tegula::frontend::loadFrontendDialects(MLIRContext &context) {
  context.loadDialect<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                      scf::SCFDialect, cf::ControlFlowDialect>();
}

CodeGen::CodeGen(Module &userModule, Module &stdlib,
                 const CompileOptions &options, MLIRContext &context,
                 ModuleLoader *loader)
    : userModule(userModule), stdlib(stdlib), loader(loader), options(options),
      context(context), builder(&context), sem(builder) {}

void CodeGen::error(SourceLocation loc, const std::string &message) {
  throw CompileError{loc, message, {}};
}

Location CodeGen::mlirLoc(SourceLocation loc) {
  if (!loc.isValid())
    return UnknownLoc::get(&context);
  return FileLineColLoc::get(&context, loc.File->getName(), loc.Line,
                             loc.Column);
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Whether parameter |p| is annotated `tl.constexpr` (or `constexpr`).
static bool isConstexprParam(const Param &p) {
  const Expr *a = p.Annotation;
  if (!a)
    return false;
  if (auto *n = llvm::dyn_cast<NameExpr>(a))
    return n->getName() == "constexpr";
  if (auto *attr = llvm::dyn_cast<AttributeExpr>(a))
    return attr->getName() == "constexpr";
  if (auto *s = llvm::dyn_cast<StringLiteralExpr>(a))
    return s->getValue().contains("constexpr");
  return false;
}

static PyValue constantValue(const ConstantSpec &c) {
  switch (c.kind) {
  case ConstantSpec::Number:
    return PyValue::number(c.number);
  case ConstantSpec::NoneValue:
    return PyValue::none();
  case ConstantSpec::DTypeValue:
    return PyValue::ofDType(c.dtype);
  case ConstantSpec::String:
    return PyValue::string(c.string);
  }
  return PyValue::none();
}

OwningOpRef<ModuleOp> CodeGen::run() {
  const FunctionDef *kernel = userModule.lookupFunction(options.kernelName);
  SourceLocation fileLoc;
  fileLoc.File = &userModule.getFile();
  fileLoc.Line = 1;
  fileLoc.Column = 1;
  if (!kernel) {
    std::string names;
    for (const FunctionDef *f : userModule.getFunctions())
      names += (names.empty() ? "" : ", ") + f->getName().str();
    error(fileLoc, "no @jit function named '" + options.kernelName + "'" +
                       (names.empty() ? std::string(" (the file has none)")
                                      : "; the file defines " + names));
  }
  SourceLocation defLoc = kernel->getNameLoc();
  auto params = kernel->getParams();

  // Match the signature and keyword constexprs to the parameters.
  for (const auto &kv : options.constexprs) {
    bool found = llvm::any_of(params, [&](const Param &p) {
      return p.Name == kv.getKey();
    });
    if (!found)
      error(defLoc, "constexpr '" + kv.getKey().str() + "' is not a parameter of '" +
                        options.kernelName + "'");
  }
  std::vector<const ArgSpec *> specs(params.size(), nullptr);
  size_t next = 0;
  bool positional = options.signature.size() == params.size();
  for (size_t i = 0; i < params.size(); ++i) {
    if (!positional && options.constexprs.count(params[i].Name))
      continue;
    if (next < options.signature.size())
      specs[i] = &options.signature[next++];
  }
  if (next != options.signature.size()) {
    std::string names;
    for (const Param &p : params)
      names += (names.empty() ? "" : ", ") + p.Name.str();
    error(defLoc, "the signature has " + std::to_string(options.signature.size()) +
                      " entries but '" + options.kernelName + "' takes " +
                      std::to_string(params.size()) + " parameters (" + names +
                      ")");
  }

  module = ModuleOp::create(mlirLoc(defLoc));
  module->setAttr("tile.num_warps", builder.getI32IntegerAttr(options.numWarps));
  module->setAttr("tile.num_stages", builder.getI32IntegerAttr(options.numStages));
  builder.setInsertionPointToEnd(module.getBody());

  frames.emplace_back();
  frame().module = &userModule;
  frame().function = kernel;

  // Arguments the kernel receives at launch.
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  std::vector<std::pair<size_t, TType>> runtimeArgs;
  struct DescriptorParam {
    size_t param, firstArg;
    const ArgSpec *spec;
  };
  std::vector<DescriptorParam> descriptors;
  for (size_t i = 0; i < params.size(); ++i) {
    const Param &p = params[i];
    const ArgSpec *spec = specs[i];
    auto kv = options.constexprs.find(p.Name);
    if (kv != options.constexprs.end()) {
      if (spec && spec->kind != ArgSpec::Constant)
        error(p.Loc, "parameter '" + p.Name.str() +
                         "' is given both in the signature and as a constexpr");
      frame().scope[p.Name] = constantValue(kv->second);
      continue;
    }
    if (!spec) {
      if (!p.Default)
        error(p.Loc, "no value for parameter '" + p.Name.str() +
                         "': the signature is too short and it has no default");
      frame().scope[p.Name] = eval(p.Default);
      continue;
    }
    if (spec->kind == ArgSpec::Constant) {
      frame().scope[p.Name] = constantValue(spec->constant);
      continue;
    }
    if (spec->kind == ArgSpec::TensorDesc) {
      if (isConstexprParam(p))
        error(p.Loc, "parameter '" + p.Name.str() +
                         "' is a tl.constexpr: it cannot take a tensor "
                         "descriptor ('" + spec->text + "')");
      // The base (16-byte aligned, as Triton's host descriptors are), the
      // shape, and the strides but the last, which is 1.
      size_t rank = spec->blockShape.size();
      for (int64_t n : spec->blockShape)
        if (n & (n - 1))
          error(p.Loc, "parameter '" + p.Name.str() + "': block_shape "
                       "dimensions must be powers of 2, got '" + spec->text + "'");
      int64_t lastBytes = spec->blockShape.back() *
                          std::max<int64_t>(1, spec->dtype.bitWidth() / 8);
      if (lastBytes < 16)
        error(p.Loc, "parameter '" + p.Name.str() + "': Descriptor block shape "
                     "must have at least 16 bytes in the last dimension, but "
                     "got " + std::to_string(lastBytes) + " bytes");
      SmallVector<TType> parts{TType(DType::pointer(spec->dtype))};
      for (size_t d = 0; d < rank; ++d)
        parts.push_back(TType(DType::I32));
      for (size_t d = 0; d + 1 < rank; ++d)
        parts.push_back(TType(DType::I64));
      descriptors.push_back({i, argTypes.size(), spec});
      for (auto [k, part] : llvm::enumerate(parts)) {
        SmallVector<NamedAttribute> attrs;
        if (k == 0)
          attrs.push_back(builder.getNamedAttr(tile::kDivisibilityAttr,
                                               builder.getI64IntegerAttr(16)));
        argTypes.push_back(part.toMLIR(&context));
        argAttrs.push_back(builder.getDictionaryAttr(attrs));
        runtimeArgs.emplace_back(i, part);
      }
      continue;
    }
    if (isConstexprParam(p) && spec->kind == ArgSpec::Scalar &&
        !spec->divisibility && !spec->equalsOne) {
      // A dtype name in a constexpr's place is a dtype value (`fp16`).
      frame().scope[p.Name] = PyValue::ofDType(spec->dtype);
      continue;
    }
    if (isConstexprParam(p))
      error(p.Loc, "parameter '" + p.Name.str() +
                       "' is a tl.constexpr: the signature must give its value, "
                       "not the type '" + spec->text + "'");
    if (spec->equalsOne) {
      // Specialized to 1: a constant in the body, still an argument at launch.
      frame().scope[p.Name] = PyValue::ofInt(1);
    }
    TType type = spec->kind == ArgSpec::Pointer
                     ? TType(DType::pointer(spec->dtype))
                     : TType(spec->dtype);
    SmallVector<NamedAttribute> attrs;
    if (spec->divisibility)
      attrs.push_back(builder.getNamedAttr(
          tile::kDivisibilityAttr, builder.getI64IntegerAttr(spec->divisibility)));
    argTypes.push_back(type.toMLIR(&context));
    argAttrs.push_back(builder.getDictionaryAttr(attrs));
    runtimeArgs.emplace_back(i, type);
  }

  auto func = builder.create<tile::FuncOp>(
      mlirLoc(defLoc), options.kernelName,
      builder.getFunctionType(argTypes, {}), ArrayRef<NamedAttribute>{}, argAttrs);
  Block *entry = func.addEntryBlock();
  for (auto [index, arg] : llvm::enumerate(runtimeArgs)) {
    const Param &p = params[arg.first];
    // The parameter's name, for messages about the argument (debug mode's
    // bounds checks name the buffer).
    entry->getArgument(index).setLoc(mlir::NameLoc::get(
        builder.getStringAttr(p.Name), mlirLoc(p.Loc)));
    if (frame().scope.count(p.Name) || specs[arg.first]->kind == ArgSpec::TensorDesc)
      continue; // specialized to a constant, or a part of a descriptor
    frame().scope[p.Name] =
        PyValue::ofTensor(TValue{entry->getArgument(index), arg.second});
  }
  builder.setInsertionPointToStart(entry);
  for (const DescriptorParam &d : descriptors) {
    size_t rank = d.spec->blockShape.size();
    PyTuple items;
    for (size_t k = 0; k < 1 + rank + (rank - 1); ++k)
      items.push_back(PyValue::ofTensor(TValue{entry->getArgument(d.firstArg + k),
                                               runtimeArgs[d.firstArg + k].second}));
    sem.setLoc(mlirLoc(params[d.param].Loc));
    items.push_back(PyValue::ofTensor(sem.constant(PyNum::ofInt(1), DType::I64)));
    PyValue desc = PyValue::tuple(std::move(items));
    desc.kind = PyValue::TensorDesc;
    desc.blockShape = d.spec->blockShape;
    desc.str = d.spec->padding;
    frame().scope[params[d.param].Name] = desc;
  }

  genBlock(kernel->getBody());
  if (frame().returned && frame().returnValue.kind != PyValue::None &&
      frame().returnValue.kind != PyValue::Undefined)
    error(defLoc, "kernel '" + options.kernelName + "' must not return a value");
  // Every path ends in a return; blocks left open by the walk get one here.
  for (Block &block : func.getBody()) {
    if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>()) {
      builder.setInsertionPointToEnd(&block);
      builder.create<tile::ReturnOp>(mlirLoc(defLoc));
    }
  }
  frames.pop_back();
  return OwningOpRef<ModuleOp>(module);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

static PyValue parseDefault(llvm::StringRef text) {
  if (text == "None")
    return PyValue::none();
  if (text == "True" || text == "False")
    return PyValue::ofBool(text == "True");
  if (text.starts_with("'"))
    return PyValue::string(text.drop_front().drop_back().str());
  if (text.contains('.') || text.contains('e')) {
    double d = 0;
    text.getAsDouble(d);
    return PyValue::ofFloat(d);
  }
  long long i = 0;
  text.getAsInteger(10, i);
  return PyValue::ofInt(i);
}

BoundArgs CodeGen::bind(const CallArgs &args, ArrayRef<std::string> params,
                        SourceLocation loc, const std::string &calleeName) {
  BoundArgs bound;
  size_t nPositional = 0;
  bool varargs = false;
  for (const std::string &p : params) {
    if (p.front() == '*') {
      varargs = true;
      break;
    }
    ++nPositional;
  }
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i < nPositional) {
      std::string name = llvm::StringRef(params[i]).split('=').first.str();
      bound.values[name] = args.positional[i];
    } else if (varargs) {
      bound.varargs.push_back(args.positional[i]);
    } else {
      error(loc, calleeName + "() takes " + std::to_string(nPositional) +
                     " positional arguments but " +
                     std::to_string(args.positional.size()) + " were given");
    }
  }
  for (const auto &[name, value] : args.keywords) {
    bool known = false;
    for (const std::string &p : params)
      if (llvm::StringRef(p).split('=').first == name)
        known = true;
    if (!known)
      error(loc, calleeName + "() got an unexpected keyword argument '" + name + "'");
    if (bound.values.count(name))
      error(loc, calleeName + "() got multiple values for argument '" + name + "'");
    bound.values[name] = value;
  }
  for (const std::string &p : params) {
    if (p.front() == '*')
      continue;
    auto [name, def] = llvm::StringRef(p).split('=');
    if (bound.values.count(name))
      continue;
    if (!llvm::StringRef(p).contains('='))
      error(loc, calleeName + "() missing required argument '" + name.str() + "'");
    bound.values[name] = parseDefault(def);
  }
  return bound;
}

PyValue CodeGen::callJit(const FunctionDef *f, Module *m, CallArgs &args,
                         SourceLocation loc) {
  std::string name = f->getName().str();
  for (const Frame &fr : frames)
    if (fr.function == f)
      error(loc, "recursive call to '" + name +
                     "': recursion between @jit functions is not supported");
  if (frames.size() > kMaxCallDepth)
    error(loc, "@jit calls nested more than " + std::to_string(kMaxCallDepth) +
                   " deep");

  // Bind arguments to parameters, as Python does.
  auto params = f->getParams();
  Scope scope;
  if (args.positional.size() > params.size())
    error(loc, name + "() takes " + std::to_string(params.size()) +
                   " positional arguments but " +
                   std::to_string(args.positional.size()) + " were given");
  for (size_t i = 0; i < args.positional.size(); ++i)
    scope[params[i].Name] = args.positional[i];
  for (auto &keyword : args.keywords) {
    const std::string &kw = keyword.first;
    const PyValue &value = keyword.second;
    bool known = llvm::any_of(params, [&](const Param &p) { return p.Name == kw; });
    if (!known)
      error(loc, name + "() got an unexpected keyword argument '" + kw + "'");
    if (scope.count(kw))
      error(loc, name + "() got multiple values for argument '" + kw + "'");
    scope[kw] = value;
  }

  const Decorator *jit = f->getJitDecorator();
  bool noinline = jit && llvm::StringRef(jit->Text).contains("noinline=True");

  frames.emplace_back();
  frame().module = m;
  frame().function = f;
  frame().callLoc = loc;
  try {
    for (const Param &p : params) {
      if (scope.count(p.Name))
        continue;
      if (!p.Default)
        error(loc, name + "() missing required argument '" + p.Name.str() + "'");
      scope[p.Name] = eval(p.Default);
    }
    // As in Triton, a helper's `tl.constexpr` annotation does not stop a
    // tensor argument: the call specializes on what it gets.
    PyValue result;
    if (noinline && m != &stdlib) {
      BoundArgs bound;
      for (auto &kv : scope)
        bound.values[kv.getKey()] = kv.getValue();
      frames.pop_back();
      return callNoInline(f, m, bound, loc);
    }
    frame().scope = std::move(scope);
    genBlock(f->getBody());
    result = frame().returned ? frame().returnValue : PyValue::none();
    if (result.kind == PyValue::Undefined)
      result = PyValue::none();
    frames.pop_back();
    return result;
  } catch (CompileError &e) {
    bool calleeIsStdlib = m == &stdlib;
    bool callerIsUser = frames.size() >= 2 &&
                        frames[frames.size() - 2].module != &stdlib;
    frames.pop_back();
    if (calleeIsStdlib && callerIsUser) {
      // Report standard-library errors where the user called it.
      e.message = "tl." + name + ": " + e.message;
      e.loc = loc;
      e.notes.clear();
    } else if (m != &stdlib) {
      e.notes.emplace_back(loc, "in call to '" + name + "'");
    }
    throw;
  }
}

PyValue CodeGen::callNoInline(const FunctionDef *f, Module *m, BoundArgs &bound,
                              SourceLocation loc) {
  // The helper is specialized on its constexpr arguments and argument types.
  std::string mangled = f->getName().str();
  // Helpers of other modules may share a name with the kernel file's.
  if (m != &userModule && loader)
    mangled = (loader->getName(*m) + "." + mangled).str();
  SmallVector<Value> operands;
  SmallVector<Type> types;
  std::vector<std::pair<std::string, TType>> tensorParams;
  Scope calleeScope;
  for (const Param &p : f->getParams()) {
    const PyValue &v = bound.get(p.Name);
    if (v.isTensor()) {
      operands.push_back(v.tensor.value);
      types.push_back(v.tensor.value.getType());
      tensorParams.emplace_back(p.Name.str(), v.tensor.type);
      mangled += "__" + v.tensor.type.str();
    } else {
      calleeScope[p.Name] = v;
      mangled += "__" + p.Name.str() + "_" + describe(v);
    }
  }
  for (char &c : mangled)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';

  auto existing = module.lookupSymbol<tile::FuncOp>(mangled);
  if (!existing) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    auto func = builder.create<tile::FuncOp>(mlirLoc(f->getNameLoc()), mangled,
                                             builder.getFunctionType(types, {}));
    func.setPrivate();
    func.setNoinline(true);
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    frames.emplace_back();
    frame().module = m;
    frame().function = f;
    frame().callLoc = loc;
    frame().scope = std::move(calleeScope);
    for (auto [i, tp] : llvm::enumerate(tensorParams))
      frame().scope[tp.first] =
          PyValue::ofTensor(TValue{entry->getArgument(i), tp.second});
    genBlock(f->getBody());
    PyValue ret = frame().returned ? frame().returnValue : PyValue::none();
    frames.pop_back();
    SmallVector<Value> results;
    std::vector<TType> resultTypes;
    auto addResult = [&](const PyValue &v) {
      if (!v.isTensor())
        error(f->getNameLoc(), "a noinline function must return tensors, not " +
                                   describe(v));
      results.push_back(v.tensor.value);
      resultTypes.push_back(v.tensor.type);
    };
    if (ret.kind == PyValue::Tuple)
      for (const PyValue &v : ret.tupleItems())
        addResult(v);
    else if (ret.kind != PyValue::None && ret.kind != PyValue::Undefined)
      addResult(ret);
    Block &last = func.getBody().back();
    builder.setInsertionPointToEnd(&last);
    builder.create<tile::ReturnOp>(mlirLoc(f->getNameLoc()), results);
    SmallVector<Type> resultMlir;
    for (Value v : results)
      resultMlir.push_back(v.getType());
    func.setFunctionType(builder.getFunctionType(types, resultMlir));
    helperResults[mangled] = resultTypes;
    existing = func;
  }
  at(loc);
  auto call = builder.create<tile::CallOp>(mlirLoc(loc), existing, operands);
  // The Triton types of the results (with signedness) as the helper made them.
  const std::vector<TType> &resultTypes = helperResults[mangled];
  std::vector<PyValue> outs;
  for (auto [i, v] : llvm::enumerate(call.getResults()))
    outs.push_back(PyValue::ofTensor(TValue{v, resultTypes[i]}));
  if (outs.empty())
    return PyValue::none();
  if (outs.size() == 1)
    return outs[0];
  return PyValue::tuple(outs);
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> tegula::frontend::compileKernel(Module &module,
                                                      const CompileOptions &options,
                                                      MLIRContext &context,
                                                      DiagnosticEngine &diags,
                                                      ModuleLoader *loader) {
  loadFrontendDialects(context);
  // The standard library is parsed with its own sources; its errors are
  // reported at the user's call site.
  SourceManager stdlibSources;
  DiagnosticEngine stdlibDiags(stdlibSources);
  const SourceFile &stdlibFile =
      stdlibSources.addBuffer(kStdlibSource, "<triton.language stdlib>");
  std::unique_ptr<Module> stdlib = parseModule(stdlibFile, stdlibDiags);
  if (stdlibDiags.hasErrors()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    stdlibDiags.printAll(os);
    diags.error(SourceLocation(), "internal error: the standard library does "
                                  "not parse:\n" + text);
    return nullptr;
  }

  CodeGen gen(module, *stdlib, options, context, loader);
  // Diagnostics from MLIR (verifier) become front-end errors.
  std::string mlirErrors;
  ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(mlirErrors);
    os << d.getLocation() << ": " << d.str() << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> result;
  try {
    result = gen.run();
  } catch (CompileError &e) {
    if (gen.module)
      gen.module->erase();
    diags.error(e.loc, e.message);
    for (auto &[loc, note] : e.notes)
      diags.note(loc, note);
    return nullptr;
  }
  if (failed(verify(*result))) {
    diags.error(SourceLocation(), "internal error: the generated tile IR does "
                                  "not verify:\n" + mlirErrors);
    return nullptr;
  }
  return result;
}
