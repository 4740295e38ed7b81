//===- GenExpr.cpp - expressions: constexprs and tensor operations --------===//
#include "CodeGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//


std::string CodeGen::describe(const PyValue &v) {
  switch (v.kind) {
  case PyValue::Undefined: return "undefined";
  case PyValue::None: return "None";
  case PyValue::Number:
    if (v.num.kind == PyNum::Bool)
      return v.num.i ? "True" : "False";
    if (v.num.kind == PyNum::Int)
      return int128ToString(v.num.i);
    {
      std::string s;
      llvm::raw_string_ostream(s) << v.num.f;
      return s;
    }
  case PyValue::String: return "'" + v.str + "'";
  case PyValue::DTypeObj: return v.dtype.str();
  case PyValue::Tensor: return "a tensor of type " + v.tensor.type.str();
  case PyValue::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < v.items->size(); ++i)
      s += (i ? ", " : "") + describe((*v.items)[i]);
    return s + (v.items->size() == 1 ? ",)" : ")");
  }
  case PyValue::Function: return "function '" + v.function->getName().str() + "'";
  case PyValue::Builtin: return "builtin '" + v.str + "'";
  case PyValue::Namespace: return "module '" + v.str + "'";
  case PyValue::Method: return "method '" + v.str + "'";
  case PyValue::Slice: return "a slice";
  case PyValue::Marker: return "'" + v.str + "'";
  case PyValue::TensorDesc: return "a tensor descriptor";
  case PyValue::UserModule: return "module '" + v.str + "'";
  }
  return "?";
}

Operand CodeGen::operand(const PyValue &v, SourceLocation loc,
                         llvm::StringRef what) {
  if (v.isTensor())
    return v.tensor;
  if (v.isNumber())
    return v.num;
  error(loc, what.str() + " must be a tensor or a number, got " + describe(v));
}

TValue CodeGen::tensor(const PyValue &v, SourceLocation loc,
                       llvm::StringRef what) {
  if (v.isTensor())
    return v.tensor;
  if (v.isNumber()) {
    at(loc);
    return sem.toTensor(v.num);
  }
  error(loc, what.str() + " must be a tensor, got " + describe(v));
}

std::optional<TValue> CodeGen::optTensor(const PyValue &v, SourceLocation loc,
                                         llvm::StringRef what) {
  if (v.kind == PyValue::None || v.kind == PyValue::Undefined)
    return std::nullopt;
  return tensor(v, loc, what);
}

__int128 CodeGen::constInt(const PyValue &v, SourceLocation loc,
                           llvm::StringRef what) {
  if (v.isInt())
    return v.num.i;
  error(loc, what.str() + " must be a constexpr integer, got " + describe(v));
}

bool CodeGen::constBool(const PyValue &v, SourceLocation loc,
                        llvm::StringRef what) {
  if (v.isConstexpr())
    return truthy(v);
  error(loc, what.str() + " must be a constexpr, got " + describe(v));
}

std::string CodeGen::constString(const PyValue &v, SourceLocation loc,
                                 llvm::StringRef what) {
  if (v.kind == PyValue::String)
    return v.str;
  if (v.kind == PyValue::None || v.kind == PyValue::Undefined)
    return "";
  error(loc, what.str() + " must be a string, got " + describe(v));
}

DType CodeGen::constDType(const PyValue &v, SourceLocation loc,
                          llvm::StringRef what) {
  if (v.kind == PyValue::DTypeObj)
    return v.dtype;
  error(loc, what.str() + " must be a dtype such as tl.float32, got " +
                 describe(v));
}

std::vector<int64_t> CodeGen::constShape(const PyValue &v, SourceLocation loc,
                                         llvm::StringRef what) {
  std::vector<int64_t> shape;
  if (v.isInt()) {
    shape.push_back(static_cast<int64_t>(v.num.i));
  } else if (v.kind == PyValue::Tuple) {
    for (const PyValue &d : v.tupleItems()) {
      if (!d.isInt())
        error(loc, what.str() + " must hold constexpr integers, got " +
                       describe(d));
      shape.push_back(static_cast<int64_t>(d.num.i));
    }
  } else {
    error(loc, what.str() + " must be a list or tuple of constexpr integers, got " +
                   describe(v));
  }
  for (int64_t d : shape)
    if (d <= 0 || d > (int64_t(1) << 31))
      error(loc, what.str() + " must be positive, got " + shapeStr(shape));
  return shape;
}

