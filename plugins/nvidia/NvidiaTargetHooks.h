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
// driver's JIT), which stops the kernel with CUDA_ERROR_ASSERT. Asynchronous
// copies (cp.async) are the AsyncCopy extension getAsyncCopy() returns; the
// matrix units (mma.sync, wgmma) are NvidiaMatrixUnits.h's.
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
  /// vprintf(format, args) (the kit's buildPrint and buildAssertFailure
  /// format Triton's lines).
  mlir::LogicalResult buildPrintf(mlir::OpBuilder &builder, mlir::Location loc,
                                  llvm::StringRef format,
                                  mlir::ValueRange args) const override;
  /// __assertfail(message, file, line, function, 1), which ends the kernel
  /// with CUDA_ERROR_ASSERT (after the kit printed the failed assertion's
  /// line with program and element, which __assertfail's own lacks).
  mlir::LogicalResult buildAbort(mlir::OpBuilder &builder, mlir::Location loc,
                                 llvm::StringRef message, llvm::StringRef file,
                                 unsigned line,
                                 llvm::StringRef function) const override;
  /// cp.async (NvidiaAsyncCopy, NvidiaMatrixUnits.h).
  const backend::AsyncCopy *getAsyncCopy() const override;
};

/// Loads the dialects NvidiaTargetHooks builds with (NVVM, LLVM, arith).
void loadNvidiaHookDialects(mlir::MLIRContext &context);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIATARGETHOOKS_H
