//===- HostTargetHooks.h - What the lowering asks the host CPU --*- C++ -*-===//
//
// TargetHooks for the host plugin (HostKernelABI.h): a program instance is
// one thread (warp size 1, no barrier, shuffles return their value), memory
// is one address space (0), and the program's ids, grid and scratch come
// from the `tg_host_program *` every lowered kernel receives as its last
// parameter. tl.device_print and tl.device_assert call the plugin's runtime
// functions tegula_host_print and tegula_host_assert_fail, declared in the
// module on first use. Everything is built with LLVM dialect ops (and
// arith.index_cast for an index-typed element index).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTTARGETHOOKS_H
#define TEGULA_PLUGINS_HOST_HOSTTARGETHOOKS_H

#include "tegula/BackendKit/TargetHooks.h"

namespace tegula::host {

/// The host CPU's answers to the generic lowering. Stateless: one instance
/// may serve concurrent compiles. A hook called where no enclosing llvm.func
/// ends in the context pointer emits an error at |loc| and returns a poison
/// value (or failure), so the compile fails with that message.
class HostTargetHooks : public backend::TargetHooks {
public:
  /// |simtWarpSize| 0: a program is one thread (the host's model). Else the
  /// SIMT emulation of the GPU model (the distributed lowering): programs
  /// of warps of |simtWarpSize| threads, each an OS thread, with barriers
  /// and shuffles through the launcher (tegula_host_barrier/_shuffle).
  explicit HostTargetHooks(unsigned simtWarpSize = 0)
      : simtWarpSize(simtWarpSize) {}
  unsigned getWarpSize() const override {
    return simtWarpSize ? simtWarpSize : 1;
  }
  unsigned getGlobalAddressSpace() const override { return 0; }
  unsigned getSharedAddressSpace() const override { return 0; }

  mlir::Value buildProgramId(mlir::OpBuilder &builder, mlir::Location loc,
                             backend::Axis axis) const override;
  mlir::Value buildNumPrograms(mlir::OpBuilder &builder, mlir::Location loc,
                               backend::Axis axis) const override;
  /// Always 0: the program is one thread.
  mlir::Value buildThreadId(mlir::OpBuilder &builder,
                            mlir::Location loc) const override;
  /// Nothing: one thread needs no barrier.
  void buildBarrier(mlir::OpBuilder &builder,
                    mlir::Location loc) const override;
  /// |value| itself: the only lane reads its own value.
  mlir::Value buildShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value value, backend::ShuffleKind kind,
                           mlir::Value offset) const override;

  /// {!llvm.ptr}: the tg_host_program of the running program.
  llvm::SmallVector<mlir::Type>
  getKernelContextTypes(mlir::MLIRContext *context) const override;
  /// program->scratch, 64-byte aligned.
  mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                               mlir::Location loc) const override;
  /// Calls tegula_host_print(program, prefix, index, bits, kind); a null
  /// |value| prints the prefix alone (a print of no values).
  mlir::LogicalResult buildPrint(mlir::OpBuilder &builder, mlir::Location loc,
                                 llvm::StringRef prefix, mlir::Value index,
                                 mlir::Value value, bool isSigned,
                                 bool hex) const override;
  /// Calls tegula_host_assert_fail(program, message, file, line, function,
  /// index).
  mlir::LogicalResult
  buildAssertFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef message, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index) const override;
  /// Calls tegula_host_bounds_fail(program, access, file, line, function,
  /// index, begin, end).
  mlir::LogicalResult
  buildBoundsFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef access, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index, mlir::Value begin,
                     mlir::Value end) const override;

private:
  unsigned simtWarpSize;
};

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTTARGETHOOKS_H
