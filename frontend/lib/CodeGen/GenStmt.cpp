//===- GenStmt.cpp - statements and structured control flow ---------------===//
#include "CodeGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::frontend;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {
constexpr int64_t kMaxStaticIterations = 4096;
constexpr uint64_t kMaxStatements = 1000000;
constexpr uint64_t kMaxContinuations = 4096;

/// Whether two bindings of a name are the same value.
bool sameBinding(const PyValue &a, const PyValue &b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case PyValue::Tensor:
    return a.tensor.value == b.tensor.value;
  case PyValue::Number:
    return a.num.kind == b.num.kind && a.num.i == b.num.i &&
           (a.num.f == b.num.f || (a.num.f != a.num.f && b.num.f != b.num.f));
  case PyValue::String:
  case PyValue::Builtin:
  case PyValue::Namespace:
  case PyValue::Marker:
    return a.str == b.str;
  case PyValue::DTypeObj:
    return a.dtype == b.dtype;
  case PyValue::Function:
    return a.function == b.function;
  case PyValue::UserModule:
    return a.module == b.module;
  case PyValue::TensorDesc:
    if (a.blockShape != b.blockShape || a.str != b.str)
      return false;
    [[fallthrough]];
  case PyValue::Tuple:
    if (a.items->size() != b.items->size())
      return false;
    for (size_t i = 0; i < a.items->size(); ++i)
      if (!sameBinding((*a.items)[i], (*b.items)[i]))
        return false;
    return true;
  default:
    return true;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Statement lists
//===----------------------------------------------------------------------===//

Flow CodeGen::genBlock(ArrayRef<Stmt *> stmts, const Cont &after) {
  for (size_t i = 0; i < stmts.size(); ++i) {
    ArrayRef<Stmt *> rest = stmts.drop_front(i + 1);
    // What follows statement i: the rest of this block, then |after|. Only
    // a dynamic if whose branches return calls it.
    Cont restCont = [this, rest, &after]() {
      if (++continuationsGenerated > kMaxContinuations)
        error(rest.empty() ? currentLoc : rest.front()->getLoc(),
              "conditional returns duplicate the rest of the kernel more than " +
                  std::to_string(kMaxContinuations) +
                  " times; restructure it with if/else");
      Flow f = genBlock(rest, after);
      if (f == Flow::Normal && after)
        after();
      else if (f == Flow::Break || f == Flow::Continue)
        error(rest.empty() ? SourceLocation() : rest.front()->getLoc(),
              "'break' or 'continue' after a conditional return is not supported");
    };
    Flow flow = genStmt(stmts[i], restCont);
    if (flow != Flow::Normal)
      return flow;
  }
  return Flow::Normal;
}

Flow CodeGen::genStmt(const Stmt *s, const Cont &rest) {
  SourceLocation loc = s->getLoc();
  if (++statementsGenerated > kMaxStatements)
    error(loc, "the kernel is too large: more than " +
                   std::to_string(kMaxStatements) +
                   " statements after unrolling static loops and inlining calls");
  switch (s->getKind()) {
  case Stmt::Kind::Expr:
    eval(cast<ExprStmt>(s)->getValue());
    return Flow::Normal;
  case Stmt::Kind::Assign: {
    auto *a = cast<AssignStmt>(s);
    PyValue value = eval(a->getValue());
    for (const Expr *target : a->getTargets())
      assign(target, value);
    return Flow::Normal;
  }
  case Stmt::Kind::AnnAssign: {
    auto *a = cast<AnnAssignStmt>(s);
    if (!a->getValue())
      return Flow::Normal;
    PyValue value = eval(a->getValue());
    PyValue annotation = eval(a->getAnnotation());
    if (annotation.kind == PyValue::Marker && annotation.str == "constexpr" &&
        !value.isConstexpr())
      error(a->getValue()->getLoc(),
            "a tl.constexpr variable needs a constant value, got " +
                describe(value));
    assign(a->getTarget(), value);
    return Flow::Normal;
  }
  case Stmt::Kind::AugAssign: {
    auto *a = cast<AugAssignStmt>(s);
    if (!isa<NameExpr>(a->getTarget()))
      error(a->getTarget()->getLoc(),
            "augmented assignment is only supported on names in kernels");
    PyValue current = eval(a->getTarget());
    PyValue value = eval(a->getValue());
    assign(a->getTarget(), binaryOp(a->getOp(), current, value, a->getOpLoc()));
    return Flow::Normal;
  }
  case Stmt::Kind::If:
    return genIf(cast<IfStmt>(s), 0, rest);
  case Stmt::Kind::For:
    return genFor(cast<ForStmt>(s), rest);
  case Stmt::Kind::While:
    return genWhile(cast<WhileStmt>(s));
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue: {
    bool isBreak = s->getKind() == Stmt::Kind::Break;
    const char *kw = isBreak ? "'break'" : "'continue'";
    if (frame().loops.empty())
      error(loc, std::string(kw) + " outside a loop");
    if (!frame().loops.back().isStatic)
      error(loc, std::string(kw) +
                     " is not supported in kernels except in tl.static_range "
                     "loops under constexpr conditions");
    if (frame().structuredDepth != frame().loops.back().structuredDepth)
      error(loc, std::string(kw) + " inside a dynamic if is not supported");
    return isBreak ? Flow::Break : Flow::Continue;
  }
  case Stmt::Kind::Pass:
    return Flow::Normal;
  case Stmt::Kind::Return:
    genReturn(cast<ReturnStmt>(s));
    return Flow::Return;
  case Stmt::Kind::Assert: {
    auto *a = cast<AssertStmt>(s);
    PyValue cond = eval(a->getCond());
    std::string message;
    if (a->getMessage()) {
      PyValue m = eval(a->getMessage());
      message = m.kind == PyValue::String ? m.str : describe(m);
    }
    if (cond.isConstexpr()) {
      if (!truthy(cond))
        error(a->getCond()->getLoc(),
              "assertion failed" + (message.empty() ? "" : ": " + message));
      return Flow::Normal;
    }
    if (options.enableAssertions) {
      at(loc);
      sem.deviceAssert(cond.tensor, message, std::nullopt);
    }
    return Flow::Normal;
  }
  case Stmt::Kind::With:
    error(loc, "'with' statements are not supported in kernels");
  case Stmt::Kind::FunctionDef:
    error(loc, "nested function definitions are not supported in kernels");
  case Stmt::Kind::Import:
  case Stmt::Kind::ImportFrom:
    error(loc, "import statements are not supported inside kernels");
  }
  error(loc, "unsupported statement");
}

void CodeGen::assign(const Expr *target, const PyValue &value) {
  if (auto *n = dyn_cast<NameExpr>(target)) {
    frame().scope[n->getName()] = value;
    return;
  }
  ArrayRef<Expr *> elems;
  if (auto *t = dyn_cast<TupleExpr>(target))
    elems = t->getElements();
  else if (auto *l = dyn_cast<ListExpr>(target))
    elems = l->getElements();
  else if (isa<SubscriptExpr>(target) || isa<AttributeExpr>(target))
    error(target->getLoc(), "assignment to a subscript or attribute is not "
                            "supported in kernels; tensors are immutable");
  else
    error(target->getLoc(), "cannot assign to this expression");
  if (value.kind != PyValue::Tuple)
    error(target->getLoc(), "cannot unpack " + describe(value) +
                                " into " + std::to_string(elems.size()) +
                                " targets");
  const PyTuple &items = value.tupleItems();
  size_t star = elems.size();
  for (size_t i = 0; i < elems.size(); ++i)
    if (isa<StarredExpr>(elems[i]))
      star = i;
  if (star == elems.size()) {
    if (items.size() != elems.size())
      error(target->getLoc(), "cannot unpack " + std::to_string(items.size()) +
                                  " values into " + std::to_string(elems.size()) +
                                  " targets");
    for (size_t i = 0; i < elems.size(); ++i)
      assign(elems[i], items[i]);
    return;
  }
  size_t after = elems.size() - star - 1;
  if (items.size() < elems.size() - 1)
    error(target->getLoc(), "not enough values to unpack");
  for (size_t i = 0; i < star; ++i)
    assign(elems[i], items[i]);
  PyTuple middle(items.begin() + star, items.end() - after);
  assign(cast<StarredExpr>(elems[star])->getValue(), PyValue::tuple(middle));
  for (size_t i = 0; i < after; ++i)
    assign(elems[star + 1 + i], items[items.size() - after + i]);
}

void CodeGen::genReturn(const ReturnStmt *s) {
  if (frame().structuredDepth > frame().returnDepth)
    error(s->getLoc(), "'return' inside a loop is not supported in kernels");
  frame().returnValue = s->getValue() ? eval(s->getValue()) : PyValue::none();
  frame().returned = true;
}

//===----------------------------------------------------------------------===//
// Analysis of statement lists
//===----------------------------------------------------------------------===//

static void collectTargetNames(const Expr *e, llvm::StringSet<> &names) {
  if (auto *n = dyn_cast<NameExpr>(e))
    names.insert(n->getName());
  else if (auto *t = dyn_cast<TupleExpr>(e))
    for (const Expr *x : t->getElements())
      collectTargetNames(x, names);
  else if (auto *l = dyn_cast<ListExpr>(e))
    for (const Expr *x : l->getElements())
      collectTargetNames(x, names);
  else if (auto *s = dyn_cast<StarredExpr>(e))
    collectTargetNames(s->getValue(), names);
}

void CodeGen::collectAssigned(ArrayRef<Stmt *> stmts, llvm::StringSet<> &names) {
  for (const Stmt *s : stmts) {
    if (auto *a = dyn_cast<AssignStmt>(s))
      for (const Expr *t : a->getTargets())
        collectTargetNames(t, names);
    else if (auto *a = dyn_cast<AnnAssignStmt>(s))
      collectTargetNames(a->getTarget(), names);
    else if (auto *a = dyn_cast<AugAssignStmt>(s))
      collectTargetNames(a->getTarget(), names);
    else if (auto *i = dyn_cast<IfStmt>(s)) {
      for (const IfBranch &b : i->getBranches())
        collectAssigned(b.Body, names);
      collectAssigned(i->getElseBody(), names);
    } else if (auto *f = dyn_cast<ForStmt>(s)) {
      collectTargetNames(f->getTarget(), names);
      collectAssigned(f->getBody(), names);
    } else if (auto *w = dyn_cast<WhileStmt>(s)) {
      collectAssigned(w->getBody(), names);
    }
  }
}

bool CodeGen::containsReturn(ArrayRef<Stmt *> stmts) {
  for (const Stmt *s : stmts) {
    if (isa<ReturnStmt>(s))
      return true;
    if (auto *i = dyn_cast<IfStmt>(s)) {
      for (const IfBranch &b : i->getBranches())
        if (containsReturn(b.Body))
          return true;
      if (containsReturn(i->getElseBody()))
        return true;
    }
    if (auto *f = dyn_cast<ForStmt>(s); f && containsReturn(f->getBody()))
      return true;
    if (auto *w = dyn_cast<WhileStmt>(s); w && containsReturn(w->getBody()))
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// if
//===----------------------------------------------------------------------===//

/// A scalar i1 condition from a tensor, as Triton requires for dynamic ifs.
static TValue scalarCondition(CodeGen &gen, const PyValue &cond,
                              SourceLocation loc, const char *what) {
  TValue c = cond.tensor;
  if (c.type.isBlock())
    gen.error(loc, std::string("the condition of ") + what +
                       " must be a scalar, got " + c.type.str());
  gen.at(loc);
  if (!c.dtype().isBool())
    c = gen.sem.cast(c, DType::I1);
  return c;
}

PyValue CodeGen::unifyBranches(const PyValue &a, const PyValue &b,
                               Block *thenBlock, Block *elseBlock,
                               std::vector<TValue> &thenVals,
                               std::vector<TValue> &elseVals,
                               SourceLocation loc, const std::string &what) {
  if (a.kind == PyValue::Tuple && b.kind == PyValue::Tuple &&
      a.items->size() == b.items->size()) {
    PyTuple shape;
    for (size_t i = 0; i < a.items->size(); ++i)
      shape.push_back(unifyBranches((*a.items)[i], (*b.items)[i], thenBlock,
                                    elseBlock, thenVals, elseVals, loc, what));
    return PyValue::tuple(shape);
  }
  if (a.isConstexpr() && b.isConstexpr() && sameBinding(a, b))
    return a;
  bool convertible = (a.isTensor() || a.isNumber()) && (b.isTensor() || b.isNumber());
  if (!convertible)
    error(loc, what + " has different kinds of values in the branches of this "
                      "if: " + describe(a) + " and " + describe(b));
  OpBuilder::InsertionGuard guard(builder);
  auto inBlock = [&](Block *block, const PyValue &v, const PyValue &other) {
    builder.setInsertionPoint(block->getTerminator());
    at(loc);
    if (v.isTensor())
      return v.tensor;
    // A number becomes a tensor: of the other side's dtype when that side is
    // a tensor, else of its own Python type (as Triton's to_tensor).
    if (other.isTensor() && !other.tensor.type.isBlock())
      return sem.cast(sem.toTensor(v.num), other.tensor.dtype());
    return sem.toTensor(v.num);
  };
  TValue x = inBlock(thenBlock, a, b), y = inBlock(elseBlock, b, a);
  if (x.type != y.type)
    error(loc, "mismatched type for " + what + " between then block (" +
                   x.type.str() + ") and else block (" + y.type.str() + ")");
  thenVals.push_back(x);
  elseVals.push_back(y);
  return PyValue::ofTensor(x); // a placeholder; replaced by the if's result
}

/// Replaces the placeholders of |shape| with the if's results, in order.
static PyValue withResults(const PyValue &shape, const PyValue &thenShape,
                           ArrayRef<TValue> results, size_t &next) {
  if (shape.kind == PyValue::Tuple) {
    PyTuple items;
    for (size_t i = 0; i < shape.items->size(); ++i)
      items.push_back(withResults((*shape.items)[i],
                                  thenShape.kind == PyValue::Tuple
                                      ? (*thenShape.items)[i]
                                      : thenShape,
                                  results, next));
    return PyValue::tuple(items);
  }
  if (shape.isTensor())
    return PyValue::ofTensor(results[next++]);
  return shape;
}

/// Re-creates |ifOp| with results yielding |thenVals| / |elseVals|.
static scf::IfOp addResults(OpBuilder &builder, scf::IfOp ifOp,
                            const std::vector<TValue> &thenVals,
                            const std::vector<TValue> &elseVals) {
  SmallVector<Type> types;
  for (const TValue &v : thenVals)
    types.push_back(v.value.getType());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp);
  auto newIf = builder.create<scf::IfOp>(ifOp.getLoc(), types,
                                         ifOp.getCondition(), true);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  auto yield = [&](Block *block, const std::vector<TValue> &vals) {
    block->getTerminator()->erase();
    builder.setInsertionPointToEnd(block);
    SmallVector<Value> vs;
    for (const TValue &v : vals)
      vs.push_back(v.value);
    builder.create<scf::YieldOp>(ifOp.getLoc(), vs);
  };
  yield(newIf.thenBlock(), thenVals);
  yield(newIf.elseBlock(), elseVals);
  ifOp.erase();
  return newIf;
}

Flow CodeGen::genIf(const IfStmt *s, size_t index, const Cont &rest) {
  ArrayRef<IfBranch> branches = s->getBranches();
  const IfBranch &branch = branches[index];
  bool last = index + 1 == branches.size();
  // The else side: the next elif (as a nested if) or the else body.
  auto genElse = [&](const Cont &after) -> Flow {
    if (!last)
      return genIf(s, index + 1, after);
    return genBlock(s->getElseBody(), after);
  };

  PyValue cond = eval(branch.Cond);
  if (cond.isConstexpr()) {
    // Static if: only the taken branch exists.
    if (truthy(cond))
      return genBlock(branch.Body, rest);
    return genElse(rest);
  }
  TValue c = scalarCondition(*this, cond, branch.Cond->getLoc(), "if");

  bool anyReturn = containsReturn(s->getElseBody());
  for (size_t i = index; i < branches.size(); ++i)
    anyReturn |= containsReturn(branches[i].Body);

  Scope before = frame().scope;
  at(branch.Loc);
  auto ifOp = builder.create<scf::IfOp>(mlirLoc(branch.Loc), c.value,
                                        /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  ++frame().structuredDepth;

  if (anyReturn) {
    // `if c: ...return...` followed by more code: each branch continues with
    // the rest of the function, so both end in a return, and the if yields
    // the returned values.
    unsigned savedReturnDepth = frame().returnDepth;
    frame().returnDepth = frame().structuredDepth;
    auto genSide = [&](Block *block, bool thenSide) -> PyValue {
      builder.setInsertionPoint(block->getTerminator());
      frame().scope = before;
      frame().returned = false;
      frame().returnValue = PyValue();
      Flow f = thenSide ? genBlock(branch.Body, rest) : genElse(rest);
      if (f == Flow::Break || f == Flow::Continue)
        error(branch.Loc, "'break'/'continue' across a dynamic if is not supported");
      if (f == Flow::Normal && rest)
        rest();
      PyValue r = frame().returned ? frame().returnValue : PyValue::none();
      if (r.kind == PyValue::Undefined)
        r = PyValue::none();
      return r;
    };
    PyValue thenRet = genSide(ifOp.thenBlock(), true);
    PyValue elseRet = genSide(ifOp.elseBlock(), false);
    --frame().structuredDepth;
    frame().returnDepth = savedReturnDepth;
    std::vector<TValue> thenVals, elseVals;
    PyValue shape = unifyBranches(thenRet, elseRet, ifOp.thenBlock(),
                                  ifOp.elseBlock(), thenVals, elseVals,
                                  branch.Loc, "the returned value");
    std::vector<TValue> results;
    if (!thenVals.empty()) {
      auto newIf = addResults(builder, ifOp, thenVals, elseVals);
      for (auto [i, r] : llvm::enumerate(newIf.getResults()))
        results.push_back(TValue{r, thenVals[i].type});
    }
    size_t next = 0;
    frame().scope = before;
    frame().returned = true;
    frame().returnValue = withResults(shape, thenRet, results, next);
    return Flow::Return;
  }

  // A dynamic if without return: names it rebinds become results.
  builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  frame().scope = before;
  Flow f1 = genBlock(branch.Body);
  Scope thenScope = frame().scope;
  builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  frame().scope = before;
  Flow f2 = genElse(nullptr);
  Scope elseScope = frame().scope;
  --frame().structuredDepth;
  if (f1 != Flow::Normal || f2 != Flow::Normal)
    error(branch.Loc, "'break' or 'continue' inside a dynamic if is not supported");

  std::vector<std::string> names;
  for (auto &kv : thenScope)
    if (elseScope.count(kv.getKey()))
      names.push_back(kv.getKey().str());
  llvm::sort(names);
  std::vector<TValue> thenVals, elseVals;
  std::vector<std::pair<std::string, PyValue>> shapes;
  Scope after = before;
  for (const std::string &name : names) {
    const PyValue &a = thenScope[name], &b = elseScope[name];
    auto prior = before.find(name);
    bool changed = prior == before.end() || !sameBinding(a, prior->second) ||
                   !sameBinding(b, prior->second);
    if (!changed)
      continue;
    size_t first = thenVals.size();
    PyValue shape = unifyBranches(a, b, ifOp.thenBlock(), ifOp.elseBlock(),
                                  thenVals, elseVals, branch.Loc,
                                  "'" + name + "'");
    if (thenVals.size() == first)
      after[name] = shape; // the same constexpr in both branches
    else
      shapes.emplace_back(name, shape);
  }
  // Names bound in only one branch are not defined after the if.
  for (auto &kv : thenScope)
    if (!elseScope.count(kv.getKey()) && !before.count(kv.getKey()))
      after.erase(kv.getKey());
  if (!thenVals.empty()) {
    auto newIf = addResults(builder, ifOp, thenVals, elseVals);
    std::vector<TValue> results;
    for (auto [i, r] : llvm::enumerate(newIf.getResults()))
      results.push_back(TValue{r, thenVals[i].type});
    size_t next = 0;
    for (auto &[name, shape] : shapes)
      after[name] = withResults(shape, shape, results, next);
  }
  frame().scope = std::move(after);
  return Flow::Normal;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

void CodeGen::loopCarried(ArrayRef<Stmt *> body, llvm::StringRef exclude,
                          SourceLocation loc, std::vector<std::string> &names,
                          std::vector<TValue> &inits) {
  llvm::StringSet<> assigned;
  collectAssigned(body, assigned);
  for (auto &name : assigned) {
    if (name.getKey() == exclude)
      continue;
    auto it = frame().scope.find(name.getKey());
    // Constexprs other than numbers that change in the loop are caught at
    // its end.
    if (it != frame().scope.end() && (it->second.isTensor() || it->second.isNumber()))
      names.push_back(name.getKey().str());
  }
  llvm::sort(names);
  for (const std::string &name : names) {
    const PyValue &v = frame().scope[name];
    if (v.isNumber()) {
      at(loc);
      inits.push_back(sem.toTensor(v.num));
    } else {
      inits.push_back(v.tensor);
    }
  }
}

SmallVector<Value> CodeGen::carriedYields(ArrayRef<std::string> names,
                                          ArrayRef<TValue> inits,
                                          SourceLocation loc) {
  SmallVector<Value> yields;
  for (auto [i, name] : llvm::enumerate(names)) {
    PyValue v = frame().scope[name];
    if (v.isNumber()) {
      at(loc);
      v = PyValue::ofTensor(sem.cast(sem.toTensor(v.num), inits[i].dtype()));
    }
    if (!v.isTensor() || v.tensor.type != inits[i].type)
      error(loc, "loop-carried variable '" + name + "' has type " +
                     inits[i].type.str() + " before the loop but " +
                     (v.isTensor() ? v.tensor.type.str() : describe(v)) +
                     " at the end of an iteration");
    yields.push_back(v.tensor.value);
  }
  return yields;
}

Flow CodeGen::genFor(const ForStmt *s, const Cont &rest) {
  if (s->hasElse())
    error(s->getElseLoc(), "'for ... else' is not supported in kernels");
  auto *call = dyn_cast<CallExpr>(s->getIter());
  PyValue iterFn = call ? eval(call->getCallee()) : PyValue();
  bool isStatic = iterFn.kind == PyValue::Builtin && iterFn.str == "static_range";
  bool isRange = iterFn.kind == PyValue::Builtin &&
                 (iterFn.str == "py.range" || iterFn.str == "range");
  if (!isStatic && !isRange)
    error(s->getIter()->getLoc(),
          "kernels can only loop over range(), tl.range() or tl.static_range()");
  CallArgs args;
  args.loc = call->getLoc();
  for (Expr *a : call->getArgs())
    args.positional.push_back(eval(a));
  for (const KeywordArg &k : call->getKeywords())
    args.keywords.emplace_back(k.Name.str(), eval(k.Value));
  std::string fnName = isStatic ? "tl.static_range" : (iterFn.str == "range" ? "tl.range" : "range");
  std::vector<std::string> params = {"arg1", "arg2=None", "step=None"};
  if (iterFn.str == "range")
    params.insert(params.end(), {"num_stages=None", "loop_unroll_factor=None",
                                 "disallow_acc_multi_buffer=False", "flatten=False",
                                 "warp_specialize=False"});
  BoundArgs bound = bind(args, params, call->getLoc(), fnName);
  PyValue start = PyValue::ofInt(0), end = bound.get("arg1"),
          step = PyValue::ofInt(1);
  if (bound.get("arg2").kind != PyValue::None) {
    start = bound.get("arg1");
    end = bound.get("arg2");
  }
  if (bound.get("step").kind != PyValue::None)
    step = bound.get("step");

  if (isStatic) {
    __int128 lo = constInt(start, call->getLoc(), "the start of tl.static_range");
    __int128 hi = constInt(end, call->getLoc(), "the end of tl.static_range");
    __int128 st = constInt(step, call->getLoc(), "the step of tl.static_range");
    if (st == 0)
      error(call->getLoc(), "tl.static_range() step must not be zero");
    __int128 count = st > 0 ? (hi - lo + st - 1) / st : (lo - hi - st - 1) / (-st);
    if (count > kMaxStaticIterations)
      error(call->getLoc(), "tl.static_range() unrolls " +
                                std::to_string(static_cast<int64_t>(count)) +
                                " iterations; at most " +
                                std::to_string(kMaxStaticIterations) + " are allowed");
    // Iterations from |i| on; the continuation of iteration i is the
    // iterations after it, then the rest after the loop.
    std::function<Flow(__int128)> iterate = [&](__int128 from) -> Flow {
      for (__int128 i = from; st > 0 ? i < hi : i > hi; i += st) {
        assign(s->getTarget(), PyValue::ofInt(i));
        frame().loops.push_back({true, frame().structuredDepth});
        Cont next = [&, i]() {
          // Runs once per branch of a returning dynamic if: leave the loop
          // stack as it was found.
          std::vector<LoopInfo> saved = frame().loops;
          frame().loops.pop_back();
          Flow f = iterate(i + st);
          if (f == Flow::Normal && rest)
            rest();
          frame().loops = saved;
        };
        Flow f = genBlock(s->getBody(), next);
        if (f == Flow::Return)
          return Flow::Return; // explicit return, or the rest was generated
        frame().loops.pop_back();
        if (f == Flow::Break)
          break;
      }
      return Flow::Normal;
    };
    return iterate(lo);
  }

  auto *targetName = dyn_cast<NameExpr>(s->getTarget());
  if (!targetName)
    error(s->getTarget()->getLoc(), "the target of a range loop must be a name");
  if (containsReturn(s->getBody()))
    error(s->getLoc(), "'return' inside a loop is not supported in kernels");

  // Bounds: a common integer type, i32 unless one of them is wider.
  bool negativeStep = step.isInt() && step.num.i < 0;
  if (step.isInt() && step.num.i == 0)
    error(call->getLoc(), "range() step must not be zero");
  if (negativeStep) {
    std::swap(start, end);
    step = PyValue::ofInt(-step.num.i);
  }
  at(call->getLoc());
  std::vector<TValue> bounds;
  for (const PyValue *b : {&start, &end, &step}) {
    TValue t = tensor(*b, call->getLoc(), "a range bound");
    if (t.type.isBlock() || !t.dtype().isInt())
      error(call->getLoc(), "range bounds must be integer scalars, got " +
                                t.type.str());
    bounds.push_back(t);
  }
  // The induction variable's type promotes the bounds' (Triton's rule), so
  // unsigned bounds give an unsigned variable.
  DType ivType = Semantic::promoteIntegers(
      Semantic::promoteIntegers(bounds[0].dtype(), bounds[1].dtype()),
      bounds[2].dtype());
  if (ivType.bitWidth() < 32)
    ivType = DType::integer(32, !ivType.isUnsignedInt());
  for (TValue &t : bounds)
    t = sem.cast(t, ivType);

  std::vector<std::string> carried;
  std::vector<TValue> inits;
  loopCarried(s->getBody(), targetName->getName(), s->getLoc(), carried, inits);
  SmallVector<Value> initValues;
  for (const TValue &t : inits)
    initValues.push_back(t.value);

  Scope before = frame().scope;
  auto forOp = builder.create<scf::ForOp>(mlirLoc(s->getLoc()), bounds[0].value,
                                          bounds[1].value, bounds[2].value,
                                          initValues);
  if (iterFn.str == "range") {
    if (bound.has("num_stages"))
      forOp->setAttr("tile.num_stages",
                     builder.getI32IntegerAttr(static_cast<int32_t>(
                         constInt(bound.get("num_stages"), call->getLoc(), "num_stages"))));
    if (bound.has("loop_unroll_factor"))
      forOp->setAttr("tile.loop_unroll_factor",
                     builder.getI32IntegerAttr(static_cast<int32_t>(constInt(
                         bound.get("loop_unroll_factor"), call->getLoc(),
                         "loop_unroll_factor"))));
  }
  OpBuilder::InsertionGuard guard(builder);
  Block *body = forOp.getBody();
  builder.setInsertionPointToStart(body);
  ++frame().structuredDepth;
  frame().loops.push_back({false, frame().structuredDepth});
  Value iv = body->getArgument(0);
  if (negativeStep) {
    // range(a, b, -k) runs as range(b, a, k) over i' and maps back with
    // i = a + b - i', which visits a, a - k, ... with the same count.
    at(s->getLoc());
    TValue ivT{iv, ivType};
    iv = sem.sub(sem.add(bounds[1], bounds[0]), ivT).value;
  }
  frame().scope[targetName->getName()] = PyValue::ofTensor(TValue{iv, ivType});
  for (auto [i, name] : llvm::enumerate(carried))
    frame().scope[name] =
        PyValue::ofTensor(TValue{body->getArgument(i + 1), inits[i].type});
  Flow f = genBlock(s->getBody());
  (void)f;
  builder.setInsertionPointToEnd(body);
  SmallVector<Value> yields = carriedYields(carried, inits, s->getLoc());
  // Constexprs may not change inside a dynamic loop.
  for (auto &kv : before) {
    if (kv.getValue().isTensor() || llvm::is_contained(carried, kv.getKey().str()))
      continue;
    auto it = frame().scope.find(kv.getKey());
    if (it != frame().scope.end() && !sameBinding(it->second, kv.getValue()))
      error(s->getLoc(), "'" + kv.getKey().str() +
                             "' is a constexpr and cannot change inside a loop");
  }
  // scf.for builds its yield only when it carries no values.
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  builder.setInsertionPointToEnd(body);
  builder.create<scf::YieldOp>(mlirLoc(s->getLoc()), yields);
  --frame().structuredDepth;
  frame().loops.pop_back();
  frame().scope = before;
  for (auto [i, name] : llvm::enumerate(carried))
    frame().scope[name] = PyValue::ofTensor(TValue{forOp.getResult(i), inits[i].type});
  return Flow::Normal;
}

Flow CodeGen::genWhile(const WhileStmt *s) {
  if (s->hasElse())
    error(s->getElseLoc(), "'while ... else' is not supported in kernels");
  if (containsReturn(s->getBody()))
    error(s->getLoc(), "'return' inside a loop is not supported in kernels");
  std::vector<std::string> carried;
  std::vector<TValue> inits;
  loopCarried(s->getBody(), "", s->getLoc(), carried, inits);
  SmallVector<Value> initValues;
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (const TValue &t : inits) {
    initValues.push_back(t.value);
    types.push_back(t.value.getType());
    locs.push_back(mlirLoc(s->getLoc()));
  }
  Scope before = frame().scope;
  auto whileOp = builder.create<scf::WhileOp>(mlirLoc(s->getLoc()), types, initValues);
  OpBuilder::InsertionGuard guard(builder);
  ++frame().structuredDepth;
  frame().loops.push_back({false, frame().structuredDepth});

  Block *cond = builder.createBlock(&whileOp.getBefore(), {}, types, locs);
  for (auto [i, name] : llvm::enumerate(carried))
    frame().scope[name] = PyValue::ofTensor(TValue{cond->getArgument(i), inits[i].type});
  PyValue c = eval(s->getCond());
  if (c.isConstexpr())
    error(s->getCond()->getLoc(), "the condition of a while loop must be a "
                                  "tensor, not the constant " + describe(c));
  TValue ct = scalarCondition(*this, c, s->getCond()->getLoc(), "while");
  builder.create<scf::ConditionOp>(mlirLoc(s->getCond()->getLoc()), ct.value,
                                   cond->getArguments());

  Block *body = builder.createBlock(&whileOp.getAfter(), {}, types, locs);
  frame().scope = before;
  for (auto [i, name] : llvm::enumerate(carried))
    frame().scope[name] = PyValue::ofTensor(TValue{body->getArgument(i), inits[i].type});
  genBlock(s->getBody());
  SmallVector<Value> yields = carriedYields(carried, inits, s->getLoc());
  builder.create<scf::YieldOp>(mlirLoc(s->getLoc()), yields);
  --frame().structuredDepth;
  frame().loops.pop_back();
  frame().scope = before;
  for (auto [i, name] : llvm::enumerate(carried))
    frame().scope[name] = PyValue::ofTensor(TValue{whileOp.getResult(i), inits[i].type});
  return Flow::Normal;
}
