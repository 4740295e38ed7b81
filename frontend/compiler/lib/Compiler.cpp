//===- Compiler.cpp - The compiler C API (tegula/compiler.h) --------------===//
//
// tegula_compile_kernel runs what `tegula compile --emit tile-bytecode` runs
// (both call compileKernelSource, tegula/Frontend/CodeGen.h): parse the
// module, compile the kernel, run the tile-optimize pipeline, then write
// versioned bytecode. Each
// call owns its sources, diagnostics and MLIR context, so calls may run
// concurrently. Nothing is thrown across the C boundary.
//
//===----------------------------------------------------------------------===//

#include "tegula/compiler.h"

#include "ArgWrites.h"

#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Signature.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

using namespace tegula;
using namespace tegula::frontend;

/// An error of the compiler API. `isStatic` marks the preallocated
/// out-of-memory error, which tegula_compiler_error_destroy leaves alone.
struct tegula_compiler_error {
  tegula_compiler_error_code code;
  std::string message;
  bool isStatic = false;
};

/// The bytecode of one compiled kernel, the warnings that came with it and
/// which arguments it may write through (tegula_compile_result_get_arg_writes).
struct tegula_compile_result {
  std::string bytecode;
  std::string diagnostics;
  std::vector<uint8_t> argWrites;
  std::vector<std::string> importedFiles;
};

namespace {

tegula_compiler_error_t *makeError(tegula_compiler_error_code code,
                                   std::string message) noexcept {
  try {
    return new tegula_compiler_error{code, std::move(message)};
  } catch (...) {
    static tegula_compiler_error outOfMemory{
        TEGULA_COMPILER_ERROR_OUT_OF_MEMORY, std::string(), /*isStatic=*/true};
    return &outOfMemory;
  }
}

std::string renderAll(const DiagnosticEngine &diags) {
  std::string text;
  llvm::raw_string_ostream os(text);
  diags.printAll(os);
  return text;
}

/// The compile itself; may throw std::bad_alloc (caught by the caller).
tegula_compiler_error_t *compile(const tegula_compile_options &in,
                                 tegula_compile_result_t **out) {
  CompileOptions options;
  options.kernelName = in.kernel_name;
  options.numWarps = in.num_warps;
  options.numStages = in.num_stages;
  options.enableAssertions = in.disable_assertions == 0;
  if (in.struct_size >= offsetof(tegula_compile_options, num_search_paths) +
                            sizeof(in.num_search_paths))
    for (size_t i = 0; i < in.num_search_paths; ++i)
      options.searchPaths.push_back(in.search_paths[i]);
  options.boundsChecks =
      in.struct_size >= offsetof(tegula_compile_options, debug) +
                            sizeof(in.debug) &&
      in.debug != 0;

  auto specs = parseSignature(in.signature);
  if (!specs)
    return makeError(TEGULA_COMPILER_ERROR_INVALID_SIGNATURE,
                     "invalid signature: " + llvm::toString(specs.takeError()));
  options.signature = std::move(*specs);
  for (size_t i = 0; i < in.num_constexprs; ++i) {
    llvm::StringRef entry(in.constexprs[i]);
    auto [name, text] = entry.split('=');
    auto value = parseConstant(text);
    if (!value)
      return makeError(TEGULA_COMPILER_ERROR_INVALID_SIGNATURE,
                       "constexpr " + name.str() + ": " +
                           llvm::toString(value.takeError()));
    options.constexprs[name] = *value;
  }

  SourceManager sources;
  DiagnosticEngine diags(sources);
  const SourceFile &file = sources.addBuffer(
      llvm::StringRef(in.source ? in.source : "", in.source_size),
      in.file_name ? in.file_name : "<source>");
  DiagnosticEngine parseDiags(sources);
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::optional<std::string> pipelineError;
  std::vector<std::string> importedFiles;
  mlir::OwningOpRef<mlir::ModuleOp> ir = compileKernelSource(
      sources, file, options, context, diags, parseDiags,
      /*optimize=*/true, pipelineError, &importedFiles);
  if (pipelineError)
    return makeError(TEGULA_COMPILER_ERROR_INTERNAL,
                     "internal error: the tile-optimize pipeline failed:\n" +
                         *pipelineError);
  if (!ir)
    return makeError(TEGULA_COMPILER_ERROR_KERNEL,
                     renderAll(diags) + renderAll(parseDiags));

  auto result = std::make_unique<tegula_compile_result>();
  result->argWrites = compiler::argumentWrites(*ir, options.kernelName);
  {
    llvm::raw_string_ostream os(result->bytecode);
    if (mlir::failed(tile::writeTileBytecode(*ir, os)))
      return makeError(TEGULA_COMPILER_ERROR_INTERNAL,
                       "internal error: writing the tile bytecode failed");
  }
  result->diagnostics = renderAll(diags);
  result->importedFiles = std::move(importedFiles);
  *out = result.release();
  return nullptr;
}

} // namespace

