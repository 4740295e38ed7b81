//===- HostJIT.cpp - A host kernel image loaded into the process ----------===//

#include "HostJIT.h"
#include "HostCodegen.h"

#include "tegula/BackendKit/CompileSupport.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

using namespace llvm;
using namespace llvm::orc;
using namespace tegula::host;

namespace {

/// Errors cross the plugin ABI as one line.
Error fail(const Twine &message) {
  return tegula::backend::oneLineError(message);
}

#if defined(__x86_64__) && defined(__FLT16_MAX__)
// Float to bfloat16, rounding to nearest even; NaNs stay (quiet) NaNs.
// LLVM calls these on x86-64 CPUs without AVX512-BF16 and expects the
// result in XMM0, where _Float16 is returned; GCC 12's libgcc lacks them.
uint16_t floatToBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

_Float16 fromBits(uint16_t bits) {
  _Float16 result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

_Float16 tegulaHostTruncSFBF2(float value) {
  return fromBits(floatToBF16Bits(value));
}

_Float16 tegulaHostTruncDFBF2(double value) {
  // Round to odd into float, then to nearest even into bfloat16: exact,
  // where two roundings to nearest would not be.
  float narrow = static_cast<float>(value);
  if (!std::isnan(value) && static_cast<double>(narrow) != value) {
    uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof(bits));
    // |narrow| rounded away from zero: step back towards |value|.
    if (std::abs(static_cast<double>(narrow)) > std::abs(value))
      bits -= 1;
    bits |= 1;
    std::memcpy(&narrow, &bits, sizeof(bits));
  }
  return fromBits(floatToBF16Bits(narrow));
}
#define TEGULA_HOST_HAS_BF16_HELPERS 1
#endif

/// The plugin's symbols generated code may call, as absolute addresses.
SymbolMap runtimeSymbols(LLJIT &jit) {
  SymbolMap symbols;
  auto add = [&](StringRef name, ExecutorAddr address) {
    symbols[jit.mangleAndIntern(name)] = ExecutorSymbolDef(
        address, JITSymbolFlags::Exported | JITSymbolFlags::Callable);
  };
  add("tegula_host_print", ExecutorAddr::fromPtr(&tegula_host_print));
  add("tegula_host_assert_fail",
      ExecutorAddr::fromPtr(&tegula_host_assert_fail));
  add("tegula_host_bounds_fail",
      ExecutorAddr::fromPtr(&tegula_host_bounds_fail));
  add("tegula_host_barrier", ExecutorAddr::fromPtr(&tegula_host_barrier));
  add("tegula_host_shuffle", ExecutorAddr::fromPtr(&tegula_host_shuffle));
#ifdef TEGULA_HOST_HAS_BF16_HELPERS
  // The C runtime's own where it has them (GCC 13's libgcc does).
  if (!sys::DynamicLibrary::SearchForAddressOfSymbol("__truncsfbf2"))
    add("__truncsfbf2", ExecutorAddr::fromPtr(&tegulaHostTruncSFBF2));
  if (!sys::DynamicLibrary::SearchForAddressOfSymbol("__truncdfbf2"))
    add("__truncdfbf2", ExecutorAddr::fromPtr(&tegulaHostTruncDFBF2));
#endif
  return symbols;
}

} // namespace

HostCode::HostCode() = default;
HostCode::~HostCode() = default;

Expected<std::shared_ptr<HostCode>> HostCode::load(const HostImage &image) {
  std::string missing = missingHostFeatures(image.features);
  if (!missing.empty())
    return fail("kernel " + image.kernelName + " was compiled for a " +
                image.cpu + " CPU with " + missing +
                ", which this CPU (" + getHostCpu().name + ") lacks");
  initializeNativeTarget();

  Expected<std::unique_ptr<LLJIT>> created = LLJITBuilder().create();
  if (!created)
    return fail("cannot create a JIT for kernel " + image.kernelName + ": " +
                toString(created.takeError()));
  std::shared_ptr<HostCode> code(new HostCode());
  code->jit = std::move(*created);
  LLJIT &jit = *code->jit;
  // The session reports why linking failed (e.g. "Symbols not found:
  // [ foo ]") to its reporter, which prints to stderr by default, and
  // lookup() then only says that materializing failed: keep the reports for
  // the error message instead.
  auto reports = std::make_shared<std::pair<std::mutex, std::string>>();
  jit.getExecutionSession().setErrorReporter([reports](Error error) {
    std::string text = toString(std::move(error));
    std::lock_guard<std::mutex> lock(reports->first);
    reports->second += (reports->second.empty() ? "" : "; ") + text;
  });

  JITDylib &dylib = jit.getMainJITDylib();
  if (Error error = dylib.define(absoluteSymbols(runtimeSymbols(jit))))
    return fail("cannot define the host runtime functions: " +
                toString(std::move(error)));
  Expected<std::unique_ptr<DynamicLibrarySearchGenerator>> process =
      DynamicLibrarySearchGenerator::GetForCurrentProcess(
          jit.getDataLayout().getGlobalPrefix());
  if (!process)
    return fail("cannot search the process for symbols: " +
                toString(process.takeError()));
  dylib.addGenerator(std::move(*process));

  if (Error error = jit.addObjectFile(MemoryBuffer::getMemBufferCopy(
          image.object, "tegula-host-" + image.kernelName + ".o")))
    return fail("cannot load the object of kernel " + image.kernelName + ": " +
                toString(std::move(error)));
  Expected<ExecutorAddr> address = jit.lookup(image.kernelName);
  if (!address) {
    std::string why = toString(address.takeError());
    {
      std::lock_guard<std::mutex> lock(reports->first);
      if (!reports->second.empty())
        why = reports->second + " (" + why + ")";
    }
    return fail("cannot link kernel " + image.kernelName + ": " + why);
  }
  code->kernelEntry = address->toPtr<KernelEntry>();
  code->name = image.kernelName;
  code->scratch = image.scratchBytes;
  code->argsSize = image.packedArgsSize;
  code->threads = static_cast<unsigned>(image.simtThreads);
  return code;
}
