//===- NvidiaMatrixUnits.h - NVIDIA's matrix units and async copies -*- C++ -*-===//
//
// NVIDIA's matrix-unit families (tegula/BackendKit/MatrixUnit.h), owned by
// this plugin and handed to the layout engine (NvidiaLayoutPolicy) and the
// lowering (NvidiaCompiler's MatrixUnitRegistry):
//
//   "nvidia.mma" version 2 - mma.sync (sm_80 and later), operands in
//     registers: m16n8k16 on f16/bf16, m16n8k8 on f32 as tf32, m16n8k32 on
//     i8 (into i32), one warp per 16x8 instruction tile. Operand fragments
//     come through padded shared memory with ldmatrix where the registers
//     do not line up.
//   "nvidia.wgmma" version 1 - wgmma.mma_async (sm_90a), m64nNk16 on
//     f16/bf16 into f32 issued by warp groups of 4 warps, both operands in
//     swizzled shared memory (128-, 64- or 32-byte swizzle; A may stay in
//     the registers of an earlier dot's accumulator), described by matrix
//     descriptors.
//
// With them, NvidiaAsyncCopy: cp.async, the AsyncCopy extension the target
// hooks return, which fills the shared operands of software-pipelined
// loops.
//
// The lane maps (getLinearLayout) are PTX's fragment layouts ("Matrix
// Fragments for mma.m16n8k16", "Register Fragments and Shared Memory
// Matrix Layouts" for wgmma); every family is stateless.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H

#include "tegula/BackendKit/AsyncCopy.h"
#include "tegula/BackendKit/MatrixUnit.h"

namespace tegula::nvidia {

/// "nvidia.mma" version 2: mma.sync.aligned on register fragments.
class NvidiaMmaUnit : public backend::MatrixUnit {
public:
  llvm::StringRef getKind() const override { return "nvidia.mma"; }
  /// m16n8k16 for f16 or bf16 operands into f32, m16n8k8 for f32 operands
  /// at tf32 precision (tl.dot's default for f32), m16n8k32 for i8 into
  /// i32: when M, N and K are multiples of the instruction's.
  std::optional<backend::MatrixInstruction>
  selectInstruction(const backend::DotProblem &dot) const override;
  /// With g = lane / 4 and t = lane % 4, a warp's fragments are: C c0..c3
  /// at (g, 2t + {0,1}), (g + 8, 2t + {0,1}); A (kWidth = 2) a0..a7 at
  /// (g, 2t + {0,1}), (g + 8, ..), (g, 2t + 8 + {0,1}), (g + 8, 2t + 8 + ..);
  /// B b0..b3 at (k = 2t + {0,1}, n = g), (k = 2t + 8 + {0,1}, g); kWidth 1
  /// (tf32) and 4 (i8) group K alike. Warps tile M first, then N, then the
  /// batch; repetitions cover the rest. Rank 2 or 3.
  mlir::FailureOr<backend::LinearLayout>
  getLinearLayout(const backend::MatrixLayout &layout,
                  llvm::ArrayRef<int64_t> shape, int64_t opIdx, int64_t kWidth,
                  std::string &error) const override;
  /// 16 for f16/bf16 into f32, 8 for f32 (as tf32) into f32, 32 for i8
  /// into i32.
  mlir::FailureOr<int64_t> getInstructionK(const backend::MatrixLayout &layout,
                                           mlir::Type a, mlir::Type b,
                                           mlir::Type acc,
                                           std::string &error) const override;
  /// One `mma.sync.aligned.m16n8k{16,8,32}.row.col` as inline PTX, the
  /// operand type choosing the shape: 8 A and 4 B f16 or bf16 elements, 4 A
  /// and 2 B f32 elements (tf32), or 16 A and 8 B i8 elements, packed into
  /// .b32 registers, with 4 f32 (i32 for i8) C elements. Failure for any
  /// other layout version, shape or types.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                const backend::MatrixLayout &layout, mlir::ValueRange a,
                mlir::ValueRange b, mlir::ValueRange c) const override;
  /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixLoad(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value address, unsigned count,
                        bool transpose) const override;
};

