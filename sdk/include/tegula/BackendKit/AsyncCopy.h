//===- tegula/BackendKit/AsyncCopy.h - Asynchronous copies -*- C++ -*-===//
//
// An optional extension of TargetHooks (TargetHooks::getAsyncCopy()): copies
// from global to shared memory that run while the thread goes on, grouped
// and waited for by group (NVIDIA cp.async; AMD's direct-to-LDS buffer loads
// would fit too). The generic lowering uses them to fill the shared-memory
// operands of matrix units and the buffers of software-pipelined loads; a
// target without them returns null from getAsyncCopy() and the lowering
// loads and stores itself. Like TargetHooks, never across the plugin C
// boundary; implementations are stateless or thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_ASYNCCOPY_H
#define TEGULA_BACKENDKIT_ASYNCCOPY_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>

namespace tegula::backend {

/// A target's asynchronous copies. Builders insert at |builder|'s insertion
/// point, at |loc|.
class AsyncCopy {
public:
  virtual ~AsyncCopy();

  /// Starts a copy of |bytes| (4, 8 or 16) from global memory at |source|
  /// to shared memory at |destination| (pointers in their address spaces),
  /// aligned to |bytes|; where the i1 |predicate| is false (null: always
  /// true) the destination gets zeros and nothing is read. Returns failure,
  /// building nothing, for a size the target cannot copy this way.
  virtual mlir::LogicalResult buildCopy(mlir::OpBuilder &builder,
                                        mlir::Location loc,
                                        mlir::Value destination,
                                        mlir::Value source, int64_t bytes,
                                        mlir::Value predicate) const = 0;
  /// Closes the group of this thread's copies started since the last group.
  virtual void buildCommit(mlir::OpBuilder &builder,
                           mlir::Location loc) const = 0;
  /// Waits until at most |pending| of this thread's most recent groups are
  /// unfinished.
  virtual void buildWait(mlir::OpBuilder &builder, mlir::Location loc,
                         int64_t pending) const = 0;
};

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_ASYNCCOPY_H
