//===- TranslatorCompat.cpp - LLVM 19 IR the SPIR-V translator reads ------===//

#include "TranslatorCompat.h"

#include "llvm/CodeGen/AtomicExpandUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace {

/// The attribute kinds LLVM 16-19 added (LLVM 15's bitcode reader fails on
/// them), and allockind, which translator 15 also refuses.
constexpr Attribute::AttrKind kNewAttributes[] = {
    Attribute::Memory,
    Attribute::Range,
    Attribute::Writable,
    Attribute::DeadOnUnwind,
    Attribute::Initializes,
    Attribute::NoFPClass,
    Attribute::AllocKind,
    Attribute::CoroDestroyOnlyWhenComplete,
    Attribute::HybridPatchable,
    Attribute::OptimizeForDebugging,
    Attribute::SanitizeNumericalStability,
    Attribute::FnRetThunkExtern,
    Attribute::SkipProfile,
};

AttributeList stripNewAttributes(LLVMContext &context, AttributeList list,
                                 unsigned numParams) {
  for (Attribute::AttrKind kind : kNewAttributes) {
    list = list.removeFnAttribute(context, kind);
    list = list.removeRetAttribute(context, kind);
    for (unsigned i = 0; i < numParams; ++i)
      list = list.removeParamAttribute(context, i, kind);
  }
  return list;
}

/// Drops the instruction flags LLVM 15 cannot read.
void dropNewFlags(Instruction &inst) {
  switch (inst.getOpcode()) {
  case Instruction::Trunc:
  case Instruction::ZExt:
  case Instruction::UIToFP:
  case Instruction::Or:
    inst.dropPoisonGeneratingFlags();
    break;
  case Instruction::GetElementPtr: {
    auto *gep = cast<GetElementPtrInst>(&inst);
    gep->setNoWrapFlags(gep->isInBounds() ? GEPNoWrapFlags::inBounds()
                                          : GEPNoWrapFlags::none());
    break;
  }
  default:
    break;
  }
}

/// A cmpxchg of |loaded| for |newValue| at |address|, on integers of the
/// value's width (cmpxchg takes no floats).
void createIntegerCmpXchg(IRBuilderBase &builder, Value *address,
                          Value *loaded, Value *newValue, Align alignment,
                          AtomicOrdering ordering, SyncScope::ID scope,
                          Value *&success, Value *&newLoaded) {
  Type *type = loaded->getType();
  Type *intType = builder.getIntNTy(type->getPrimitiveSizeInBits());
  Value *expected = builder.CreateBitCast(loaded, intType);
  Value *desired = builder.CreateBitCast(newValue, intType);
  AtomicCmpXchgInst *pair = builder.CreateAtomicCmpXchg(
      address, expected, desired, alignment, ordering,
      AtomicCmpXchgInst::getStrongestFailureOrdering(ordering), scope);
  success = builder.CreateExtractValue(pair, 1, "success");
  newLoaded =
      builder.CreateBitCast(builder.CreateExtractValue(pair, 0), type, "loaded");
}

bool isFloatAtomic(const AtomicRMWInst &atomic) {
  switch (atomic.getOperation()) {
  case AtomicRMWInst::FAdd:
  case AtomicRMWInst::FSub:
  case AtomicRMWInst::FMax:
  case AtomicRMWInst::FMin:
    return true;
  default:
    return false;
  }
}

/// The index paths of the scalar leaves of aggregate |type|.
void collectLeaves(Type *type, SmallVectorImpl<unsigned> &path,
                   std::vector<SmallVector<unsigned, 4>> &leaves) {
  if (auto *structType = dyn_cast<StructType>(type)) {
    for (unsigned i = 0; i < structType->getNumElements(); ++i) {
      path.push_back(i);
      collectLeaves(structType->getElementType(i), path, leaves);
      path.pop_back();
    }
    return;
  }
  if (auto *arrayType = dyn_cast<ArrayType>(type)) {
    for (unsigned i = 0; i < arrayType->getNumElements(); ++i) {
      path.push_back(i);
      collectLeaves(arrayType->getElementType(), path, leaves);
      path.pop_back();
    }
    return;
  }
  leaves.emplace_back(path.begin(), path.end());
}

