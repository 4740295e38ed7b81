//===- TargetHooks.cpp - Target hooks on the gpu dialect ------------------===//

#include "tegula/BackendKit/TargetHooks.h"

#include "tegula/BackendKit/AsyncCopy.h"
#include "tegula/BackendKit/HookSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tegula::backend;

TargetHooks::~TargetHooks() = default;

llvm::SmallVector<Type>
TargetHooks::getKernelContextTypes(MLIRContext *) const {
  return {};
}

void TargetHooks::loadDialects(MLIRContext &context) const {
  context.loadDialect<LLVM::LLVMDialect, arith::ArithDialect>();
}

Value TargetHooks::buildScratchBase(OpBuilder &builder, Location loc) const {
  std::optional<SharedScratch> scratch = getSharedScratch();
  if (!scratch)
    return {};
  return getOrDeclareSharedArray(builder, loc, scratch->symbol,
                                 getSharedAddressSpace(), scratch->alignment,
                                 scratch->who);
}

std::optional<TargetHooks::SharedScratch>
TargetHooks::getSharedScratch() const {
  return std::nullopt;
}

/// The program ids along x, y and z, for "pid (x, y, z)".
static llvm::SmallVector<Value, 3> programIds(const TargetHooks &hooks,
                                              OpBuilder &builder,
                                              Location loc) {
  return {hooks.buildProgramId(builder, loc, Axis::X),
          hooks.buildProgramId(builder, loc, Axis::Y),
          hooks.buildProgramId(builder, loc, Axis::Z)};
}

LogicalResult TargetHooks::buildPrint(OpBuilder &builder, Location loc,
                                      llvm::StringRef prefix, Value index,
                                      Value value, bool isSigned,
                                      bool hex) const {
  FailureOr<PrintfCall> call =
      formatDevicePrint(builder, loc, programIds(*this, builder, loc), prefix,
                        index, value, isSigned, hex, "device print");
  if (failed(call))
    return failure();
  return buildPrintf(builder, loc, call->format, call->args);
}

LogicalResult TargetHooks::buildAssertFailure(OpBuilder &builder, Location loc,
                                              llvm::StringRef message,
                                              llvm::StringRef file,
                                              unsigned line,
                                              llvm::StringRef function,
                                              Value index) const {
  FailureOr<PrintfCall> call =
      formatAssertFailure(builder, loc, programIds(*this, builder, loc),
                          message, file, line, function, index,
                          "device assert");
  if (failed(call) ||
      failed(buildPrintf(builder, loc, call->format, call->args)))
    return failure();
  return buildAbort(builder, loc, message, file, line, function);
}

LogicalResult TargetHooks::buildBoundsFailure(
    OpBuilder &builder, Location loc, llvm::StringRef access,
    llvm::StringRef file, unsigned line, llvm::StringRef function, Value index,
    Value begin, Value end) const {
  PrintfCall call =
      formatBoundsFailure(builder, loc, programIds(*this, builder, loc), access,
                          file, line, function, index, begin, end);
  if (failed(buildPrintf(builder, loc, call.format, call.args)))
    return failure();
  return buildAbort(builder, loc, "out-of-bounds " + access.str(), file, line,
                    function);
}

LogicalResult TargetHooks::buildPrintf(OpBuilder &, Location loc,
                                       llvm::StringRef, ValueRange) const {
  return emitError(loc) << "the target has no printf for tl.device_print "
                           "and tl.device_assert";
}

LogicalResult TargetHooks::buildAbort(OpBuilder &builder, Location loc,
                                      llvm::StringRef, llvm::StringRef,
                                      unsigned, llvm::StringRef) const {
  builder.create<LLVM::Trap>(loc);
  return success();
}

void TargetHooks::buildAtomicFence(OpBuilder &, Location, bool, MemoryOrder,
                                   MemoryScope) const {}

mlir::Value TargetHooks::buildWarpUniform(mlir::OpBuilder &, mlir::Location,
                                          mlir::Value value) const {
  return value;
}

llvm::StringRef TargetHooks::getAtomicSyncScope(MemoryScope) const {
  return "";
}

const AsyncCopy *TargetHooks::getAsyncCopy() const { return nullptr; }

llvm::StringRef TargetHooks::getInlineAsmLanguage() const { return ""; }

AsyncCopy::~AsyncCopy() = default;

namespace {

gpu::Dimension toDimension(Axis axis) {
  switch (axis) {
  case Axis::X:
    return gpu::Dimension::x;
  case Axis::Y:
    return gpu::Dimension::y;
  case Axis::Z:
    return gpu::Dimension::z;
  }
  return gpu::Dimension::x;
}

gpu::ShuffleMode toMode(ShuffleKind kind) {
  switch (kind) {
  case ShuffleKind::Xor:
    return gpu::ShuffleMode::XOR;
  case ShuffleKind::Up:
    return gpu::ShuffleMode::UP;
  case ShuffleKind::Down:
    return gpu::ShuffleMode::DOWN;
  case ShuffleKind::Index:
    return gpu::ShuffleMode::IDX;
  }
  return gpu::ShuffleMode::XOR;
}

/// An index value as i32 (ids and counts fit: grids and blocks are 32-bit).
Value toI32(OpBuilder &builder, Location loc, Value index) {
  return builder.create<arith::IndexCastOp>(loc, builder.getI32Type(), index);
}

} // namespace

GpuDialectTargetHooks::GpuDialectTargetHooks(unsigned warpSize,
                                             unsigned globalAddressSpace,
                                             unsigned sharedAddressSpace)
    : warpSize(warpSize), globalSpace(globalAddressSpace),
      sharedSpace(sharedAddressSpace) {}

Value GpuDialectTargetHooks::buildProgramId(OpBuilder &builder, Location loc,
                                            Axis axis) const {
  return toI32(builder, loc,
               builder.create<gpu::BlockIdOp>(loc, toDimension(axis)));
}

Value GpuDialectTargetHooks::buildNumPrograms(OpBuilder &builder, Location loc,
                                              Axis axis) const {
  return toI32(builder, loc,
               builder.create<gpu::GridDimOp>(loc, toDimension(axis)));
}

Value GpuDialectTargetHooks::buildThreadId(OpBuilder &builder,
                                           Location loc) const {
  return toI32(builder, loc,
               builder.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x));
}

void GpuDialectTargetHooks::buildBarrier(OpBuilder &builder,
                                         Location loc) const {
  builder.create<gpu::BarrierOp>(loc);
}

Value GpuDialectTargetHooks::buildShuffle(OpBuilder &builder, Location loc,
                                          Value value, ShuffleKind kind,
                                          Value offset) const {
  Value width = builder.create<arith::ConstantIntOp>(loc, warpSize, 32);
  auto shuffle =
      builder.create<gpu::ShuffleOp>(loc, value, offset, width, toMode(kind));
  return shuffle.getShuffleResult();
}
