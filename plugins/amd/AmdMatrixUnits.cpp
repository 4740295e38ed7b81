//===- AmdMatrixUnits.cpp - MFMA and WMMA matrix units --------------------===//

#include "AmdMatrixUnits.h"

#include "tegula/BackendKit/CompileSupport.h"
#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tegula::amd;
using namespace tegula::backend;

namespace {

/// The layout versions of both families: 1 for the instructions that
/// multiply their operands exactly, 2 for those that round f32 operands to
/// xf32 (gfx942's answer to `input_precision="tf32"`).
constexpr unsigned kVersion = 1;
constexpr unsigned kXf32Version = 2;

/// The capability table's name (AmdMatrixShape::operandType) of the
/// operands of a dot on |a| and |b| into |acc|, f32 operands rounded to
/// xf32 when |xf32|; null for types no AMD matrix instruction takes (the
/// i8 instructions are signed, as Triton's i8 dot).
const char *operandKind(tg_scalar_type a, tg_scalar_type b, tg_scalar_type acc,
                        bool xf32) {
  if (a != b || (xf32 && a != TG_TYPE_F32))
    return nullptr;
  if (acc == TG_TYPE_I32)
    return a == TG_TYPE_I8 ? "i8" : nullptr;
  if (acc != TG_TYPE_F32)
    return nullptr;
  switch (a) {
  case TG_TYPE_F16:
    return "fp16";
  case TG_TYPE_BF16:
    return "bf16";
  case TG_TYPE_F32:
    return xf32 ? "xf32" : "fp32";
  default:
    return nullptr;
  }
}

/// The operand kind of an operand layout keeping |kWidth| elements
/// together along K: a 32-bit register's worth (LayoutSelection's rule), 4
/// i8, 2 f16 or bf16 (the same shapes), 1 f32.
const char *operandKindOfWidth(int64_t kWidth, bool xf32) {
  if (xf32 && kWidth != 1)
    return nullptr;
  switch (kWidth) {
  case 4:
    return "i8";
  case 2:
    return "fp16";
  case 1:
    return xf32 ? "xf32" : "fp32";
  default:
    return nullptr;
  }
}

/// The instruction of |target| for |size| x |size| tiles of |kind|
/// operands: the first such row of the capability table (the rows list the
/// preferred form first: bf16's .1k before the older half-K form).
const AmdMatrixShape *findShape(const AmdTarget &target, int64_t size,
                                const char *kind) {
  if (!kind)
    return nullptr;
  for (const AmdMatrixShape &shape : target.matrixShapes)
    if (shape.m == size && llvm::StringRef(shape.operandType) == kind)
      return &shape;
  return nullptr;
}

/// The K elements of A (and of B) a lane holds for |shape|: a whole row
/// (column) for WMMA, its lanes 16-31 repeating 0-15; for MFMA the K over
/// the lane groups (wave / M of them).
int64_t kPerLane(const AmdTarget &target, const AmdMatrixShape &shape) {
  return target.wmma ? shape.k : shape.k * shape.m / target.waveSize;
}

/// The instruction M (= N) of |layout|: 32 or 16; 0 for another layout.
int64_t instructionSize(const MatrixLayout &layout) {
  if (layout.version.size() != 1 ||
      (layout.version.front() != kVersion &&
       layout.version.front() != kXf32Version) ||
      layout.instrShape.size() != 2 ||
      layout.instrShape[0] != layout.instrShape[1])
    return 0;
  int64_t size = layout.instrShape[0];
  return size == 32 || size == 16 ? size : 0;
}

bool isXf32(const MatrixLayout &layout) {
  return layout.version.size() == 1 && layout.version.front() == kXf32Version;
}

/// A basis of |rank| dimensions with |value| along |dim|.
LayoutCoords basis(int64_t rank, int64_t dim, int64_t value) {
  LayoutCoords coords(rank, 0);
  coords[dim] = value;
  return coords;
}

} // namespace

std::optional<MatrixInstruction>
AmdMatrixUnit::selectInstruction(const DotProblem &dot) const {
  // tf32 rounds f32 operands to xf32 where the target has it; without it
  // (gfx90a) the exact f32 instructions serve tf32 too, as ieee. tf32x3
  // stays on FMA.
  bool f32 = dot.aType == TG_TYPE_F32;
  if (f32 && dot.inputPrecision != "tf32" && dot.inputPrecision != "ieee")
    return std::nullopt;
  bool xf32 =
      f32 && dot.inputPrecision == "tf32" && findShape(target, 32, "xf32");
  const char *kind = operandKind(dot.aType, dot.bType, dot.accType, xf32);
  for (int64_t size : {32, 16}) {
    const AmdMatrixShape *shape = findShape(target, size, kind);
    if (shape && dot.m % size == 0 && dot.n % size == 0 &&
        dot.k % shape->k == 0)
      return MatrixInstruction{this, xf32 ? kXf32Version : kVersion, shape->m,
                               shape->n, shape->k};
  }
  return std::nullopt;
}