void splitPhi(PHINode *phi) {
  std::vector<SmallVector<unsigned, 4>> leaves;
  SmallVector<unsigned, 4> path;
  collectLeaves(phi->getType(), path, leaves);
  BasicBlock *block = phi->getParent();
  IRBuilder<> rebuild(block, block->getFirstInsertionPt());
  Value *aggregate = PoisonValue::get(phi->getType());
  for (const SmallVector<unsigned, 4> &leaf : leaves) {
    Type *type = ExtractValueInst::getIndexedType(phi->getType(), leaf);
    PHINode *part = PHINode::Create(type, phi->getNumIncomingValues(),
                                    phi->getName() + ".part",
                                    phi->getIterator());
    // One extract per predecessor: a phi takes the same value from every
    // edge of one block.
    DenseMap<BasicBlock *, Value *> extracted;
    for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i) {
      BasicBlock *from = phi->getIncomingBlock(i);
      Value *&value = extracted[from];
      if (!value) {
        IRBuilder<> at(from->getTerminator());
        value = at.CreateExtractValue(phi->getIncomingValue(i), leaf);
      }
      part->addIncoming(value, from);
    }
    aggregate = rebuild.CreateInsertValue(aggregate, part, leaf);
  }
  phi->replaceAllUsesWith(aggregate);
  phi->eraseFromParent();
}

/// Whether |constant| is, or is built from, a getelementptr constant
/// expression.
bool containsGepExpression(const Constant *constant) {
  const auto *expression = dyn_cast<ConstantExpr>(constant);
  if (!expression)
    return false;
  if (expression->getOpcode() == Instruction::GetElementPtr)
    return true;
  return llvm::any_of(expression->operands(), [](const Use &operand) {
    return containsGepExpression(cast<Constant>(operand));
  });
}

/// |expression| as instructions placed before |before|.
Instruction *expandExpression(ConstantExpr *expression, Instruction *before) {
  Instruction *inst = expression->getAsInstruction();
  inst->insertBefore(before);
  for (unsigned i = 0; i < inst->getNumOperands(); ++i)
    if (auto *inner = dyn_cast<ConstantExpr>(inst->getOperand(i)))
      if (containsGepExpression(inner))
        inst->setOperand(i, expandExpression(inner, inst));
  return inst;
}

/// LLVM 19 writes getelementptr constant expressions with a record code
/// LLVM 15's reader does not know (CST_CODE_CE_GEP, 32), and that reader
/// turns an unknown constant into undef without a word: a load from
/// `getelementptr (i8, ptr addrspace(3) @shared, i64 4)` became a load
/// from OpUndef, which spirv-val accepts and the device crashes or hangs
/// on. Instructions are read correctly, so every such expression an
/// instruction uses becomes one (in the incoming block for a phi).
void expandGepExpressions(Function &function) {
  std::vector<Instruction *> users;
  for (Instruction &inst : instructions(function))
    if (llvm::any_of(inst.operands(), [](const Use &operand) {
          auto *constant = dyn_cast<Constant>(operand);
          return constant && containsGepExpression(constant);
        }))
      users.push_back(&inst);
  for (Instruction *inst : users) {
    // A phi takes one value per predecessor, however many edges it has.
    DenseMap<BasicBlock *, Instruction *> perPredecessor;
    for (unsigned i = 0; i < inst->getNumOperands(); ++i) {
      auto *expression = dyn_cast<ConstantExpr>(inst->getOperand(i));
      if (!expression || !containsGepExpression(expression))
        continue;
      auto *phi = dyn_cast<PHINode>(inst);
      if (!phi) {
        inst->setOperand(i, expandExpression(expression, inst));
        continue;
      }
      Instruction *&expanded = perPredecessor[phi->getIncomingBlock(i)];
      if (!expanded)
        expanded = expandExpression(expression,
                                    phi->getIncomingBlock(i)->getTerminator());
      inst->setOperand(i, expanded);
    }
  }
}

