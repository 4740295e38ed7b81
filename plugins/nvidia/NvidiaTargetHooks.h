//===- NvidiaTargetHooks.h - What the lowering asks an NVIDIA GPU -*- C++ -*-===//
//
// TargetHooks for NVPTX, built with MLIR's NVVM and LLVM dialects: a warp is
// 32 threads, global memory is address space 1 and shared memory 3; program
// and thread ids are the PTX special registers (%ctaid, %nctaid, %tid), the
// block barrier is bar.sync 0 and cross-lane exchanges are shfl.sync over the
// full warp. The lowering's scratch is the kernel's dynamic shared memory:
// an external `[0 x i8]` array in address space 3, declared once per module.
// tl.device_print calls the CUDA device runtime's vprintf and a failed
// tl.device_assert calls __assertfail (both resolved by ptxas or the
// driver's JIT), which stops the kernel with CUDA_ERROR_ASSERT. A
// "nvidia.mma" v2 dot step is one mma.sync m16n8k16 in inline PTX.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H

#include "tegula/BackendKit/TargetHooks.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tegula::nvidia {

/// The symbol of the dynamic shared memory array the scratch base points to.
inline constexpr const char *kSharedMemorySymbol = "tegula_shared";

/// NVIDIA's answers to the generic lowering. Stateless: one instance may
/// serve concurrent compiles. The caller loads the dialects it builds with
/// (loadNvidiaHookDialects). A hook that cannot build what it is asked emits
/// an error at |loc| and returns a poison value (or failure), so the compile
/// fails with that message.
class NvidiaTargetHooks : public backend::TargetHooks {
public:
  unsigned getWarpSize() const override { return 32; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }
  /// `fence.acq_rel.{cta,gpu,sys}` before a releasing and after an acquiring
  /// atomic (LLVM 19's NVPTX drops atomic orderings).
  void buildAtomicFence(mlir::OpBuilder &builder, mlir::Location loc,
                        bool before, backend::MemoryOrder order,
                        backend::MemoryScope scope) const override;

  /// %ctaid.{x,y,z}.
  mlir::Value buildProgramId(mlir::OpBuilder &builder, mlir::Location loc,
                             backend::Axis axis) const override;
  /// %nctaid.{x,y,z}.
  mlir::Value buildNumPrograms(mlir::OpBuilder &builder, mlir::Location loc,
                               backend::Axis axis) const override;
  /// %tid.x.
  mlir::Value buildThreadId(mlir::OpBuilder &builder,
                            mlir::Location loc) const override;
  /// bar.sync 0 (nvvm.barrier0).
  void buildBarrier(mlir::OpBuilder &builder,
                    mlir::Location loc) const override;
  /// shfl.sync.{bfly,up,down,idx}.b32 over all 32 lanes (member mask
  /// 0xffffffff; clamp 0x1f, or 0 for `up`, as PTX defines them).
  mlir::Value buildShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value value, backend::ShuffleKind kind,
                           mlir::Value offset) const override;

  /// The address of the module's external `[0 x i8]` shared array (address
  /// space 3, 16-byte aligned), declared on first use.
  mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                               mlir::Location loc) const override;
  /// vprintf("pid (%u, %u, %u) idx (%lld) PREFIX VALUE\n", args): the line
  /// the host plugin prints, with Triton's spacing (no idx for a scalar, a
  /// constant -1 |index|; the prefix alone for a null |value|).
  mlir::LogicalResult buildPrint(mlir::OpBuilder &builder, mlir::Location loc,
                                 llvm::StringRef prefix, mlir::Value index,
                                 mlir::Value value, bool isSigned,
                                 bool hex) const override;
  /// Prints "device_assert failed at FILE:LINE in FUNCTION: MESSAGE (program
  /// (x, y, z), element i)" with vprintf, then calls __assertfail(message,
  /// file, line, function, 1), which ends the kernel with CUDA_ERROR_ASSERT.
  mlir::LogicalResult
  buildAssertFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef message, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index) const override;
  /// "nvidia.mma" version 2, instruction 16x8: one `mma.sync.aligned` as
  /// inline PTX (sm_80 and later), the operand type choosing the shape:
  /// m16n8k16 from 8 A and 4 B f16 or bf16 elements, m16n8k8 tf32 from 4 A
  /// and 2 B f32 elements, m16n8k32 s8 from 16 A and 8 B i8 elements
  /// (packed into .b32 registers), with 4 f32 (i32 for s8) C elements.
  /// Failure for any other kind, version, shape or types.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildMatrixMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                      llvm::StringRef kind, llvm::ArrayRef<int64_t> version,
                      llvm::ArrayRef<int64_t> instrShape, mlir::ValueRange a,
                      mlir::ValueRange b, mlir::ValueRange c) const override;
  /// `cp.async.{cg,ca}.shared.global` with a source size of 0 where
  /// |predicate| is false (sm_80 and later).
  mlir::LogicalResult buildAsyncCopy(mlir::OpBuilder &builder,
                                     mlir::Location loc,
                                     mlir::Value destination,
                                     mlir::Value source, int64_t bytes,
                                     mlir::Value predicate) const override;
  void buildAsyncCommit(mlir::OpBuilder &builder,
                        mlir::Location loc) const override;
  void buildAsyncWait(mlir::OpBuilder &builder, mlir::Location loc,
                      int64_t pending) const override;
  /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixLoad(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value address, unsigned count,
                        bool transpose) const override;
  /// `fence.proxy.async.shared::cta`: stores to shared memory become
  /// visible to wgmma.
  void buildSharedOperandFence(mlir::OpBuilder &builder,
                               mlir::Location loc) const override;
  /// "nvidia.mma" version 3 (sm_90a), one inline-asm statement per group:
  /// `wgmma.fence`, one `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`
  /// per instruction (B, and A unless in registers, described by
  /// shared-memory matrix descriptors derived from one root per K chain),
  /// `wgmma.commit_group` and `wgmma.wait_group 0`; the accumulators are the
  /// statement's outputs, so nothing reads them before the wait.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                            const backend::SharedMatrixMultiply &group,
                            mlir::ValueRange acc) const override;
};

/// Loads the dialects NvidiaTargetHooks builds with (NVVM, LLVM, arith).
void loadNvidiaHookDialects(mlir::MLIRContext &context);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H
