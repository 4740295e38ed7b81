//===- TileBytecode.cpp - the tile dialect version in MLIR bytecode -------===//
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/Encoding.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <optional>

using namespace mlir;
using namespace tegula::tile;

TileBytecodeVersion TileBytecodeVersion::current() {
  return TileBytecodeVersion(TileDialectVersion::kMajor,
                             TileDialectVersion::kMinor);
}

namespace {
/// Set by TileBytecodeInterface::readVersion when it refuses a version, for
/// readTileBytecode on the same thread (MLIR reads bytecode on the calling
/// thread) to tell a version mismatch from damage.
thread_local bool refusedVersion = false;

/// The MLIR bytecode format version of |bytes|, which start with the magic;
/// nothing when the header is truncated. The version is a PrefixVarInt: the
/// count of trailing zero bits of the first byte is the count of bytes that
/// follow it (all of them when it is 0).
std::optional<uint64_t> readFormatVersion(llvm::StringRef bytes) {
  constexpr size_t kMagic = 4;
  if (bytes.size() <= kMagic)
    return std::nullopt;
  auto first = static_cast<uint8_t>(bytes[kMagic]);
  if (first & 1)
    return first >> 1;
  unsigned extra = first ? llvm::countr_zero(first) : 8;
  if (bytes.size() < kMagic + 1 + extra)
    return std::nullopt;
  uint8_t raw[9] = {};
  std::memcpy(raw, bytes.data() + kMagic, extra + 1);
  if (!first)
    return llvm::support::endian::read64le(raw + 1);
  return llvm::support::endian::read64le(raw) >> (extra + 1);
}

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
      refusedVersion = true;
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

LogicalResult tegula::tile::readTileBytecode(llvm::MemoryBufferRef buffer,
                                             Block *block,
                                             const ParserConfig &config,
                                             TileBytecodeFailure &why) {
  why = TileBytecodeFailure::None;
  if (!isBytecode(buffer)) {
    why = TileBytecodeFailure::NotBytecode;
    return failure();
  }
  std::optional<uint64_t> format = readFormatVersion(buffer.getBuffer());
  if (format && *format > static_cast<uint64_t>(bytecode::kVersion)) {
    emitError(UnknownLoc::get(config.getContext()))
        << "MLIR bytecode format version " << *format
        << " is newer than this reader's (" << bytecode::kVersion << ")";
    why = TileBytecodeFailure::Version;
    return failure();
  }
  refusedVersion = false;
  LogicalResult result = readBytecodeFile(buffer, block, config);
  if (failed(result))
    why = refusedVersion ? TileBytecodeFailure::Version
                         : TileBytecodeFailure::Malformed;
  refusedVersion = false;
  return result;
}
