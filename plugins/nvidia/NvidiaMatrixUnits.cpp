//===- NvidiaMatrixUnits.cpp - NVIDIA's matrix units and async copies -----===//

#include "NvidiaMatrixUnits.h"

#include "NvidiaPtx.h"

#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace tegula::nvidia;
using namespace tegula::backend;

namespace {

/// Whether |layout| has version |version| and, when |instrShape| is not
/// empty, that instruction shape.
bool isLayout(const MatrixLayout &layout, int64_t version,
              ArrayRef<int64_t> instrShape) {
  return layout.version.size() == 1 && layout.version.front() == version &&
         (instrShape.empty() ||
          ArrayRef<int64_t>(layout.instrShape) == instrShape);
}

/// f16 or bf16 operands of one type into f32.
bool isHalfToFloat(const DotProblem &dot) {
  return dot.aType == dot.bType &&
         (dot.aType == TG_TYPE_F16 || dot.aType == TG_TYPE_BF16) &&
         dot.accType == TG_TYPE_F32;
}

/// fp8 operands (e4m3 or e5m2, each its own) into f32.
bool isFp8ToFloat(const DotProblem &dot) {
  auto fp8 = [](tg_scalar_type type) {
    return type == TG_TYPE_FP8E4M3 || type == TG_TYPE_FP8E5M2;
  };
  return fp8(dot.aType) && fp8(dot.bType) && dot.accType == TG_TYPE_F32;
}

/// The PTX type of a wgmma operand element: f16, bf16, e4m3 or e5m2; empty
/// for any other.
std::string wgmmaElementType(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  if (isa<Float8E5M2Type>(type))
    return "e5m2";
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// nvidia.mma (mma.sync)
//===----------------------------------------------------------------------===//

namespace tegula::nvidia {
namespace {

/// "nvidia.mma" version 2: mma.sync.aligned on register fragments.
class NvidiaMmaUnit : public backend::MatrixUnit {
public:
  llvm::StringRef getKind() const override { return "nvidia.mma"; }
  /// m16n8k16 for f16 or bf16 operands into f32, m16n8k8 for f32 operands
  /// at tf32 precision (tl.dot's default for f32), m16n8k32 for i8 into
  /// i32: when M, N and K are multiples of the instruction's.
  std::optional<MatrixInstruction>
  selectInstruction(const DotProblem &dot) const override {
    // mma.sync.aligned.m16n8k16 on f16/bf16 into f32, m16n8k8 on f32 at
    // tf32 precision (tl.dot's default for f32), m16n8k32 on i8 into i32:
    // whole instruction tiles.
    bool halfToFloat = isHalfToFloat(dot);
    bool tf32 = dot.aType == TG_TYPE_F32 && dot.bType == TG_TYPE_F32 &&
                dot.accType == TG_TYPE_F32 && dot.inputPrecision == "tf32";
    bool int8 = dot.aType == TG_TYPE_I8 && dot.bType == TG_TYPE_I8 &&
                dot.accType == TG_TYPE_I32;
    if (!halfToFloat && !tf32 && !int8)
      return std::nullopt;
    MatrixInstruction mma{this, 2, 16, 8, halfToFloat ? 16u : tf32 ? 8u : 32u};
    if (dot.m % mma.m || dot.n % mma.n || dot.k % mma.k)
      return std::nullopt;
    return mma;
  }
  /// With g = lane / 4 and t = lane % 4, a warp's fragments are: C c0..c3
  /// at (g, 2t + {0,1}), (g + 8, 2t + {0,1}); A (kWidth = 2) a0..a7 at
  /// (g, 2t + {0,1}), (g + 8, ..), (g, 2t + 8 + {0,1}), (g + 8, 2t + 8 + ..);
  /// B b0..b3 at (k = 2t + {0,1}, n = g), (k = 2t + 8 + {0,1}, g); kWidth 1
  /// (tf32) and 4 (i8) group K alike. Warps tile M first, then N, then the
  /// batch; repetitions cover the rest. Rank 2 or 3.
  FailureOr<LinearLayout> getLinearLayout(const MatrixLayout &layout,
                                          ArrayRef<int64_t> shape,
                                          int64_t opIdx, int64_t kWidth,
                                          std::string &error) const override {
    if (!isLayout(layout, 2, {16, 8})) {
      error = "nvidia.mma layouts are version 2 with 16x8 instructions";
      return failure();
    }
    ArrayRef<int64_t> warps = layout.warpsPerCTA;
    // |kWidth| operand elements per 32-bit register along K: 2 for 16-bit
    // types (m16n8k16), 1 for tf32 (m16n8k8), 4 for 8-bit integers
    // (m16n8k32); the instruction's K is 8 x kWidth.
    if (kWidth != 1 && kWidth != 2 && kWidth != 4)
      kWidth = 2;
    int64_t rank = shape.size();
    if ((rank != 2 && rank != 3) ||
        static_cast<int64_t>(warps.size()) != rank) {
      error = "an nvidia.mma layout has rank 2 or 3";
      return failure();
    }
    LinearLayout bases;
    bases.shape.assign(shape.begin(), shape.end());
    SmallVector<int64_t> covered(rank, 1);
    int64_t m = rank - 2, n = rank - 1;
    if (opIdx < 0) {
      bases.add(bases.reg, covered, n, 2);
      bases.add(bases.lane, covered, n, 4);
      bases.add(bases.lane, covered, m, 8);
      bases.add(bases.reg, covered, m, 2);
    } else if (opIdx == 0) {
      int64_t k = n; // A is [.., M, K]
      bases.add(bases.reg, covered, k, kWidth);
      bases.add(bases.lane, covered, k, 4);
      bases.add(bases.lane, covered, m, 8);
      bases.add(bases.reg, covered, m, 2);
      bases.add(bases.reg, covered, k, 2);
    } else {
      int64_t k = m, cols = n; // B is [.., K, N]
      bases.add(bases.reg, covered, k, kWidth);
      bases.add(bases.lane, covered, k, 4);
      bases.add(bases.lane, covered, cols, 8);
      bases.add(bases.reg, covered, k, 2);
    }
    bases.addDotWarpsAndRepeats(covered, warps, opIdx);
    return bases;
  }
  /// 16 for f16/bf16 into f32, 8 for f32 (as tf32) into f32, 32 for i8
  /// into i32.
  FailureOr<int64_t> getInstructionK(const MatrixLayout &, Type a, Type b,
                                     Type acc,
                                     std::string &error) const override {
    // f16/bf16 (m16n8k16) and f32 as tf32 (m16n8k8) into f32; 8-bit
    // integers (m16n8k32) into i32.
    bool half = (a.isF16() || a.isBF16()) && acc.isF32();
    bool tf32 = a.isF32() && acc.isF32();
    bool int8 = a.isInteger(8) && acc.isInteger(32);
    if (a != b || !(half || tf32 || int8)) {
      error = "nvidia.mma dots take f16 or bf16 operands into f32, f32 "
              "operands (as tf32) into f32, or i8 operands into i32";
      return failure();
    }
    return tf32 ? 8 : int8 ? 32 : 16;
  }
  /// One `mma.sync.aligned.m16n8k{16,8,32}.row.col` as inline PTX, the
  /// operand type choosing the shape: 8 A and 4 B f16 or bf16 elements, 4 A
  /// and 2 B f32 elements (tf32), or 16 A and 8 B i8 elements, packed into
  /// .b32 registers, with 4 f32 (i32 for i8) C elements. Failure for any
  /// other layout version, shape or types.
  FailureOr<SmallVector<Value>> buildMultiply(OpBuilder &builder, Location loc,
                                              const MatrixLayout &layout,
                                              ValueRange a, ValueRange b,
                                              ValueRange c) const override {
    if (!isLayout(layout, 2, {16, 8}) || a.empty() || c.size() != 4)
      return failure();
    // The operand type picks the instruction: 16-bit floats m16n8k16, f32 as
    // tf32 m16n8k8 (the registers' low 13 mantissa bits ignored, as Triton's
    // input_precision="tf32"), i8 m16n8k32 (signed, into s32).
    Type operand = a.front().getType();
    std::string type, accType = "f32", shape;
    int64_t width;
    if (operand.isF16() || operand.isBF16()) {
      type = operand.isF16() ? "f16" : "bf16";
      shape = "m16n8k16";
      width = 2;
    } else if (operand.isF32()) {
      type = "tf32";
      shape = "m16n8k8";
      width = 1;
    } else if (operand.isInteger(8)) {
      type = "s8";
      accType = "s32";
      shape = "m16n8k32";
      width = 4;
    } else {
      return failure();
    }
    if (static_cast<int64_t>(a.size()) != 4 * width ||
        static_cast<int64_t>(b.size()) != 2 * width)
      return failure();
    for (ValueRange operands : {a, b})
      for (Value value : operands)
        if (value.getType() != operand)
          return failure();
    Type accElem = accType == "f32" ? Type(builder.getF32Type())
                                    : Type(builder.getI32Type());
    for (Value value : c)
      if (value.getType() != accElem)
        return failure();

    // |width| consecutive operand elements as one .b32 register, the first in
    // the low bits.
    MLIRContext *context = builder.getContext();
    auto pack = [&](ValueRange elements) -> Value {
      if (elements.size() == 1)
        return builder.create<LLVM::BitcastOp>(loc, builder.getI32Type(),
                                               elements.front());
      auto vectorType =
          VectorType::get({static_cast<int64_t>(elements.size())}, operand);
      Value vector = builder.create<LLVM::PoisonOp>(loc, vectorType);
      for (auto [i, element] : llvm::enumerate(elements))
        vector = builder.create<LLVM::InsertElementOp>(
            loc, vector, element,
            constantI32(builder, loc, static_cast<int32_t>(i)));
      return builder.create<LLVM::BitcastOp>(loc, builder.getI32Type(), vector);
    };
    SmallVector<Value> operands;
    for (int64_t i = 0; i < 4; ++i)
      operands.push_back(pack(a.slice(i * width, width)));
    for (int64_t i = 0; i < 2; ++i)
      operands.push_back(pack(b.slice(i * width, width)));
    operands.append(c.begin(), c.end());

    std::string text = "mma.sync.aligned." + shape + ".row.col." + accType +
                       "." + type + "." + type + "." + accType +
                       " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                       "{$10, $11, $12, $13};";
    std::string acc = accType == "f32" ? "f" : "r";
    std::string constraints = "=" + acc + ",=" + acc + ",=" + acc + ",=" + acc +
                              ",r,r,r,r,r,r," + acc + "," + acc + "," + acc +
                              "," + acc;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        context, {accElem, accElem, accElem, accElem});
    auto mma = buildPtx(builder, loc, resultType, operands, text, constraints,
                        /*sideEffects=*/false);
    SmallVector<Value> d;
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(builder.create<LLVM::ExtractValueOp>(loc, mma.getResult(0),
                                                       ArrayRef<int64_t>{i}));
    return d;
  }
  /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`.
  FailureOr<SmallVector<Value>>
  buildSharedMatrixLoad(OpBuilder &builder, Location loc, Value address,
                        unsigned count, bool transpose) const override {
    if (count != 1 && count != 2 && count != 4)
      return failure();
    MLIRContext *context = builder.getContext();
    Type i32 = builder.getI32Type();
    Value shared = builder.create<LLVM::PtrToIntOp>(loc, i32, address);
    std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                       (transpose ? ".trans" : "") + ".shared.b16 {";
    std::string constraints;
    for (unsigned i = 0; i < count; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += "=r,";
    }
    text += "}, [$" + std::to_string(count) + "];";
    constraints += "r";
    Type result = count == 1 ? i32
                             : Type(LLVM::LLVMStructType::getLiteral(
                                   context, SmallVector<Type>(count, i32)));
    auto load = buildPtx(builder, loc, result, ValueRange{shared}, text,
                         constraints, /*sideEffects=*/true);
    SmallVector<Value> values;
    if (count == 1)
      values.push_back(load.getResult(0));
    else
      for (unsigned i = 0; i < count; ++i)
        values.push_back(builder.create<LLVM::ExtractValueOp>(
            loc, load.getResult(0),
            ArrayRef<int64_t>{static_cast<int64_t>(i)}));
    return values;
  }
};

} // namespace

} // namespace tegula::nvidia

namespace {

/// The 64-bit wgmma matrix descriptor of |operand| (PTX ISA, "Matrix
/// Descriptor Format"): address >> 4 in bits 0-13, the leading-dimension
/// byte offset >> 4 in 16-29, the stride-dimension byte offset >> 4 (8 rows
/// of one swizzle atom) in 32-45, the swizzle mode in 62-63.
Value buildMatrixDescriptor(
    OpBuilder &builder, Location loc,
    const tegula::backend::SharedMatrixOperand &operand) {
  uint64_t mode = operand.swizzleBytes == 128  ? 1
                  : operand.swizzleBytes == 64 ? 2
                  : operand.swizzleBytes == 32 ? 3
                                               : 0;
  uint64_t fields =
      (((static_cast<uint64_t>(operand.atomStrideBytes) >> 4) & 0x3FFF) << 16) |
      (((static_cast<uint64_t>(operand.swizzleBytes * 8) >> 4) & 0x3FFF)
       << 32) |
      (mode << 62);
  Type i64 = builder.getI64Type();
  Value address = builder.create<arith::ExtUIOp>(loc, i64, operand.address);
  Value start = builder.create<arith::AndIOp>(
      loc,
      builder.create<arith::ShRUIOp>(loc, address,
                                     constantI64(builder, loc, 4)),
      constantI64(builder, loc, 0x3FFF));
  return builder.create<arith::OrIOp>(
      loc, start, constantI64(builder, loc, static_cast<int64_t>(fields)));
}

/// The value of an arith or LLVM constant (the two the lowering makes), else
/// null.
Attribute constantAttr(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    return constant.getValue();
  if (auto constant = value.getDefiningOp<LLVM::ConstantOp>())
    return constant.getValue();
  return {};
}

/// An integer constant's value.
std::optional<int64_t> constantValue(Value value) {
  if (auto number = dyn_cast_or_null<IntegerAttr>(constantAttr(value)))
    return number.getValue().getSExtValue();
  return std::nullopt;
}

/// |value| as root + constant, peeling additions of constants.
std::pair<Value, int64_t> splitConstantOffset(Value value) {
  int64_t offset = 0;
  while (auto add = value.getDefiningOp<arith::AddIOp>()) {
    if (auto c = constantValue(add.getRhs())) {
      offset += *c;
      value = add.getLhs();
    } else if (auto c = constantValue(add.getLhs())) {
      offset += *c;
      value = add.getRhs();
    } else {
      break;
    }
  }
  return {value, offset};
}

} // namespace

//===----------------------------------------------------------------------===//
// nvidia.wgmma (wgmma.mma_async)
//===----------------------------------------------------------------------===//

namespace tegula::nvidia {
namespace {

/// "nvidia.wgmma" version 1: wgmma.mma_async on shared-memory operands.
class NvidiaWgmmaUnit : public backend::MatrixUnit {
public:
  llvm::StringRef getKind() const override { return "nvidia.wgmma"; }
  /// m64n256k16 (the layout narrows N) for 2-D f16 or bf16 dots into f32,
  /// m64n256k32 for fp8 ones whose operands can both be K-major in shared
  /// memory (wgmma reads 8-bit operands only K-major); M a power of 2 and a
  /// multiple of 64, K a multiple of the instruction's, N of 16, on warps
  /// that form warp groups and split N evenly.
  std::optional<MatrixInstruction>
  selectInstruction(const DotProblem &dot) const override {
    int64_t instrK = isHalfToFloat(dot) ? 16
                     : isFp8ToFloat(dot) && dot.aKContiguous &&
                             dot.bKContiguous
                         ? 32
                         : 0;
    // Warp groups of 4 warps, 64 rows each (getResultLayout spreads them),
    // operands from shared memory; no batch.
    if (dot.batch == 0 && instrK && dot.numWarps % 4 == 0 &&
        dot.m % 64 == 0 && (dot.m & (dot.m - 1)) == 0 &&
        dot.k % instrK == 0 && dot.n % 16 == 0) {
      int64_t wm =
          std::min<int64_t>(dot.numWarps, std::max<int64_t>(4, dot.m / 16));
      int64_t wn = dot.numWarps / wm;
      int64_t perGroup = dot.n / wn;
      if (dot.n % wn == 0 && perGroup % 16 == 0 &&
          (perGroup <= 256 || perGroup % 256 == 0))
        return MatrixInstruction{this, 1, 64, 256,
                                 static_cast<unsigned>(instrK)};
    }
    return std::nullopt;
  }
  /// Warp groups: four warps side by side along M share one m64 x n
  /// instruction; groups go along M while M has 64 rows for each, then
  /// along N; one instruction covers the group's share of N (at most
  /// instr.n columns).
  MatrixLayout getResultLayout(ArrayRef<int64_t> shape,
                               const MatrixInstruction &instr,
                               unsigned numWarps) const override {
    int64_t rank = shape.size();
    int64_t m = shape[rank - 2], n = shape[rank - 1];
    int64_t wm = std::min<int64_t>(numWarps, std::max<int64_t>(4, m / 16));
    int64_t wn = numWarps / wm;
    MatrixLayout layout;
    layout.kind = getKind().str();
    layout.version = {instr.version};
    layout.warpsPerCTA.assign(rank, 1);
    layout.warpsPerCTA[rank - 2] = wm;
    layout.warpsPerCTA[rank - 1] = wn;
    layout.instrShape = {64, std::min<int64_t>(instr.n, n / wn)};
    return layout;
  }
  /// The accumulator: a warp holds 16 rows of its group's 64; within them,
  /// register 4j + {0,1,2,3} of lane (g, t) is (g, 8j + 2t + {0,1}) and
  /// (g + 8, 8j + 2t + {0,1}): wgmma's own register order. The warps of a
  /// group go along M, then groups along M, then N; repetitions cover the
  /// rest. The operands have no register layout (shared memory).
  FailureOr<LinearLayout> getLinearLayout(const MatrixLayout &layout,
                                          ArrayRef<int64_t> shape,
                                          int64_t opIdx, int64_t,
                                          std::string &error) const override {
    ArrayRef<int64_t> warps = layout.warpsPerCTA;
    if (!isLayout(layout, 1, {}) || layout.instrShape.size() != 2) {
      error = "nvidia.wgmma layouts are version 1 with M x N instructions";
      return failure();
    }
    if (shape.size() != 2 || warps.size() != 2) {
      error = "an nvidia.wgmma layout has rank 2";
      return failure();
    }
    if (opIdx >= 0) {
      error = "the operands of an nvidia.wgmma dot live in shared memory, not "
              "in registers";
      return failure();
    }
    int64_t instrN = layout.instrShape[1];
    if (warps[0] % 4 != 0 || instrN % 8 != 0) {
      error = "an nvidia.wgmma layout needs warp groups along M and "
              "instructions a multiple of 8 wide";
      return failure();
    }
    LinearLayout bases;
    bases.shape.assign(shape.begin(), shape.end());
    SmallVector<int64_t> covered(2, 1);
    bases.add(bases.reg, covered, 1, 2);
    bases.add(bases.lane, covered, 1, 4);
    bases.add(bases.lane, covered, 0, 8);
    bases.add(bases.reg, covered, 0, 2);
    bases.add(bases.reg, covered, 1, instrN / 8);
    bases.add(bases.warp, covered, 0, warps[0]);
    bases.add(bases.warp, covered, 1, warps[1]);
    bases.repeat(covered, {1, 0});
    return bases;
  }
  /// 16 for f16/bf16 into f32, 32 for fp8 (e4m3, e5m2) into f32.
  FailureOr<int64_t> getInstructionK(const MatrixLayout &, Type a, Type b,
                                     Type acc,
                                     std::string &error) const override {
    bool half = a == b && (a.isF16() || a.isBF16());
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(a) &&
               isa<Float8E4M3FNType, Float8E5M2Type>(b);
    if (!(half || fp8) || !acc.isF32()) {
      error = "nvidia.wgmma dots take f16 or bf16 operands, or fp8 (e4m3, "
              "e5m2) ones, into f32";
      return failure();
    }
    return half ? 16 : 32;
  }
  bool readsSharedOperands(const backend::MatrixLayout &) const override {
    return true;
  }
  /// The widest of 128, 64 and 32 bytes that the contiguous extent fills
  /// (a power of 2 of at least 16 elements), rows in eights.
  FailureOr<int64_t>
  getSharedOperandSwizzle(const MatrixLayout &, int64_t extent, int64_t rows,
                          unsigned elementBits,
                          std::string &error) const override {
    int64_t bytes = extent * elementBits / 8;
    int64_t swizzle = std::min<int64_t>(128, bytes);
    if ((elementBits != 16 && elementBits != 8) || swizzle < 32 ||
        bytes % swizzle || !llvm::isPowerOf2_64(extent) || rows % 8) {
      error = "a shared matrix operand of nvidia.wgmma needs 8- or 16-bit "
              "elements, at least 32 bytes (a power of 2 elements) along its "
              "contiguous dimension and rows in eights";
      return failure();
    }
    return swizzle;
  }
  int64_t getWarpsPerInstruction(const backend::MatrixLayout &) const override {
    return 4;
  }
  /// A of 16-bit elements, when the warps go along M only.
  bool takesRegisterOperand(const MatrixLayout &layout, int64_t opIdx,
                            unsigned elementBits) const override {
    // wgmma reads A (not B) from registers: the accumulator layout of an
    // earlier dot holds its fragments when every warp has whole rows.
    return opIdx == 0 && layout.warpsPerCTA.size() == 2 &&
           layout.warpsPerCTA[1] == 1 && elementBits == 16;
  }
  /// `fence.proxy.async.shared::cta`: stores to shared memory become
  /// visible to wgmma.
  void buildSharedOperandFence(OpBuilder &builder,
                               Location loc) const override {
    buildSideEffectAsm(builder, loc, "fence.proxy.async.shared::cta;");
  }
  /// One inline-asm statement per group: `wgmma.fence`, one
  /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` (k32 and
  /// {e4m3,e5m2} for each fp8 operand) per instruction
  /// (B, and A unless in registers, described by shared-memory matrix
  /// descriptors derived from one root per K chain), `wgmma.commit_group`
  /// and `wgmma.wait_group pendingGroups`; the accumulators are the
  /// statement's outputs, so nothing reads them before the wait (with
  /// pendingGroups 1 the caller keeps them for a later group or for
  /// buildSharedMultiplyWait).
  FailureOr<SmallVector<Value>>
  buildSharedMultiply(OpBuilder &builder, Location loc,
                      const MatrixLayout &layout,
                      const tegula::backend::SharedMatrixMultiply &group,
                      ValueRange acc) const override {
    std::string aType = wgmmaElementType(group.aType),
                bType = wgmmaElementType(group.bType);
    // 16-bit operands of one type with K = 16, or fp8 ones with K = 32 (and
    // no transposed operand: wgmma reads 8-bit operands K-major only).
    bool half = group.aType == group.bType &&
                (group.aType.isF16() || group.aType.isBF16());
    bool fp8 = !half && !aType.empty() && !bType.empty();
    if (!isLayout(layout, 1, {}) || group.m != 64 ||
        group.k != (half ? 16 : 32) || !(half || fp8) || group.n < 8 ||
        group.n > 256 || group.n % 8 != 0)
      return failure();
    int64_t numAcc = group.n / 2;
    for (Value value : acc)
      if (!value.getType().isF32())
        return failure();
    const auto &instructions = group.instructions;
    int64_t total = static_cast<int64_t>(acc.size());
    for (const auto &instruction : instructions) {
      if (static_cast<int64_t>(instruction.accIndices.size()) != numAcc ||
          llvm::any_of(instruction.accIndices, [&](int64_t index) {
            return index < 0 || index >= total;
          }))
        return failure();
      bool aInRegisters = !instruction.a.registers.empty();
      if (aInRegisters && instruction.a.registers.size() != 4)
        return failure();
      if (fp8 && (instruction.a.mnMajor || instruction.b.mnMajor))
        return failure();
    }

    MLIRContext *context = builder.getContext();
    Type f32 = builder.getF32Type();
    // Accumulators that are still the constant +0.0 (a dot without an
    // accumulator: attention's QK^T): the instruction that first writes them
    // runs with scale-d false (D = A*B), so no zeros are moved into them.
    SmallVector<bool> zero(total);
    for (auto [i, value] : llvm::enumerate(acc)) {
      auto number = dyn_cast_or_null<FloatAttr>(constantAttr(value));
      zero[i] = number && number.getValue().isPosZero();
    }

    // The chains: runs of instructions on the same accumulators (a dot's K
    // steps). A chain whose accumulators are all still zero is fresh: its
    // first instruction runs with scale-d false and they need no input.
    struct Chain {
      size_t first, end;
      bool fresh;
    };
    SmallVector<Chain> chains;
    SmallVector<bool> tied(total, true);
    for (size_t first = 0; first < instructions.size();) {
      size_t end = first + 1;
      while (end < instructions.size() &&
             instructions[end].accIndices == instructions[first].accIndices)
        ++end;
      ArrayRef<int64_t> indices = instructions[first].accIndices;
      bool fresh = llvm::all_of(indices, [&](int64_t i) { return zero[i]; });
      for (int64_t i : indices) {
        if (fresh)
          tied[i] = false;
        zero[i] = false;
      }
      chains.push_back({first, end, fresh});
      first = end;
    }

    // The whole group is one asm statement: fence, the chains, commit and
    // wait. Every accumulator crosses LLVM once, as an output ($0..$N-1) tied
    // to its input unless a fresh chain writes it; then the scale-d sources
    // (0 for predicate p, 1 for q), then per chain the root descriptors of A
    // and B where the chain shares them, and per instruction A (a descriptor,
    // or four registers) and B's descriptor where not. With A in registers
    // there is no transpose bit for A. Nothing reads an accumulator before
    // the wait: the outputs are defined by the statement that waits.
    std::string constraints;
    SmallVector<Value> operands;
    for (int64_t i = 0; i < total; ++i)
      constraints += (i ? ",=f" : "=f");
    for (int64_t i = 0; i < total; ++i)
      if (tied[i]) {
        constraints += "," + std::to_string(i);
        operands.push_back(acc[i]);
      }
    int64_t next = total + static_cast<int64_t>(operands.size());
    operands.push_back(constantI32(builder, loc, 0));
    operands.push_back(constantI32(builder, loc, 1));
    constraints += ",r,r";
    std::string text = "{\n.reg .pred p, q;\n.reg .b64 da, db;\n"
                       "setp.ne.b32 p, $" +
                       std::to_string(next) + ", 0;\nsetp.ne.b32 q, $" +
                       std::to_string(next + 1) + ", 0;\n" +
                       "wgmma.fence.sync.aligned;\n";
    next += 2;

    std::string shape =
        "m64n" + std::to_string(group.n) + "k" + std::to_string(group.k);
    for (const Chain &chain : chains) {
      std::string accList = "{";
      for (auto [j, index] :
           llvm::enumerate(instructions[chain.first].accIndices))
        accList += (j ? ", $" : "$") + std::to_string(index);
      accList += "}";
      // Where every instruction's operand address is one root plus a
      // constant, the root's descriptor is the only operand and each step's
      // is derived in the statement (the start address field counts 16-byte
      // units; shared addresses stay below 2^18, so no carry leaves it).
      // LLVM then has one descriptor to keep instead of one per K step.
      auto sharedRoot = [&](auto operandOf) -> std::optional<int64_t> {
        auto [root, offset] =
            splitConstantOffset(operandOf(chain.first).address);
        for (size_t j = chain.first; j < chain.end; ++j) {
          auto [other, otherOffset] = splitConstantOffset(operandOf(j).address);
          if (other != root || otherOffset % 16 || otherOffset < 0 ||
              otherOffset >= (1 << 18))
            return std::nullopt;
        }
        tegula::backend::SharedMatrixOperand base = operandOf(chain.first);
        base.address = root;
        operands.push_back(buildMatrixDescriptor(builder, loc, base));
        constraints += ",l";
        return next++;
      };
      // The descriptor of |operand| in the statement: "$n", or the derived
      // register |name| after the add that sets it.
      auto descriptor = [&](std::optional<int64_t> rootIndex,
                            const tegula::backend::SharedMatrixOperand &operand,
                            StringRef name) -> std::string {
        if (!rootIndex) {
          constraints += ",l";
          operands.push_back(buildMatrixDescriptor(builder, loc, operand));
          return "$" + std::to_string(next++);
        }
        int64_t units = splitConstantOffset(operand.address).second / 16;
        if (units == 0)
          return "$" + std::to_string(*rootIndex);
        text += "add.s64 " + name.str() + ", $" + std::to_string(*rootIndex) +
                ", " + std::to_string(units) + ";\n";
        return name.str();
      };
      bool aInRegisters = !instructions[chain.first].a.registers.empty();
      for (size_t j = chain.first; j < chain.end; ++j)
        if (instructions[j].a.registers.empty() == aInRegisters)
          return failure();
      std::optional<int64_t> aRoot, bRoot;
      if (!aInRegisters)
        aRoot = sharedRoot([&](size_t j) { return instructions[j].a; });
      bRoot = sharedRoot([&](size_t j) { return instructions[j].b; });
      for (size_t j = chain.first; j < chain.end; ++j) {
        const auto &instruction = instructions[j];
        std::string a;
        if (aInRegisters) {
          a = "{";
          for (int64_t i = 0; i < 4; ++i)
            a += (i ? ", $" : "$") + std::to_string(next + i);
          a += "}";
          constraints += ",r,r,r,r";
          llvm::append_range(operands, instruction.a.registers);
          next += 4;
        } else {
          a = descriptor(aRoot, instruction.a, "da");
        }
        std::string b = descriptor(bRoot, instruction.b, "db");
        text += "wgmma.mma_async.sync.aligned." + shape + ".f32." + aType +
                "." + bType + " " + accList + ", " + a + ", " + b +
                (j == chain.first && chain.fresh ? ", p" : ", q") + ", 1, 1";
        // The transpose immediates exist for 16-bit operands only.
        if (half) {
          if (!aInRegisters)
            text += std::string(instruction.a.mnMajor ? ", 1" : ", 0");
          text += std::string(instruction.b.mnMajor ? ", 1" : ", 0");
        }
        text += ";\n";
      }
    }
    if (group.pendingGroups < 0 || group.pendingGroups > 1)
      return failure();
    text += "wgmma.commit_group.sync.aligned;\n"
            "wgmma.wait_group.sync.aligned " +
            std::to_string(group.pendingGroups) + ";\n}";
    auto resultType = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(total, f32));
    auto mma = buildPtx(builder, loc, resultType, operands, text, constraints,
                        /*sideEffects=*/true);
    SmallVector<Value> result;
    for (int64_t i = 0; i < total; ++i)
      result.push_back(builder.create<LLVM::ExtractValueOp>(
          loc, mma.getResult(0), ArrayRef<int64_t>{i}));
    return result;
  }
  bool hasAsyncGroups(const MatrixLayout &layout) const override {
    return isLayout(layout, 1, {});
  }
  /// `wgmma.wait_group pending` with every accumulator an output tied to its
  /// input: the values after the statement are those the retired groups
  /// wrote.
  FailureOr<SmallVector<Value>>
  buildSharedMultiplyWait(OpBuilder &builder, Location loc,
                          const MatrixLayout &layout, int64_t pending,
                          ValueRange acc) const override {
    if (!hasAsyncGroups(layout) || pending < 0 || pending > 7 ||
        llvm::any_of(acc, [](Value v) { return !v.getType().isF32(); }))
      return failure();
    int64_t total = static_cast<int64_t>(acc.size());
    std::string constraints;
    for (int64_t i = 0; i < total; ++i)
      constraints += (i ? ",=f" : "=f");
    for (int64_t i = 0; i < total; ++i)
      constraints += "," + std::to_string(i);
    std::string text =
        "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
    SmallVector<Type> types(total, builder.getF32Type());
    Type resultType =
        total == 1 ? types.front()
                   : LLVM::LLVMStructType::getLiteral(builder.getContext(),
                                                      types);
    auto wait = buildPtx(builder, loc, resultType, acc, text, constraints,
                         /*sideEffects=*/true);
    if (total == 1)
      return SmallVector<Value>{wait.getResult(0)};
    SmallVector<Value> result;
    for (int64_t i = 0; i < total; ++i)
      result.push_back(builder.create<LLVM::ExtractValueOp>(
          loc, wait.getResult(0), ArrayRef<int64_t>{i}));
    return result;
  }
};

} // namespace

} // namespace tegula::nvidia

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

namespace tegula::nvidia {
namespace {

/// cp.async (sm_80 and later).
class NvidiaAsyncCopy : public backend::AsyncCopy {
public:
  /// `cp.async.{cg,ca}.shared.global` with a source size of 0 where
  /// |predicate| is false.
  LogicalResult buildCopy(OpBuilder &builder, Location loc, Value destination,
                          Value source, int64_t bytes,
                          Value predicate) const override {
    if (bytes != 4 && bytes != 8 && bytes != 16)
      return failure();
    MLIRContext *context = builder.getContext();
    Type i32 = builder.getI32Type();
    Value shared = builder.create<LLVM::PtrToIntOp>(loc, i32, destination);
    Value size = constantI32(builder, loc, static_cast<int32_t>(bytes));
    if (predicate)
      size = builder.create<arith::SelectOp>(loc, predicate, size,
                                             constantI32(builder, loc, 0));
    // .cg (L2 only) exists for 16-byte copies; smaller ones take .ca.
    std::string text = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
                       ".shared.global [$0], [$1], " + std::to_string(bytes) +
                       ", $2;";
    buildPtx(builder, loc, LLVM::LLVMVoidType::get(context),
             ValueRange{shared, source, size}, text, "r,l,r,~{memory}",
             /*sideEffects=*/true);
    return success();
  }
  /// `cp.async.commit_group`.
  void buildCommit(OpBuilder &builder, Location loc) const override {
    buildSideEffectAsm(builder, loc, "cp.async.commit_group;");
  }
  /// `cp.async.wait_group pending`.
  void buildWait(OpBuilder &builder, Location loc,
                 int64_t pending) const override {
    buildSideEffectAsm(builder, loc,
                       "cp.async.wait_group " + std::to_string(pending) + ";");
  }
};

} // namespace

} // namespace tegula::nvidia

//===----------------------------------------------------------------------===//
// The plugin's instances
//===----------------------------------------------------------------------===//

const tegula::backend::MatrixUnit &tegula::nvidia::getNvidiaMmaUnit() {
  static const NvidiaMmaUnit unit;
  return unit;
}

const tegula::backend::MatrixUnit &tegula::nvidia::getNvidiaWgmmaUnit() {
  static const NvidiaWgmmaUnit unit;
  return unit;
}

const tegula::backend::AsyncCopy &tegula::nvidia::getNvidiaAsyncCopy() {
  static const NvidiaAsyncCopy copies;
  return copies;
}

void tegula::nvidia::addNvidiaMatrixUnits(backend::MatrixUnitRegistry &units) {
  units.add(getNvidiaMmaUnit());
  units.add(getNvidiaWgmmaUnit());
}
