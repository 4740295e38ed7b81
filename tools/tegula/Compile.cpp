//===- Compile.cpp - `tegula compile` -------------------------------------===//
//
// tegula compile FILE.py --kernel NAME --signature SIG [--constexpr K=V]...
//                [--target TARGET]... [--emit STAGE] [--option KEY=VALUE]...
//                [--num-warps N] [--num-stages N] [--locations]
//                [--time-stages] [-o OUT]
//
// The front end makes tile IR here; target code comes from the plugin that
// declares the target, through the runtime (tegula_runtime_compile_stage),
// with or without a device of it: this tool links no plugin code. The
// stages and options a target takes are the plugin's (`tegula targets`).
// Several --targets (each compiled to its loadable image) make one
// multi-target kernel container.
//
// Target compiles go through the on-disk kernel cache (tegula/KernelCache.h,
// shared with Python launches; TEGULA_CACHE_DIR=none or --no-cache turns it
// off), keyed on the tile bytecode, the target and stage, the plugin's name,
// version and file, the compile options and the values of the environment
// variables the plugin's options read, and for the host the exact CPU.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "tegula/Dialect/Tile/IR/Tile.h"
#include "tegula/Dialect/Tile/IR/TileBytecode.h"
#include "tegula/Frontend/CodeGen.h"
#include "tegula/Frontend/Diagnostics.h"
#include "tegula/Frontend/Signature.h"
#include "tegula/KernelCache.h"
#include "tegula/runtime.hpp"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <sys/stat.h>

using namespace tegula;
using namespace tegula::frontend;

