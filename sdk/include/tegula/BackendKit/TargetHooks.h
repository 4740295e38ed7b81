//===- tegula/BackendKit/TargetHooks.h - What lowering asks a target -*- C++ -*-===//
//
// The questions middle/'s generic distributed lowering will ask a target
// while it turns layouted tile IR into per-thread code: how wide a warp is,
// which address spaces hold global and shared memory, and how to build the
// handful of operations that differ between GPUs (program and thread ids,
// the block barrier, cross-lane shuffles).
//
// Status: growing with its callers. middle/'s lowering (tegula/Conversion/
// TileToLLVM.h) calls the program-id, scratch, print and assert hooks in
// both execution models (the host plugin implements them); its distributed
// model (the GPUs) also calls the thread, barrier, shuffle, matrix-unit,
// asynchronous-copy and shared-operand matrix hooks (the NVIDIA plugin
// implements them: mma.sync, cp.async, wgmma). Every addition is an
// ABI-neutral C++ change, because hooks never cross the plugin C boundary:
// a plugin uses them inside itself.
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

namespace tegula::backend {

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

struct SharedMatrixMultiply;

/// The target-specific operations and numbers the generic lowering needs.
/// Every builder inserts at |builder|'s insertion point, at |loc|, and
/// returns the new value; all integers it returns are i32. Implementations
/// must be stateless or thread-safe: one instance serves concurrent compiles.
class TargetHooks {
public:
  virtual ~TargetHooks();

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

  /// Extra trailing parameters of every lowered kernel function, after the
  /// kernel's own (the host passes its program context this way). The hooks
  /// find them as the last arguments of the enclosing llvm.func. Default:
  /// none.
  virtual llvm::SmallVector<mlir::Type>
  getKernelContextTypes(mlir::MLIRContext *context) const;

  /// The base address (an !llvm.ptr in the shared address space) of the
  /// per-program scratch memory in which the lowering places the tiles it
  /// keeps in memory; its size is reported in the kernel metadata. Null when
  /// the target has none (the default).
  virtual mlir::Value buildScratchBase(mlir::OpBuilder &builder,
                                       mlir::Location loc) const;

  /// Prints one element for `tl.device_print`: |prefix| (already carrying
  /// " (operand k)" when the print has several), the element's linear
  /// |index| (i64; -1 for a scalar), and |value| (an integer, float or
  /// pointer scalar); |isSigned| and |hex| as the op says. Returns failure
  /// (the default) when the target cannot print.
  virtual mlir::LogicalResult buildPrint(mlir::OpBuilder &builder,
                                         mlir::Location loc,
                                         llvm::StringRef prefix,
                                         mlir::Value index, mlir::Value value,
                                         bool isSigned, bool hex) const;

  /// Reports a failed `tl.device_assert` for the element at linear |index|
  /// (i64; -1 for a scalar condition); the target makes the launch fail with
  /// |message|, |file|:|line|, |function| and the program id. Returns failure
  /// (the default) when the target cannot.
  virtual mlir::LogicalResult
  buildAssertFailure(mlir::OpBuilder &builder, mlir::Location loc,
                     llvm::StringRef message, llvm::StringRef file,
                     unsigned line, llvm::StringRef function,
                     mlir::Value index) const;
  /// One matrix-unit instruction of the `#tile.matrix` family |kind|
  /// (version, instruction shape as the layout says): D = A x B + C for the
  /// fragments one thread holds, element by element in the order the
  /// family's layout defines (middle/: DistLayout.cpp; for "nvidia.mma"
  /// v2 m16n8k16 f16/bf16: 8 A, 4 B and 4 C elements of PTX mma.sync's
  /// fragments a0..a7, b0..b3, c0..c3). Returns the D elements, or failure
  /// (the default) when the target has no such instruction.
  /// Called just before (|before|) and just after each atomic the lowering
  /// builds, with the atomic's ordering and scope; the atomic itself carries
  /// the ordering too (an LLVM atomicrmw / cmpxchg ordering). A target whose
  /// code generator drops atomic orderings (LLVM 19's NVPTX emits relaxed
  /// `atom` and cannot select scoped fences) builds its fences here.
  /// Default: nothing.
  virtual void buildAtomicFence(mlir::OpBuilder &builder, mlir::Location loc,
                                bool before, MemoryOrder order,
                                MemoryScope scope) const;
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildMatrixMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                      llvm::StringRef kind, llvm::ArrayRef<int64_t> version,
                      llvm::ArrayRef<int64_t> instrShape,
                      mlir::ValueRange a, mlir::ValueRange b,
                      mlir::ValueRange c) const;

