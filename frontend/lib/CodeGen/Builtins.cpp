//===- Builtins.cpp - the tl namespace and tensor methods -----------------===//
#include "CodeGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;

namespace {
/// Builtins implemented here, with their Triton parameter lists.
const llvm::StringMap<std::vector<std::string>> &builtinParams() {
  static const llvm::StringMap<std::vector<std::string>> params = {
      {"program_id", {"axis"}},
      {"num_programs", {"axis"}},
      {"arange", {"start", "end"}},
      {"full", {"shape", "value", "dtype"}},
      {"load", {"pointer", "mask=None", "other=None", "boundary_check=None",
                "padding_option=''", "cache_modifier=''", "eviction_policy=''",
                "volatile=False"}},
      {"store", {"pointer", "value", "mask=None", "boundary_check=None",
                 "cache_modifier=''", "eviction_policy=''"}},
      {"where", {"condition", "x", "y"}},
      {"dot", {"input", "other", "acc=None", "input_precision=None",
               "allow_tf32=None", "max_num_imprecise_acc=None", "out_dtype=None"}},
      {"reduce", {"input", "axis", "combine_fn", "keep_dims=False"}},
      {"associative_scan", {"input", "axis", "combine_fn", "reverse=False"}},
      {"maximum", {"x", "y", "propagate_nan=None"}},
      {"minimum", {"x", "y", "propagate_nan=None"}},
      {"clamp", {"x", "min", "max", "propagate_nan=None"}},
      {"fma", {"x", "y", "z"}},
      {"umulhi", {"x", "y"}},
      {"fdiv", {"x", "y", "ieee_rounding=False"}},
      {"div_rn", {"x", "y"}},
      {"exp", {"x"}}, {"exp2", {"x"}}, {"log", {"x"}}, {"log2", {"x"}},
      {"sin", {"x"}}, {"cos", {"x"}}, {"sqrt", {"x"}}, {"sqrt_rn", {"x"}},
      {"rsqrt", {"x"}}, {"abs", {"x"}}, {"floor", {"x"}}, {"ceil", {"x"}},
      {"erf", {"x"}}, {"log1p", {"x"}},
      {"atomic_add", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_max", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_min", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_and", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_or", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_xor", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_xchg", {"pointer", "val", "mask=None", "sem=None", "scope=None"}},
      {"atomic_cas", {"pointer", "cmp", "val", "sem=None", "scope=None"}},
      {"broadcast", {"input", "other"}},
      {"broadcast_to", {"input", "*shape"}},
      {"reshape", {"input", "*shape", "can_reorder=False"}},
      {"view", {"input", "*shape"}},
      {"expand_dims", {"input", "axis"}},
      {"trans", {"input", "*dims"}},
      {"permute", {"input", "*dims"}},
      {"join", {"a", "b"}},
      {"split", {"a"}},
      {"cat", {"input", "other", "can_reorder=False"}},
      {"histogram", {"input", "num_bins", "mask=None"}},
      {"inline_asm_elementwise",
       {"asm", "constraints", "args", "dtype", "is_pure", "pack"}},
      {"gather", {"src", "index", "axis"}},
      {"static_assert", {"cond", "msg=''"}},
      {"static_print", {"*values"}},
      {"device_print", {"prefix", "*args", "hex=False"}},
      {"device_assert", {"cond", "msg=''", "mask=None"}},
      {"static_range", {"arg1", "arg2=None", "step=None"}},
      {"range", {"arg1", "arg2=None", "step=None", "num_stages=None"}},
      {"multiple_of", {"input", "values"}},
      {"max_contiguous", {"input", "values"}},
      {"max_constancy", {"input", "values"}},
      {"debug_barrier", {}},
      {"make_block_ptr", {"base", "shape", "strides", "offsets", "block_shape", "order"}},
      {"pointer_type", {"element_ty", "address_space=1", "const=False"}},
      {"make_tensor_descriptor", {"base", "shape", "strides", "block_shape", "padding_option='zero'"}},
      {"_experimental_make_tensor_descriptor", {"base", "shape", "strides", "block_shape", "padding_option='zero'"}},
      {"load_tensor_descriptor", {"desc", "offsets"}},
      {"store_tensor_descriptor", {"desc", "offsets", "value"}},
      {"_experimental_descriptor_load", {"desc_pointer", "offsets", "shape", "dtype"}},
      {"_experimental_descriptor_store", {"desc_pointer", "value", "offsets"}},
      {"advance", {"base", "offsets"}},
      {"to_tensor", {"x"}},
      {"cast", {"input", "dtype", "fp_downcast_rounding=None", "bitcast=False"}},
      {"assume", {"cond"}},
      {"logical_and", {"x", "y"}},
      {"logical_or", {"x", "y"}},
  };
  return params;
}
} // namespace

