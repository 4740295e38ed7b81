//===- AmdMatrixUnits.h - MFMA and WMMA matrix units ------------*- C++ -*-===//
//
// The AMD plugin's matrix-unit families (tegula/BackendKit/MatrixUnit.h),
// operands in registers, instructions as LLVM's AMDGPU intrinsics checked
// against the capability table (AmdTargets.h):
//
//   amd.mfma (gfx90a, gfx942; wave64), f16 or bf16 operands into f32:
//     32x32x8: v_mfma_f32_32x32x8{f16,bf16_1k}, 16 accumulators per lane
//       A  (m, k) = (l % 32, 4 (l / 32) + i)      i = register 0..3
//       B  (k, n) = (4 (l / 32) + i, l % 32)
//       D  (m, n) = (8 (r / 4) + 4 (l / 32) + r % 4, l % 32)   r = 0..15
//     16x16x16: v_mfma_f32_16x16x16{f16,bf16_1k}, 4 accumulators per lane
//       A  (m, k) = (l % 16, 4 (l / 16) + i)
//       B  (k, n) = (4 (l / 16) + i, l % 16)
//       D  (m, n) = (4 (l / 16) + r, l % 16)
//   amd.wmma (gfx1100; wave32), f16 or bf16 into f32, 16x16x16:
//     v_wmma_f32_16x16x16_{f16,bf16}, 8 accumulators per lane
//       A  (m, k) = (l % 16, i)   i = 0..15 (lanes 16-31 repeat 0-15)
//       B  (k, n) = (i, l % 16)
//       D  (m, n) = (2 r + l / 16, l % 16)   r = 0..7
//
// (l is the lane, r and i a lane's registers in order; CDNA3 ISA, "Matrix
// fused multiply-add", and RDNA3 ISA, "Wave matrix multiply-accumulate".)
// Warps tile M first, then N, then a batch; repetitions cover the rest.
// 32x32 is chosen where M and N allow it, else 16x16.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDMATRIXUNITS_H
#define TEGULA_PLUGINS_AMD_AMDMATRIXUNITS_H

#include "AmdTargets.h"

#include "tegula/BackendKit/MatrixUnit.h"

namespace tegula::amd {

/// One family, MFMA or WMMA, for one architecture (|target| must have it).
class AmdMatrixUnit : public backend::MatrixUnit {
public:
  explicit AmdMatrixUnit(const AmdTarget &target) : target(target) {}

  llvm::StringRef getKind() const override {
    return target.wmma ? "amd.wmma" : "amd.mfma";
  }
  /// The instruction above for f16 or bf16 operands (both the same) into
  /// f32 whose M, N and K are multiples of its shape; nothing otherwise.
  std::optional<backend::MatrixInstruction>
  selectInstruction(const backend::DotProblem &dot) const override;
  /// The lane maps above. |kWidth| is ignored: each instruction fixes how
  /// many K elements a lane holds.
  mlir::FailureOr<backend::LinearLayout>
  getLinearLayout(const backend::MatrixLayout &layout,
                  llvm::ArrayRef<int64_t> shape, int64_t opIdx, int64_t kWidth,
                  std::string &error) const override;
  mlir::FailureOr<int64_t> getInstructionK(const backend::MatrixLayout &layout,
                                           mlir::Type a, mlir::Type b,
                                           mlir::Type acc,
                                           std::string &error) const override;
  /// One MFMA or WMMA intrinsic on a lane's fragments.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                const backend::MatrixLayout &layout, mlir::ValueRange a,
                mlir::ValueRange b, mlir::ValueRange c) const override;

  /// The intrinsic (after `llvm.amdgcn.`) of |layout| for operands of
  /// |operand| type; "" when there is none.
  std::string getIntrinsic(const backend::MatrixLayout &layout,
                           mlir::Type operand) const;

private:
  const AmdTarget &target;
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDMATRIXUNITS_H