namespace {
const char *kUsage =
    "usage: tegula compile FILE.py --kernel NAME --signature SIG\n"
    "                      [--constexpr NAME=VALUE]... [--target TARGET]...\n"
    "                      [--emit STAGE] [--option KEY=VALUE]...\n"
    "                      [--num-warps N] [--num-stages N] [--no-assert]\n"
    "                      [-I DIR]... [--debug] [--locations] [--time-stages]\n"
    "                      [-o OUT]\n"
    "\n"
    "Compiles the @jit function NAME of FILE.py for SIG, a signature in the\n"
    "format of Triton's AOT tool (\"*fp32:16, *fp32:16, i32, 1024\").\n"
    "  -I DIR               a folder where the modules the kernel imports\n"
    "                       @jit helpers and constants from are looked for\n"
    "                       (like PYTHONPATH; repeatable; searched before the\n"
    "                       root of FILE.py's package and FILE.py's folder)\n"
    "Without --target it stops at tile IR:\n"
    "  --emit tile-ir       verified tile IR after the target-independent\n"
    "                       pipeline (the default)\n"
    "  --emit tile-ir-raw   tile IR as the front end made it\n"
    "  --emit tile-bytecode versioned MLIR bytecode (what plugins receive)\n"
    "With --target BACKEND:ARCH (any target a loaded plugin declares; no\n"
    "device needed; `tegula targets` lists them with their stages and\n"
    "options):\n"
    "  --emit image         a kernel container with the loadable image of\n"
    "                       each --target (the default; `tegula inspect`\n"
    "                       shows it)\n"
    "  --emit STAGE         one target's output at a stage its plugin\n"
    "                       declares: llvm-ir, ptx, cubin (nvidia), asm,\n"
    "                       object (host), ...\n"
    "  --option KEY=VALUE   a compile option the plugin declares (e.g.\n"
    "                       mma=0); it overrides the option's environment\n"
    "                       variable\n"
    "  --time-stages        the wall-clock time of each target compile\n"
    "                       stage on stderr (TEGULA_TIME_STAGES=1; compiles\n"
    "                       without the cache)\n"
    "  --debug              check every load, store and atomic against the\n"
    "                       buffers the launch gives (two hidden i64\n"
    "                       arguments per pointer; docs/runtime.md)\n"
    "  --no-cache           compile even when the kernel cache (`tegula\n"
    "                       cache`, TEGULA_CACHE_DIR) has the result\n"
    "Exit status: 0 success, 1 error in the kernel or its options, 2 usage.\n";

int usageError(const std::string &message) {
  std::fprintf(stderr, "tegula compile: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

bool isFrontEndStage(const std::string &emit) {
  return emit == "tile-ir" || emit == "tile-ir-raw" || emit == "tile-bytecode";
}

/// "path:size:mtime" of |path|: a rebuilt plugin is another key.
std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0)
    return path;
  return path + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

/// The cache key of compiling |bytecode| for |target| to |stage|: the
/// plugin's identity and every setting of its options (given, or read from
/// their environment variables).
KernelCacheKey cacheKey(const std::vector<PluginInfo> &plugins,
                        const std::string &target, const std::string &stage,
                        const std::string &bytecode,
                        const std::vector<std::pair<std::string, std::string>>
                            &optionTexts) {
  KernelCacheKey key;
  key.source = bytecode;
  key.signature = "tile-bytecode";
  key.target = target;
  std::string backend = llvm::StringRef(target).split(':').first.str();
  key.pluginName = backend;
  key.options = optionTexts;
  key.options.emplace_back("stage", stage);
  key.options.emplace_back("tool", "tegula compile");
  for (const PluginInfo &plugin : plugins) {
    if (!plugin.loaded || plugin.name != backend)
      continue;
    key.pluginVersion = plugin.version;
    key.options.emplace_back("plugin-file", fileIdentity(plugin.path));
    for (const tg_compile_option_info &option : plugin.options)
      if (option.env && *option.env) {
        const char *value = std::getenv(option.env);
        key.options.emplace_back(std::string("env:") + option.env,
                                 value ? value : "<unset>");
      }
    break;
  }
  if (backend == "host")
    key.options.emplace_back("host-cpu", KernelCacheKey::hostCpu());
  return key;
}

/// The one-image container of |image|, as the cache keeps it.
std::string oneImageContainer(const Image &image) {
  ContainerWriter writer;
  writer.add(*image.metadata(), image.data(), image.size());
  std::vector<uint8_t> bytes = writer.finish();
  return std::string(bytes.begin(), bytes.end());
}

/// Compiles |bytecode| for each of |targets| through the runtime's plugins
/// (or takes the result from |cache|) and writes the result to |output|:
/// the stage |emit| of the one target, or (|emit| "image") a container of
/// every target's image. Returns the exit status; errors are printed.
int compileForTargets(const std::vector<std::string> &targets,
                      const std::string &emit, const std::string &bytecode,
                      const std::vector<std::pair<std::string, std::string>>
                          &optionTexts,
                      const std::string &output,
                      const std::optional<KernelCache> &cache) {
  std::vector<tg_compile_option> options;
  for (const auto &[key, value] : optionTexts)
    options.push_back({key.c_str(), value.c_str()});
  std::string data;
  try {
    Runtime runtime;
    std::vector<PluginInfo> plugins;
    if (cache)
      plugins = runtime.plugins();
    // One target's result as a one-image container, from the cache or
    // compiled (and then kept there). Plugin errors come as tegula::Error.
    auto compileOne = [&](const std::string &target) -> std::string {
      auto compile = [&]() -> std::string {
        Image image = emit == "image"
                          ? runtime.compile(target, bytecode.data(),
                                            bytecode.size(), options)
                          : runtime.compileStage(target, emit, bytecode.data(),
                                                 bytecode.size(), options);
        return oneImageContainer(image);
      };
      if (!cache)
        return compile();
      std::optional<tegula::Error> failure;
      llvm::Expected<std::string> blob = cache->getOrCompile(
          cacheKey(plugins, target, emit, bytecode, optionTexts),
          [&]() -> llvm::Expected<std::string> {
            try {
              return compile();
            } catch (const tegula::Error &error) {
              failure = error;
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "%s", error.what());
            }
          });
      if (!blob) {
        llvm::consumeError(blob.takeError());
        throw *failure;
      }
      return std::move(*blob);
    };
    ContainerWriter writer;
    for (const std::string &target : targets) {
      std::string blob = compileOne(target);
      Container one = Container::read(blob.data(), blob.size());
      tegula_container_entry entry = one.entry(0);
      if (emit != "image") {
        data.assign(static_cast<const char *>(entry.image), entry.image_size);
        break;
      }
      writer.add(*entry.metadata, entry.image, entry.image_size);
    }
    if (emit == "image") {
      std::vector<uint8_t> bytes = writer.finish();
      data.assign(bytes.begin(), bytes.end());
    }
  } catch (const tegula::Error &error) {
    std::fprintf(stderr, "tegula compile: error: %s\n", error.what());
    return 1;
  }
  std::string openError;
  auto out = mlir::openOutputFile(output, &openError);
  if (!out) {
    std::fprintf(stderr, "tegula compile: error: %s\n", openError.c_str());
    return 1;
  }
  out->os() << data;
  out->keep();
  return 0;
}
} // namespace