bool CodeGen::isTlBuiltin(llvm::StringRef name) {
  return builtinParams().count(name) != 0;
}

std::vector<llvm::StringRef> CodeGen::tlBuiltinNames() {
  std::vector<llvm::StringRef> names;
  for (const auto &entry : builtinParams())
    names.push_back(entry.getKey());
  return names;
}

/// The values of a shape given as varargs or one tuple/list.
static PyValue shapeArg(const BoundArgs &b) {
  if (b.varargs.size() == 1 && b.varargs[0].kind == PyValue::Tuple)
    return b.varargs[0];
  return PyValue::tuple(b.varargs);
}

/// Normalizes an axis against |rank| (negative counts from the end).
static int64_t normAxis(CodeGen &gen, __int128 axis, size_t rank,
                        SourceLocation loc) {
  __int128 r = static_cast<__int128>(rank);
  if (axis < -r || axis >= r)
    gen.error(loc, "axis " + std::to_string(static_cast<int64_t>(axis)) +
                       " is out of range for a tensor of rank " +
                       std::to_string(rank));
  return static_cast<int64_t>(axis < 0 ? axis + r : axis);
}

std::vector<TValue> CodeGen::genCombine(bool isScan, std::vector<TValue> inputs,
                                        int64_t axis, const PyValue &combine,
                                        bool reverse, SourceLocation loc) {
  if (combine.kind != PyValue::Function)
    error(loc, "the combine function must be a @jit function, got " +
                   describe(combine));
  SmallVector<Value> srcs;
  for (const TValue &t : inputs) {
    if (!t.type.isBlock())
      error(loc, std::string(isScan ? "associative_scan" : "reduce") +
                     " needs tensors, got " + t.type.str());
    if (t.type.shape() != inputs[0].type.shape())
      error(loc, "all inputs must have the same shape, got " +
                     shapeStr(inputs[0].type.shape()) + " and " +
                     shapeStr(t.type.shape()));
    srcs.push_back(t.value);
  }
  at(loc);
  Operation *op;
  Region *region;
  if (isScan) {
    auto scan = builder.create<tile::ScanOp>(mlirLoc(loc), srcs,
                                             static_cast<uint32_t>(axis), reverse);
    op = scan;
    region = &scan.getCombineOp();
  } else {
    auto reduce = builder.create<tile::ReduceOp>(mlirLoc(loc), srcs,
                                                 static_cast<uint32_t>(axis));
    op = reduce;
    region = &reduce.getCombineOp();
  }
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (int side = 0; side < 2; ++side)
    for (const TValue &t : inputs) {
      argTypes.push_back(t.dtype().toMLIR(&context));
      argLocs.push_back(mlirLoc(loc));
    }
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *block = builder.createBlock(region, {}, argTypes, argLocs);
    CallArgs args;
    args.loc = loc;
    for (size_t i = 0; i < 2 * inputs.size(); ++i)
      args.positional.push_back(PyValue::ofTensor(
          TValue{block->getArgument(i), inputs[i % inputs.size()].dtype()}));
    PyValue result = callJit(combine.function, combine.module, args, loc);
    std::vector<PyValue> outs;
    if (result.kind == PyValue::Tuple)
      outs = result.tupleItems();
    else
      outs.push_back(result);
    if (outs.size() != inputs.size())
      error(loc, "the combine function must return " +
                     std::to_string(inputs.size()) + " values, got " +
                     describe(result));
    SmallVector<Value> yields;
    for (size_t i = 0; i < outs.size(); ++i) {
      TValue v = tensor(outs[i], loc, "a combine result");
      if (v.dtype() != inputs[i].dtype()) {
        at(loc);
        v = sem.cast(v, inputs[i].dtype());
      }
      if (v.type.isBlock())
        error(loc, "the combine function must return scalars");
      yields.push_back(v.value);
    }
    if (isScan)
      builder.create<tile::ScanReturnOp>(mlirLoc(loc), yields);
    else
      builder.create<tile::ReduceReturnOp>(mlirLoc(loc), yields);
  }
  std::vector<TValue> results;
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    SmallVector<int64_t> shape(inputs[i].type.shape());
    if (!isScan)
      shape.erase(shape.begin() + axis);
    results.push_back(TValue{r, TType(inputs[i].dtype(), shape)});
  }
  return results;
}