bool CodeGen::truthy(const PyValue &v) {
  switch (v.kind) {
  case PyValue::None: case PyValue::Undefined: return false;
  case PyValue::Number:
    return v.num.kind == PyNum::Float ? v.num.f != 0 : v.num.i != 0;
  case PyValue::String: return !v.str.empty();
  case PyValue::Tuple: return !v.items->empty();
  default: return true;
  }
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

PyValue CodeGen::eval(const Expr *e) {
  SourceLocation loc = e->getLoc();
  try {
    switch (e->getKind()) {
    case Expr::Kind::Name:
      return evalName(cast<NameExpr>(e));
    case Expr::Kind::IntLiteral: {
      auto *lit = cast<IntLiteralExpr>(e);
      if (lit->isTooLarge() ||
          lit->getValue() > (uint64_t(1) << 63) * 2 - 1)
        error(loc, "integer literal " + lit->getSpelling().str() +
                       " is too large (kernels take at most 64 bits)");
      return PyValue::ofInt(static_cast<__int128>(lit->getValue()));
    }
    case Expr::Kind::FloatLiteral:
      return PyValue::ofFloat(cast<FloatLiteralExpr>(e)->getValue());
    case Expr::Kind::StringLiteral:
      return PyValue::string(cast<StringLiteralExpr>(e)->getValue().str());
    case Expr::Kind::BoolLiteral:
      return PyValue::ofBool(cast<BoolLiteralExpr>(e)->getValue());
    case Expr::Kind::NoneLiteral:
      return PyValue::none();
    case Expr::Kind::EllipsisLiteral:
      error(loc, "'...' is not supported in kernels");
    case Expr::Kind::Unary:
      return evalUnary(cast<UnaryExpr>(e));
    case Expr::Kind::Binary:
      return evalBinary(cast<BinaryExpr>(e));
    case Expr::Kind::BoolOp:
      return evalBoolOp(cast<BoolOpExpr>(e));
    case Expr::Kind::Compare:
      return evalCompare(cast<CompareExpr>(e));
    case Expr::Kind::Conditional:
      return evalConditional(cast<ConditionalExpr>(e));
    case Expr::Kind::Call:
      return evalCall(cast<CallExpr>(e));
    case Expr::Kind::Attribute:
      return evalAttribute(cast<AttributeExpr>(e));
    case Expr::Kind::Subscript:
      return evalSubscript(cast<SubscriptExpr>(e));
    case Expr::Kind::Slice: {
      auto *s = cast<SliceExpr>(e);
      if (s->getLower() || s->getUpper() || s->getStep())
        error(loc, "slices with bounds are only supported on tuples");
      PyValue v;
      v.kind = PyValue::Slice;
      return v;
    }
    case Expr::Kind::Tuple:
    case Expr::Kind::List: {
      ArrayRef<Expr *> elems = isa<TupleExpr>(e)
                                   ? cast<TupleExpr>(e)->getElements()
                                   : cast<ListExpr>(e)->getElements();
      PyTuple items;
      for (Expr *el : elems) {
        if (auto *star = dyn_cast<StarredExpr>(el)) {
          PyValue v = eval(star->getValue());
          if (v.kind != PyValue::Tuple)
            error(star->getLoc(), "only tuples can be unpacked with '*', got " +
                                      describe(v));
          items.insert(items.end(), v.items->begin(), v.items->end());
          continue;
        }
        items.push_back(eval(el));
      }
      return PyValue::tuple(std::move(items));
    }
    case Expr::Kind::Starred:
      error(loc, "'*' unpacking is only allowed in calls, tuples and lists");
    }
  } catch (SemanticError &err) {
    SourceLocation where = loc;
    if (auto *b = dyn_cast<BinaryExpr>(e))
      where = b->getOpLoc();
    error(where, err.what());
  }
  error(loc, "unsupported expression");
}

//===----------------------------------------------------------------------===//
// Names and namespaces
//===----------------------------------------------------------------------===//

/// The Triton dtype that `tl.<name>` denotes.
static std::optional<DType> dtypeAttr(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("int1", DType(DType::I1))
      .Case("int8", DType(DType::I8))
      .Case("int16", DType(DType::I16))
      .Case("int32", DType(DType::I32))
      .Case("int64", DType(DType::I64))
      .Case("uint8", DType(DType::U8))
      .Case("uint16", DType(DType::U16))
      .Case("uint32", DType(DType::U32))
      .Case("uint64", DType(DType::U64))
      .Case("float8e4nv", DType(DType::FP8E4NV))
      .Case("float8e5", DType(DType::FP8E5))
      .Case("float16", DType(DType::FP16))
      .Case("bfloat16", DType(DType::BF16))
      .Case("float32", DType(DType::FP32))
      .Case("float64", DType(DType::FP64))
      .Case("void", DType(DType::Void))
      .Default(std::nullopt);
}

/// The public names of Triton's (3.x) `triton.language`, `.math` and
/// `.extra` namespaces, including those Tegula does not implement: a name
/// outside these lists is a misspelling, not a missing feature.
static llvm::ArrayRef<llvm::StringRef> tritonNames(llvm::StringRef ns) {
  // clang-format off
  static const llvm::StringRef tl[] = {
      "PropagateNan", "TRITON_MAX_TENSOR_NUMEL",
      "_experimental_descriptor_load", "_experimental_descriptor_store",
      "_experimental_make_tensor_descriptor",
      "_experimental_reinterpret_tensor_descriptor", "abs", "add", "advance",
      "aggregate", "arange", "argmax", "argmin", "associative_scan", "assume",
      "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
      "atomic_or", "atomic_xchg", "atomic_xor", "bfloat16", "block_type",
      "broadcast", "broadcast_to", "cast", "cat", "cdiv", "ceil", "clamp",
      "const", "constexpr", "cos", "cumprod", "cumsum", "debug_barrier",
      "device_assert", "device_print", "div_rn", "dot", "dot_scaled", "dtype",
      "erf", "exp", "exp2", "expand_dims", "extra", "fdiv", "flip", "float16",
      "float32", "float64", "float8e4b15", "float8e4b8", "float8e4nv",
      "float8e5", "float8e5b16", "floor", "fma", "full", "gather",
      "histogram", "inline_asm_elementwise", "int1", "int16", "int32",
      "int64", "int8", "interleave", "join", "load", "load_tensor_descriptor",
      "log", "log1p", "log2", "logical_and", "logical_or", "make_block_ptr",
      "make_tensor_descriptor", "map_elementwise", "math", "max",
      "max_constancy", "max_contiguous", "maximum", "min", "minimum",
      "multiple_of", "num_programs", "pair_uniform_to_normal", "permute",
      "philox", "philox_impl", "pointer_type", "program_id", "rand", "rand4x",
      "randint", "randint4x", "randn", "randn4x", "range", "ravel", "reduce",
      "reshape", "rsqrt", "sigmoid", "sin", "softmax", "sort", "split",
      "sqrt", "sqrt_rn", "static_assert", "static_print", "static_range",
      "store", "store_tensor_descriptor", "sum", "swizzle2d", "tensor",
      "tensor_descriptor", "tensor_descriptor_type", "to_tensor", "topk",
      "trans", "tuple", "tuple_type", "uint16", "uint32", "uint64", "uint8",
      "uint_to_uniform_float", "umulhi", "view", "void", "where", "xor_sum",
      "zeros", "zeros_like"};
  static const llvm::StringRef math[] = {
      "abs", "cdiv", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv",
      "floor", "fma", "log", "log1p", "log2", "max", "min", "rsqrt",
      "sigmoid", "sin", "softmax", "sqrt", "sqrt_rn", "umulhi"};
  static const llvm::StringRef extra[] = {"cuda", "hip", "intel", "libdevice"};
  // clang-format on
  if (ns == "tl")
    return tl;
  if (ns == "tl.math")
    return math;
  if (ns == "tl.extra.libdevice") {
    static const std::vector<llvm::StringRef> libdevice =
        Semantic::libdeviceFunctionNames();
    return libdevice;
  }
  return extra;
}

void CodeGen::unknownTlMember(llvm::StringRef ns, llvm::StringRef name,
                              SourceLocation loc) {
  std::string qualified = ns.str() + "." + name.str();
  llvm::ArrayRef<llvm::StringRef> triton = tritonNames(ns);
  if (llvm::is_contained(triton, name))
    error(loc, qualified + " is not supported yet");
  // The closest name Tegula knows in |ns|, or else Triton does: a typo of
  // a supported name should lead to it rather than to a missing feature.
  std::vector<llvm::StringRef> known;
  if (ns == "tl") {
    known = tlBuiltinNames();
    for (const FunctionDef *f : stdlib.getFunctions())
      if (!f->getName().starts_with("_"))
        known.push_back(f->getName());
  } else if (ns == "tl.math") {
    for (llvm::StringRef n : tritonNames(ns))
      if (isTlBuiltin(n) || stdlib.lookupFunction(n))
        known.push_back(n);
  }
  // At most a third of the name's letters may differ (`arnage` is two
  // edits from `arange`), so that short names suggest nothing far-fetched.
  unsigned limit = std::max<unsigned>(1, name.size() / 3);
  llvm::StringRef best;
  unsigned bestDistance = limit + 1;
  for (llvm::ArrayRef<llvm::StringRef> names :
       {llvm::ArrayRef<llvm::StringRef>(known), triton}) {
    for (llvm::StringRef candidate : names) {
      unsigned d = name.edit_distance(candidate, /*AllowReplacements=*/true,
                                      /*MaxEditDistance=*/limit);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    if (!best.empty())
      break;
  }
  std::string message = "'" + qualified + "' is not a name of triton." +
                        (ns == "tl" ? std::string("language")
                                    : "language." + ns.drop_front(3).str());
  if (!best.empty())
    message += "; did you mean '" + ns.str() + "." + best.str() + "'?";
  error(loc, message);
}

/// The namespace a dotted module path denotes.
static PyValue resolveModulePath(llvm::StringRef path) {
  if (path == "triton" || path == "tegula")
    return PyValue::ns("triton");
  if (path == "triton.language" || path == "tegula.language")
    return PyValue::ns("tl");
  if (path == "triton.language.math" || path == "tegula.language.math")
    return PyValue::ns("tl.math");
  for (llvm::StringRef root : {"triton.language.extra", "tegula.language.extra"}) {
    if (!path.starts_with(root))
      continue;
    llvm::StringRef rest = path.drop_front(root.size());
    if (rest.empty())
      return PyValue::ns("tl.extra");
    // Triton's libdevice under every vendor's name: `extra.libdevice`,
    // `extra.cuda.libdevice`, `extra.hip.libdevice`.
    if (rest == ".libdevice" || rest == ".cuda.libdevice" ||
        rest == ".hip.libdevice" || rest == ".intel.libdevice")
      return PyValue::ns("tl.extra.libdevice");
    if (rest == ".cuda" || rest == ".hip" || rest == ".intel")
      return PyValue::ns("tl.extra" + rest.str());
  }
  if (path == "triton.jit" || path == "tegula.jit")
    return PyValue::marker("jit");
  return PyValue::ns(path.str());
}

/// Whether |path| names a module of Triton (or Tegula's equivalent), which
/// the front end implements itself rather than reads.
static bool isTritonPath(llvm::StringRef path) {
  llvm::StringRef top = path.split('.').first;
  return top == "triton" || top == "tegula";
}

PyValue CodeGen::tritonImport(llvm::StringRef qualified, SourceLocation loc) {
  auto [parent, leaf] = qualified.rsplit('.');
  PyValue direct = resolveModulePath(qualified);
  if (direct.kind == PyValue::Namespace && !leaf.empty() &&
      direct.str == qualified.str()) {
    // `from triton.language import sum` and friends.
    PyValue base = resolveModulePath(parent);
    if (base.kind == PyValue::Namespace && base.str != parent.str())
      return getAttr(base, leaf, loc);
  }
  return direct;
}

PyValue CodeGen::globalValue(Module *m, const GlobalConstant &g,
                             SourceLocation loc) {
  // Module constants are constexprs, evaluated where they are defined.
  frames.emplace_back();
  frame().module = m;
  PyValue v;
  try {
    v = eval(g.Value);
  } catch (...) {
    frames.pop_back();
    throw;
  }
  frames.pop_back();
  if (!v.isConstexpr())
    error(loc, "global '" + g.Name.str() +
                   "' must be a constant (tl.constexpr), not " + describe(v));
  return v;
}

std::optional<PyValue> CodeGen::moduleMember(Module *m, llvm::StringRef name,
                                             SourceLocation loc) {
  if (const FunctionDef *f = m->lookupFunction(name))
    return PyValue::func(f, m);
  if (const GlobalConstant *g = m->lookupGlobal(name))
    return globalValue(m, *g, loc);
  llvm::StringRef qualified = m->resolveImport(name);
  if (!qualified.empty())
    return isTritonPath(qualified) ? tritonImport(qualified, loc)
                                   : userImport(m, name, qualified, loc);
  if (m->isHostFunction(name))
    error(loc, "'" + name.str() + "' is not a @jit function: kernels "
               "can only call functions decorated with @triton.jit");
  if (const SourceLocation *broken = m->lookupBrokenFunction(name)) {
    CompileError err{loc, "'" + name.str() + "' has errors and cannot be compiled",
                     {}};
    err.notes.emplace_back(*broken, "'" + name.str() + "' is defined here");
    throw err;
  }
  if (std::optional<PyValue> starred = starImported(m, name, loc))
    return starred;
  if (loader && m != &stdlib) {
    // `import mypkg` then `mypkg.utils.f`: a package's submodules are its
    // attributes once imported.
    std::string message;
    if (Module *sub = loader->loadSubmodule(*m, name, message))
      return PyValue::userModule(sub, loader->getName(*sub).str());
    if (!message.empty())
      error(loc, message);
  }
  return std::nullopt;
}

std::optional<PyValue> CodeGen::tritonStarMember(llvm::StringRef path,
                                                 llvm::StringRef name,
                                                 SourceLocation loc) {
  // The names `from <path> import *` binds are the module's public names in
  // Triton (tritonNames); one Tegula lacks is bound all the same, and its use
  // says it is not supported yet. `from triton import *` binds what a kernel
  // can use of the package.
  PyValue base = resolveModulePath(path);
  if (base.kind != PyValue::Namespace)
    return std::nullopt;
  // A module the front end does not know (`triton.testing`) keeps its path
  // and matches none of these.
  const std::string &ns = base.str;
  bool bound = false;
  if (ns == "triton")
    bound = name == "jit" || name == "language" || name == "cdiv";
  else if (ns == "tl" || ns == "tl.math" || ns == "tl.extra" ||
           ns == "tl.extra.libdevice")
    bound = llvm::is_contained(tritonNames(ns), name);
  else if (ns == "tl.extra.cuda" || ns == "tl.extra.hip" ||
           ns == "tl.extra.intel")
    bound = name == "libdevice";
  if (!bound)
    return std::nullopt;
  return getAttr(base, name, loc);
}

std::optional<PyValue> CodeGen::starImported(Module *m, llvm::StringRef name,
                                             SourceLocation loc) {
  // Python's `import *` leaves out names with a leading underscore; the
  // modules of Triton are not read: their names are the front end's own.
  if (m == &stdlib || name.starts_with("_"))
    return std::nullopt;
  for (const std::string &path : m->getStarImports()) {
    if (isTritonPath(path)) {
      if (std::optional<PyValue> found = tritonStarMember(path, name, loc))
        return found;
      continue;
    }
    if (!loader)
      continue;
    // Modules that star-import each other: each is searched once per name.
    std::pair<Module *, std::string> key(m, "*" + name.str());
    if (llvm::is_contained(importStack, key))
      continue;
    std::string message;
    Module *source = loader->load(path, *m, message);
    // A star import of a module that is not found binds nothing we could
    // use (host code's `from numpy import *`); a name it would have bound
    // is then "not defined".
    if (!source)
      continue;
    importStack.push_back(key);
    auto pop = llvm::make_scope_exit([&] { importStack.pop_back(); });
    if (std::optional<PyValue> found = moduleMember(source, name, loc))
      return found;
  }
  return std::nullopt;
}

PyValue CodeGen::userImport(Module *m, llvm::StringRef name,
                            llvm::StringRef qualified, SourceLocation loc) {
  // The same name of the same module met again while resolving it: the
  // modules import it from each other and it is defined nowhere.
  for (size_t i = 0; i < importStack.size(); ++i) {
    if (importStack[i].first != m || importStack[i].second != name)
      continue;
    std::string chain;
    for (size_t j = i; j < importStack.size(); ++j)
      chain += "'" + importStack[j].second + "' of " +
               loader->getName(*importStack[j].first).str() + " -> ";
    chain += "'" + name.str() + "' of " + loader->getName(*m).str();
    CompileError err{loc, "import cycle: " + chain +
                              " (no module defines it)", {}};
    if (SourceLocation at = m->getImportLocation(name); at.isValid())
      err.notes.emplace_back(at, "imported here");
    throw err;
  }
  auto fail = [&](const std::string &why) {
    CompileError err{loc, "cannot import '" + qualified.str() + "' (bound to '" +
                              name.str() + "'): " + why, {}};
    if (SourceLocation at = m->getImportLocation(name); at.isValid())
      err.notes.emplace_back(at, "imported here");
    throw err;
  };
  if (!loader)
    fail("this compile reads no other modules");
  importStack.emplace_back(m, name.str());
  auto pop = llvm::make_scope_exit([&] { importStack.pop_back(); });

  // The module the import starts from: the package its dots name, or the
  // top-level module of an absolute name; then one attribute per part.
  size_t level = qualified.find_first_not_of('.');
  llvm::StringRef dots = qualified.take_front(level);
  llvm::SmallVector<llvm::StringRef, 4> parts;
  qualified.drop_front(level).split(parts, '.');
  std::string message;
  Module *start = loader->load(level ? dots : parts.front(), *m, message);
  if (!start)
    fail(message);
  PyValue value = PyValue::userModule(start, loader->getName(*start).str());
  llvm::ArrayRef<llvm::StringRef> rest = llvm::ArrayRef(parts).drop_front(level ? 0 : 1);
  for (auto [i, part] : llvm::enumerate(rest)) {
    if (value.kind != PyValue::UserModule) {
      value = getAttr(value, part, loc);
      continue;
    }
    if (std::optional<PyValue> member = moduleMember(value.module, part, loc)) {
      value = *member;
      continue;
    }
    std::string where = "'" + value.str + "' (" +
                        value.module->getFile().getName().str() + ")";
    if (i + 1 < rest.size())
      fail("cannot find module '" + ModuleLoader::childName(value.str, part) +
           "': package " + where + " has no module or name '" + part.str() +
           "'");
    fail("module " + where + " has no @jit function, constant or submodule '" +
         part.str() + "'");
  }
  return value;
}

PyValue CodeGen::evalName(const NameExpr *e) {
  llvm::StringRef name = e->getName();
  Frame &fr = frame();
  auto it = fr.scope.find(name);
  if (it != fr.scope.end() && it->second.kind != PyValue::Undefined)
    return it->second;
  Module *m = fr.module;
  if (std::optional<PyValue> member = moduleMember(m, name, e->getLoc()))
    return *member;
  if (m == &stdlib) {
    if (isTlBuiltin(name))
      return PyValue::builtin(name.str());
    if (auto d = dtypeAttr(name))
      return PyValue::ofDType(*d);
    if (name == "constexpr")
      return PyValue::marker("constexpr");
  }
  static const char *pyBuiltins[] = {"range", "min", "max", "abs", "float",
                                     "int", "bool", "len", "print", "isinstance"};
  for (const char *b : pyBuiltins)
    if (name == b)
      return PyValue::builtin(std::string("py.") + b);
  error(e->getLoc(), "name '" + name.str() + "' is not defined");
}

PyValue CodeGen::evalAttribute(const AttributeExpr *e) {
  PyValue base = eval(e->getBase());
  return getAttr(base, e->getName(), e->getNameLoc());
}

PyValue CodeGen::getAttr(const PyValue &base, llvm::StringRef name,
                         SourceLocation loc) {
  switch (base.kind) {
  case PyValue::Namespace: {
    const std::string &ns = base.str;
    if (ns == "triton") {
      if (name == "language")
        return PyValue::ns("tl");
      if (name == "jit")
        return PyValue::marker("jit");
      if (name == "cdiv")
        return PyValue::func(stdlib.lookupFunction("cdiv"), &stdlib);
      error(loc, "triton." + name.str() + " cannot be used inside a kernel");
    }
    if (ns == "tl" || ns == "tl.math") {
      if (ns == "tl" && name == "math")
        return PyValue::ns("tl.math");
      if (ns == "tl" && name == "extra")
        return PyValue::ns("tl.extra");
      if (ns == "tl" && (name == "random" || name == "standard" || name == "core"))
        return PyValue::ns("tl");
      if (ns == "tl.math" && (name == "max" || name == "min"))
        return PyValue::builtin(name == "max" ? "maximum" : "minimum");
      if (auto d = dtypeAttr(name))
        return PyValue::ofDType(*d);
      if (name == "constexpr" || name == "tensor" || name == "dtype" ||
          name == "tensor_descriptor" || name == "tensor_descriptor_base")
        return PyValue::marker(name.str());
      if (name == "PropagateNan")
        return PyValue::ns("PropagateNan");
      if (name == "TRITON_MAX_TENSOR_NUMEL")
        return PyValue::ofInt(Semantic::kMaxTensorNumel);
      if (isTlBuiltin(name))
        return PyValue::builtin(name.str());
      if (const FunctionDef *f = stdlib.lookupFunction(name))
        if (!name.starts_with("_"))
          return PyValue::func(f, &stdlib);
      unknownTlMember(ns, name, loc);
    }
    if (ns == "PropagateNan") {
      if (name == "ALL")
        return PyValue::string("all");
      if (name == "NONE")
        return PyValue::string("none");
      error(loc, "tl.PropagateNan has no member '" + name.str() + "'");
    }
    if (ns == "tl.extra") {
      if (name == "libdevice")
        return PyValue::ns("tl.extra.libdevice");
      if (name == "cuda" || name == "hip" || name == "intel")
        return PyValue::ns("tl.extra." + name.str());
      unknownTlMember(ns, name, loc);
    }
    if (ns == "tl.extra.cuda" || ns == "tl.extra.hip" || ns == "tl.extra.intel") {
      if (name == "libdevice")
        return PyValue::ns("tl.extra.libdevice");
      error(loc, ns + "." + name.str() + " is not supported yet");
    }
    if (ns == "tl.extra.libdevice") {
      if (Semantic::isLibdeviceFunction(name))
        return PyValue::builtin("libdevice." + name.str());
      unknownTlMember(ns, name, loc);
    }
    error(loc, "'" + ns + "." + name.str() + "' cannot be used inside a kernel");
  }
  case PyValue::TensorDesc:
    return descriptorAttr(base, name, loc);
  case PyValue::UserModule: {
    if (std::optional<PyValue> member = moduleMember(base.module, name, loc))
      return *member;
    error(loc, "module '" + base.str + "' (" +
                   base.module->getFile().getName().str() +
                   ") has no @jit function, constant or submodule '" +
                   name.str() + "'");
  }
  case PyValue::Tensor: {
    const TValue &t = base.tensor;
    if (name == "dtype")
      return PyValue::ofDType(t.dtype());
    if (name == "shape") {
      PyTuple dims;
      for (int64_t d : t.type.shape())
        dims.push_back(PyValue::ofInt(d));
      return PyValue::tuple(dims);
    }
    if (name == "numel")
      return PyValue::ofInt(t.type.numel());
    if (name == "type")
      return PyValue::ofDType(t.dtype());
    if (name == "T") {
      if (t.type.shape().size() != 2)
        error(loc, ".T needs a 2-D tensor, got " + t.type.str());
      at(loc);
      return PyValue::ofTensor(sem.permute(t, {1, 0}));
    }
    static const char *methods[] = {
        "to", "reshape", "view", "trans", "permute", "broadcast_to",
        "expand_dims", "split", "ravel", "sum", "max", "min", "argmax",
        "argmin", "cumsum", "cumprod", "exp", "exp2", "log", "log2", "sin",
        "cos", "sqrt", "sqrt_rn", "rsqrt", "abs", "floor", "ceil", "erf",
        "sigmoid", "softmax", "xor_sum", "reduce", "associative_scan", "sort",
        "flip", "histogram", "logical_and", "logical_or", "reduce_or", "cast"};
    for (const char *m : methods)
      if (name == m)
        return PyValue::method(base, name.str());
    error(loc, "tensor has no attribute '" + name.str() + "'");
  }
  case PyValue::DTypeObj: {
    const DType &d = base.dtype;
    if (name == "element_ty") {
      if (!d.isPtr())
        error(loc, "dtype " + d.str() + " has no element_ty (not a pointer)");
      if (d.pointee().isBlock())
        error(loc, "element_ty of a block pointer is a block type, which "
                   "kernels cannot use as a value yet");
      return PyValue::ofDType(d.pointee().scalar());
    }
    if (name == "primitive_bitwidth")
      return PyValue::ofInt(d.bitWidth());
    if (name == "int_bitwidth") {
      if (!d.isInt())
        error(loc, "dtype " + d.str() + " is not an integer");
      return PyValue::ofInt(d.bitWidth());
    }
    if (name == "fp_mantissa_width")
      return PyValue::ofInt(d.mantissaWidth());
    if (name == "name")
      return PyValue::string(d.str());
    if (name == "scalar")
      return base;
    if (name.starts_with("is_") || name == "to_ir")
      return PyValue::method(base, name.str());
    error(loc, "dtype has no attribute '" + name.str() + "'");
  }
  case PyValue::Number:
  case PyValue::String:
  case PyValue::None:
  case PyValue::Tuple:
    if (name == "value")
      return base;
    error(loc, describe(base) + " has no attribute '" + name.str() + "'");
  default:
    error(loc, describe(base) + " has no attribute '" + name.str() + "'");
  }
}

//===----------------------------------------------------------------------===//
// Subscripts
//===----------------------------------------------------------------------===//

PyValue CodeGen::evalSubscript(const SubscriptExpr *e) {
  PyValue base = eval(e->getBase());
  const Expr *indexExpr = e->getIndex();
  SourceLocation loc = e->getLoc();
  if (base.kind == PyValue::Tuple) {
    const PyTuple &items = base.tupleItems();
    int64_t n = static_cast<int64_t>(items.size());
    if (auto *s = dyn_cast<SliceExpr>(indexExpr)) {
      int64_t step = s->getStep() ? static_cast<int64_t>(constInt(eval(s->getStep()), loc, "slice step")) : 1;
      if (step == 0)
        error(loc, "slice step cannot be zero");
      auto norm = [&](const Expr *x, int64_t def) {
        if (!x)
          return def;
        int64_t v = static_cast<int64_t>(constInt(eval(x), loc, "slice bound"));
        if (v < 0)
          v += n;
        return std::clamp<int64_t>(v, step > 0 ? 0 : -1, step > 0 ? n : n - 1);
      };
      int64_t lo = norm(s->getLower(), step > 0 ? 0 : n - 1);
      int64_t hi = norm(s->getUpper(), step > 0 ? n : -1);
      PyTuple out;
      for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step)
        out.push_back(items[i]);
      return PyValue::tuple(out);
    }
    PyValue idx = eval(indexExpr);
    __int128 i = constInt(idx, indexExpr->getLoc(), "a tuple index");
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      error(indexExpr->getLoc(), "tuple index " + describe(idx) +
                                     " out of range for a tuple of " +
                                     std::to_string(n));
    return items[static_cast<size_t>(i)];
  }
  if (base.kind == PyValue::Tensor) {
    std::vector<const Expr *> parts;
    if (auto *t = dyn_cast<TupleExpr>(indexExpr); t && !t->isParenthesized())
      parts.assign(t->getElements().begin(), t->getElements().end());
    else
      parts.push_back(indexExpr);
    TValue t = base.tensor;
    size_t rank = t.type.shape().size(), consumed = 0;
    int64_t dim = 0;
    for (const Expr *p : parts) {
      if (isa<NoneLiteralExpr>(p)) {
        at(p->getLoc());
        t = sem.expandDims(t, dim);
        ++dim;
        continue;
      }
      if (auto *s = dyn_cast<SliceExpr>(p);
          s && !s->getLower() && !s->getUpper() && !s->getStep()) {
        ++dim;
        ++consumed;
        continue;
      }
      error(p->getLoc(), "unsupported tensor index: only None and ':' are "
                         "allowed in a tensor subscript");
    }
    if (consumed > rank)
      error(loc, "too many indices for a tensor of rank " + std::to_string(rank));
    return PyValue::ofTensor(t);
  }
  error(loc, describe(base) + " is not subscriptable");
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

namespace {
bool isIntLike(const PyValue &v) { return v.isInt(); }

double asDouble(const PyNum &n) {
  return n.kind == PyNum::Float ? n.f : static_cast<double>(n.i);
}
} // namespace

PyValue CodeGen::evalUnary(const UnaryExpr *e) {
  PyValue v = eval(e->getOperand());
  SourceLocation loc = e->getLoc();
  switch (e->getOp()) {
  case UnaryOp::Not:
    if (v.isTensor()) {
      at(loc);
      return PyValue::ofTensor(sem.logicalNot(v.tensor));
    }
    return PyValue::ofBool(!truthy(v));
  case UnaryOp::Plus:
    if (v.isTensor() || v.isNumber())
      return v;
    break;
  case UnaryOp::Minus:
    if (v.isTensor()) {
      at(loc);
      return PyValue::ofTensor(sem.minus(v.tensor));
    }
    if (v.isNumber()) {
      if (v.num.kind == PyNum::Float)
        return PyValue::ofFloat(-v.num.f);
      return PyValue::ofInt(-v.num.i);
    }
    break;
  case UnaryOp::Invert:
    if (v.isTensor()) {
      at(loc);
      return PyValue::ofTensor(sem.invert(v.tensor));
    }
    if (isIntLike(v))
      return PyValue::ofInt(~v.num.i);
    break;
  }
  error(loc, "bad operand type for unary " + getSpelling(e->getOp()).str() +
                 ": " + describe(v));
}

PyValue CodeGen::evalBinary(const BinaryExpr *e) {
  PyValue l = eval(e->getLHS());
  PyValue r = eval(e->getRHS());
  return binaryOp(e->getOp(), l, r, e->getOpLoc());
}

/// Python arithmetic on two constexpr numbers.
static std::optional<PyValue> constArith(BinaryOp op, const PyNum &a,
                                         const PyNum &b, std::string &err) {
  bool ints = a.kind != PyNum::Float && b.kind != PyNum::Float;
  if (ints) {
    __int128 x = a.i, y = b.i, r = 0;
    switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(x, y, &r)) break;
      return PyValue::ofInt(r);
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) break;
      return PyValue::ofInt(r);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(x, y, &r)) break;
      return PyValue::ofInt(r);
    case BinaryOp::Div:
      if (y == 0) { err = "division by zero"; return std::nullopt; }
      return PyValue::ofFloat(static_cast<double>(x) / static_cast<double>(y));
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod: {
      if (y == 0) { err = "integer division or modulo by zero"; return std::nullopt; }
      __int128 q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) { q -= 1; m += y; }
      return PyValue::ofInt(op == BinaryOp::FloorDiv ? q : m);
    }
    case BinaryOp::Pow: {
      if (y < 0)
        return PyValue::ofFloat(std::pow(static_cast<double>(x), static_cast<double>(y)));
      // Square-and-multiply: at most 128 steps whatever the exponent.
      __int128 acc = 1, base = x;
      bool overflow = false;
      for (__int128 e = y; e > 0 && !overflow; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(acc, base, &acc))
          overflow = true;
        if ((e >> 1) > 0 && __builtin_mul_overflow(base, base, &base))
          overflow = x != 0 && x != 1 && x != -1;
      }
      if (overflow) {
        err = "integer overflow in constexpr arithmetic";
        return std::nullopt;
      }
      return PyValue::ofInt(acc);
    }
    case BinaryOp::LShift:
      if (y < 0) { err = "negative shift count"; return std::nullopt; }
      if (y >= 126 || (x != 0 && y >= 126)) break;
      r = x * (static_cast<__int128>(1) << static_cast<int>(y));
      if (y > 0 && r / (static_cast<__int128>(1) << static_cast<int>(y)) != x) break;
      return PyValue::ofInt(r);
    case BinaryOp::RShift:
      if (y < 0) { err = "negative shift count"; return std::nullopt; }
      return PyValue::ofInt(y >= 127 ? (x < 0 ? -1 : 0) : (x >> static_cast<int>(y)));
    case BinaryOp::BitAnd:
      if (a.kind == PyNum::Bool && b.kind == PyNum::Bool) return PyValue::ofBool(x & y);
      return PyValue::ofInt(x & y);
    case BinaryOp::BitOr:
      if (a.kind == PyNum::Bool && b.kind == PyNum::Bool) return PyValue::ofBool(x | y);
      return PyValue::ofInt(x | y);
    case BinaryOp::BitXor:
      if (a.kind == PyNum::Bool && b.kind == PyNum::Bool) return PyValue::ofBool(x ^ y);
      return PyValue::ofInt(x ^ y);
    case BinaryOp::MatMul:
      err = "'@' needs tensors";
      return std::nullopt;
    }
    err = "integer overflow in constexpr arithmetic";
    return std::nullopt;
  }
  double x = asDouble(a), y = asDouble(b);
  switch (op) {
  case BinaryOp::Add: return PyValue::ofFloat(x + y);
  case BinaryOp::Sub: return PyValue::ofFloat(x - y);
  case BinaryOp::Mul: return PyValue::ofFloat(x * y);
  case BinaryOp::Div:
    if (y == 0) { err = "float division by zero"; return std::nullopt; }
    return PyValue::ofFloat(x / y);
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod: {
    if (y == 0) { err = "float modulo"; return std::nullopt; }
    double m = std::fmod(x, y);
    if (m != 0 && ((m < 0) != (y < 0)))
      m += y;
    if (op == BinaryOp::Mod)
      return PyValue::ofFloat(m);
    return PyValue::ofFloat(std::floor((x - m) / y + 0.5));
  }
  case BinaryOp::Pow: return PyValue::ofFloat(std::pow(x, y));
  default:
    err = "unsupported operand types for " + getSpelling(op).str() +
          ": 'float'";
    return std::nullopt;
  }
}

