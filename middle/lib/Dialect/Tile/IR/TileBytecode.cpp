//===- TileBytecode.cpp - the tile dialect version in MLIR bytecode -------===//
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Dialect/Tile/IR/Tile.h"

using namespace mlir;
using namespace tegula::tile;

TileBytecodeVersion TileBytecodeVersion::current() {
  return TileBytecodeVersion(TileDialectVersion::kMajor,
                             TileDialectVersion::kMinor);
}

namespace {
/// Records the dialect version in bytecode and checks it when reading.
/// Types and attributes use MLIR's fallback (their textual form), which
/// round-trips them exactly.
struct TileBytecodeInterface : public BytecodeDialectInterface {
  explicit TileBytecodeInterface(Dialect *dialect)
      : BytecodeDialectInterface(dialect) {}

  void writeVersion(DialectBytecodeWriter &writer) const override {
    TileBytecodeVersion version = TileBytecodeVersion::current();
    FailureOr<const DialectVersion *> requested =
        writer.getDialectVersion<TileDialect>();
    if (succeeded(requested))
      version = *static_cast<const TileBytecodeVersion *>(*requested);
    writer.writeVarInt(version.major);
    writer.writeVarInt(version.minor);
  }

  std::unique_ptr<DialectVersion>
  readVersion(DialectBytecodeReader &reader) const override {
    uint64_t major = 0, minor = 0;
    if (failed(reader.readVarInt(major)) || failed(reader.readVarInt(minor))) {
      reader.emitError("tile dialect: truncated dialect version");
      return nullptr;
    }
    if (major != TileDialectVersion::kMajor ||
        minor > TileDialectVersion::kMinor) {
      reader.emitError() << "tile dialect version " << major << "." << minor
                         << " is not supported by this reader (it reads "
                         << TileDialectVersion::kMajor << ".0 to "
                         << TileDialectVersion::kMajor << "."
                         << TileDialectVersion::kMinor << ")";
      return nullptr;
    }
    return std::make_unique<TileBytecodeVersion>(major, minor);
  }

  LogicalResult upgradeFromVersion(Operation *topLevelOp,
                                   const DialectVersion &version) const override {
    // Version 1.0 is the first; nothing to upgrade from yet. Later minors add
    // their upgrades here, keyed on the version read.
    return success();
  }
};
} // namespace

namespace tegula::tile {
void addTileBytecodeInterface(TileDialect *dialect) {
  dialect->addInterfaces<TileBytecodeInterface>();
}

LogicalResult writeTileBytecode(Operation *op, llvm::raw_ostream &os,
                                std::unique_ptr<TileBytecodeVersion> version) {
  BytecodeWriterConfig config("tegula");
  if (version)
    config.setDialectVersion<TileDialect>(std::move(version));
  return writeBytecodeToFile(op, os, config);
}
} // namespace tegula::tile
