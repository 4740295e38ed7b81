//===- AmdTargets.cpp - What each AMD GPU architecture has ----------------===//

#include "AmdTargets.h"

#include "tegula/BackendKit/TargetTable.h"

#include "llvm/ADT/STLExtras.h"

using namespace tegula::amd;

namespace {

// The matrix instructions, measured: each compiled with llc-19 for gfx90a,
// gfx942 and gfx1100; the rest of the rows were `Cannot select` there.
// The matrix units take the first row of a tile size and operand type, so
// the preferred form comes first (bf16's .1k before the half-K one).
constexpr AmdMatrixShape kGfx90aShapes[] = {
    {"mfma.f32.32x32x8f16", 32, 32, 8, "fp16", "fp32"},
    {"mfma.f32.16x16x16f16", 16, 16, 16, "fp16", "fp32"},
    {"mfma.f32.32x32x8bf16.1k", 32, 32, 8, "bf16", "fp32"},
    {"mfma.f32.16x16x16bf16.1k", 16, 16, 16, "bf16", "fp32"},
    {"mfma.f32.32x32x4bf16", 32, 32, 4, "bf16", "fp32"},
    {"mfma.f32.16x16x8bf16", 16, 16, 8, "bf16", "fp32"},
    {"mfma.i32.32x32x8i8", 32, 32, 8, "i8", "i32"},
    {"mfma.i32.16x16x16i8", 16, 16, 16, "i8", "i32"},
    {"mfma.f32.32x32x2f32", 32, 32, 2, "fp32", "fp32"},
    {"mfma.f32.16x16x4f32", 16, 16, 4, "fp32", "fp32"},
};
constexpr AmdMatrixShape kGfx942Shapes[] = {
    {"mfma.f32.32x32x8f16", 32, 32, 8, "fp16", "fp32"},
    {"mfma.f32.16x16x16f16", 16, 16, 16, "fp16", "fp32"},
    {"mfma.f32.32x32x8bf16.1k", 32, 32, 8, "bf16", "fp32"},
    {"mfma.f32.16x16x16bf16.1k", 16, 16, 16, "bf16", "fp32"},
    {"mfma.i32.32x32x16.i8", 32, 32, 16, "i8", "i32"},
    {"mfma.i32.16x16x32.i8", 16, 16, 32, "i8", "i32"},
    {"mfma.f32.32x32x4.xf32", 32, 32, 4, "xf32", "fp32"},
    {"mfma.f32.16x16x8.xf32", 16, 16, 8, "xf32", "fp32"},
    {"mfma.f32.32x32x2f32", 32, 32, 2, "fp32", "fp32"},
    {"mfma.f32.16x16x4f32", 16, 16, 4, "fp32", "fp32"},
};
// The wave32 forms (8 accumulator elements per lane); the wave64 forms of
// the same intrinsics are `Cannot select` in wave32 code.
constexpr AmdMatrixShape kGfx1100Shapes[] = {
    {"wmma.f32.16x16x16.f16", 16, 16, 16, "fp16", "fp32"},
    {"wmma.f32.16x16x16.bf16", 16, 16, 16, "bf16", "fp32"},
    {"wmma.i32.16x16x16.iu8", 16, 16, 16, "i8", "i32"},
};

// VGPRs: 256 architected + 256 accumulation registers on CDNA2/3 (one
// unified file of 512), 256 on RDNA3. SGPRs as `.sgpr_count` reports them:
// the addressable ones (102 on gfx9, 106 on gfx10+) with VCC and the other
// special registers LLVM adds (108 at most).
constexpr AmdTarget kTargets[] = {
    {"gfx90a", "CDNA2", 64, 64 * 1024, 1024, 512, 108, 256,
     /*mfma=*/true, /*wmma=*/false, /*dpp=*/true, /*dpp8=*/false,
     /*permlane=*/false, /*bufferInstructions=*/true, kGfx90aShapes},
    {"gfx942", "CDNA3", 64, 64 * 1024, 1024, 512, 108, 256,
     /*mfma=*/true, /*wmma=*/false, /*dpp=*/true, /*dpp8=*/false,
     /*permlane=*/false, /*bufferInstructions=*/true, kGfx942Shapes},
    {"gfx1100", "RDNA3", 32, 64 * 1024, 1024, 256, 108, 0,
     /*mfma=*/false, /*wmma=*/true, /*dpp=*/true, /*dpp8=*/true,
     /*permlane=*/true, /*bufferInstructions=*/true, kGfx1100Shapes},
};

/// The amdgcn intrinsics every target of the table has (names after
/// `llvm.amdgcn.`, without overload suffixes).
constexpr const char *kCommonIntrinsics[] = {
    "workitem.id.x",  "workitem.id.y",  "workitem.id.z",
    "workgroup.id.x", "workgroup.id.y", "workgroup.id.z",
    "dispatch.ptr",   "implicitarg.ptr", "kernarg.segment.ptr",
    "s.barrier",      "wave.barrier",   "s.waitcnt",
    "ds.bpermute",    "ds.permute",     "ds.swizzle",
    "readlane",       "readfirstlane",  "writelane",
    "mbcnt.lo",       "mbcnt.hi",       "ballot",
    "icmp",           "fcmp",           "s.sleep",
    "rcp",            "rsq",            "sqrt",
    "exp2",           "log",            "ldexp",
    "frexp.mant",     "frexp.exp",      "fract",
    "class",          "fmed3",          "sin",
    "cos",            "fmul.legacy",    "cvt.pkrtz",
    "perm",           "ubfe",           "sbfe",
    "lerp",           "sffbh",          "alignbyte",
};

/// Does |name| (after `llvm.amdgcn.`) name |base|, with or without
/// overload suffixes ("update.dpp.i32" names "update.dpp")?
bool names(llvm::StringRef name, llvm::StringRef base) {
  return name == base ||
         (name.starts_with(base) && name.size() > base.size() &&
          name[base.size()] == '.');
}

} // namespace