PyValue CodeGen::binaryOp(BinaryOp op, const PyValue &l, const PyValue &r,
                          SourceLocation loc) {
  std::string spelling = getSpelling(op).str();
  if (l.isNumber() && r.isNumber()) {
    std::string err;
    if (auto v = constArith(op, l.num, r.num, err))
      return *v;
    error(loc, err);
  }
  // Tuples and strings, as Python.
  if (l.kind == PyValue::Tuple && r.kind == PyValue::Tuple && op == BinaryOp::Add) {
    PyTuple out = l.tupleItems();
    out.insert(out.end(), r.items->begin(), r.items->end());
    return PyValue::tuple(out);
  }
  if (op == BinaryOp::Mul && ((l.kind == PyValue::Tuple && r.isInt()) ||
                              (r.kind == PyValue::Tuple && l.isInt()))) {
    const PyValue &t = l.kind == PyValue::Tuple ? l : r;
    __int128 n = l.kind == PyValue::Tuple ? r.num.i : l.num.i;
    if (n > 4096)
      error(loc, "tuple repetition too large");
    PyTuple out;
    for (__int128 i = 0; i < n; ++i)
      out.insert(out.end(), t.items->begin(), t.items->end());
    return PyValue::tuple(out);
  }
  if (l.kind == PyValue::String && r.kind == PyValue::String && op == BinaryOp::Add)
    return PyValue::string(l.str + r.str);
  if (!(l.isTensor() || l.isNumber()) || !(r.isTensor() || r.isNumber()))
    error(loc, "unsupported operand types for " + spelling + ": " + describe(l) +
                   " and " + describe(r));
  Operand a = operand(l, loc, "operand"), b = operand(r, loc, "operand");
  at(loc);
  try {
    switch (op) {
    case BinaryOp::Add: return PyValue::ofTensor(sem.add(a, b));
    case BinaryOp::Sub: return PyValue::ofTensor(sem.sub(a, b));
    case BinaryOp::Mul: return PyValue::ofTensor(sem.mul(a, b));
    case BinaryOp::Div: return PyValue::ofTensor(sem.truediv(a, b));
    case BinaryOp::FloorDiv: return PyValue::ofTensor(sem.floordiv(a, b));
    case BinaryOp::Mod: return PyValue::ofTensor(sem.mod(a, b));
    case BinaryOp::BitAnd: return PyValue::ofTensor(sem.bitAnd(a, b));
    case BinaryOp::BitOr: return PyValue::ofTensor(sem.bitOr(a, b));
    case BinaryOp::BitXor: return PyValue::ofTensor(sem.bitXor(a, b));
    case BinaryOp::LShift: return PyValue::ofTensor(sem.shl(a, b));
    case BinaryOp::RShift: return PyValue::ofTensor(sem.shr(a, b));
    case BinaryOp::MatMul: {
      TValue x = tensor(l, loc, "operand"), y = tensor(r, loc, "operand");
      return PyValue::ofTensor(sem.dot(x, y, std::nullopt, "", std::nullopt, DType::FP32));
    }
    case BinaryOp::Pow:
      error(loc, "'**' is not supported on tensors");
    }
  } catch (SemanticError &err) {
    std::string msg = err.what();
    // Triton's wording for shape mismatches names the operator.
    if (llvm::StringRef(msg).starts_with("incompatible shapes ")) {
      TValue x = tensor(l, loc, "operand"), y = tensor(r, loc, "operand");
      msg = "incompatible shapes for " + spelling + ": " +
            shapeStr(x.type.shape()) + " and " + shapeStr(y.type.shape());
    }
    error(loc, msg);
  }
  error(loc, "unsupported operator " + spelling);
}