extern "C" {

tegula_compiler_error_code
tegula_compiler_error_get_code(const tegula_compiler_error_t *error) {
  return error ? error->code : TEGULA_COMPILER_SUCCESS;
}

const char *
tegula_compiler_error_get_message(const tegula_compiler_error_t *error) {
  if (!error)
    return "";
  if (error->isStatic)
    return "out of memory";
  return error->message.c_str();
}

void tegula_compiler_error_destroy(tegula_compiler_error_t *error) {
  if (error && !error->isStatic)
    delete error;
}

void tegula_compiler_get_api_version(uint32_t *major, uint32_t *minor) {
  if (major)
    *major = TEGULA_COMPILER_API_MAJOR;
  if (minor)
    *minor = TEGULA_COMPILER_API_MINOR;
}

tegula_compiler_error_t *
tegula_compile_kernel(const tegula_compile_options *options,
                      tegula_compile_result_t **out) {
  auto invalid = [](const std::string &what) {
    return makeError(TEGULA_COMPILER_ERROR_INVALID_ARGUMENT,
                     "tegula_compile_kernel: " + what);
  };
  if (!options || !out)
    return invalid("options or out is NULL");
  *out = nullptr;
  size_t needed = offsetof(tegula_compile_options, disable_assertions) +
                  sizeof(options->disable_assertions);
  if (options->struct_size < needed)
    return invalid("options.struct_size is " +
                   std::to_string(options->struct_size) + ", at least " +
                   std::to_string(needed) + " is needed");
  if (!options->source && options->source_size)
    return invalid("options.source is NULL");
  if (!options->kernel_name || !*options->kernel_name)
    return invalid("options.kernel_name is NULL or empty");
  if (!options->signature)
    return invalid("options.signature is NULL");
  if (!options->constexprs && options->num_constexprs)
    return invalid("options.constexprs is NULL");
  if (options->struct_size >= offsetof(tegula_compile_options, num_search_paths) +
                                  sizeof(options->num_search_paths)) {
    if (!options->search_paths && options->num_search_paths)
      return invalid("options.search_paths is NULL");
    for (size_t i = 0; i < options->num_search_paths; ++i)
      if (!options->search_paths[i])
        return invalid("search path " + std::to_string(i) + " is NULL");
  }
  for (size_t i = 0; i < options->num_constexprs; ++i) {
    const char *entry = options->constexprs[i];
    if (!entry || !std::strchr(entry, '=') || entry[0] == '=')
      return invalid("constexpr " + std::to_string(i) +
                     " is not NAME=VALUE: '" + (entry ? entry : "(null)") +
                     "'");
  }
  int32_t warps = options->num_warps;
  if (warps <= 0 || (warps & (warps - 1)))
    return invalid("options.num_warps is " + std::to_string(warps) +
                   ", not a power of 2");
  if (options->num_stages < 0)
    return invalid("options.num_stages is " +
                   std::to_string(options->num_stages) + ", not >= 0");
  try {
    return compile(*options, out);
  } catch (const std::bad_alloc &) {
    return makeError(TEGULA_COMPILER_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return makeError(TEGULA_COMPILER_ERROR_INTERNAL,
                     std::string("internal error: ") + e.what());
  } catch (...) {
    return makeError(TEGULA_COMPILER_ERROR_INTERNAL,
                     "internal error: unknown exception");
  }
}

const void *
tegula_compile_result_get_bytecode(const tegula_compile_result_t *result) {
  return result ? result->bytecode.data() : nullptr;
}

size_t
tegula_compile_result_get_bytecode_size(const tegula_compile_result_t *result) {
  return result ? result->bytecode.size() : 0;
}

const char *
tegula_compile_result_get_diagnostics(const tegula_compile_result_t *result) {
  return result ? result->diagnostics.c_str() : "";
}

size_t tegula_compile_result_get_num_args(const tegula_compile_result_t *result) {
  return result ? result->argWrites.size() : 0;
}

int32_t
tegula_compile_result_get_arg_writes(const tegula_compile_result_t *result,
                                     size_t index) {
  if (!result || index >= result->argWrites.size())
    return -1;
  return result->argWrites[index];
}

size_t tegula_compile_result_get_num_imported_files(
    const tegula_compile_result_t *result) {
  return result ? result->importedFiles.size() : 0;
}

const char *
tegula_compile_result_get_imported_file(const tegula_compile_result_t *result,
                                        size_t index) {
  if (!result || index >= result->importedFiles.size())
    return nullptr;
  return result->importedFiles[index].c_str();
}

void tegula_compile_result_destroy(tegula_compile_result_t *result) {
  delete result;
}

} // extern "C"