std::string AmdTarget::features() const {
  return waveSize == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
}

llvm::ArrayRef<AmdTarget> tegula::amd::getAmdTargets() { return kTargets; }

std::vector<std::string> tegula::amd::getAmdTargetNames() {
  return tegula::backend::getTargetNames(getAmdTargets());
}

const AmdTarget *tegula::amd::findAmdTarget(llvm::StringRef name) {
  return tegula::backend::findTarget(getAmdTargets(), name);
}

std::string tegula::amd::checkIntrinsic(const AmdTarget &target,
                                        llvm::StringRef name,
                                        unsigned floatBits) {
  std::string where = std::string(" on amd:") + target.name;
  llvm::StringRef amdgcn = name;
  if (amdgcn.consume_front("llvm.amdgcn.")) {
    for (const char *common : kCommonIntrinsics)
      if (names(amdgcn, common))
        return "";
    if (names(amdgcn, "update.dpp") || names(amdgcn, "mov.dpp"))
      return target.dpp ? "" : "DPP is not available" + where;
    if (names(amdgcn, "mov.dpp8"))
      return target.dpp8 ? "" : "DPP8 is not available" + where;
    if (names(amdgcn, "permlane16") || names(amdgcn, "permlanex16"))
      return target.permlane ? "" : "v_permlane16 is not available" + where;
    for (const AmdMatrixShape &shape : target.matrixShapes)
      if (names(amdgcn, shape.intrinsic))
        return "";
    if (amdgcn.starts_with("mfma.") || amdgcn.starts_with("smfmac."))
      return std::string(target.mfma ? "this MFMA instruction"
                                     : "MFMA (a CDNA matrix unit)") +
             " is not available" + where;
    if (amdgcn.starts_with("wmma."))
      return std::string(target.wmma ? "this WMMA instruction"
                                     : "WMMA (an RDNA3 matrix unit)") +
             " is not available" + where;
    return "the intrinsic is not in the AMD plugin's capability table" +
           where;
  }
  // Generic math LLVM 19's AMDGPU back end cannot compile (llc-19
  // measured): `Cannot select` for f64 sin, cos and pow; "no libcall
  // available" for f64 exp and log and for tan, tanh, the inverse and the
  // hyperbolic functions at any width.
  llvm::StringRef generic = name;
  if (!generic.consume_front("llvm."))
    return "";
  for (const char *any : {"tan", "tanh", "asin", "acos", "atan", "atan2",
                          "sinh", "cosh"})
    if (names(generic, any))
      return "AMDGPU has no instruction or library call for it";
  if (floatBits == 64)
    for (const char *f64 : {"sin", "cos", "pow", "exp", "exp2", "exp10",
                            "log", "log2", "log10"})
      if (names(generic, f64))
        return "AMDGPU has no f64 instruction or library call for it (no "
               "device library is linked)";
  return "";
}