PyValue CodeGen::evalBoolOp(const BoolOpExpr *e) {
  bool isAnd = e->getOp() == BoolOp::And;
  PyValue acc = eval(e->getOperands()[0]);
  for (Expr *next : e->getOperands().drop_front()) {
    if (acc.isConstexpr()) {
      // Python short-circuit on constexprs.
      if (isAnd ? !truthy(acc) : truthy(acc))
        return acc;
      acc = eval(next);
      continue;
    }
    PyValue rhs = eval(next);
    at(next->getLoc());
    TValue r = tensor(rhs, next->getLoc(), "operand of " +
                                               getSpelling(e->getOp()).str());
    acc = PyValue::ofTensor(isAnd ? sem.logicalAnd(acc.tensor, r)
                                  : sem.logicalOr(acc.tensor, r));
  }
  return acc;
}

PyValue CodeGen::compareOp(CompareOp op, const PyValue &l, const PyValue &r,
                           SourceLocation loc) {
  auto sameConst = [&]() -> std::optional<bool> {
    if (l.kind != r.kind) {
      if ((l.kind == PyValue::None) != (r.kind == PyValue::None))
        return false;
      return std::nullopt;
    }
    switch (l.kind) {
    case PyValue::None: return true;
    case PyValue::String: return l.str == r.str;
    case PyValue::DTypeObj: return l.dtype == r.dtype;
    case PyValue::Function: return l.function == r.function;
    case PyValue::UserModule: return l.module == r.module;
    case PyValue::Builtin: case PyValue::Marker: case PyValue::Namespace:
      return l.str == r.str;
    default: return std::nullopt;
    }
  };
  switch (op) {
  case CompareOp::Is:
  case CompareOp::IsNot: {
    bool same;
    if (l.isTensor() || r.isTensor())
      same = l.isTensor() && r.isTensor() && l.tensor.value == r.tensor.value;
    else if (auto s = sameConst())
      same = *s;
    else if (l.isNumber() && r.isNumber())
      same = l.num.kind == r.num.kind && l.num.i == r.num.i && l.num.f == r.num.f;
    else
      same = false;
    return PyValue::ofBool(op == CompareOp::Is ? same : !same);
  }
  case CompareOp::In:
  case CompareOp::NotIn: {
    if (r.kind != PyValue::Tuple)
      error(loc, "'in' needs a tuple on its right, got " + describe(r));
    bool found = false;
    for (const PyValue &item : r.tupleItems()) {
      PyValue eq = compareOp(CompareOp::Eq, l, item, loc);
      if (eq.isNumber() && truthy(eq))
        found = true;
    }
    return PyValue::ofBool(op == CompareOp::In ? found : !found);
  }
  default:
    break;
  }
  if (l.isNumber() && r.isNumber()) {
    bool ints = l.num.kind != PyNum::Float && r.num.kind != PyNum::Float;
    int c;
    if (ints)
      c = l.num.i < r.num.i ? -1 : (l.num.i > r.num.i ? 1 : 0);
    else {
      double x = asDouble(l.num), y = asDouble(r.num);
      if (std::isnan(x) || std::isnan(y))
        return PyValue::ofBool(op == CompareOp::NotEq);
      c = x < y ? -1 : (x > y ? 1 : 0);
    }
    switch (op) {
    case CompareOp::Lt: return PyValue::ofBool(c < 0);
    case CompareOp::LtE: return PyValue::ofBool(c <= 0);
    case CompareOp::Gt: return PyValue::ofBool(c > 0);
    case CompareOp::GtE: return PyValue::ofBool(c >= 0);
    case CompareOp::Eq: return PyValue::ofBool(c == 0);
    default: return PyValue::ofBool(c != 0);
    }
  }
  if (!l.isTensor() && !r.isTensor()) {
    if (op == CompareOp::Eq || op == CompareOp::NotEq) {
      if (l.kind == PyValue::Tuple && r.kind == PyValue::Tuple) {
        bool eq = l.items->size() == r.items->size();
        for (size_t i = 0; eq && i < l.items->size(); ++i)
          eq = truthy(compareOp(CompareOp::Eq, (*l.items)[i], (*r.items)[i], loc));
        return PyValue::ofBool(op == CompareOp::Eq ? eq : !eq);
      }
      std::optional<bool> s = sameConst();
      bool eq = s ? *s : false;
      return PyValue::ofBool(op == CompareOp::Eq ? eq : !eq);
    }
    error(loc, "'" + getSpelling(op).str() + "' not supported between " +
                   describe(l) + " and " + describe(r));
  }
  llvm::StringRef pred;
  switch (op) {
  case CompareOp::Lt: pred = "<"; break;
  case CompareOp::LtE: pred = "<="; break;
  case CompareOp::Gt: pred = ">"; break;
  case CompareOp::GtE: pred = ">="; break;
  case CompareOp::Eq: pred = "=="; break;
  default: pred = "!="; break;
  }
  Operand a = operand(l, loc, "operand"), b = operand(r, loc, "operand");
  at(loc);
  try {
    return PyValue::ofTensor(sem.compare(pred, a, b));
  } catch (SemanticError &err) {
    std::string msg = err.what();
    if (llvm::StringRef(msg).starts_with("incompatible shapes ")) {
      msg = "incompatible shapes for " + pred.str() + ": " +
            shapeStr(tensor(l, loc, "").type.shape()) + " and " +
            shapeStr(tensor(r, loc, "").type.shape());
    }
    error(loc, msg);
  }
}

