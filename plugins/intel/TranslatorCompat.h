//===- TranslatorCompat.h - LLVM 19 IR the SPIR-V translator reads -*- C++ -*-===//
//
// Debian ships the Khronos SPIR-V translator only for LLVM 15
// (llvm-spirv-15, run as a program: its library links libLLVM-15). Its
// bitcode reader refuses what LLVM 16-19 added: attribute kinds it does
// not know ("Unknown attribute kind (86)": every intrinsic declaration
// carries memory(none)) and flags on instructions that had none in LLVM 15
// ("Invalid record": trunc nuw/nsw, zext/uitofp nneg). The translator
// itself refuses floating-point atomicrmw. This step rewrites a module so
// that both accept it, keeping its meaning:
//
//   - attributes LLVM 15 lacks are dropped from functions, their returns
//     and parameters and from call sites (memory, range, writable,
//     dead_on_unwind, initializes, nofpclass, allockind, and the newer
//     function attributes); they only ever add information;
//   - the poison-generating flags LLVM 15 lacks are dropped (trunc nuw/nsw,
//     zext/uitofp nneg, or disjoint, getelementptr nusw/nuw but inbounds);
//   - atomicrmw fadd/fsub/fmax/fmin become compare-and-swap loops on the
//     value's bits (LLVM's expandAtomicRMWToCmpXchg), which the translator
//     turns into OpAtomicCompareExchange;
//   - getelementptr constant expressions become instructions (LLVM 15
//     reads LLVM 19's encoding of them as undef);
//   - freeze (which translator 15 cannot translate) becomes its operand:
//     SPIR-V has no poison;
//   - debug information is stripped (LLVM 19 writes debug records LLVM 15
//     cannot read).
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_INTEL_TRANSLATORCOMPAT_H
#define TEGULA_PLUGINS_INTEL_TRANSLATORCOMPAT_H

#include <string>

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace tegula::intel {

/// Rewrites |module| as above. Returns the number of atomics expanded.
unsigned makeTranslatorCompatible(llvm::Module &module);

/// The first global whose initializer is (or holds) a getelementptr
/// constant expression, which LLVM 15 would read as undef and no rewrite
/// into instructions can reach; null when there is none.
const llvm::GlobalVariable *
findUnreadableInitializer(const llvm::Module &module);

/// Splits every phi of a struct or array type into one phi per scalar
/// field, the aggregate rebuilt after the phis. Translator 15 types the
/// pointer members of an aggregate by guessing their pointee types, and
/// the guess for a loop-carried aggregate (a tl.make_block_ptr descriptor
/// { ptr, [2 x i64], ... }) differs from its operands' ("The Object type
/// (OpTypePointer) does not match the type that results from indexing into
/// the Composite"). Run before the optimizer, which then folds the
/// rebuilt aggregates into their uses. Returns the number of phis split.
unsigned splitAggregatePhis(llvm::Module &module);

/// Rewrites every bfloat value (scalar or vector) as i16 bits, so that the
/// SPIR-V has no bfloat: translator 15 knows neither SPV_KHR_bfloat16 nor
/// SPV_INTEL_bfloat16_conversion and makes bfloat a second, invalid 16-bit
/// OpTypeFloat. Loads, stores, phis, selects, vector element operations
/// and getelementptr work on the bits as they are; bitcasts to and from
/// i16 disappear; fpext is exact bit placement (the bits shifted into the
/// top half of an i32 float); fptrunc from float rounds to nearest even
/// on the bits, a NaN kept a quiet NaN (fptrunc from double rounds to odd
/// in float first, so that it rounds once); arithmetic, comparisons and
/// the exact or correctly rounded math intrinsics run in float and round
/// back. Returns an empty string, or a one-line description of the first
/// bfloat use it cannot rewrite (the module is then not to be translated).
std::string lowerBFloat(llvm::Module &module);

} // namespace tegula::intel

#endif // TEGULA_PLUGINS_INTEL_TRANSLATORCOMPAT_H
