//===- Dot.cpp - tl.dot as fused multiply-adds ----------------------------===//
//
// The portable dot: D = A x B + C with A [M, K], B [K, N] (a rank-3 dot
// is a loop over the batch). Rows of D are
// processed four at a time and columns a chunk at a time, each (4 x chunk)
// block of accumulators kept in vectors across the K loop: per k, one chunk
// of B's row k and four broadcast elements of A. Operands are converted to
// the accumulator type first (f16/bf16 to f32, i8 to i32); an f16 or bf16
// accumulator is computed in f32 and rounded when stored. Matrix units are
// the distributed lowering's, through a target's families (DistDot.cpp,
// tegula/BackendKit/MatrixUnit.h).
//
//===----------------------------------------------------------------------===//

#include "LoweringImpl.h"

using namespace mlir;
using namespace tegula;
using namespace tegula::lowering;

Value tegula::lowering::convertDotOperand(Lowerer &l, Location loc, Value value,
                                          Type from, Type to, int64_t width) {
  OpBuilder &b = l.b;
  if (from == to)
    return value;
  Type target = l.chunkType(to, width);
  if (isa<Float8E4M3FNType, Float8E5M2Type>(from))
    return convertDotOperand(l, loc, decodeFp8ToF32(l, loc, value, from),
                             b.getF32Type(), to, width);
  if (isa<IntegerType>(from))
    return b.create<arith::ExtSIOp>(loc, target, value);
  if (from.isBF16()) {
    Value bits = b.create<arith::BitcastOp>(
        loc, l.chunkType(b.getI16Type(), width), value);
    Value wide =
        b.create<arith::ExtUIOp>(loc, l.chunkType(b.getI32Type(), width), bits);
    Value shifted = b.create<arith::ShLIOp>(
        loc, wide, l.constantChunk(loc, b.getI32IntegerAttr(16), width));
    Value f32 = b.create<arith::BitcastOp>(
        loc, l.chunkType(b.getF32Type(), width), shifted);
    return convertDotOperand(l, loc, f32, b.getF32Type(), to, width);
  }
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return b.create<arith::ExtFOp>(loc, target, value);
  return b.create<arith::TruncFOp>(loc, target, value);
}

Value tegula::lowering::roundAccumulator(Lowerer &l, Location loc, Value value,
                                         Type acc, Type dElem, int64_t width) {
  OpBuilder &b = l.b;
  // Round to the accumulator's storage type (f16 / bf16).
  if (acc == dElem)
    return value;
  if (dElem.isBF16()) {
    Value f32 = value;
    Value bits = b.create<arith::BitcastOp>(
        loc, l.chunkType(b.getI32Type(), width), f32);
    Value lsb = b.create<arith::AndIOp>(
        loc,
        b.create<arith::ShRUIOp>(
            loc, bits, l.constantChunk(loc, b.getI32IntegerAttr(16), width)),
        l.constantChunk(loc, b.getI32IntegerAttr(1), width));
    Value rounded = b.create<arith::AddIOp>(
        loc,
        b.create<arith::AddIOp>(
            loc, bits,
            l.constantChunk(loc, b.getI32IntegerAttr(0x7FFF), width)),
        lsb);
    Value top = b.create<arith::ShRUIOp>(
        loc, rounded, l.constantChunk(loc, b.getI32IntegerAttr(16), width));
    Value half =
        b.create<arith::TruncIOp>(loc, l.chunkType(b.getI16Type(), width), top);
    value = b.create<arith::BitcastOp>(loc, l.chunkType(b.getBF16Type(), width),
                                       half);
  } else {
    value = b.create<arith::TruncFOp>(loc, l.chunkType(dElem, width), value);
  }
  return value;
}

tegula::lowering::DotTypes::DotTypes(tile::DotOp op)
    : aType(cast<RankedTensorType>(op.getA().getType())),
      bType(cast<RankedTensorType>(op.getB().getType())),
      dType(cast<RankedTensorType>(op.getD().getType())),
      aElem(aType.getElementType()), bElem(bType.getElementType()),
      dElem(dType.getElementType()),
      acc(dElem.isF16() || dElem.isBF16() ? Float32Type::get(op.getContext())
                                          : dElem) {}

std::optional<LogicalResult>
tegula::lowering::lowerDotOp(Lowerer &l, Operation *op, DotLowering lower) {
  auto dot = dyn_cast<tile::DotOp>(op);
  if (!dot)
    return std::nullopt;
  // fp8 operands multiply as the f32 values they hold (exactly); an fp8
  // result has no accumulator type (Triton's tl.dot refuses it too).
  if (isa<Float8E4M3FNType, Float8E5M2Type>(
          getElementTypeOrSelf(dot.getD())))
    return l.unsupported(op, "a dot's result cannot be fp8: accumulate in "
                             "fp32 or fp16 and convert");
  return lower(dot, DotTypes(dot));
}

