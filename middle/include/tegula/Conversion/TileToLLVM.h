//===- tegula/Conversion/TileToLLVM.h - Tile IR to the LLVM dialect -*- C++ -*-===//
//
// Lowers a front-end tile module (one public tile.func kernel plus private
// helpers) to the LLVM dialect, asking a target's TargetHooks for what
// differs between targets (program ids, scratch memory, print, assert) and,
// for `#tile.matrix` layouts, the target's matrix-unit families
// (tegula/BackendKit/MatrixUnit.h, LoweringOptions::matrixUnits): the
// lowering knows no family by name.
//
// Execution model of this lowering ("one thread owns the program's tiles",
// the host CPU's layout): every tile of the program lives in per-program
// scratch memory the hooks provide, and each tile operation becomes a loop
// nest over its elements that LLVM vectorizes; contiguous masked loads and
// stores (known from the axis analysis) become vector masked loads and
// stores. Scalars stay SSA values. Scratch is assigned to tiles by liveness;
// the total per program is LoweredKernel::scratchBytes. The distributed
// (many threads per program) lowering of the GPU backends reuses the op
// families and the hooks with register-resident tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_CONVERSION_TILETOLLVM_H
#define TEGULA_CONVERSION_TILETOLLVM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tegula {
namespace backend {
class MatrixUnitRegistry;
class TargetHooks;
} // namespace backend

/// What a launcher needs to know of a lowered kernel.
struct LoweredKernel {
  struct Arg {
    /// True for a pointer (`!tile.ptr<T>`); |type| is then the pointee.
    bool isPointer = false;
    /// The scalar type (i1, i8..i64, f16, bf16, f32, f64, f8 types).
    mlir::Type type;
    /// The tile.divisibility of the argument, 1 when none.
    uint32_t divisibility = 1;
  };
  /// The kernel's symbol: an llvm.func taking the kernel's arguments (pointers
  /// as !llvm.ptr in the global address space, scalars as themselves, i1 as
  /// i1) followed by TargetHooks::getKernelContextTypes().
  std::string name;
  std::vector<Arg> args;
  /// Scratch bytes one program needs (aligned to 64).
  uint64_t scratchBytes = 0;
  /// tile.num_warps of the module (1 when absent).
  unsigned numWarps = 1;
};

/// Choices a target makes about the lowering.
struct LoweringOptions {
  /// f32 transcendental math (exp, log, tanh, erf, sin, cos, ...) as MLIR's
  /// polynomial approximations on vectors (a CPU without a vector math
  /// library would otherwise call libm once per element).
  bool polynomialMath = false;
  /// The execution model. False: one thread owns a program's tiles, which
  /// live in per-program scratch (the host). True: a program runs on
  /// tile.num_warps x TargetHooks::getWarpSize() threads and each tile is
  /// distributed over their registers as its layout (#tile.blocked,
  /// #tile.slice, #tile.dot_operand) says; tiles without a layout take the
  /// default blocked layout. Cross-thread work (reductions, scans, layout
  /// conversions, shape ops, dot operands) goes through shared memory from
  /// TargetHooks::buildScratchBase; LoweredKernel::scratchBytes is then the
  /// shared memory a program needs. Run tile::assignLayouts first.
  bool distributed = false;
  /// The matrix-unit families of the compile: a `#tile.matrix` layout (and
  /// a dot in it) is distributed and lowered by the family of its kind; a
  /// kind not here is an error at the op that has the layout. Null: none.
  const backend::MatrixUnitRegistry *matrixUnits = nullptr;
  /// The shared memory a program may use (distributed only; 0: no limit).
  /// A layout conversion whose staging would not fit is done in chunks
  /// along one dimension, a round of shared memory each.
  uint64_t sharedMemoryLimit = 0;
};

/// Lowers |module| in place. On failure, errors were reported through the
/// context's diagnostic handler, at the location of the op that could not
/// be lowered.
mlir::FailureOr<LoweredKernel>
lowerTileToLLVM(mlir::ModuleOp module, const backend::TargetHooks &hooks,
                const LoweringOptions &options = {});

/// Registers the dialects lowerTileToLLVM creates and the LLVM IR
/// translation interfaces of the builtin and LLVM dialects.
void registerTileToLLVMDialects(mlir::MLIRContext &context);

/// Registers `tile-test-lower-to-llvm` (lit tests of the lowering), whose
/// matrix-unit families are those of |units| (null: none) with their
/// instructions replaced by calls the tests can see (TestLowering.cpp).
/// |units| must outlive the registration.
void registerTileToLLVMTestPass(
    const backend::MatrixUnitRegistry *units = nullptr);

/// Whether |type| is a dot operand that the distributed lowering keeps in
/// shared memory for a matrix unit of |units| that reads its operands there
/// (MatrixUnit::readsSharedOperands).
bool isSharedMatrixOperand(mlir::Type type,
                           const backend::MatrixUnitRegistry &units);

} // namespace tegula

#endif // TEGULA_CONVERSION_TILETOLLVM_H
