//===- TranslatorCompat.cpp - LLVM 19 IR the SPIR-V translator reads ------===//

#include "TranslatorCompat.h"

#include "llvm/CodeGen/AtomicExpandUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

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
