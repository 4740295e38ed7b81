//===- tegula/BackendKit/VendorLibrary.h - A driver loaded at run time -*- C++ -*-===//
//
// Backends never link their vendor's runtime (libcuda, libamdhip64,
// libze_loader): the plugin must load, and say "no driver", on machines
// without it. VendorLibrary opens the first of a library's names that
// loads and resolves entry points into a table of function pointers, each
// from the first of its names that the library exports (drivers add _v2
// symbols), remembering the first required one that is missing. Header
// only, on dlopen; the library is never closed (drivers keep threads and
// exit handlers).
//
//   VendorLibrary hip("HIP runtime");
//   if (!hip.open({"libamdhip64.so", "libamdhip64.so.6"}))
//     return hip.error();          // "no HIP runtime found (<dlerror>)"
//   hip.resolve(table.init, {"hipInit"});
//   hip.resolve(table.name, {"hipGetErrorName"}, /*required=*/false);
//   if (!hip.error().empty())
//     return hip.error();          // "the HIP runtime (libamdhip64.so)
//                                  //  lacks hipInit"
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_VENDORLIBRARY_H
#define TEGULA_BACKENDKIT_VENDORLIBRARY_H

#include <dlfcn.h>

#include <initializer_list>
#include <mutex>
#include <string>

/// A member of a vendor table named after the entry point |fn| of the
/// vendor's header and of its exact type, null until resolved. With an
/// X-macro list of the entry points a plugin calls, the table is one line
/// and so is its resolution:
///
///   #define TEGULA_HIP_ENTRIES(X) X(hipInit) X(hipGetDeviceCount)
///   struct HipRuntime { TEGULA_HIP_ENTRIES(TEGULA_VENDOR_MEMBER) };
///   #define RESOLVE(fn) library.resolve(table.fn, {#fn});
///   TEGULA_HIP_ENTRIES(RESOLVE)
#define TEGULA_VENDOR_MEMBER(fn) decltype(&::fn) fn = nullptr;

namespace tegula::backend {

class VendorLibrary {
public:
  /// |what| names the library in errors ("CUDA driver").
  explicit VendorLibrary(std::string what) : what(std::move(what)) {}

  /// Opens the first of |names| that loads; false (and error() says why,
  /// with the first name's dlerror) when none does.
  bool open(std::initializer_list<const char *> names) {
    std::string firstFailure;
    for (const char *name : names) {
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        opened = name;
        return true;
      }
      if (firstFailure.empty()) {
        const char *why = dlerror();
        firstFailure = why ? why : std::string(name) + " cannot be loaded";
      }
    }
    problem = "no " + what + " found (" + firstFailure + ")";
    return false;
  }

  /// Points |fn| at the first of |symbols| the library exports; false when
  /// none. A |required| one that is missing makes error() name it.
  template <typename Fn>
  bool resolve(Fn &fn, std::initializer_list<const char *> symbols,
               bool required = true) {
    fn = nullptr;
    if (!handle)
      return false;
    for (const char *symbol : symbols)
      if ((fn = reinterpret_cast<Fn>(dlsym(handle, symbol))))
        return true;
    if (required && problem.empty())
      problem = "the " + what + " (" + opened + ") lacks " + *symbols.begin();
    return false;
  }

  /// Why the library or a required entry point is missing; "" when
  /// nothing is.
  const std::string &error() const { return problem; }
  /// The name the library was opened by.
  const std::string &name() const { return opened; }

private:
  std::string what;
  void *handle = nullptr;
  std::string opened;
  std::string problem;
};

/// The process's one |Table| of a vendor library's entry points, made and
/// loaded on the first call (Table::load() returns why it cannot, or "")
/// and never deleted: drivers register exit handlers and threads of their
/// own, and every device of every plugin instance refers to the table.
/// Null, with |whyNot| saying why, when it did not load.
template <typename Table> const Table *loadVendorTableOnce(std::string &whyNot) {
  static std::once_flag once;
  static Table *table = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    auto *candidate = new Table();
    failure = candidate->load();
    if (failure.empty())
      table = candidate;
    else
      delete candidate;
  });
  whyNot = failure;
  return table;
}

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_VENDORLIBRARY_H