FailureOr<LinearLayout>
AmdMatrixUnit::getLinearLayout(const MatrixLayout &layout,
                               ArrayRef<int64_t> shape, int64_t opIdx,
                               int64_t kWidth, std::string &error) const {
  int64_t size = instructionSize(layout);
  if (!size || (target.wmma && size != 16)) {
    error = getKind().str() + " layouts are version 1 or 2 with " +
            (target.wmma ? "16x16" : "32x32 or 16x16") + " instructions";
    return failure();
  }
  ArrayRef<int64_t> warps = layout.warpsPerCTA;
  int64_t rank = shape.size();
  if ((rank != 2 && rank != 3) || static_cast<int64_t>(warps.size()) != rank) {
    error = "an " + getKind().str() + " layout has rank 2 or 3";
    return failure();
  }
  int64_t laneK = 0;
  if (opIdx >= 0) {
    const AmdMatrixShape *instr =
        findShape(target, size, operandKindOfWidth(kWidth, isXf32(layout)));
    if (!instr) {
      error = getKind().str() + " has no " + std::to_string(size) + "x" +
              std::to_string(size) + " instruction for operands of " +
              std::to_string(kWidth) + " elements per 32-bit register";
      return failure();
    }
    laneK = kPerLane(target, *instr);
  }
  LinearLayout bases;
  bases.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> covered(rank, 1);
  int64_t m = rank - 2, n = rank - 1;
  // The lanes beyond one row (or column) of the instruction: 2 groups of
  // 32 for 32x32 MFMA, 4 groups of 16 for 16x16 MFMA, 2 of 16 for WMMA.
  int64_t groups = target.waveSize / size;

  if (target.wmma) {
    if (opIdx < 0) {
      // D (2 r + l / 16, l % 16).
      for (int64_t v : {2, 4, 8})
        bases.reg.push_back(basis(rank, m, v));
      bases.add(bases.lane, covered, n, 16);
      bases.lane.push_back(basis(rank, m, 1));
      covered[m] = 16;
    } else {
      // A (l % 16, i), B (i, l % 16); lanes 16-31 repeat lanes 0-15.
      int64_t k = opIdx == 0 ? n : m, other = opIdx == 0 ? m : n;
      bases.add(bases.reg, covered, k, laneK);
      bases.add(bases.lane, covered, other, 16);
      bases.addZeros(bases.lane, groups);
    }
  } else if (opIdx < 0) {
    // 32x32: D (8 (r / 4) + 4 (l / 32) + r % 4, l % 32);
    // 16x16: D (4 (l / 16) + r, l % 16).
    bases.add(bases.reg, covered, m, 4);
    bases.add(bases.lane, covered, n, size);
    bases.add(bases.lane, covered, m, groups);
    bases.add(bases.reg, covered, m, size / covered[m]);
  } else {
    // A (l % size, j (l / size) + i), B (j (l / size) + i, l % size) with
    // j = laneK.
    int64_t k = opIdx == 0 ? n : m, other = opIdx == 0 ? m : n;
    bases.add(bases.reg, covered, k, laneK);
    bases.add(bases.lane, covered, other, size);
    bases.add(bases.lane, covered, k, groups);
  }
  bases.addDotWarpsAndRepeats(covered, warps, opIdx);
  return bases;
}

const AmdMatrixShape *AmdMatrixUnit::findInstruction(const MatrixLayout &layout,
                                                     Type a, Type b,
                                                     Type acc) const {
  tg_scalar_type aType, bType, accType;
  int64_t size = instructionSize(layout);
  if (!toScalarType(a, aType) || !toScalarType(b, bType) ||
      !toScalarType(acc, accType) || !size)
    return nullptr;
  return findShape(target, size,
                   operandKind(aType, bType, accType, isXf32(layout)));
}

