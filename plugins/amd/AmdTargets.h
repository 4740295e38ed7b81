//===- AmdTargets.h - What each AMD GPU architecture has --------*- C++ -*-===//
//
// The capability table of the AMD plugin: one row per architecture it
// compiles for (gfx90a and gfx942, CDNA with 64-lane wavefronts; gfx1100,
// RDNA3 with 32), with the numbers the layouts, the hooks and the code
// generator need (wavefront size, LDS per workgroup, register files) and
// the instructions it has (MFMA or WMMA and their shapes, DPP, DPP8,
// permlane, buffer instructions).
//
// Every AMDGPU intrinsic the plugin's code may contain is checked against
// this table before LLVM sees it (checkAmdgcnIntrinsic): the target hooks
// ask before they build one, the compiler asks again of every intrinsic in
// the lowered module (with the op's file:line:col) and of every call in the
// optimized LLVM IR. An intrinsic a target lacks is LLVM's `Cannot select`,
// which aborts the process; here it is a compile error naming the
// intrinsic and the target. An amdgcn intrinsic the table does not know is
// refused too: the table, not LLVM, says what a target can do.
//
// The matrix rows were measured with llc-19 (an intrinsic per arch: `ok`
// or `Cannot select`), as were the generic math intrinsics LLVM 19 cannot
// select (f64 sin, cos, pow) or has no library call for (f64 exp and log,
// tan, tanh and the inverse and hyperbolic functions at every width).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_AMD_AMDTARGETS_H
#define TEGULA_PLUGINS_AMD_AMDTARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tegula::amd {

/// One matrix-multiply instruction: D(m x n) += A(m x k) * B(k x n) on a
/// wavefront, as the LLVM intrinsic `llvm.amdgcn.<intrinsic>` computes it.
struct AmdMatrixShape {
  /// "mfma.f32.32x32x8f16": the intrinsic's name after `llvm.amdgcn.`.
  const char *intrinsic;
  unsigned m, n, k;
  /// The operand and accumulator types, as Triton spells them ("fp16",
  /// "bf16", "i8", "fp32", "xf32").
  const char *operandType;
  const char *accumulatorType;
};

/// One AMD GPU architecture.
struct AmdTarget {
  /// "gfx942": the LLVM processor name and the plugin's target.
  const char *name;
  /// "CDNA3", for messages and docs.
  const char *family;
  /// Lanes per wavefront (the layouts' warp).
  unsigned waveSize;
  /// LDS bytes one workgroup may allocate.
  uint64_t ldsBytes;
  /// Work-items per workgroup at most.
  unsigned maxThreads;
  /// The most VGPRs (architected plus accumulation, where unified), SGPRs
  /// and AGPRs a kernel may use per lane / per wave.
  unsigned maxVgprs, maxSgprs, maxAgprs;
  /// MFMA (CDNA) and WMMA (RDNA3) matrix units.
  bool mfma, wmma;
  /// DPP16 (quad_perm, row_shr, ...; llvm.amdgcn.update.dpp), DPP8
  /// (llvm.amdgcn.mov.dpp8), v_permlane16/x16, buffer instructions.
  bool dpp, dpp8, permlane, bufferInstructions;
  /// The matrix instructions it has (llc-19 measured, see above).
  llvm::ArrayRef<AmdMatrixShape> matrixShapes;

  /// The LLVM subtarget features of its code ("+wavefrontsize64").
  std::string features() const;
};

/// The architectures the plugin compiles for, in the plugin's order.
llvm::ArrayRef<AmdTarget> getAmdTargets();
/// Their names.
std::vector<std::string> getAmdTargetNames();
/// The row of |name|, or null.
const AmdTarget *findAmdTarget(llvm::StringRef name);

/// Why |target| cannot compile the intrinsic |name| (its full LLVM name,
/// "llvm.amdgcn.ds.bpermute" or "llvm.sin.f64", overload suffixes
/// included), or "" when it can. |floatBits| is the width of the
/// intrinsic's floating-point element type (0 when it has none).
std::string checkIntrinsic(const AmdTarget &target, llvm::StringRef name,
                           unsigned floatBits);

} // namespace tegula::amd

#endif // TEGULA_PLUGINS_AMD_AMDTARGETS_H
