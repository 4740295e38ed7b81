//===- tegula/BackendKit/TargetHooks.h - What lowering asks a target -*- C++ -*-===//
//
// The questions middle/'s generic lowering asks a target while it turns
// layouted tile IR into per-thread code: small primitives, as Triton's
// TargetInfoBase - how wide a warp is, which address spaces hold global and
// shared memory, program and thread ids, the block barrier, cross-lane
// shuffles, the scratch (shared) memory, fences around atomics, print and
// assert. What is bigger than a primitive has an interface of its own:
// matrix units (MatrixUnit.h: layouts and instructions of mma.sync, wgmma,
// MFMA, DPAS families, handed to the lowering in a MatrixUnitRegistry) and
// asynchronous copies (AsyncCopy.h, an optional extension these hooks
// return from getAsyncCopy()).
//
// middle/'s lowering (tegula/Conversion/TileToLLVM.h) calls the program-id,
// scratch, print and assert hooks in both execution models (the host plugin
// implements them); its distributed model (the GPUs) also calls the thread,
// barrier and shuffle hooks. Every addition is an ABI-neutral C++ change,
// because hooks never cross the plugin C boundary: a plugin uses them
// inside itself.
//
// GpuDialectTargetHooks implements them with MLIR's `gpu` dialect, which
// upstream conversions lower to NVVM (convert-gpu-to-nvvm), ROCDL
// (convert-gpu-to-rocdl) and SPIR-V (convert-gpu-to-spirv); a backend can
// use it as is or override single hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_TARGETHOOKS_H
#define TEGULA_BACKENDKIT_TARGETHOOKS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tegula::backend {

class AsyncCopy;

/// The axes of a launch grid and of a block.
enum class Axis : unsigned { X = 0, Y = 1, Z = 2 };

/// How a cross-lane shuffle picks its source lane (as `gpu.shuffle`).
enum class ShuffleKind {
  /// From lane `lane ^ offset` (butterfly reductions).
  Xor,
  /// From lane `lane - offset`.
  Up,
  /// From lane `lane + offset`.
  Down,
  /// From lane `offset`.
  Index,
};

/// The memory ordering of an atomic (`sem=` of tl.atomic_*).
enum class MemoryOrder { Relaxed, Acquire, Release, AcquireRelease };
/// The scope an atomic's ordering reaches (`scope=`).
enum class MemoryScope { Block, Device, System };

/// The target-specific operations and numbers the generic lowering needs.
/// Every builder inserts at |builder|'s insertion point, at |loc|, and
/// returns the new value; all integers it returns are i32. Implementations
/// must be stateless or thread-safe: one instance serves concurrent compiles.
class TargetHooks {
public:
  virtual ~TargetHooks();

  /// Loads into |context| what the hooks build with; compileToLLVM calls it
  /// before the lowering. Default: the LLVM and arith dialects. A target
  /// whose hooks build another dialect's ops (NVVM) loads it here, with
  /// its translation to LLVM IR.
  virtual void loadDialects(mlir::MLIRContext &context) const;

  /// Threads per warp (wavefront, sub-group) of the code being generated.
  virtual unsigned getWarpSize() const = 0;
  /// The address space of pointers into global memory.
  virtual unsigned getGlobalAddressSpace() const = 0;
  /// The address space of pointers into shared (local, LDS, SLM) memory.
  virtual unsigned getSharedAddressSpace() const = 0;