/// tl.reduce / tl.associative_scan on a tensor or a tuple of tensors.
static PyValue reduceLike(CodeGen &gen, bool isScan, const BoundArgs &b,
                          SourceLocation loc) {
  const PyValue &input = b.get("input");
  std::vector<TValue> inputs;
  bool isTuple = input.kind == PyValue::Tuple;
  if (isTuple)
    for (const PyValue &v : input.tupleItems())
      inputs.push_back(gen.tensor(v, loc, "an input"));
  else
    inputs.push_back(gen.tensor(input, loc, "the input"));
  if (inputs.empty())
    gen.error(loc, "reduce needs at least one input");
  size_t rank = inputs[0].type.shape().size();
  const PyValue &axisV = b.get("axis");
  int64_t axis;
  bool flatten = axisV.kind == PyValue::None;
  if (flatten) {
    if (isScan)
      gen.error(loc, "associative_scan needs an axis");
    gen.at(loc);
    for (TValue &t : inputs)
      t = gen.sem.reshape(t, {t.type.numel()}, /*canReorder=*/true);
    axis = 0;
  } else {
    axis = normAxis(gen, gen.constInt(axisV, loc, "axis"), rank, loc);
  }
  bool reverse = isScan && gen.constBool(b.get("reverse"), loc, "reverse");
  std::vector<TValue> results =
      gen.genCombine(isScan, inputs, axis, b.get("combine_fn"), reverse, loc);
  if (!isScan && gen.truthy(b.get("keep_dims"))) {
    gen.at(loc);
    for (TValue &r : results) {
      if (flatten)
        r = gen.sem.reshape(gen.sem.expandDims(r, 0),
                            std::vector<int64_t>(rank, 1), false);
      else
        r = gen.sem.expandDims(r, axis);
    }
  }
  if (!isTuple)
    return PyValue::ofTensor(results[0]);
  PyTuple out;
  for (const TValue &r : results)
    out.push_back(PyValue::ofTensor(r));
  return PyValue::tuple(out);
}

std::vector<TValue> tegula::frontend::tensorList(CodeGen &gen, const PyValue &v,
                                                SourceLocation loc,
                                                llvm::StringRef what) {
  std::vector<TValue> out;
  if (v.kind != PyValue::Tuple)
    gen.error(loc, what.str() + " must be a list or tuple");
  for (const PyValue &x : v.tupleItems())
    out.push_back(gen.tensor(x, loc, what));
  return out;
}

std::vector<int64_t> tegula::frontend::intList(CodeGen &gen, const PyValue &v,
                                              SourceLocation loc,
                                              llvm::StringRef what) {
  std::vector<int64_t> out;
  if (v.kind == PyValue::None)
    return out;
  if (v.isInt()) {
    out.push_back(static_cast<int64_t>(v.num.i));
    return out;
  }
  if (v.kind != PyValue::Tuple)
    gen.error(loc, what.str() + " must be a list or tuple of constexpr integers");
  for (const PyValue &x : v.tupleItems())
    out.push_back(static_cast<int64_t>(gen.constInt(x, loc, what)));
  return out;
}

static bool propagateNan(CodeGen &gen, const PyValue &v, SourceLocation loc) {
  if (v.kind == PyValue::None)
    return false;
  std::string s = gen.constString(v, loc, "propagate_nan");
  if (s != "all" && s != "none")
    gen.error(loc, "propagate_nan must be tl.PropagateNan.ALL or NONE");
  return s == "all";
}