PyValue CodeGen::evalCompare(const CompareExpr *e) {
  PyValue left = eval(e->getLHS());
  PyValue result;
  bool first = true;
  for (const Comparison &c : e->getComparisons()) {
    PyValue right = eval(c.RHS);
    PyValue cmp = compareOp(c.Op, left, right, c.OpLoc);
    if (first) {
      result = cmp;
    } else if (result.isConstexpr() && cmp.isConstexpr()) {
      result = PyValue::ofBool(truthy(result) && truthy(cmp));
    } else {
      at(c.OpLoc);
      result = PyValue::ofTensor(sem.logicalAnd(
          tensor(result, c.OpLoc, "comparison"), tensor(cmp, c.OpLoc, "comparison")));
    }
    if (result.isConstexpr() && !truthy(result))
      return result; // Python stops at the first false link
    first = false;
    left = right;
  }
  return result;
}

PyValue CodeGen::evalConditional(const ConditionalExpr *e) {
  PyValue cond = eval(e->getCond());
  if (cond.isConstexpr())
    return eval(truthy(cond) ? e->getThen() : e->getElse());
  // A dynamic condition runs only the taken arm (an arm may load or update
  // memory), so both become the branches of an scf.if.
  TValue c = cond.tensor;
  if (c.type.isBlock())
    error(e->getCond()->getLoc(),
          "the condition of a conditional expression must be a scalar, got " +
              c.type.str() + "; use tl.where for tensors");
  at(e->getLoc());
  if (!c.dtype().isBool())
    c = sem.cast(c, DType::I1);
  auto ifOp = builder.create<scf::IfOp>(mlirLoc(e->getLoc()), TypeRange{},
                                        c.value, /*withElseRegion=*/true);
  TValue arms[2];
  {
    OpBuilder::InsertionGuard guard(builder);
    ++frame().structuredDepth;
    for (int side = 0; side < 2; ++side) {
      Block *block = side == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
      builder.setInsertionPoint(block->getTerminator());
      const Expr *arm = side == 0 ? e->getThen() : e->getElse();
      arms[side] = tensor(eval(arm), arm->getLoc(), "an arm of a conditional expression");
    }
    --frame().structuredDepth;
  }
  if (arms[0].type != arms[1].type)
    error(e->getLoc(), "ternary expression with dynamic condition has "
                       "inconsistent types " + arms[0].type.str() + " and " +
                           arms[1].type.str());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp);
  auto newIf = builder.create<scf::IfOp>(ifOp.getLoc(),
                                         TypeRange{arms[0].value.getType()},
                                         c.value, true);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  for (int side = 0; side < 2; ++side) {
    Block *block = side == 0 ? newIf.thenBlock() : newIf.elseBlock();
    block->getTerminator()->erase();
    builder.setInsertionPointToEnd(block);
    builder.create<scf::YieldOp>(ifOp.getLoc(), arms[side].value);
  }
  ifOp.erase();
  return PyValue::ofTensor(TValue{newIf.getResult(0), arms[0].type});
}