  /// The program (block) id along |axis|: `tl.program_id`.
  virtual mlir::Value buildProgramId(mlir::OpBuilder &builder,
                                     mlir::Location loc, Axis axis) const = 0;
  /// The number of programs along |axis|: `tl.num_programs`.
  virtual mlir::Value buildNumPrograms(mlir::OpBuilder &builder,
                                       mlir::Location loc,
                                       Axis axis) const = 0;
  /// The thread's id within its block along x (blocks are 1-D in Tegula:
  /// layouts spread warps, not the launch, over dimensions).
  virtual mlir::Value buildThreadId(mlir::OpBuilder &builder,
                                    mlir::Location loc) const = 0;
  /// A barrier across the block that also orders shared-memory accesses.
  virtual void buildBarrier(mlir::OpBuilder &builder,
                            mlir::Location loc) const = 0;
  /// Exchanges |value| (i32 or f32; wider values are split by the caller)
  /// between the lanes of a warp; |offset| is an i32 as |kind| describes.
  /// Returns the value read from the source lane.
  virtual mlir::Value buildShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                                   mlir::Value value, ShuffleKind kind,
                                   mlir::Value offset) const = 0;
  /// |value| (an i32 that every lane of the warp holds alike, such as the
  /// warp's id) in a form the target's compiler knows is the same across the
  /// warp, so that what is computed from it stays in scalar (uniform)
  /// registers. Default: |value| itself.
  virtual mlir::Value buildWarpUniform(mlir::OpBuilder &builder,
                                       mlir::Location loc,
                                       mlir::Value value) const;

  /// Extra trailing parameters of every lowered kernel function, after the
  /// kernel's own (the host passes its program context this way). The hooks
  /// find them as the last arguments of the enclosing llvm.func. Default:
  /// none.
  virtual llvm::SmallVector<mlir::Type>
  getKernelContextTypes(mlir::MLIRContext *context) const;

  /// The base address (an !llvm.ptr in the shared address space) of the
  /// per-program scratch memory in which the lowering places the tiles it
  /// keeps in memory; its size is reported in the kernel metadata. Default:
  /// the address of getSharedScratch()'s array, or null when there is none.
  virtual mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                                       mlir::Location loc) const;

  /// A GPU's scratch: the module's external `[0 x i8]` array @|symbol| in
  /// the shared address space, declared with |alignment| on first use (the
  /// code generator or the launch gives it its size); |who| names the
  /// hooks in errors ("nvidia target hooks").
  struct SharedScratch {
    llvm::StringRef symbol;
    unsigned alignment = 16;
    llvm::StringRef who;
  };
  /// The target's scratch array for the default buildScratchBase; nothing
  /// (the default) for a target without one.
  virtual std::optional<SharedScratch> getSharedScratch() const;

  /// Prints one element for `tl.device_print`: |prefix| (already carrying
  /// " (operand k)" when the print has several), the element's linear
  /// |index| (i64; -1 for a scalar), and |value| (an integer, float or
  /// pointer scalar); |isSigned| and |hex| as the op says. Default: the
  /// line of Triton's GPU backends (formatDevicePrint over buildProgramId's
  /// ids), emitted with buildPrintf.
  virtual mlir::LogicalResult buildPrint(mlir::OpBuilder &builder,
                                         mlir::Location loc,
                                         llvm::StringRef prefix,
                                         mlir::Value index, mlir::Value value,
                                         bool isSigned, bool hex) const;

  /// Reports a failed `tl.device_assert` for the element at linear |index|
  /// (i64; -1 for a scalar condition); the target makes the launch fail with
  /// |message|, |file|:|line|, |function| and the program id. Default: the
  /// line formatAssertFailure makes, emitted with buildPrintf, then
  /// buildAbort.
  virtual mlir::LogicalResult
  buildAssertFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef message, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index) const;

  /// Reports a load, store or atomic outside the buffer the launch gave
  /// (the debug mode's tile.out_of_bounds, reached only when it failed):
  /// |access| says which ("store to 'y_ptr'"), |index| (i64) is the
  /// offending element and |begin|, |end| (i64) bound the buffer's elements;
  /// the target makes the launch fail with them, |file|:|line|, |function|
  /// and the program id. Default: the line formatBoundsFailure makes,
  /// emitted with buildPrintf, then buildAbort.
  virtual mlir::LogicalResult
  buildBoundsFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef access, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index, mlir::Value begin,
                     mlir::Value end) const;

  /// Calls the target's printf with |format| and |args| (as C's varargs
  /// promote them: i32, i64, f64). The only print primitive a GPU target
  /// writes, as Triton's TargetInfoBase::printf. Default: an error at |loc|
  /// (the target has no printf) and failure.
  virtual mlir::LogicalResult buildPrintf(mlir::OpBuilder &builder,
                                          mlir::Location loc,
                                          llvm::StringRef format,
                                          mlir::ValueRange args) const;

  /// Ends the program after a failed assertion whose line buildPrintf has
  /// printed. Default: llvm.trap.
  virtual mlir::LogicalResult buildAbort(mlir::OpBuilder &builder,
                                         mlir::Location loc,
                                         llvm::StringRef message,
                                         llvm::StringRef file, unsigned line,
                                         llvm::StringRef function) const;

  /// Called just before (|before|) and just after each atomic the lowering
  /// builds, with the atomic's ordering and scope; the atomic itself carries
  /// the ordering too (an LLVM atomicrmw / cmpxchg ordering). A target whose
  /// code generator drops atomic orderings (LLVM 19's NVPTX emits relaxed
  /// `atom` and cannot select scoped fences) builds its fences here.
  /// Default: nothing.
  virtual void buildAtomicFence(mlir::OpBuilder &builder, mlir::Location loc,
                                bool before, MemoryOrder order,
                                MemoryScope scope) const;

  /// The LLVM synchronization scope (`syncscope("...")`) of the atomics
  /// the lowering builds for a `scope=` of |scope|; the empty string is
  /// LLVM's system scope. A target whose memory model has narrower scopes
  /// (AMDGPU's "workgroup" and "agent") names them here, so that a
  /// device-scoped atomic does not pay for coherence with the host.
  /// Default: "" for every scope.
  virtual llvm::StringRef getAtomicSyncScope(MemoryScope scope) const;

  /// The target's asynchronous copies from global to shared memory, or null
  /// (the default) when it has none: the lowering then loads and stores.
  virtual const AsyncCopy *getAsyncCopy() const;

  /// The assembly language of `tl.inline_asm_elementwise` on this target
  /// ("PTX", "AMDGPU"), which the lowering hands to LLVM as inline
  /// assembly in LLVM's `$N` operand syntax; empty (the default) when the
  /// target can take none, and such kernels are refused at the op.
  virtual llvm::StringRef getInlineAsmLanguage() const;
};

