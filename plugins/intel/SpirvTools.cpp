//===- SpirvTools.cpp - SPIR-V validation and disassembly -----------------===//

#include "SpirvTools.h"

#include "tegula/BackendKit/CompileSupport.h"

#include <spirv-tools/libspirv.h>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace tegula::intel;

namespace {

constexpr spv_target_env kEnvironment = SPV_ENV_UNIVERSAL_1_4;

/// The module's words (a copy: the bytes need not be 4-byte aligned);
/// false when its size is no multiple of 4.
bool toWords(llvm::StringRef binary, std::vector<uint32_t> &words) {
  if (binary.size() % 4 != 0)
    return false;
  words.resize(binary.size() / 4);
  std::memcpy(words.data(), binary.data(), binary.size());
  return true;
}

/// Owns a context and a diagnostic.
struct Session {
  spv_context context = spvContextCreate(kEnvironment);
  spv_diagnostic diagnostic = nullptr;
  ~Session() {
    spvDiagnosticDestroy(diagnostic);
    spvContextDestroy(context);
  }
  std::string why(const char *fallback) const {
    if (!diagnostic || !diagnostic->error)
      return fallback;
    return diagnostic->error;
  }
};

} // namespace

llvm::Error tegula::intel::validateSPIRV(llvm::StringRef binary) {
  std::vector<uint32_t> words;
  if (!toWords(binary, words))
    return tegula::backend::oneLineError(
        "the SPIR-V module is " + llvm::Twine(binary.size()) +
        " bytes, not a whole number of words");
  Session session;
  spv_const_binary_t view = {words.data(), words.size()};
  spv_validator_options options = spvValidatorOptionsCreate();
  spv_result_t result = spvValidateWithOptions(session.context, options,
                                               &view, &session.diagnostic);
  spvValidatorOptionsDestroy(options);
  if (result != SPV_SUCCESS)
    return tegula::backend::oneLineError(
        "the SPIR-V module does not validate (SPIRV-Tools, spv1.4): " +
        session.why("no reason given"));
  return llvm::Error::success();
}

llvm::Expected<std::string>
tegula::intel::disassembleSPIRV(llvm::StringRef binary) {
  std::vector<uint32_t> words;
  if (!toWords(binary, words))
    return tegula::backend::oneLineError(
        "the SPIR-V module is " + llvm::Twine(binary.size()) +
        " bytes, not a whole number of words");
  Session session;
  spv_text text = nullptr;
  spv_result_t result = spvBinaryToText(
      session.context, words.data(), words.size(),
      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
          SPV_BINARY_TO_TEXT_OPTION_INDENT,
      &text, &session.diagnostic);
  if (result != SPV_SUCCESS) {
    spvTextDestroy(text);
    return tegula::backend::oneLineError("cannot disassemble the SPIR-V: " +
                                         session.why("no reason given"));
  }
  std::string out(text->str, text->length);
  spvTextDestroy(text);
  return out;
}