FailureOr<int64_t> AmdMatrixUnit::getInstructionK(const MatrixLayout &layout,
                                                  Type a, Type b, Type acc,
                                                  std::string &error) const {
  const AmdMatrixShape *instr = findInstruction(layout, a, b, acc);
  if (!instr) {
    error = getKind().str() + " dots take f16 or bf16 operands into f32, " +
            "i8 into i32" + (target.mfma ? " or f32 into f32" : "");
    return failure();
  }
  return instr->k;
}

std::string AmdMatrixUnit::getIntrinsic(const MatrixLayout &layout, Type a,
                                        Type acc) const {
  const AmdMatrixShape *instr = findInstruction(layout, a, a, acc);
  return instr ? instr->intrinsic : "";
}

FailureOr<SmallVector<Value>>
AmdMatrixUnit::buildMultiply(OpBuilder &builder, Location loc,
                             const MatrixLayout &layout, ValueRange a,
                             ValueRange b, ValueRange c) const {
  if (a.empty() || b.empty() || c.empty())
    return failure();
  Type operand = a.front().getType(), accType = c.front().getType();
  const AmdMatrixShape *instr =
      findInstruction(layout, operand, operand, accType);
  if (!instr)
    return failure();
  int64_t size = instr->m;
  // Elements per lane: A and B as getLinearLayout holds them; D
  // size^2 / wave.
  int64_t perLane = kPerLane(target, *instr);
  int64_t accPerLane = size * size / target.waveSize;
  if (static_cast<int64_t>(a.size()) != perLane ||
      static_cast<int64_t>(b.size()) != perLane ||
      static_cast<int64_t>(c.size()) != accPerLane)
    return failure();
  for (ValueRange operands : {a, b})
    for (Value value : operands)
      if (value.getType() != operand)
        return failure();
  for (Value value : c)
    if (value.getType() != accType)
      return failure();
  std::string full = std::string("llvm.amdgcn.") + instr->intrinsic;
  if (!checkIntrinsic(target, full, 0).empty())
    return failure();

  auto vectorOf = [&](ValueRange values, Type type) -> Value {
    auto vectorType =
        VectorType::get({static_cast<int64_t>(values.size())}, type);
    Value vector = builder.create<LLVM::PoisonOp>(loc, vectorType);
    for (auto [i, value] : llvm::enumerate(values)) {
      Value lane = value.getType() == type
                       ? value
                       : builder.create<LLVM::BitcastOp>(loc, type, value);
      vector = builder.create<LLVM::InsertElementOp>(
          loc, vector, lane, constantI32(builder, loc, static_cast<int32_t>(i)));
    }
    return vector;
  };
  // The intrinsics' operand types: bf16 as i16 vectors; i8 packed, the
  // first element in the low byte, into an i32 (4), an i64 (8) or WMMA's
  // <4 x i32> (16); one f32 as a scalar.
  auto operandOf = [&](ValueRange values) -> Value {
    if (operand.isBF16())
      return vectorOf(values, builder.getI16Type());
    if (values.size() == 1)
      return values.front();
    Value vector = vectorOf(values, operand);
    if (!operand.isInteger(8))
      return vector;
    Type packed = values.size() == 16
                      ? Type(VectorType::get({4}, builder.getI32Type()))
                      : Type(builder.getIntegerType(8 * values.size()));
    return builder.create<LLVM::BitcastOp>(loc, packed, vector);
  };
  Value aArg = operandOf(a), bArg = operandOf(b), cArg = vectorOf(c, accType);
  SmallVector<Value> args;
  if (target.wmma && operand.isInteger(8)) {
    // iu8: A signed, B signed, no clamp (Triton's i32 sums wrap).
    auto flag = [&](bool value) -> Value {
      return builder.create<LLVM::ConstantOp>(loc, builder.getI1Type(),
                                              builder.getBoolAttr(value));
    };
    args = {flag(true), aArg, flag(true), bArg, cArg, flag(false)};
  } else {
    args = {aArg, bArg, cArg};
  }
  if (!target.wmma)
    for (int i = 0; i < 3; ++i) // cbsz, abid, blgp: no broadcast
      args.push_back(constantI32(builder, loc, 0));
  Type resultType = cArg.getType();
  auto call = builder.create<LLVM::CallIntrinsicOp>(
      loc, TypeRange(resultType), full, args);
  SmallVector<Value> d;
  for (int64_t i = 0; i < accPerLane; ++i)
    d.push_back(builder.create<LLVM::ExtractElementOp>(
        loc, call.getResult(0),
        constantI32(builder, loc, static_cast<int32_t>(i))));
  return d;
}