/// "nvidia.wgmma" version 1: wgmma.mma_async on shared-memory operands.
class NvidiaWgmmaUnit : public backend::MatrixUnit {
public:
  llvm::StringRef getKind() const override { return "nvidia.wgmma"; }
  /// m64n256k16 (the layout narrows N) for 2-D f16 or bf16 dots into f32
  /// whose M is a power of 2 and a multiple of 64, whose K and N are
  /// multiples of 16, on warps that form warp groups and split N evenly.
  std::optional<backend::MatrixInstruction>
  selectInstruction(const backend::DotProblem &dot) const override;
  /// Warp groups: four warps side by side along M share one m64 x n
  /// instruction; groups go along M while M has 64 rows for each, then
  /// along N; one instruction covers the group's share of N (at most
  /// instr.n columns).
  backend::MatrixLayout getResultLayout(llvm::ArrayRef<int64_t> shape,
                                        const backend::MatrixInstruction &instr,
                                        unsigned numWarps) const override;
  /// The accumulator: a warp holds 16 rows of its group's 64; within them,
  /// register 4j + {0,1,2,3} of lane (g, t) is (g, 8j + 2t + {0,1}) and
  /// (g + 8, 8j + 2t + {0,1}): wgmma's own register order. The warps of a
  /// group go along M, then groups along M, then N; repetitions cover the
  /// rest. The operands have no register layout (shared memory).
  mlir::FailureOr<backend::LinearLayout>
  getLinearLayout(const backend::MatrixLayout &layout,
                  llvm::ArrayRef<int64_t> shape, int64_t opIdx, int64_t kWidth,
                  std::string &error) const override;
  /// 16 for f16/bf16 into f32.
  mlir::FailureOr<int64_t> getInstructionK(const backend::MatrixLayout &layout,
                                           mlir::Type a, mlir::Type b,
                                           mlir::Type acc,
                                           std::string &error) const override;
  bool readsSharedOperands(const backend::MatrixLayout &) const override {
    return true;
  }
  /// The widest of 128, 64 and 32 bytes that the contiguous extent fills
  /// (a power of 2 of at least 16 elements), rows in eights.
  mlir::FailureOr<int64_t>
  getSharedOperandSwizzle(const backend::MatrixLayout &layout, int64_t extent,
                          int64_t rows, unsigned elementBits,
                          std::string &error) const override;
  int64_t getWarpsPerInstruction(const backend::MatrixLayout &) const override {
    return 4;
  }
  /// A of 16-bit elements, when the warps go along M only.
  bool takesRegisterOperand(const backend::MatrixLayout &layout, int64_t opIdx,
                            unsigned elementBits) const override;
  /// `fence.proxy.async.shared::cta`: stores to shared memory become
  /// visible to wgmma.
  void buildSharedOperandFence(mlir::OpBuilder &builder,
                               mlir::Location loc) const override;
  /// One inline-asm statement per group: `wgmma.fence`, one
  /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` per instruction
  /// (B, and A unless in registers, described by shared-memory matrix
  /// descriptors derived from one root per K chain), `wgmma.commit_group`
  /// and `wgmma.wait_group 0`; the accumulators are the statement's
  /// outputs, so nothing reads them before the wait.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                      const backend::MatrixLayout &layout,
                      const backend::SharedMatrixMultiply &group,
                      mlir::ValueRange acc) const override;
};

/// cp.async (sm_80 and later).
class NvidiaAsyncCopy : public backend::AsyncCopy {
public:
  /// `cp.async.{cg,ca}.shared.global` with a source size of 0 where
  /// |predicate| is false.
  mlir::LogicalResult buildCopy(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::Value destination, mlir::Value source,
                                int64_t bytes,
                                mlir::Value predicate) const override;
  /// `cp.async.commit_group`.
  void buildCommit(mlir::OpBuilder &builder, mlir::Location loc) const override;
  /// `cp.async.wait_group pending`.
  void buildWait(mlir::OpBuilder &builder, mlir::Location loc,
                 int64_t pending) const override;
};

/// The plugin's families and copies (stateless, alive for the process).
const NvidiaMmaUnit &getNvidiaMmaUnit();
const NvidiaWgmmaUnit &getNvidiaWgmmaUnit();
const NvidiaAsyncCopy &getNvidiaAsyncCopy();

/// Adds the plugin's matrix-unit families to |units| (a compile's, or a
/// tool's that runs middle/'s passes on NVIDIA layouts).
void addNvidiaMatrixUnits(backend::MatrixUnitRegistry &units);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H
