//===- ArgWrites.h - Which kernel arguments a kernel writes through -*- C++ -*-===//
//
// For tegula_compile_result_get_arg_writes (tegula/compiler.h): the launcher
// refuses a read-only array only for the arguments the kernel may write
// through, and must never miss one.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_COMPILER_LIB_ARGWRITES_H
#define TEGULA_COMPILER_LIB_ARGWRITES_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace tegula::compiler {

/// One entry per argument of kernel |kernelName| in |module| (the public
/// tile.func of that name), in order: 1 when the kernel may write memory
/// through a value derived from the argument (a store, an atomic, a
/// descriptor store, a call, or any op whose effects the analysis cannot
/// see through, reached by a value computed from it), 0 when it provably
/// only reads through it or never dereferences it. Empty when there is no
/// such kernel.
std::vector<uint8_t> argumentWrites(mlir::ModuleOp module,
                                    llvm::StringRef kernelName);

} // namespace tegula::compiler

#endif // TEGULA_COMPILER_LIB_ARGWRITES_H