bool hasBFloat(Type *type) {
  if (type->isBFloatTy())
    return true;
  if (auto *vector = dyn_cast<VectorType>(type))
    return vector->getElementType()->isBFloatTy();
  if (auto *function = dyn_cast<FunctionType>(type))
    return llvm::any_of(function->subtypes(), hasBFloat);
  if (isa<StructType>(type) || isa<ArrayType>(type))
    return llvm::any_of(type->subtypes(), hasBFloat);
  return false;
}

/// Whether |inst| has a bfloat in its type, its operands' types or the
/// types it names (getelementptr, alloca, call).
bool usesBFloat(const Instruction &inst) {
  if (hasBFloat(inst.getType()) ||
      llvm::any_of(inst.operands(), [](const Use &operand) {
        return hasBFloat(operand->getType());
      }))
    return true;
  if (const auto *gep = dyn_cast<GetElementPtrInst>(&inst))
    return hasBFloat(gep->getSourceElementType());
  if (const auto *alloca = dyn_cast<AllocaInst>(&inst))
    return hasBFloat(alloca->getAllocatedType());
  if (const auto *call = dyn_cast<CallBase>(&inst))
    return hasBFloat(call->getFunctionType());
  return false;
}

std::string describe(const Value &value) {
  std::string text;
  raw_string_ostream stream(text);
  value.print(stream);
  StringRef line = StringRef(text).trim();
  return line.substr(0, 200).str();
}

/// Rewrites the bfloat values of one function as i16 bits (see
/// lowerBFloat). Conversions and arithmetic go through float, where
/// bfloat -> float is exact and float add, sub, mul, div and sqrt of
/// bfloat operands rounded once more to bfloat give the correctly rounded
/// bfloat result (float has more than twice bfloat's 8 significand bits
/// plus two).
class BFloatRewriter {
public:
  explicit BFloatRewriter(Function &function)
      : function(function), context(function.getContext()),
        i16(Type::getInt16Ty(context)), i32(Type::getInt32Ty(context)),
        f32(Type::getFloatTy(context)) {}

  /// An empty string, or why the function cannot be rewritten.
  std::string run();

private:
  Type *mapType(Type *type) {
    if (type->isBFloatTy())
      return i16;
    if (auto *vector = dyn_cast<VectorType>(type))
      if (vector->getElementType()->isBFloatTy())
        return VectorType::get(i16, vector->getElementCount());
    return type;
  }

  /// |type| with float in place of bfloat (the type arithmetic runs in).
  Type *wideType(Type *type) {
    if (auto *vector = dyn_cast<VectorType>(type))
      return VectorType::get(f32, vector->getElementCount());
    return f32;
  }

  Type *sameShape(Type *type, Type *element) {
    if (auto *vector = dyn_cast<VectorType>(type))
      return VectorType::get(element, vector->getElementCount());
    return element;
  }

  Value *splat(Type *shape, Type *element, uint64_t bits) {
    return ConstantInt::get(sameShape(shape, element), bits);
  }