PyValue CodeGen::evalCall(const CallExpr *e) {
  PyValue callee = eval(e->getCallee());
  CallArgs args;
  args.loc = e->getLoc();
  for (Expr *a : e->getArgs()) {
    if (auto *star = dyn_cast<StarredExpr>(a)) {
      PyValue v = eval(star->getValue());
      if (v.kind != PyValue::Tuple)
        error(star->getLoc(), "only tuples can be unpacked with '*', got " +
                                  describe(v));
      args.positional.insert(args.positional.end(), v.items->begin(),
                             v.items->end());
      continue;
    }
    args.positional.push_back(eval(a));
  }
  for (const KeywordArg &k : e->getKeywords())
    args.keywords.emplace_back(k.Name.str(), eval(k.Value));
  std::string name;
  if (auto *n = dyn_cast<NameExpr>(e->getCallee()))
    name = n->getName().str();
  else if (auto *a = dyn_cast<AttributeExpr>(e->getCallee()))
    name = a->getName().str();
  return callValue(callee, args, e->getLoc(), name);
}

PyValue CodeGen::callValue(const PyValue &callee, CallArgs &args,
                           SourceLocation loc, const std::string &calleeName) {
  switch (callee.kind) {
  case PyValue::Function:
    return callJit(callee.function, callee.module, args, loc);
  case PyValue::Builtin:
    return callBuiltin(callee.str, args, loc);
  case PyValue::Method:
    return callMethod(*callee.self, callee.str, args, loc);
  case PyValue::Marker:
    if (callee.str == "constexpr") {
      if (args.positional.size() != 1 || !args.keywords.empty())
        error(loc, "tl.constexpr() takes exactly one argument");
      if (!args.positional[0].isConstexpr())
        error(loc, "tl.constexpr() needs a constant, got " +
                       describe(args.positional[0]));
      return args.positional[0];
    }
    error(loc, "'" + callee.str + "' cannot be called inside a kernel");
  case PyValue::UserModule:
    error(loc, "'" + (calleeName.empty() ? callee.str : calleeName) +
                   "' is " + describe(callee) + ", not a function");
  default:
    error(loc, "'" + (calleeName.empty() ? describe(callee) : calleeName) +
                   "' is not callable");
  }
}
