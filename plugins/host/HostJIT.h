//===- HostJIT.h - A host kernel image loaded into the process --*- C++ -*-===//
//
// Loads the ELF object of a host image (HostImage.h) with ORC's LLJIT, one
// JIT per loaded module: tegula_host_print and tegula_host_assert_fail
// resolve to the plugin's own definitions, everything else (memset, expf,
// ...) to what the process has loaded; where the C runtime lacks the
// float-to-bfloat16 conversions LLVM calls on CPUs without AVX512-BF16
// (__truncsfbf2, __truncdfbf2), the plugin supplies them.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTJIT_H
#define TEGULA_PLUGINS_HOST_HOSTJIT_H

#include "HostImage.h"
#include "HostLauncher.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace tegula::host {

/// The code of one loaded image: the JIT that owns it and the kernel's
/// entry point. Unloading (destroying it) frees the code, so a launch keeps
/// the HostCode it runs alive.
class HostCode {
public:
  /// Links |image|'s object into a new JIT and resolves its kernel. Errors
  /// (one line): an image for a CPU feature this one lacks, an object LLVM
  /// cannot link, a symbol nothing defines.
  static llvm::Expected<std::shared_ptr<HostCode>> load(const HostImage &image);
  ~HostCode();
  HostCode(const HostCode &) = delete;
  HostCode &operator=(const HostCode &) = delete;

  KernelEntry entry() const { return kernelEntry; }
  const std::string &kernelName() const { return name; }
  uint64_t scratchBytes() const { return scratch; }
  uint64_t packedArgsSize() const { return argsSize; }
  /// Threads per program (1 unless a SIMT image).
  unsigned simtThreads() const { return threads; }

private:
  HostCode();

  std::unique_ptr<llvm::orc::LLJIT> jit;
  KernelEntry kernelEntry = nullptr;
  std::string name;
  uint64_t scratch = 0;
  uint64_t argsSize = 0;
  unsigned threads = 1;
};

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTJIT_H