  /// The i16 form of |value| (of a bfloat type); null if there is none.
  Value *lookup(Value *value) {
    if (!hasBFloat(value->getType()))
      return value;
    if (Value *mapped = values.lookup(value))
      return mapped;
    auto *constant = dyn_cast<Constant>(value);
    if (!constant)
      return nullptr;
    Type *type = mapType(constant->getType());
    if (type == constant->getType())
      return nullptr;
    if (isa<PoisonValue>(constant))
      return PoisonValue::get(type);
    if (isa<UndefValue>(constant))
      return UndefValue::get(type);
    if (constant->isNullValue())
      return Constant::getNullValue(type);
    if (auto *scalar = dyn_cast<ConstantFP>(constant))
      return ConstantInt::get(type, scalar->getValueAPF().bitcastToAPInt());
    if (auto *vector = dyn_cast<VectorType>(constant->getType())) {
      if (Constant *element = constant->getSplatValue())
        if (Value *bits = lookup(element))
          return ConstantVector::getSplat(vector->getElementCount(),
                                          cast<Constant>(bits));
      if (auto *fixed = dyn_cast<FixedVectorType>(vector)) {
        SmallVector<Constant *, 16> elements;
        for (unsigned i = 0; i < fixed->getNumElements(); ++i) {
          Constant *element = constant->getAggregateElement(i);
          Value *bits = element ? lookup(element) : nullptr;
          if (!bits)
            return nullptr;
          elements.push_back(cast<Constant>(bits));
        }
        return ConstantVector::get(elements);
      }
    }
    return nullptr;
  }

  /// bfloat bits -> float, exactly.
  Value *extend(IRBuilderBase &builder, Value *bits) {
    Type *type = bits->getType();
    Value *wide = builder.CreateZExt(bits, sameShape(type, i32));
    wide = builder.CreateShl(wide, splat(type, i32, 16));
    return builder.CreateBitCast(wide, sameShape(type, f32));
  }

  /// float -> bfloat bits, rounding to nearest even; a NaN stays a quiet
  /// NaN of the same sign.
  Value *truncate(IRBuilderBase &builder, Value *value) {
    Type *type = value->getType();
    Value *bits = builder.CreateBitCast(value, sameShape(type, i32));
    Value *high = builder.CreateLShr(bits, splat(type, i32, 16));
    Value *odd = builder.CreateAnd(high, splat(type, i32, 1));
    Value *rounded = builder.CreateAdd(
        builder.CreateAdd(bits, splat(type, i32, 0x7fff)), odd);
    rounded = builder.CreateLShr(rounded, splat(type, i32, 16));
    Value *quiet = builder.CreateOr(high, splat(type, i32, 0x40));
    Value *isNaN = builder.CreateFCmpUNO(value, value);
    Value *result = builder.CreateSelect(isNaN, quiet, rounded);
    return builder.CreateTrunc(result, sameShape(type, i16));
  }

  /// double -> float rounding to odd (truncation, the last bit set when
  /// inexact), after which rounding to bfloat is the correct rounding of
  /// the double: float keeps more than bfloat's precision plus two bits.
  Value *roundToOddFloat(IRBuilderBase &builder, Value *value) {
    Type *type = value->getType();
    Value *narrow = builder.CreateFPTrunc(value, sameShape(type, f32));
    Value *back = builder.CreateFPExt(narrow, type);
    Value *inexact = builder.CreateFCmpONE(back, value);
    Value *away = builder.CreateFCmpOGT(
        builder.CreateUnaryIntrinsic(Intrinsic::fabs, back),
        builder.CreateUnaryIntrinsic(Intrinsic::fabs, value));
    Value *bits = builder.CreateBitCast(narrow, sameShape(type, i32));
    Value *lowered = builder.CreateSub(
        bits, builder.CreateZExt(builder.CreateAnd(inexact, away),
                                 sameShape(type, i32)));
    Value *odd = builder.CreateOr(
        lowered, builder.CreateZExt(inexact, sameShape(type, i32)));
    return builder.CreateBitCast(odd, sameShape(type, f32));
  }

  /// The replacement of |inst|, or null with |problem| set.
  Value *rewrite(Instruction &inst, IRBuilderBase &builder);

  Function &function;
  LLVMContext &context;
  Type *i16, *i32, *f32;
  DenseMap<Value *, Value *> values;
  std::string problem;
};

