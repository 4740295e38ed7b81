//===- AmdMatrixUnits.h - MFMA and WMMA matrix units ------------*- C++ -*-===//
//
// The AMD plugin's matrix-unit families (tegula/BackendKit/MatrixUnit.h),
// operands in registers, instructions as LLVM's AMDGPU intrinsics checked
// against the capability table (AmdTargets.h):
//
//   amd.mfma (gfx90a, gfx942; wave64). With S the instruction's M (= N),
//   j the K elements a lane holds and K = j * 64 / S, every instruction
//   places its operands and accumulators alike:
//       A  (m, k) = (l % S, j (l / S) + i)      i = register 0..j-1
//       B  (k, n) = (j (l / S) + i, l % S)
//     32x32 (S = 32), 16 accumulators per lane:
//       D  (m, n) = (8 (r / 4) + 4 (l / 32) + r % 4, l % 32)   r = 0..15
//     16x16 (S = 16), 4 accumulators per lane:
//       D  (m, n) = (4 (l / 16) + r, l % 16)
//     The instructions, 32x32 / 16x16 (j):
//       f16, bf16 -> f32: v_mfma_f32_32x32x8{f16,bf16_1k} /
//         16x16x16{f16,bf16_1k} (4); gfx942 spells them 32x32x8_f16, ...
//       i8 -> i32 on gfx90a: v_mfma_i32_32x32x8i8 / 16x16x16i8 (4, packed
//         in one 32-bit register, element i in byte i)
//       i8 -> i32 on gfx942: v_mfma_i32_32x32x16_i8 / 16x16x32_i8 (8, in
//         a 64-bit register pair)
//       f32 as xf32 -> f32 on gfx942: v_mfma_f32_32x32x4_xf32 /
//         16x16x8_xf32 (2): each product of operands rounded to xf32 (8
//         exponent bits, 10 mantissa bits), summed in f32
//       f32 -> f32 exactly: v_mfma_f32_32x32x2f32 / 16x16x4f32 (1; gfx942:
//         32x32x2_f32 / 16x16x4_f32)
//   amd.wmma (gfx1100; wave32), 16x16x16, 8 accumulators per lane:
//     v_wmma_f32_16x16x16_{f16,bf16} (f16 or bf16 into f32) and
//     v_wmma_i32_16x16x16_iu8 (i8 into i32, both operands signed: Triton's
//     i8 dot; packed 4 to a 32-bit register, element i in byte i % 4 of
//     register i / 4)
//       A  (m, k) = (l % 16, i)   i = 0..15 (lanes 16-31 repeat 0-15)
//       B  (k, n) = (i, l % 16)
//       D  (m, n) = (2 r + l / 16, l % 16)   r = 0..7
//
// (l is the lane, r and i a lane's registers in order; CDNA2 and CDNA3
// ISA, "Matrix fused multiply-add", and RDNA3 ISA, "Wave matrix
// multiply-accumulate".) Warps tile M first, then N, then a batch;
// repetitions cover the rest. 32x32 is chosen where M, N and K allow it,
// else 16x16. Layout version 1 is the exact instructions, version 2 the
// xf32 ones: the layout alone says which of f32's two instructions a dot
// takes; an operand layout's kWidth (a 32-bit register's worth of
// elements) says its element width.
//
// f32 dots follow `input_precision`: "tf32" (tl.dot's default) takes xf32
// on gfx942 and the exact instructions on gfx90a (no xf32); "ieee" the
// exact ones; "tf32x3" and every f32 dot on gfx1100 (no f32 WMMA) stay on
// fused multiply-adds.
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
  /// The instruction above for the dot's operand types (both the same),
  /// accumulator and input precision whose M, N and K are multiples of its
  /// shape; nothing otherwise.
  std::optional<backend::MatrixInstruction>
  selectInstruction(const backend::DotProblem &dot) const override;
  /// The lane maps above. For an operand, |kWidth| (4, 2 or 1 elements
  /// per 32-bit register) gives the element width, which with the layout
  /// picks the instruction and so how many K elements a lane holds.
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
  /// |operand| type into |acc|; "" when there is none.
  std::string getIntrinsic(const backend::MatrixLayout &layout,
                           mlir::Type operand, mlir::Type acc) const;

private:
  /// The capability table's row of |layout| for |a| x |b| into |acc|, or
  /// null.
  const AmdMatrixShape *findInstruction(const backend::MatrixLayout &layout,
                                        mlir::Type a, mlir::Type b,
                                        mlir::Type acc) const;

  const AmdTarget &target;
};

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDMATRIXUNITS_H
