//===- HostCompiler.h - Tile bytecode to a host kernel image ----*- C++ -*-===//
//
// The host plugin's compile: tile-dialect bytecode is read into a fresh
// MLIRContext, lowered to the LLVM dialect by middle/'s lowering
// (tegula/Conversion/TileToLLVM.h) with HostTargetHooks, translated to LLVM
// IR, given the entry wrapper of HostKernelABI.h and compiled at O3 for the
// CPU the plugin runs on (HostCodegen.h). Every MLIR diagnostic of the
// compile ends up in the returned error, with its file:line:col.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTCOMPILER_H
#define TEGULA_PLUGINS_HOST_HOSTCOMPILER_H

#include "tegula/BackendKit/PluginBase.h"

#include <memory>
#include <string>

namespace tegula::host {

/// Compiles |request| (its target |arch|, the plugin's one, as the kit checked)
/// into |image|: a host image (HostImage.h) and the kernel's metadata,
/// target "host:<arch>", one warp, shared memory = scratch bytes per
/// program. Errors: TG_ERROR_INVALID_FORMAT for input that is not tile
/// bytecode, TG_ERROR_VERSION_MISMATCH for a dialect version this build
/// cannot read, TG_ERROR_INVALID_ARGUMENT for IR that does not verify or
/// that the lowering rejects, TG_ERROR_INTERNAL for a failure past the
/// lowering. Safe to call from several threads at once.
plugin::Status compileTileBytecode(const plugin::CompileRequest &request,
                                   const std::string &arch,
                                   std::unique_ptr<plugin::CompiledImage> &image);

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTCOMPILER_H