Value *BFloatRewriter::rewrite(Instruction &inst, IRBuilderBase &builder) {
  auto operand = [&](unsigned i) -> Value * {
    Value *bits = lookup(inst.getOperand(i));
    if (!bits && problem.empty())
      problem = "operand " + std::to_string(i) + " has no i16 form";
    return bits;
  };
  Type *type = inst.getType();
  switch (inst.getOpcode()) {
  case Instruction::FPExt: {
    Value *bits = operand(0);
    if (!bits)
      return nullptr;
    Value *wide = extend(builder, bits);
    return wide->getType() == type ? wide : builder.CreateFPExt(wide, type);
  }
  case Instruction::FPTrunc: {
    Value *value = inst.getOperand(0);
    if (value->getType()->getScalarType()->isDoubleTy())
      value = roundToOddFloat(builder, value);
    else if (!value->getType()->getScalarType()->isFloatTy())
      break;
    return truncate(builder, value);
  }
  case Instruction::FPToSI:
  case Instruction::FPToUI: {
    Value *bits = operand(0);
    if (!bits)
      return nullptr;
    return builder.CreateCast(Instruction::CastOps(inst.getOpcode()),
                              extend(builder, bits), type);
  }
  case Instruction::SIToFP:
  case Instruction::UIToFP: {
    // Exact in float up to 24 bits; wider integers would round twice.
    if (inst.getOperand(0)->getType()->getScalarSizeInBits() > 24)
      break;
    return truncate(builder,
                    builder.CreateCast(Instruction::CastOps(inst.getOpcode()),
                                       inst.getOperand(0), wideType(type)));
  }
  case Instruction::BitCast: {
    Value *bits = operand(0);
    if (!bits)
      return nullptr;
    Type *to = mapType(type);
    return bits->getType() == to ? bits : builder.CreateBitCast(bits, to);
  }
  case Instruction::FNeg: {
    Value *bits = operand(0);
    if (!bits)
      return nullptr;
    return builder.CreateXor(bits, splat(bits->getType(), i16, 0x8000));
  }
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
  case Instruction::FDiv:
  case Instruction::FRem: {
    Value *lhs = operand(0), *rhs = operand(1);
    if (!lhs || !rhs)
      return nullptr;
    Value *wide =
        builder.CreateBinOp(Instruction::BinaryOps(inst.getOpcode()),
                            extend(builder, lhs), extend(builder, rhs));
    return truncate(builder, wide);
  }
  case Instruction::FCmp: {
    Value *lhs = operand(0), *rhs = operand(1);
    if (!lhs || !rhs)
      return nullptr;
    return builder.CreateFCmp(cast<FCmpInst>(inst).getPredicate(),
                              extend(builder, lhs), extend(builder, rhs));
  }
  case Instruction::Call: {
    auto *intrinsic = dyn_cast<IntrinsicInst>(&inst);
    if (!intrinsic || !type->getScalarType()->isBFloatTy())
      break;
    switch (intrinsic->getIntrinsicID()) {
    case Intrinsic::fabs: {
      Value *bits = operand(0);
      if (!bits)
        return nullptr;
      return builder.CreateAnd(bits, splat(bits->getType(), i16, 0x7fff));
    }
    // Correctly rounded in float, then exactly representable or rounded
    // once more without error (see above).
    case Intrinsic::sqrt:
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::minimum:
    case Intrinsic::maximum:
    case Intrinsic::floor:
    case Intrinsic::ceil:
    case Intrinsic::trunc:
    case Intrinsic::rint:
    case Intrinsic::nearbyint:
    case Intrinsic::round:
    case Intrinsic::roundeven: {
      SmallVector<Value *, 2> arguments;
      for (unsigned i = 0; i < intrinsic->arg_size(); ++i) {
        Value *bits = operand(i);
        if (!bits)
          return nullptr;
        arguments.push_back(extend(builder, bits));
      }
      Value *wide = builder.CreateIntrinsic(intrinsic->getIntrinsicID(),
                                            {wideType(type)}, arguments);
      return truncate(builder, wide);
    }
    default:
      break;
    }
    break;
  }
  case Instruction::PHI: {
    // Filled in once every value has its i16 form.
    auto *phi = cast<PHINode>(&inst);
    return PHINode::Create(mapType(type), phi->getNumIncomingValues(),
                           phi->getName(), phi->getIterator());
  }
  case Instruction::GetElementPtr:
  case Instruction::Alloca:
  case Instruction::Load:
  case Instruction::Store:
  case Instruction::Select:
  case Instruction::ExtractElement:
  case Instruction::InsertElement:
  case Instruction::ShuffleVector:
  case Instruction::AtomicRMW:
  case Instruction::AtomicCmpXchg:
  case Instruction::Freeze: {
    if (auto *atomic = dyn_cast<AtomicRMWInst>(&inst))
      if (atomic->isFloatingPointOperation())
        break;
    // The same operation on the bits.
    Instruction *clone = inst.clone();
    for (unsigned i = 0; i < clone->getNumOperands(); ++i) {
      Value *bits = operand(i);
      if (!bits) {
        clone->deleteValue();
        return nullptr;
      }
      clone->setOperand(i, bits);
    }
    if (auto *gep = dyn_cast<GetElementPtrInst>(clone)) {
      if (hasBFloat(gep->getSourceElementType()) &&
          gep->getSourceElementType()->isAggregateType()) {
        clone->deleteValue();
        break;
      }
      gep->setSourceElementType(mapType(gep->getSourceElementType()));
      gep->setResultElementType(mapType(gep->getResultElementType()));
    }
    if (auto *alloca = dyn_cast<AllocaInst>(clone))
      alloca->setAllocatedType(mapType(alloca->getAllocatedType()));
    clone->mutateType(mapType(type));
    if (hasBFloat(clone->getType())) {
      clone->deleteValue();
      break;
    }
    clone->setName(inst.getName());
    builder.Insert(clone);
    return clone;
  }
  default:
    break;
  }
  if (problem.empty())
    problem = "no i16 form";
  return nullptr;
}