Value tegula::lowering::multiplyAdd(Lowerer &l, Location loc, Value x, Value y,
                                    Value sum) {
  OpBuilder &b = l.b;
  if (isa<FloatType>(getElementTypeOrSelf(sum)))
    return b.create<LLVM::FMAOp>(loc, x, y, sum);
  return b.create<arith::AddIOp>(loc, sum, b.create<arith::MulIOp>(loc, x, y));
}

namespace {

LogicalResult lowerDot(Lowerer &l, tile::DotOp op, const DotTypes &types) {
  auto [aType, bType, dType, aElem, bElem, dElem, acc] = types;
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  // A rank-3 dot is a batch of independent matrix products.
  int64_t first = aType.getRank() - 2;
  int64_t batch = first == 1 ? aType.getDimSize(0) : 1;
  int64_t m = aType.getDimSize(first), k = aType.getDimSize(first + 1),
          n = bType.getDimSize(first + 1);
  int64_t width = Lowerer::chunkWidth(n);
  int64_t rows = m % 4 == 0 ? 4 : (m % 2 == 0 ? 2 : 1);
  Value aAll = l.lookup(op.getA()), bAll = l.lookup(op.getB());
  Value cAll = l.lookup(op.getC());
  Value dAll = l.allocTile(loc, dType, op.getD());

  auto loopOver = [&](int64_t upper, int64_t step,
                      llvm::function_ref<void(Value)> body) {
    auto loop = b.create<scf::ForOp>(
        loc, l.constI64(loc, 0), l.constI64(loc, upper), l.constI64(loc, step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  };
  auto matmul = [&](Value aBuf, Value bBuf, Value cBuf, Value dBuf) {
    loopOver(m, rows, [&](Value i) {
      loopOver(n, width, [&](Value j) {
        SmallVector<Value> rowBase, init;
        for (int64_t r = 0; r < rows; ++r) {
          Value row = b.create<arith::AddIOp>(loc, i, l.constI64(loc, r));
          Value at = b.create<arith::AddIOp>(
              loc, b.create<arith::MulIOp>(loc, row, l.constI64(loc, n)), j);
          rowBase.push_back(row);
          init.push_back(convertDotOperand(
              l, loc, l.loadChunk(loc, cBuf, dElem, at, width), dElem, acc,
              width));
        }
        auto kLoop =
            b.create<scf::ForOp>(loc, l.constI64(loc, 0), l.constI64(loc, k),
                                 l.constI64(loc, 1), init);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(kLoop.getBody());
          Value kk = kLoop.getInductionVar();
          Value bAt = b.create<arith::AddIOp>(
              loc, b.create<arith::MulIOp>(loc, kk, l.constI64(loc, n)), j);
          Value bChunk = convertDotOperand(
              l, loc, l.loadChunk(loc, bBuf, bElem, bAt, width), bElem, acc,
              width);
          SmallVector<Value> next;
          for (int64_t r = 0; r < rows; ++r) {
            Value aAt = b.create<arith::AddIOp>(
                loc,
                b.create<arith::MulIOp>(loc, rowBase[r], l.constI64(loc, k)),
                kk);
            Value aValue = convertDotOperand(
                l, loc, l.loadChunk(loc, aBuf, aElem, aAt, 1), aElem, acc, 1);
            Value aChunk = l.splatChunk(loc, aValue, width);
            next.push_back(multiplyAdd(l, loc, aChunk, bChunk,
                                       kLoop.getRegionIterArgs()[r]));
          }
          b.create<scf::YieldOp>(loc, next);
        }
        for (int64_t r = 0; r < rows; ++r) {
          Value at = b.create<arith::AddIOp>(
              loc, b.create<arith::MulIOp>(loc, rowBase[r], l.constI64(loc, n)),
              j);
          Value value = kLoop.getResult(r);
          value = roundAccumulator(l, loc, value, acc, dElem, width);
          l.storeChunk(loc, dBuf, dElem, at, value);
        }
      });
    });
  };
  if (batch == 1) {
    matmul(aAll, bAll, cAll, dAll);
  } else {
    loopOver(batch, 1, [&](Value bi) {
      auto at = [&](Value buffer, Type elem, int64_t size) {
        return l.elementAddress(
            loc, buffer, elem,
            b.create<arith::MulIOp>(loc, bi, l.constI64(loc, size)));
      };
      matmul(at(aAll, aElem, m * k), at(bAll, bElem, k * n),
             at(cAll, dElem, m * n), at(dAll, dElem, m * n));
    });
  }
  l.map.map(op.getD(), dAll);
  return success();
}

} // namespace

std::optional<LogicalResult> tegula::lowering::lowerDotFamily(Lowerer &l,
                                                              Operation *op) {
  return lowerDotOp(l, op, [&](tile::DotOp dot, const DotTypes &types) {
    return lowerDot(l, dot, types);
  });
}
