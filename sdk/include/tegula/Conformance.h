//===- tegula/Conformance.h - The plugin conformance suite ------*- C++ -*-===//
//
// GoogleTest tests any plugin runs against itself, through the runtime C API
// (libtegula_runtime loads exactly the plugin under test) and, for what the
// runtime hides, through the plugin ABI directly:
//
//   Plugin.*   discovery, identity, version negotiation, two instances at
//              once, errors for malformed input          (no device needed)
//   Device.*   names, targets, properties, short out-structs
//   Memory.*   allocation, write/read round trips, copies, memsets
//   Streams.*  ordering in a stream, events across streams, timing,
//              destroy-waits, streams from several threads
//   Launch.*   compile, load and launch: real kernels (Launch.Compiled*),
//              and a plugin's built-in fill kernel (Launch.FillKernel)
//
// Tests that need a device skip, saying why, when the plugin has none. A
// call the plugin answers with TG_ERROR_UNIMPLEMENTED skips its test too
// ("not implemented by the plugin: ..."), unless the run is strict, where it
// fails: a finished backend runs strict.
//
// Two ways to run it:
//  - `tegula-conformance --plugin=path/libtegula_plugin_foo.so [--strict]`
//    (or the environment variables below), the SDK's ready-made program;
//  - your own GoogleTest program linking Tegula::TegulaConformance, calling
//    configure() before RUN_ALL_TESTS() (configure() also pulls every test
//    of the static library into the program).
//
// Launch.Compiled* compile a kernel corpus: Triton-language kernels (a
// masked fill, vector add, a row sum with a loop and a 2-D tile, atomics
// under contention, program ids on 3-D grids) compiled to tile bytecode by
// `tegula compile` when the SDK was built and embedded in the library, so
// the suite needs no file at run time. Each is compiled by the plugin for
// every device, its metadata checked, loaded, launched on several grids and
// its output compared with a C++ reference. A compile answering
// TG_ERROR_UNIMPLEMENTED skips them (fails them when strict).
// Launch.FillKernel is for plugins without a code generator: under compile
// options (Config::fillKernelOptions) such a plugin builds a built-in
// `fill_u32` from any bytecode; without those options it skips. Given them,
// the plugin is taken to build kernels from options only, and a compile of
// the corpus answering TG_ERROR_UNIMPLEMENTED, TG_ERROR_INVALID_FORMAT or
// TG_ERROR_NOT_FOUND skips Launch.Compiled* even when strict.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_CONFORMANCE_H
#define TEGULA_CONFORMANCE_H

#include <string>
#include <utility>
#include <vector>

namespace tegula::conformance {

/// What to test and how strictly.
struct Config {
  /// The plugin file under test, `libtegula_plugin_<backend>.so`. Made
  /// absolute by configure() (the runtime ignores relative plugin paths).
  std::string pluginPath;
  /// When true, TG_ERROR_UNIMPLEMENTED fails a test instead of skipping it.
  bool strict = false;
  /// Compile options under which the plugin compiles, from any bytecode,
  /// the kernel `fill_u32(u32* out, u32 value, i32 n)` (out[i] = value for
  /// every global thread index i < n). For plugins with built-in kernels
  /// and no code generator (test plugins). Empty: Launch.FillKernel skips.
  /// Not empty: the plugin is taken not to compile tile bytecode, and
  /// Launch.Compiled* skip when it refuses the corpus (see above).
  std::vector<std::pair<std::string, std::string>> fillKernelOptions;
};

/// Reads the configuration from the environment:
///   TEGULA_CONFORMANCE_PLUGIN       the plugin file (required)
///   TEGULA_CONFORMANCE_STRICT       1 for strict
///   TEGULA_CONFORMANCE_FILL_KERNEL  comma-separated key=value compile options
///                                   (Config::fillKernelOptions)
/// Returns false and says why in |error| when the plugin is not named or an
/// option is malformed.
bool configFromEnvironment(Config &config, std::string &error);

/// Parses `key=value,key=value` into |options|; false for a malformed item.
bool parseOptions(const std::string &text,
                  std::vector<std::pair<std::string, std::string>> &options);

/// Sets the plugin under test for every test that runs afterwards, and
/// makes sure every test of the library is linked into the program.
void configure(Config config);

/// The configuration in effect: configure()'s, or else the environment's.
/// Tests fail with configFromEnvironment()'s reason when there is neither.
const Config &config();

/// The whole suite as a program: GoogleTest's flags, then `--plugin=PATH`,
/// `--strict` and `--fill-kernel=OPTIONS` (each overriding the environment
/// variable), then RUN_ALL_TESTS(). Returns the exit status; 2 for a usage
/// error.
int runMain(int argc, char **argv);

} // namespace tegula::conformance

#endif // TEGULA_CONFORMANCE_H
