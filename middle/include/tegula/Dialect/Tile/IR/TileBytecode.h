//===- TileBytecode.h - the tile dialect in MLIR bytecode -------*- C++ -*-===//
//
// Tile IR crosses the plugin boundary as MLIR bytecode. The dialect writes
// its version (major, minor) into the bytecode; a reader accepts the same
// major and any minor up to its own, and refuses anything else with an error
// naming both versions.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_DIALECT_TILE_IR_TILEBYTECODE_H
#define TEGULA_DIALECT_TILE_IR_TILEBYTECODE_H

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/AsmState.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <memory>

namespace tegula::tile {

/// A version of the tile dialect as recorded in bytecode.
struct TileBytecodeVersion : public mlir::DialectVersion {
  TileBytecodeVersion(uint64_t major, uint64_t minor)
      : major(major), minor(minor) {}
  /// The version this build writes.
  static TileBytecodeVersion current();
  uint64_t major;
  uint64_t minor;
};

/// Writes |op| as MLIR bytecode to |os| with the tile dialect version in it.
/// |version| overrides the recorded version (tests use it to make bytecode
/// from a future or past dialect).
mlir::LogicalResult
writeTileBytecode(mlir::Operation *op, llvm::raw_ostream &os,
                  std::unique_ptr<TileBytecodeVersion> version = nullptr);

/// Why reading tile bytecode failed.
enum class TileBytecodeFailure {
  None,
  /// The input does not begin with the MLIR bytecode magic.
  NotBytecode,
  /// It was written in a version of the MLIR bytecode format or of the tile
  /// dialect that this reader cannot read.
  Version,
  /// Anything else: truncated or damaged bytecode, unknown ops.
  Malformed,
};

/// Reads tile IR in MLIR bytecode from |buffer| into |block|, as
/// mlir::readBytecodeFile does with |config|. On failure the errors went
/// to the context's diagnostic handler (NotBytecode reports nothing) and
/// |why| tells a version this reader cannot read from other damage.
mlir::LogicalResult readTileBytecode(llvm::MemoryBufferRef buffer,
                                     mlir::Block *block,
                                     const mlir::ParserConfig &config,
                                     TileBytecodeFailure &why);

} // namespace tegula::tile

#endif // TEGULA_DIALECT_TILE_IR_TILEBYTECODE_H