std::string BFloatRewriter::run() {
  for (Argument &argument : function.args())
    if (hasBFloat(argument.getType()))
      return "@" + function.getName().str() + " takes bfloat argument " +
             describe(argument);
  if (hasBFloat(function.getReturnType()))
    return "@" + function.getName().str() + " returns bfloat";
  if (llvm::none_of(instructions(function),
                    [](const Instruction &inst) { return usesBFloat(inst); }))
    return "";
  // Unreachable blocks are not visited below and may use bfloat.
  removeUnreachableBlocks(function);
  std::vector<Instruction *> rewritten;
  ReversePostOrderTraversal<Function *> order(&function);
  for (BasicBlock *block : order)
    for (Instruction &inst : *block) {
      if (!usesBFloat(inst))
        continue;
      IRBuilder<> builder(&inst);
      Value *replacement = rewrite(inst, builder);
      if (!replacement)
        return problem + ": " + describe(inst);
      values[&inst] = replacement;
      rewritten.push_back(&inst);
    }
  for (Instruction *inst : rewritten) {
    auto *phi = dyn_cast<PHINode>(inst);
    if (!phi || !hasBFloat(phi->getType()))
      continue;
    auto *replacement = cast<PHINode>(values[phi]);
    for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i) {
      Value *bits = lookup(phi->getIncomingValue(i));
      if (!bits)
        return "no i16 form of incoming value " + std::to_string(i) + ": " +
               describe(*phi);
      replacement->addIncoming(bits, phi->getIncomingBlock(i));
    }
  }
  // Values of other types (float, i1, ptr, void) keep their users; the
  // users of bfloat values were all rewritten above.
  for (Instruction *inst : rewritten) {
    Value *replacement = values[inst];
    if (replacement->getType() == inst->getType())
      inst->replaceAllUsesWith(replacement);
    else
      inst->replaceAllUsesWith(PoisonValue::get(inst->getType()));
  }
  for (Instruction *inst : rewritten)
    inst->eraseFromParent();
  return "";
}
} // namespace

