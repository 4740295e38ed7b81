//===- Targets.cpp - `tegula targets` -------------------------------------===//
//
// Prints what the loaded plugins compile for: each backend's targets, the
// stages `tegula compile --emit` can stop at, and the compile options
// `--option` (and the C API and Python) can set, with their types, defaults
// and environment variables. `--markdown` prints the same as the tables of
// docs/compile-options.md, which a test keeps in step with the plugins.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tegula/runtime.hpp"

#include <cstdio>
#include <string>

using namespace tegula;

namespace {

void printUsage() {
  std::printf(
      "usage: tegula targets [--markdown]\n\n"
      "Lists the targets of every loaded plugin (devices need not be "
      "present),\nthe stages `tegula compile --emit` can stop at and the "
      "compile options\nthey take. --markdown prints them as "
      "docs/compile-options.md has them.\n");
}

/// "integer 1..32", "flag", "one of a|b", "text".
std::string describeType(const tg_compile_option_info &option) {
  switch (option.type) {
  case TG_OPTION_BOOL:
    return "flag (1 or 0)";
  case TG_OPTION_INT:
    return "integer " + std::to_string(option.min) + ".." +
           std::to_string(option.max);
  case TG_OPTION_ENUM:
    return std::string("one of ") + option.choices;
  default:
    return "text";
  }
}

std::string describeDefault(const tg_compile_option_info &option) {
  if (!*option.default_value)
    return option.type == TG_OPTION_STRING ? "(empty)" : "(the kernel's)";
  return option.default_value;
}

void printText(const PluginInfo &plugin) {
  std::printf("%s %s (%s)\n", plugin.name.c_str(), plugin.version.c_str(),
              plugin.vendor.c_str());
  std::string targets;
  for (const std::string &target : plugin.targets)
    targets += (targets.empty() ? "" : " ") + plugin.name + ":" + target;
  std::printf("  targets: %s\n", targets.c_str());
  std::printf("  stages:\n    %-14s %s\n", "image",
              "the kernel image the plugin loads (the default)");
  for (const tg_compile_stage_info &stage : plugin.stages)
    std::printf("    %-14s %s%s\n", stage.name, stage.description,
                stage.binary ? " (binary)" : "");
  if (plugin.options.empty()) {
    std::printf("  options: none declared (plugin ABI %u.%u)\n",
                plugin.abiMajor, plugin.abiMinor);
    return;
  }
  std::printf("  options:\n");
  for (const tg_compile_option_info &option : plugin.options) {
    std::printf("    %-14s %s; default %s", option.name,
                describeType(option).c_str(), describeDefault(option).c_str());
    if (*option.env)
      std::printf("; environment %s", option.env);
    std::printf("\n    %-14s %s\n", "", option.description);
  }
}

/// '|' inside a Markdown table cell.
std::string cell(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos;
       at = text.find('|', at + 2))
    text.replace(at, 1, "\\|");
  return text;
}

void printMarkdown(const PluginInfo &plugin) {
  std::printf("## %s\n\nTargets:", plugin.name.c_str());
  for (const std::string &target : plugin.targets)
    std::printf(" `%s:%s`", plugin.name.c_str(), target.c_str());
  std::printf("\n\n| stage | output |\n|---|---|\n"
              "| `image` | the kernel image the plugin loads (the default) |\n");
  for (const tg_compile_stage_info &stage : plugin.stages)
    std::printf("| `%s` | %s%s |\n", stage.name, cell(stage.description).c_str(),
                stage.binary ? " (binary)" : "");
  if (plugin.options.empty()) {
    std::printf("\nNo compile options declared (plugin ABI %u.%u).\n\n",
                plugin.abiMajor, plugin.abiMinor);
    return;
  }
  std::printf("\n| option | type | default | environment | what it does |\n"
              "|---|---|---|---|---|\n");
  for (const tg_compile_option_info &option : plugin.options)
    std::printf("| `%s` | %s | %s | %s | %s |\n", option.name,
                cell(describeType(option)).c_str(),
                cell(describeDefault(option)).c_str(),
                *option.env ? ("`" + std::string(option.env) + "`").c_str()
                            : "",
                cell(option.description).c_str());
  std::printf("\n");
}

} // namespace

int tegula::cli::runTargets(const std::vector<std::string> &args) {
  bool markdown = false;
  for (const std::string &arg : args) {
    if (arg == "--help" || arg == "-h") {
      printUsage();
      return 0;
    }
    if (arg != "--markdown") {
      std::fprintf(stderr, "tegula targets: unknown argument '%s'\n\n",
                   arg.c_str());
      printUsage();
      return 2;
    }
    markdown = true;
  }
  try {
    Runtime runtime;
    bool any = false;
    for (const PluginInfo &plugin : runtime.plugins()) {
      if (!plugin.loaded)
        continue;
      any = true;
      markdown ? printMarkdown(plugin) : printText(plugin);
    }
    if (!any) {
      std::fprintf(stderr, "tegula targets: no plugin is loaded (`tegula "
                           "devices` says what was found)\n");
      return 1;
    }
  } catch (const tegula::Error &error) {
    std::fprintf(stderr, "tegula targets: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
