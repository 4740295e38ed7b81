//===- HostCodegen.h - LLVM IR to a host kernel image -----------*- C++ -*-===//
//
// The back half of the host plugin's compile, below MLIR: the entry wrapper
// HostKernelABI.h describes, LLVM's O3 pipeline for the CPU the plugin runs
// on, and an ELF object wrapped in a host image (HostImage.h). Needs LLVM
// only, so tests drive it with hand-written LLVM IR.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_HOST_HOSTCODEGEN_H
#define TEGULA_PLUGINS_HOST_HOSTCODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace tegula::host {

/// Initializes LLVM's native target, its assembly printer and parser; safe to
/// call from several threads, does the work once.
void initializeNativeTarget();

/// The CPU the plugin compiles for: llvm::sys::getHostCPUName() and the
/// host's subtarget features as "+name"/"-name", sorted.
struct HostCpu {
  std::string name;
  std::vector<std::string> features;
};
const HostCpu &getHostCpu();

/// The subtarget features |features| (of an image) enables that this CPU
/// lacks, as a comma-separated list ("" when it can run the code).
std::string missingHostFeatures(const std::vector<std::string> &features);

/// What compileLLVMModuleToImage records about the kernel.
struct HostKernelInfo {
  /// The entry function: `void NAME(const void *packed_args,
  /// tg_host_program *program)` (HostKernelABI.h).
  std::string name;
  /// The container target, "host:<arch>".
  std::string target;
  /// Scratch bytes each program needs; the launcher rounds up to 64.
  uint64_t scratchBytes = 0;
  /// Bytes of packed arguments the entry reads (addHostEntry returns it).
  uint64_t packedArgsSize = 0;
  /// Threads per program (SIMT images), else 1.
  uint64_t simtThreads = 1;
};

/// Turns |body|, a lowered kernel taking the kernel's arguments followed by
/// the `tg_host_program *` context, into the body of entry |name|: |body| is
/// renamed to "<name>.body", made internal and always-inline, and a new
/// external function |name| unpacks the arguments from the packed buffer
/// (each at the next multiple of its size; pointers 8 bytes, an i1 one byte
/// that is truncated, f16/bf16 2 bytes) and calls it. Returns the packed
/// size (rounded up to 8), or an error naming an argument whose type the
/// ABI cannot pass.
llvm::Expected<uint64_t> addHostEntry(llvm::Function &body,
                                      llvm::StringRef name);

/// What compileLLVMModuleToImage returns.
enum class HostOutput {
  /// The optimized LLVM IR, as text.
  LLVMIR,
  /// The CPU's assembly, as text.
  Assembly,
  /// The relocatable ELF object.
  Object,
  /// The object in a host image (HostImage.h).
  Image,
};

/// Optimizes |module| at O3 for this CPU (every definition but the kernel's
/// entry made internal) and emits a relocatable ELF object, returned as a
/// host image (HostImage.h) recording |kernel|, or stops at |output|.
/// |module| must contain the entry function |kernel.name| as HostKernelABI.h
/// describes it; it may call tegula_host_print and tegula_host_assert_fail,
/// and C library functions. Errors are one line.
llvm::Expected<std::string>
compileLLVMModuleToImage(llvm::Module &module, const HostKernelInfo &kernel,
                         HostOutput output = HostOutput::Image);

} // namespace tegula::host

#endif // TEGULA_PLUGINS_HOST_HOSTCODEGEN_H