PyValue CodeGen::callBuiltin(const std::string &name, CallArgs &args,
                             SourceLocation loc) {
  if (llvm::StringRef(name).starts_with("libdevice.")) {
    // Triton's libdevice functions take arg0, arg1, ... (by position or by
    // those names).
    std::vector<PyValue> values = args.positional;
    for (auto &[key, value] : args.keywords) {
      llvm::StringRef k(key);
      unsigned index;
      if (!k.consume_front("arg") || k.getAsInteger(10, index) ||
          index != values.size())
        error(loc, name + "() got an unexpected keyword argument '" + key + "'");
      values.push_back(value);
    }
    std::vector<Operand> operands;
    for (const PyValue &v : values)
      operands.push_back(operand(v, loc, "an argument of " + name));
    at(loc);
    return PyValue::ofTensor(
        sem.libdevice(llvm::StringRef(name).drop_front(10), operands));
  }
  // Python builtins.
  if (llvm::StringRef(name).starts_with("py.")) {
    std::string py = name.substr(3);
    if (py == "range")
      error(loc, "range() can only be used as the iterable of a for loop");
    if (py == "isinstance") {
      // A constexpr bool, as Triton's isinstance of its language values
      // (the newest tutorial 06 asks whether an argument is a host-built
      // tensor descriptor or a pointer): tl.tensor_descriptor (and its
      // base), tl.tensor, tl.constexpr, tl.dtype, or a tuple of those.
      if (args.positional.size() != 2 || !args.keywords.empty())
        error(loc, "isinstance() takes exactly two arguments");
      const PyValue &v = args.positional[0];
      std::function<bool(const PyValue &)> matches =
          [&](const PyValue &c) -> bool {
        if (c.kind == PyValue::Tuple) {
          for (const PyValue &item : c.tupleItems())
            if (matches(item))
              return true;
          return false;
        }
        if (c.kind == PyValue::Marker) {
          if (c.str == "tensor_descriptor" || c.str == "tensor_descriptor_base")
            return v.kind == PyValue::TensorDesc;
          if (c.str == "tensor")
            return v.isTensor();
          if (c.str == "constexpr")
            return v.kind == PyValue::Number || v.kind == PyValue::String ||
                   v.kind == PyValue::None;
          if (c.str == "dtype")
            return v.kind == PyValue::DTypeObj;
        }
        error(loc, "isinstance() takes tl.tensor_descriptor, tl.tensor, "
                   "tl.constexpr, tl.dtype or a tuple of them as its second "
                   "argument, not " + describe(c));
      };
      return PyValue::ofBool(matches(args.positional[1]));
    }
    if (py == "len") {
      if (args.positional.size() != 1)
        error(loc, "len() takes exactly one argument");
      const PyValue &v = args.positional[0];
      if (v.kind == PyValue::Tuple)
        return PyValue::ofInt(v.items->size());
      if (v.kind == PyValue::String)
        return PyValue::ofInt(v.str.size());
      if (v.isTensor() && v.tensor.type.isBlock())
        return PyValue::ofInt(v.tensor.type.shape()[0]);
      error(loc, "len() of " + describe(v));
    }
    if (py == "min" || py == "max") {
      std::vector<PyValue> vals = args.positional;
      if (vals.size() == 1 && vals[0].kind == PyValue::Tuple)
        vals = vals[0].tupleItems();
      if (vals.empty())
        error(loc, py + "() needs at least one argument");
      PyValue acc = vals[0];
      for (size_t i = 1; i < vals.size(); ++i) {
        const PyValue &v = vals[i];
        if (acc.isNumber() && v.isNumber()) {
          bool less = truthy(compareOp(CompareOp::Lt, v, acc, loc));
          if (py == "min" ? less : truthy(compareOp(CompareOp::Gt, v, acc, loc)))
            acc = v;
          continue;
        }
        at(loc);
        Operand a = operand(acc, loc, "an argument"), c = operand(v, loc, "an argument");
        acc = PyValue::ofTensor(py == "min" ? sem.minimum(a, c, false)
                                            : sem.maximum(a, c, false));
      }
      return acc;
    }
    if (py == "abs") {
      if (args.positional.size() != 1)
        error(loc, "abs() takes exactly one argument");
      const PyValue &v = args.positional[0];
      if (v.isNumber()) {
        if (v.num.kind == PyNum::Float)
          return PyValue::ofFloat(std::fabs(v.num.f));
        return PyValue::ofInt(v.num.i < 0 ? -v.num.i : v.num.i);
      }
      at(loc);
      return PyValue::ofTensor(sem.unaryMath("abs", tensor(v, loc, "abs()'s argument")));
    }
    if (py == "float" || py == "int" || py == "bool") {
      if (args.positional.size() != 1)
        error(loc, py + "() takes exactly one argument");
      const PyValue &v = args.positional[0];
      if (py == "float" && v.kind == PyValue::String) {
        std::string s = llvm::StringRef(v.str).trim().lower();
        if (s == "inf" || s == "+inf" || s == "infinity")
          return PyValue::ofFloat(INFINITY);
        if (s == "-inf" || s == "-infinity")
          return PyValue::ofFloat(-INFINITY);
        if (s == "nan")
          return PyValue::ofFloat(NAN);
        double d;
        if (!llvm::StringRef(s).getAsDouble(d))
          return PyValue::ofFloat(d);
        error(loc, "could not convert string to float: '" + v.str + "'");
      }
      if (!v.isNumber())
        error(loc, py + "() of " + describe(v) +
                       " is not supported; use .to() on tensors");
      if (py == "float")
        return PyValue::ofFloat(v.num.kind == PyNum::Float ? v.num.f
                                                           : static_cast<double>(v.num.i));
      if (py == "bool")
        return PyValue::ofBool(truthy(v));
      return PyValue::ofInt(v.num.kind == PyNum::Float
                                ? static_cast<__int128>(v.num.f)
                                : v.num.i);
    }
    if (py == "print") {
      std::vector<TValue> ts;
      std::string prefix;
      for (const PyValue &v : args.positional) {
        if (v.isTensor())
          ts.push_back(v.tensor);
        else
          prefix += (prefix.empty() ? "" : " ") +
                    (v.kind == PyValue::String ? v.str : describe(v));
      }
      at(loc);
      sem.devicePrint(prefix, ts, false);
      return PyValue::none();
    }
    error(loc, py + "() is not supported in kernels");
  }

  auto it = builtinParams().find(name);
  if (it == builtinParams().end())
    unknownTlMember("tl", name, loc);
  BoundArgs b = bind(args, it->second, loc, "tl." + name);
  at(loc);
  auto T = [&](llvm::StringRef param) {
    return tensor(b.get(param), loc, "'" + param.str() + "'");
  };
  auto O = [&](llvm::StringRef param) {
    return operand(b.get(param), loc, "'" + param.str() + "'");
  };
  auto I = [&](llvm::StringRef param) {
    return constInt(b.get(param), loc, "'" + param.str() + "'");
  };
  auto S = [&](llvm::StringRef param) {
    return constString(b.get(param), loc, "'" + param.str() + "'");
  };
  auto ret = [](TValue t) { return PyValue::ofTensor(std::move(t)); };

  if (name == "program_id")
    return ret(sem.programId(static_cast<int64_t>(I("axis"))));
  if (name == "num_programs")
    return ret(sem.numPrograms(static_cast<int64_t>(I("axis"))));
  if (name == "arange")
    return ret(sem.arange(static_cast<int64_t>(I("start")), static_cast<int64_t>(I("end"))));
  if (name == "full") {
    std::vector<int64_t> shape = b.get("shape").kind == PyValue::Tuple &&
                                         b.get("shape").items->empty()
                                     ? std::vector<int64_t>{}
                                     : constShape(b.get("shape"), loc, "the shape");
    DType dtype = constDType(b.get("dtype"), loc, "dtype");
    const PyValue &v = b.get("value");
    if (v.isNumber())
      return ret(sem.full(shape, v.num, dtype));
    TValue t = sem.cast(tensor(v, loc, "the value"), dtype);
    if (t.type.isBlock())
      error(loc, "tl.full's value must be a scalar, got " + t.type.str());
    return ret(sem.splat(t, shape));
  }
  if (name == "to_tensor")
    return ret(T("x"));
  if (name == "load") {
    MemoryOptions mo{S("cache_modifier"), S("eviction_policy"),
                     constBool(b.get("volatile"), loc, "volatile")};
    std::optional<Operand> other;
    if (b.has("other"))
      other = O("other");
    return ret(sem.load(T("pointer"), optTensor(b.get("mask"), loc, "mask"),
                        other, intList(*this, b.get("boundary_check"), loc,
                                       "boundary_check"),
                        S("padding_option"), mo));
  }
  if (name == "store") {
    MemoryOptions mo{S("cache_modifier"), S("eviction_policy"), false};
    sem.store(T("pointer"), O("value"), optTensor(b.get("mask"), loc, "mask"),
              intList(*this, b.get("boundary_check"), loc, "boundary_check"), mo);
    return PyValue::none();
  }
  if (name == "where")
    return ret(sem.where(O("condition"), O("x"), O("y")));
  if (name == "dot") {
    std::string precision = S("input_precision");
    if (b.has("allow_tf32")) {
      if (!precision.empty())
        error(loc, "only one of input_precision and allow_tf32 can be given");
      precision = truthy(b.get("allow_tf32")) ? "tf32" : "ieee";
    }
    std::optional<int64_t> imprecise;
    if (b.has("max_num_imprecise_acc"))
      imprecise = static_cast<int64_t>(I("max_num_imprecise_acc"));
    DType out = b.has("out_dtype") ? constDType(b.get("out_dtype"), loc, "out_dtype")
                                   : DType(DType::FP32);
    return ret(sem.dot(T("input"), T("other"), optTensor(b.get("acc"), loc, "acc"),
                       precision, imprecise, out));
  }
  if (name == "reduce")
    return reduceLike(*this, false, b, loc);
  if (name == "associative_scan")
    return reduceLike(*this, true, b, loc);
  if (name == "maximum")
    return ret(sem.maximum(O("x"), O("y"), propagateNan(*this, b.get("propagate_nan"), loc)));
  if (name == "minimum")
    return ret(sem.minimum(O("x"), O("y"), propagateNan(*this, b.get("propagate_nan"), loc)));
  if (name == "clamp")
    return ret(sem.clamp(O("x"), O("min"), O("max"),
                         propagateNan(*this, b.get("propagate_nan"), loc)));
  if (name == "fma")
    return ret(sem.fma(O("x"), O("y"), O("z")));
  if (name == "umulhi")
    return ret(sem.umulhi(O("x"), O("y")));
  if (name == "fdiv")
    return ret(sem.fdiv(O("x"), O("y"), constBool(b.get("ieee_rounding"), loc, "ieee_rounding")));
  if (name == "div_rn") {
    TValue x = T("x"), y = T("y");
    if (x.dtype().kind() != DType::FP32 || y.dtype().kind() != DType::FP32)
      error(loc, "expected dtype ['fp32'] but got " +
                     (x.dtype().kind() != DType::FP32 ? x : y).dtype().str());
    return ret(sem.fdiv(x, y, true));
  }
  static const char *unary[] = {"exp", "exp2", "log", "log2", "sin", "cos",
                                "sqrt", "sqrt_rn", "rsqrt", "abs", "floor",
                                "ceil", "erf", "log1p"};
  for (const char *u : unary)
    if (name == u)
      return ret(sem.unaryMath(name, T("x")));
  if (llvm::StringRef(name).starts_with("atomic_")) {
    std::string sem_ = S("sem"), scope = S("scope");
    if (name == "atomic_cas")
      return ret(sem.atomicCAS(T("pointer"), O("cmp"), O("val"), sem_, scope));
    return ret(sem.atomicRMW(llvm::StringRef(name).drop_front(7), T("pointer"),
                             O("val"), optTensor(b.get("mask"), loc, "mask"),
                             sem_, scope));
  }
  if (name == "broadcast") {
    auto [x, y] = sem.broadcastPair(T("input"), T("other"));
    return PyValue::tuple({ret(x), ret(y)});
  }
  if (name == "broadcast_to")
    return ret(sem.broadcastTo(T("input"), constShape(shapeArg(b), loc, "the shape")));
  if (name == "reshape" || name == "view")
    return ret(sem.reshape(T("input"), constShape(shapeArg(b), loc, "the shape"),
                           name == "view" || truthy(b.get("can_reorder"))));
  if (name == "expand_dims") {
    TValue x = T("input");
    const PyValue &axes = b.get("axis");
    if (axes.kind == PyValue::Tuple) {
      std::vector<int64_t> list = intList(*this, axes, loc, "axis");
      size_t newRank = x.type.shape().size() + list.size();
      for (int64_t &a : list)
        a = normAxis(*this, a, newRank, loc);
      llvm::sort(list);
      for (int64_t a : list)
        x = sem.expandDims(x, a);
      return ret(x);
    }
    return ret(sem.expandDims(x, I("axis")));
  }
  if (name == "trans" || name == "permute") {
    TValue x = T("input");
    PyValue dimsV = shapeArg(b);
    std::vector<int64_t> dims = intList(*this, dimsV, loc, "dims");
    if (dims.empty()) {
      if (name == "permute")
        error(loc, "tl.permute needs the dims");
      size_t rank = x.type.shape().size();
      if (rank != 2)
        error(loc, "tl.trans without dims needs a 2-D tensor, got " + x.type.str());
      dims = {1, 0};
    }
    return ret(sem.permute(x, dims));
  }
  if (name == "join")
    return ret(sem.join(T("a"), T("b")));
  if (name == "split") {
    auto [l, r] = sem.split(T("a"));
    return PyValue::tuple({ret(l), ret(r)});
  }
  if (name == "cat")
    return ret(sem.cat(T("input"), T("other"), truthy(b.get("can_reorder"))));
  if (name == "histogram")
    return ret(sem.histogram(T("input"), static_cast<int64_t>(I("num_bins")),
                             optTensor(b.get("mask"), loc, "mask")));
  if (name == "inline_asm_elementwise") {
    std::vector<Operand> args;
    const PyValue &a = b.get("args");
    if (a.kind != PyValue::Tuple)
      error(loc, "tl.inline_asm_elementwise: args must be a list or tuple of "
                 "tensors, got " + describe(a));
    for (const PyValue &item : a.tupleItems())
      args.push_back(operand(item, loc, "an argument of tl.inline_asm_elementwise"));
    // One dtype gives one tensor; a list or tuple of them, a tuple.
    const PyValue &d = b.get("dtype");
    std::vector<DType> dtypes;
    if (d.kind == PyValue::Tuple)
      for (const PyValue &item : d.tupleItems())
        dtypes.push_back(constDType(item, loc, "dtype"));
    else
      dtypes.push_back(constDType(d, loc, "dtype"));
    std::vector<TValue> results = sem.inlineAsm(
        constString(b.get("asm"), loc, "asm"),
        constString(b.get("constraints"), loc, "constraints"), args, dtypes,
        constBool(b.get("is_pure"), loc, "is_pure"),
        static_cast<int64_t>(I("pack")));
    if (d.kind != PyValue::Tuple)
      return ret(results.front());
    PyTuple items;
    for (const TValue &r : results)
      items.push_back(ret(r));
    return PyValue::tuple(std::move(items));
  }
  if (name == "gather")
    return ret(sem.gather(T("src"), T("index"), static_cast<int64_t>(I("axis"))));
  if (name == "static_assert") {
    if (!b.get("cond").isConstexpr())
      error(loc, "tl.static_assert needs a constexpr condition, got " +
                     describe(b.get("cond")));
    if (!truthy(b.get("cond"))) {
      std::string msg = b.get("msg").kind == PyValue::String ? b.get("msg").str : "";
      error(loc, "static_assert failed" + (msg.empty() ? "" : ": " + msg));
    }
    return PyValue::none();
  }
  if (name == "static_print") {
    std::string line;
    for (const PyValue &v : b.varargs)
      line += (line.empty() ? "" : " ") +
              (v.kind == PyValue::String ? v.str : describe(v));
    llvm::errs() << line << "\n";
    return PyValue::none();
  }
  if (name == "device_print") {
    std::vector<TValue> ts;
    for (const PyValue &v : b.varargs)
      ts.push_back(tensor(v, loc, "a device_print argument"));
    sem.devicePrint(S("prefix"), ts, truthy(b.get("hex")));
    return PyValue::none();
  }
  if (name == "device_assert") {
    const PyValue &cond = b.get("cond");
    if (cond.isConstexpr()) {
      if (!truthy(cond))
        error(loc, "device_assert failed at compile time: " + S("msg"));
      return PyValue::none();
    }
    if (options.enableAssertions)
      sem.deviceAssert(T("cond"), S("msg"), optTensor(b.get("mask"), loc, "mask"));
    return PyValue::none();
  }
  if (name == "static_range" || name == "range")
    error(loc, "tl." + name + "() can only be used as the iterable of a for loop");
  if (name == "multiple_of" || name == "max_contiguous" || name == "max_constancy") {
    const char *attr = name == "multiple_of" ? "tile.divisibility"
                       : name == "max_contiguous" ? "tile.contiguity"
                                                  : "tile.constancy";
    return ret(sem.annotate(T("input"), attr, intList(*this, b.get("values"), loc, "values")));
  }
  if (name == "debug_barrier") {
    sem.debugBarrier();
    return PyValue::none();
  }
  if (name == "make_block_ptr")
    return ret(sem.makeBlockPtr(
        T("base"), tensorList(*this, b.get("shape"), loc, "shape"),
        tensorList(*this, b.get("strides"), loc, "strides"),
        tensorList(*this, b.get("offsets"), loc, "offsets"),
        constShape(b.get("block_shape"), loc, "block_shape"),
        intList(*this, b.get("order"), loc, "order")));
  if (name == "advance")
    return ret(sem.advance(T("base"), tensorList(*this, b.get("offsets"), loc, "offsets")));
  if (name == "pointer_type") {
    // A dtype, as Triton's: `x.to(tl.pointer_type(tl.float16))` turns int64
    // addresses into pointers (the grouped-GEMM tutorial's per-problem
    // bases).
    DType elem = constDType(b.get("element_ty"), loc, "element_ty");
    if (elem.isVoid() || elem.isBlockPtr())
      error(loc, "tl.pointer_type needs a scalar element type, got " + elem.str());
    int64_t space = static_cast<int64_t>(I("address_space"));
    if (space != 1)
      error(loc, "tl.pointer_type: only address space 1 (global memory) is "
                 "supported, got " + std::to_string(space));
    return PyValue::ofDType(DType::pointer(elem, static_cast<int>(space)));
  }
  if (name == "make_tensor_descriptor" ||
      name == "_experimental_make_tensor_descriptor")
    return makeTensorDescriptor(b, loc);
  if (name == "load_tensor_descriptor" || name == "store_tensor_descriptor") {
    CallArgs rest;
    rest.loc = loc;
    rest.positional.push_back(b.get("offsets"));
    if (name == "store_tensor_descriptor")
      rest.positional.push_back(b.get("value"));
    return callDescriptorMethod(b.get("desc"),
                                name == "load_tensor_descriptor" ? "load" : "store",
                                rest, loc);
  }
  if (name == "_experimental_descriptor_load" ||
      name == "_experimental_descriptor_store")
    error(loc, "tl." + name + " reads a TMA descriptor built on the host "
               "(triton.tools.experimental_descriptor), which Tegula does not "
               "support; build the descriptor in the kernel with "
               "tl.make_tensor_descriptor instead");
  if (name == "cast") {
    TValue x = T("input");
    DType d = constDType(b.get("dtype"), loc, "dtype");
    if (truthy(b.get("bitcast")))
      return ret(sem.bitcast(x, d));
    std::optional<std::string> rounding;
    if (b.has("fp_downcast_rounding"))
      rounding = S("fp_downcast_rounding");
    return ret(sem.cast(x, d, rounding));
  }
  if (name == "assume") {
    // A hint for the optimizer; tile IR has no assume op yet, and dropping a
    // true fact changes no result.
    return PyValue::none();
  }
  if (name == "logical_and")
    return ret(sem.logicalAnd(T("x"), T("y")));
  if (name == "logical_or")
    return ret(sem.logicalOr(T("x"), T("y")));
  error(loc, "tl." + name + " is not supported yet");
}