  /// Starts an asynchronous copy of |bytes| (4, 8 or 16) from global memory
  /// at |source| to shared memory at |destination| (pointers in their
  /// address spaces), aligned to |bytes|; where the i1 |predicate| is false
  /// (null: always true) the destination gets zeros and nothing is read.
  /// Returns failure (the default) when the target has no such copies; the
  /// caller then loads and stores itself.
  virtual mlir::LogicalResult buildAsyncCopy(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             mlir::Value destination,
                                             mlir::Value source, int64_t bytes,
                                             mlir::Value predicate) const;
  /// Closes the group of this thread's asynchronous copies started since
  /// the last group (NVIDIA: cp.async.commit_group).
  virtual void buildAsyncCommit(mlir::OpBuilder &builder,
                                mlir::Location loc) const;
  /// Waits until at most |pending| of this thread's most recent groups of
  /// copies are unfinished (NVIDIA: cp.async.wait_group).
  virtual void buildAsyncWait(mlir::OpBuilder &builder, mlir::Location loc,
                              int64_t pending) const;

  /// Loads |count| (1, 2 or 4) 8x8 matrices of 16-bit elements from shared
  /// memory, each row 16 contiguous bytes whose address (a pointer in the
  /// shared address space) lanes 8i..8i+7 give for matrix i; returns one
  /// i32 per matrix holding this lane's two elements: row lane / 4,
  /// columns 2 (lane % 4) and + 1, or with |transpose| column lane / 4,
  /// rows 2 (lane % 4) and + 1 (NVIDIA: ldmatrix). Failure (the default):
  /// the caller reads shared memory itself.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixLoad(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value address, unsigned count,
                        bool transpose) const;

  /// Makes this thread's ordinary stores to shared memory visible to
  /// matrix instructions that read shared memory themselves (NVIDIA:
  /// `fence.proxy.async.shared::cta`); the caller follows it with a
  /// barrier. Default: nothing.
  virtual void buildSharedOperandFence(mlir::OpBuilder &builder,
                                       mlir::Location loc) const;
  /// One group of matrix instructions whose operands are read from shared
  /// memory (NVIDIA: wgmma.mma_async on a warp group), issued and waited
  /// for: |acc| holds the accumulator registers of every instruction (each
  /// instruction's accumulators are named by index), the result is their
  /// new values. Default: failure (the target has none).
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  buildSharedMatrixMultiply(mlir::OpBuilder &builder, mlir::Location loc,
                            const SharedMatrixMultiply &group,
                            mlir::ValueRange acc) const;
};

/// A shared-memory operand of a matrix instruction: a swizzled tile in the
/// layout of Triton's NVMMA shared encoding. The tile's contiguous
/// dimension is cut into atoms of |swizzleBytes| per row (row r of an atom
/// at byte r * swizzleBytes; its 16-byte chunks XOR-permuted by
/// (r / (128 / swizzleBytes)) % (swizzleBytes / 16)); the atoms follow one
/// another |atomStrideBytes| apart.
struct SharedMatrixOperand {
  /// i32: the shared-memory address of the instruction's first element.
  /// The generic lowering builds the instructions of one K chain from one
  /// root: `arith.addi(root, arith.constant)` for every step but the first,
  /// so that a target can derive the steps from one root value.
  mlir::Value address;
  /// For A only, instead of |address|: the instruction's A fragment in this
  /// thread's registers (NVIDIA: four .b32 registers of two 16-bit
  /// elements each, in mma.sync's A order).
  llvm::SmallVector<mlir::Value, 4> registers;
  /// Whether the operand is contiguous along M (A) or N (B) instead of K.
  bool mnMajor = false;
  int64_t swizzleBytes = 128;
  int64_t atomStrideBytes = 0;
};

/// One group of shared-operand matrix instructions (see
/// TargetHooks::buildSharedMatrixMultiply).
struct SharedMatrixMultiply {
  llvm::StringRef kind;
  llvm::ArrayRef<int64_t> version;
  /// The instruction shape: M x N x K.
  int64_t m = 0, n = 0, k = 0;
  mlir::Type aType, bType;
  struct Instruction {
    SharedMatrixOperand a, b;
    /// Indices into the group's accumulators, in the instruction's order.
    llvm::SmallVector<int64_t> accIndices;
  };
  llvm::SmallVector<Instruction> instructions;
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