/// TargetHooks on MLIR's `gpu` dialect (gpu.block_id, gpu.grid_dim,
/// gpu.thread_id, gpu.barrier, gpu.shuffle), with index results cast to i32.
/// The caller loads the gpu and arith dialects into the context.
class GpuDialectTargetHooks : public TargetHooks {
public:
  /// |warpSize| threads per warp; the address spaces the target's pointer
  /// types use (NVPTX: global 1, shared 3; AMDGPU: 1 and 3; SPIR-V
  /// CrossWorkgroup 1 and Workgroup 3 under the OpenCL mapping).
  GpuDialectTargetHooks(unsigned warpSize, unsigned globalAddressSpace,
                        unsigned sharedAddressSpace);

  unsigned getWarpSize() const override { return warpSize; }
  unsigned getGlobalAddressSpace() const override { return globalSpace; }
  unsigned getSharedAddressSpace() const override { return sharedSpace; }
  mlir::Value buildProgramId(mlir::OpBuilder &builder, mlir::Location loc,
                             Axis axis) const override;
  mlir::Value buildNumPrograms(mlir::OpBuilder &builder, mlir::Location loc,
                               Axis axis) const override;
  mlir::Value buildThreadId(mlir::OpBuilder &builder,
                            mlir::Location loc) const override;
  void buildBarrier(mlir::OpBuilder &builder,
                    mlir::Location loc) const override;
  mlir::Value buildShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value value, ShuffleKind kind,
                           mlir::Value offset) const override;

private:
  unsigned warpSize;
  unsigned globalSpace;
  unsigned sharedSpace;
};

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_TARGETHOOKS_H
