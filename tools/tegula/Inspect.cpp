//===- Inspect.cpp - `tegula inspect` -------------------------------------===//
//
// Prints what a kernel container holds: its format version, then one block
// per image with the target, the kernel, its launch metadata (warps, shared
// memory, arguments) and the image's size. Reads the file with the runtime's
// container reader, so a damaged file gets the reader's own error.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tegula/runtime.hpp"

#include <cstdio>
#include <string>

using namespace tegula;

namespace {

void printUsage() {
  std::printf("usage: tegula inspect FILE\n\n"
              "Shows the images a kernel container (`tegula compile "
              "--target ...`)\nholds: target, kernel, warps, shared memory, "
              "arguments and size.\n");
}

const char *typeName(uint32_t type) {
  static const char *names[] = {"?",    "i1",   "i8",   "i16",  "i32",
                                "i64",  "u8",   "u16",  "u32",  "u64",
                                "fp16", "bf16", "fp32", "fp64", "fp8e4nv",
                                "fp8e5"};
  return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

/// "*fp32:16", "i32": an argument as a signature spells it.
std::string describeArgument(const tg_kernel_arg &arg) {
  std::string text = arg.kind == TG_ARG_POINTER ? "*" : "";
  text += typeName(arg.type);
  if (arg.divisibility > 1)
    text += ":" + std::to_string(arg.divisibility);
  return text;
}

} // namespace

int tegula::cli::runInspect(const std::vector<std::string> &args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    printUsage();
    return 0;
  }
  if (args.size() != 1) {
    std::fprintf(stderr, "tegula inspect: expected one file\n\n");
    printUsage();
    return 2;
  }
  try {
    Container container = Container::readFile(args[0]);
    uint32_t major = 0, minor = 0;
    tegula_container_get_version(container.get(), &major, &minor);
    std::printf("%s: kernel container %u.%u, %zu image%s\n", args[0].c_str(),
                major, minor, container.size(),
                container.size() == 1 ? "" : "s");
    for (size_t i = 0; i < container.size(); ++i) {
      tegula_container_entry entry = container.entry(i);
      const tg_kernel_metadata &md = *entry.metadata;
      std::printf("[%zu] %s: kernel %s, %zu bytes\n", i, entry.target, md.name,
                  entry.image_size);
      std::printf("    num_warps %u, shared memory %u bytes\n", md.num_warps,
                  md.shared_memory);
      std::string signature;
      for (uint32_t a = 0; a < md.num_args; ++a)
        signature += (a ? ", " : "") + std::string(md.args[a].name) + ": " +
                     describeArgument(md.args[a]);
      std::printf("    arguments (%s)\n", signature.c_str());
      if (md.specialization && *md.specialization)
        std::printf("    specialization %s\n", md.specialization);
    }
  } catch (const tegula::Error &error) {
    std::fprintf(stderr, "tegula inspect: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
