//===- AmdMatrixUnits.cpp - MFMA and WMMA matrix units --------------------===//

#include "AmdMatrixUnits.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tegula::amd;
using namespace tegula::backend;

namespace {

/// The layout version of both families.
constexpr unsigned kVersion = 1;

bool isHalfToFloat(const DotProblem &dot) {
  return dot.aType == dot.bType &&
         (dot.aType == TG_TYPE_F16 || dot.aType == TG_TYPE_BF16) &&
         dot.accType == TG_TYPE_F32;
}

/// The instruction M (= N) of |layout|: 32 or 16; 0 for another layout.
int64_t instructionSize(const MatrixLayout &layout) {
  if (layout.version.size() != 1 || layout.version.front() != kVersion ||
      layout.instrShape.size() != 2 ||
      layout.instrShape[0] != layout.instrShape[1])
    return 0;
  int64_t size = layout.instrShape[0];
  return size == 32 || size == 16 ? size : 0;
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
  if (!isHalfToFloat(dot))
    return std::nullopt;
  if (target.wmma) {
    MatrixInstruction wmma{this, kVersion, 16, 16, 16};
    if (dot.m % 16 || dot.n % 16 || dot.k % 16)
      return std::nullopt;
    return wmma;
  }
  if (!target.mfma)
    return std::nullopt;
  if (dot.m % 32 == 0 && dot.n % 32 == 0 && dot.k % 8 == 0)
    return MatrixInstruction{this, kVersion, 32, 32, 8};
  if (dot.m % 16 == 0 && dot.n % 16 == 0 && dot.k % 16 == 0)
    return MatrixInstruction{this, kVersion, 16, 16, 16};
  return std::nullopt;
}

FailureOr<LinearLayout>
AmdMatrixUnit::getLinearLayout(const MatrixLayout &layout,
                               ArrayRef<int64_t> shape, int64_t opIdx,
                               int64_t, std::string &error) const {
  int64_t size = instructionSize(layout);
  if (!size || (target.wmma && size != 16)) {
    error = getKind().str() + " layouts are version 1 with " +
            (target.wmma ? "16x16" : "32x32 or 16x16") + " instructions";
    return failure();
  }
  ArrayRef<int64_t> warps = layout.warpsPerCTA;
  int64_t rank = shape.size();
  if ((rank != 2 && rank != 3) || static_cast<int64_t>(warps.size()) != rank) {
    error = "an " + getKind().str() + " layout has rank 2 or 3";
    return failure();
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
      bases.add(bases.reg, covered, k, 16);
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
    // A (l % size, 4 (l / size) + i), B (4 (l / size) + i, l % size).
    int64_t k = opIdx == 0 ? n : m, other = opIdx == 0 ? m : n;
    bases.add(bases.reg, covered, k, 4);
    bases.add(bases.lane, covered, other, size);
    bases.add(bases.lane, covered, k, groups);
  }
  bases.addDotWarpsAndRepeats(covered, warps, opIdx);
  return bases;
}

FailureOr<int64_t> AmdMatrixUnit::getInstructionK(const MatrixLayout &layout,
                                                  Type a, Type b, Type acc,
                                                  std::string &error) const {
  int64_t size = instructionSize(layout);
  if (a != b || !(a.isF16() || a.isBF16()) || !acc.isF32() || !size) {
    error = getKind().str() + " dots take f16 or bf16 operands into f32";
    return failure();
  }
  return size == 32 ? 8 : 16;
}

std::string AmdMatrixUnit::getIntrinsic(const MatrixLayout &layout,
                                        Type operand) const {
  int64_t size = instructionSize(layout);
  bool half = operand.isF16();
  if (!size || !(half || operand.isBF16()))
    return "";
  if (target.wmma)
    return size == 16 ? (half ? "wmma.f32.16x16x16.f16"
                              : "wmma.f32.16x16x16.bf16")
                      : "";
  if (size == 32)
    return half ? "mfma.f32.32x32x8f16" : "mfma.f32.32x32x8bf16.1k";
  return half ? "mfma.f32.16x16x16f16" : "mfma.f32.16x16x16bf16.1k";
}

FailureOr<SmallVector<Value>>
AmdMatrixUnit::buildMultiply(OpBuilder &builder, Location loc,
                             const MatrixLayout &layout, ValueRange a,
                             ValueRange b, ValueRange c) const {
  if (a.empty() || b.empty() || c.empty())
    return failure();
  Type operand = a.front().getType();
  std::string name = getIntrinsic(layout, operand);
  int64_t size = instructionSize(layout);
  // Elements per lane: A and B 4 (MFMA) or 16 (WMMA); D size^2 / wave.
  int64_t perLane = target.wmma ? 16 : 4;
  int64_t accPerLane = size * size / target.waveSize;
  if (name.empty() || static_cast<int64_t>(a.size()) != perLane ||
      static_cast<int64_t>(b.size()) != perLane ||
      static_cast<int64_t>(c.size()) != accPerLane)
    return failure();
  for (ValueRange operands : {a, b})
    for (Value value : operands)
      if (value.getType() != operand)
        return failure();
  for (Value value : c)
    if (!value.getType().isF32())
      return failure();
  std::string full = "llvm.amdgcn." + name;
  if (!checkIntrinsic(target, full, 0).empty())
    return failure();

  // bf16 operands travel as i16 vectors (the intrinsics' types).
  Type element = operand.isBF16() ? Type(builder.getI16Type()) : operand;
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
  SmallVector<Value> args = {vectorOf(a, element), vectorOf(b, element),
                             vectorOf(c, builder.getF32Type())};
  if (!target.wmma)
    for (int i = 0; i < 3; ++i) // cbsz, abid, blgp: no broadcast
      args.push_back(constantI32(builder, loc, 0));
  Type resultType = args[2].getType();
  auto call = builder.create<LLVM::CallIntrinsicOp>(
      loc, TypeRange(resultType), full, args);
  SmallVector<Value> d;
  for (int64_t i = 0; i < accPerLane; ++i)
    d.push_back(builder.create<LLVM::ExtractElementOp>(
        loc, call.getResult(0),
        constantI32(builder, loc, static_cast<int32_t>(i))));
  return d;
}