int tegula::cli::runCompile(const std::vector<std::string> &args) {
  std::string file, kernel, signature, output = "-", emit = "tile-ir";
  std::vector<std::string> targets;
  std::vector<std::pair<std::string, std::string>> compileOptions;
  bool haveSignature = false, locations = false, emitGiven = false,
       timeStages = false, noCache = false;
  CompileOptions options;
  std::vector<std::pair<std::string, std::string>> constexprs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const char *flag) -> const std::string * {
      if (i + 1 >= args.size())
        return nullptr;
      (void)flag;
      return &args[++i];
    };
    auto flagValue = [&](llvm::StringRef flag, std::string &out) -> int {
      // --flag VALUE or --flag=VALUE; returns 1 if matched, -1 if no value.
      llvm::StringRef s(a);
      if (s == flag) {
        const std::string *v = value(flag.data());
        if (!v)
          return -1;
        out = *v;
        return 1;
      }
      if (s.starts_with(flag.str() + "=")) {
        out = s.drop_front(flag.size() + 1).str();
        return 1;
      }
      return 0;
    };
    std::string v;
    int r;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((r = flagValue("--kernel", v))) {
      if (r < 0) return usageError("--kernel needs a name");
      kernel = v;
    } else if ((r = flagValue("--signature", v))) {
      if (r < 0) return usageError("--signature needs a value");
      signature = v;
      haveSignature = true;
    } else if ((r = flagValue("--constexpr", v))) {
      if (r < 0) return usageError("--constexpr needs NAME=VALUE");
      auto [name, val] = llvm::StringRef(v).split('=');
      if (name.empty() || !llvm::StringRef(v).contains('='))
        return usageError("--constexpr needs NAME=VALUE, got '" + v + "'");
      constexprs.emplace_back(name.str(), val.str());
    } else if ((r = flagValue("--target", v))) {
      if (r < 0) return usageError("--target needs a value");
      if (v != "none")
        targets.push_back(v);
    } else if ((r = flagValue("--option", v))) {
      if (r < 0) return usageError("--option needs KEY=VALUE");
      auto [key, val] = llvm::StringRef(v).split('=');
      if (key.empty() || !llvm::StringRef(v).contains('='))
        return usageError("--option needs KEY=VALUE, got '" + v + "'");
      compileOptions.emplace_back(key.str(), val.str());
    } else if ((r = flagValue("--emit", v))) {
      if (r < 0) return usageError("--emit needs a value");
      emit = v;
      emitGiven = true;
    } else if ((r = flagValue("--num-warps", v))) {
      if (r < 0 || llvm::StringRef(v).getAsInteger(10, options.numWarps) ||
          options.numWarps <= 0 || (options.numWarps & (options.numWarps - 1)))
        return usageError("--num-warps needs a power of 2");
    } else if ((r = flagValue("--num-stages", v))) {
      if (r < 0 || llvm::StringRef(v).getAsInteger(10, options.numStages) ||
          options.numStages < 0)
        return usageError("--num-stages needs a non-negative integer");
    } else if ((r = flagValue("-I", v))) {
      if (r < 0) return usageError("-I needs a folder");
      options.searchPaths.push_back(v);
    } else if (a.size() > 2 && llvm::StringRef(a).starts_with("-I")) {
      options.searchPaths.push_back(a.substr(2));
    } else if ((r = flagValue("-o", v))) {
      if (r < 0) return usageError("-o needs a path");
      output = v;
    } else if (a == "--no-assert") {
      options.enableAssertions = false;
    } else if (a == "--debug") {
      options.boundsChecks = true;
    } else if (a == "--time-stages") {
      timeStages = true;
    } else if (a == "--no-cache") {
      noCache = true;
    } else if (a == "--locations") {
      locations = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usageError("unexpected argument '" + a + "'");
    }
  }
  if (file.empty())
    return usageError("no input file");
  if (kernel.empty())
    return usageError("--kernel is required");
  if (!haveSignature)
    return usageError("--signature is required");
  if (!emitGiven && !targets.empty())
    emit = "image";
  if (isFrontEndStage(emit) && !targets.empty()) {
    std::fprintf(stderr,
                 "tegula compile: --emit %s is target-independent: drop "
                 "--target, or name a stage of the target (`tegula targets`)\n",
                 emit.c_str());
    return 1;
  }
  if (!isFrontEndStage(emit) && targets.empty()) {
    std::fprintf(stderr,
                 "tegula compile: --emit %s is target code: name the target, "
                 "e.g. --target nvidia:sm_90a (`tegula targets` lists them); "
                 "without one, --emit is tile-ir, tile-ir-raw or "
                 "tile-bytecode\n",
                 emit.c_str());
    return 1;
  }
  if (targets.size() > 1 && emit != "image") {
    std::fprintf(stderr,
                 "tegula compile: --emit %s writes one target's output; "
                 "several --targets make one container (--emit image)\n",
                 emit.c_str());
    return 1;
  }
  if (!compileOptions.empty() && targets.empty())
    return usageError("--option sets a plugin's compile option: name a "
                      "--target");
  if (timeStages)
    ::setenv("TEGULA_TIME_STAGES", "1", 1);

  options.kernelName = kernel;
  auto specs = parseSignature(signature);
  if (!specs) {
    std::fprintf(stderr, "tegula compile: error: invalid signature: %s\n",
                 llvm::toString(specs.takeError()).c_str());
    return 1;
  }
  options.signature = std::move(*specs);
  for (auto &[name, text] : constexprs) {
    auto c = parseConstant(text);
    if (!c) {
      std::fprintf(stderr, "tegula compile: error: --constexpr %s: %s\n",
                   name.c_str(), llvm::toString(c.takeError()).c_str());
      return 1;
    }
    options.constexprs[name] = *c;
  }

  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setEchoStream(&llvm::errs());
  std::string readError;
  const SourceFile *source = sources.addFile(file, readError);
  if (!source) {
    std::fprintf(stderr, "tegula compile: error: %s\n", readError.c_str());
    return 1;
  }
  DiagnosticEngine parseDiags(sources);
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::optional<std::string> pipelineError;
  mlir::OwningOpRef<mlir::ModuleOp> ir = compileKernelSource(
      sources, *source, options, context, diags, parseDiags,
      /*optimize=*/emit != "tile-ir-raw", pipelineError);
  if (pipelineError) {
    std::fprintf(stderr, "tegula compile: internal error: the tile-optimize "
                         "pipeline failed:\n%s", pipelineError->c_str());
    return 1;
  }
  if (!ir) {
    // |diags| was echoed as it came.
    parseDiags.printAll(llvm::errs());
    return 1;
  }

  if (!targets.empty()) {
    std::string bytecode;
    llvm::raw_string_ostream os(bytecode);
    if (mlir::failed(tile::writeTileBytecode(*ir, os))) {
      std::fprintf(stderr, "tegula compile: internal error: the tile IR "
                           "could not be written as bytecode\n");
      return 1;
    }
    os.flush();
    // Timing the stages means running them; a cache that cannot be opened
    // or is not trusted (open() warned) only costs the compile.
    std::optional<KernelCache> cache;
    const char *cacheDir = std::getenv("TEGULA_CACHE_DIR");
    const char *timeEnv = std::getenv("TEGULA_TIME_STAGES");
    bool timing = timeEnv && *timeEnv && std::string(timeEnv) != "0";
    if (!noCache && !timing && !(cacheDir && std::string(cacheDir) == "none")) {
      llvm::Expected<KernelCache> opened = KernelCache::openDefault();
      if (opened)
        cache.emplace(std::move(*opened));
      else
        std::fprintf(stderr, "tegula compile: warning: %s; compiling without "
                             "the kernel cache\n",
                     llvm::toString(opened.takeError()).c_str());
    }
    return compileForTargets(targets, emit, bytecode, compileOptions, output,
                             cache);
  }

  std::string openError;
  auto out = mlir::openOutputFile(output, &openError);
  if (!out) {
    std::fprintf(stderr, "tegula compile: error: %s\n", openError.c_str());
    return 1;
  }
  if (emit == "tile-bytecode") {
    if (mlir::failed(tile::writeTileBytecode(*ir, out->os())))
      return 1;
  } else {
    mlir::OpPrintingFlags flags;
    if (locations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    ir->print(out->os(), flags);
    out->os() << "\n";
  }
  out->keep();
  return 0;
}