PyValue CodeGen::callMethod(const PyValue &self, const std::string &name,
                            CallArgs &args, SourceLocation loc) {
  if (self.kind == PyValue::DTypeObj) {
    if (!args.positional.empty() || !args.keywords.empty())
      error(loc, "dtype." + name + "() takes no arguments");
    const DType &d = self.dtype;
    bool r;
    if (name == "is_floating") r = d.isFloat();
    else if (name == "is_int" || name == "is_integer_type") r = d.isInt();
    else if (name == "is_int_signed") r = d.isSignedInt();
    else if (name == "is_int_unsigned") r = d.isUnsignedInt() || d.isBool();
    else if (name == "is_bool" || name == "is_int1") r = d.isBool();
    else if (name == "is_fp8") r = d.isFP8();
    else if (name == "is_fp16") r = d.kind() == DType::FP16;
    else if (name == "is_bf16") r = d.kind() == DType::BF16;
    else if (name == "is_fp32") r = d.kind() == DType::FP32;
    else if (name == "is_fp64") r = d.kind() == DType::FP64;
    else if (name == "is_ptr") r = d.isPtr();
    else if (name == "is_standard_floating") r = d.isStandardFloat();
    else if (name == "is_void") r = d.isVoid();
    else if (name == "is_block") r = false;
    else error(loc, "dtype has no method '" + name + "'");
    return PyValue::ofBool(r);
  }
  if (self.kind == PyValue::TensorDesc)
    return callDescriptorMethod(self, name, args, loc);
  // Tensor methods are the tl functions with the tensor first.
  CallArgs withSelf = args;
  withSelf.positional.insert(withSelf.positional.begin(), self);
  if (name == "to") {
    BoundArgs b = bind(withSelf, {"input", "dtype", "fp_downcast_rounding=None",
                                  "bitcast=False"},
                       loc, "tensor.to");
    TValue x = tensor(b.get("input"), loc, "the tensor");
    DType d = constDType(b.get("dtype"), loc, "dtype");
    at(loc);
    if (truthy(b.get("bitcast")))
      return PyValue::ofTensor(sem.bitcast(x, d));
    std::optional<std::string> rounding;
    if (b.has("fp_downcast_rounding"))
      rounding = constString(b.get("fp_downcast_rounding"), loc, "fp_downcast_rounding");
    return PyValue::ofTensor(sem.cast(x, d, rounding));
  }
  if (isTlBuiltin(name))
    return callBuiltin(name, withSelf, loc);
  if (const FunctionDef *f = stdlib.lookupFunction(name))
    return callJit(f, &stdlib, withSelf, loc);
  error(loc, "tensor has no method '" + name + "'");
}