const GlobalVariable *
tegula::intel::findUnreadableInitializer(const Module &module) {
  for (const GlobalVariable &global : module.globals())
    if (global.hasInitializer() &&
        containsGepExpression(global.getInitializer()))
      return &global;
  return nullptr;
}

unsigned tegula::intel::splitAggregatePhis(Module &module) {
  std::vector<PHINode *> phis;
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (PHINode &phi : block.phis())
        if (phi.getType()->isAggregateType())
          phis.push_back(&phi);
  for (PHINode *phi : phis)
    splitPhi(phi);
  return phis.size();
}

unsigned tegula::intel::makeTranslatorCompatible(Module &module) {
  StripDebugInfo(module);
  LLVMContext &context = module.getContext();
  std::vector<AtomicRMWInst *> floatAtomics;
  for (Function &function : module)
    expandGepExpressions(function);
  for (Function &function : module) {
    function.setAttributes(stripNewAttributes(
        context, function.getAttributes(), function.arg_size()));
    for (Instruction &inst : instructions(function)) {
      dropNewFlags(inst);
      if (auto *call = dyn_cast<CallBase>(&inst))
        call->setAttributes(stripNewAttributes(context, call->getAttributes(),
                                               call->arg_size()));
      if (auto *atomic = dyn_cast<AtomicRMWInst>(&inst))
        if (isFloatAtomic(*atomic))
          floatAtomics.push_back(atomic);
    }
  }
  for (AtomicRMWInst *atomic : floatAtomics)
    expandAtomicRMWToCmpXchg(atomic, createIntegerCmpXchg);
  // Translator 15 has no freeze ("Can't translate llvm instruction"); SPIR-V
  // has no poison to stop, so a frozen value is its operand there.
  for (Function &function : module)
    for (Instruction &inst : llvm::make_early_inc_range(instructions(function)))
      if (auto *freeze = dyn_cast<FreezeInst>(&inst)) {
        freeze->replaceAllUsesWith(freeze->getOperand(0));
        freeze->eraseFromParent();
      }
  // The loops' own instructions carry no new flags; the bitcasts and
  // extracts expandAtomicRMWToCmpXchg made are LLVM 15 instructions.
  return floatAtomics.size();
}

std::string tegula::intel::lowerBFloat(Module &module) {
  for (const GlobalVariable &global : module.globals())
    if (hasBFloat(global.getValueType()))
      return "bfloat global @" + global.getName().str() +
             " has no i16 form for the SPIR-V translator";
  for (Function &function : module) {
    if (function.isDeclaration()) {
      if (!function.use_empty() && !function.isIntrinsic() &&
          hasBFloat(function.getFunctionType()))
        return "@" + function.getName().str() +
               " takes or returns bfloat, which the SPIR-V translator "
               "cannot express";
      continue;
    }
    std::string problem = BFloatRewriter(function).run();
    if (!problem.empty())
      return "cannot lower bfloat for the SPIR-V translator (" + problem + ")";
  }
  // The bf16 intrinsics the rewrite replaced are still declared.
  for (Function &function : llvm::make_early_inc_range(module))
    if (function.isDeclaration() && function.use_empty() &&
        hasBFloat(function.getFunctionType()))
      function.eraseFromParent();
  // What the rewrite missed would reach the translator as a second 16-bit
  // float type: refuse it instead.
  for (Function &function : module)
    for (Instruction &inst : instructions(function))
      if (usesBFloat(inst))
        return "bfloat left after lowering it to i16: " + describe(inst);
  return "";
}
