//===- Signature.cpp - kernel specialization signatures -------------------===//
#include "tegula/Frontend/Signature.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace tegula::frontend;
using llvm::StringRef;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Parses a decimal or 0x/0o/0b integer of at most 64 significant bits.
static bool parseInt(StringRef text, __int128 &out) {
  bool neg = text.consume_front("-");
  if (!neg)
    text.consume_front("+");
  unsigned radix = 10;
  if (text.starts_with_insensitive("0x"))
    radix = 16, text = text.drop_front(2);
  else if (text.starts_with_insensitive("0o"))
    radix = 8, text = text.drop_front(2);
  else if (text.starts_with_insensitive("0b"))
    radix = 2, text = text.drop_front(2);
  std::string digits;
  for (char c : text)
    if (c != '_')
      digits += c;
  if (digits.empty())
    return false;
  unsigned __int128 v = 0;
  for (char c : digits) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    if (d >= radix)
      return false;
    v = v * radix + d;
    if (v > (static_cast<unsigned __int128>(1) << 64))
      return false;
  }
  out = neg ? -static_cast<__int128>(v) : static_cast<__int128>(v);
  return true;
}

llvm::Expected<ConstantSpec> tegula::frontend::parseConstant(StringRef text) {
  ConstantSpec c;
  text = text.trim();
  c.text = text.str();
  if (text.empty())
    return error("empty constant");
  if (text == "True" || text == "False") {
    c.number = PyNum::ofBool(text == "True");
    return c;
  }
  if (text == "None") {
    c.kind = ConstantSpec::NoneValue;
    return c;
  }
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    c.kind = ConstantSpec::String;
    c.string = text.drop_front().drop_back().str();
    return c;
  }
  StringRef name = text;
  name.consume_front("tl.");
  name.consume_front("triton.language.");
  if (auto d = DType::fromName(name)) {
    c.kind = ConstantSpec::DTypeValue;
    c.dtype = *d;
    return c;
  }
  __int128 i;
  if (parseInt(text, i)) {
    c.number = PyNum::ofInt(i);
    return c;
  }
  std::string s = text.str();
  char *end = nullptr;
  errno = 0;
  double f = std::strtod(s.c_str(), &end);
  if (end == s.c_str() + s.size() && !s.empty() && errno == 0 &&
      s.find_first_of(".eEn") != std::string::npos) {
    c.number = PyNum::ofFloat(f);
    return c;
  }
  return error("'" + text + "' is not a constant (expected an integer, a "
                            "float, True, False, None, a dtype or a string)");
}

/// Splits |signature| at the commas outside brackets (`tensordesc<fp16[64,
/// 64]>` is one entry) and quotes.
static llvm::SmallVector<StringRef> splitEntries(StringRef signature) {
  llvm::SmallVector<StringRef> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < signature.size(); ++i) {
    char c = signature[i];
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '<' || c == '[' || c == '(') {
      ++depth;
    } else if ((c == '>' || c == ']' || c == ')') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(signature.slice(start, i));
      start = i + 1;
    }
  }
  parts.push_back(signature.drop_front(start));
  return parts;
}

/// `tensordesc<DTYPE[D0, D1, ...]>` or `tensordesc<DTYPE[...], nan>`.
static llvm::Error parseTensorDesc(StringRef entry, const std::string &where,
                                   ArgSpec &spec) {
  auto bad = [&](const llvm::Twine &why) {
    return error(where + " '" + spec.text + "': " + why +
                 " (expected tensordesc<DTYPE[D0, D1, ...]>, optionally "
                 "with ', nan' for NaN padding)");
  };
  StringRef body = entry.trim();
  if (!body.consume_front("tensordesc<") || !body.consume_back(">"))
    return bad("malformed tensor descriptor");
  auto [typeText, rest] = body.split('[');
  auto [dims, tail] = rest.split(']');
  std::optional<DType> dtype = DType::fromName(typeText.trim());
  if (!dtype)
    return bad("unknown type '" + typeText.trim() + "'");
  llvm::SmallVector<StringRef> dimTexts;
  dims.split(dimTexts, ',');
  for (StringRef d : dimTexts) {
    int64_t n;
    if (d.trim().getAsInteger(10, n) || n <= 0)
      return bad("block dimension '" + d.trim() + "' is not a positive integer");
    spec.blockShape.push_back(n);
  }
  if (spec.blockShape.empty() || spec.blockShape.size() > 5)
    return bad("a descriptor has 1 to 5 dimensions");
  tail = tail.trim();
  spec.padding = "zero";
  if (!tail.empty()) {
    if (!tail.consume_front(","))
      return bad("unexpected '" + tail + "'");
    tail = tail.trim();
    tail.consume_front("padding=");
    if (tail != "zero" && tail != "nan")
      return bad("unknown padding '" + tail + "'");
    spec.padding = tail.str();
  }
  spec.kind = ArgSpec::TensorDesc;
  spec.dtype = *dtype;
  return llvm::Error::success();
}

llvm::Expected<std::vector<ArgSpec>>
tegula::frontend::parseSignature(StringRef signature) {
  std::vector<ArgSpec> specs;
  if (signature.trim().empty())
    return specs;
  llvm::SmallVector<StringRef> parts = splitEntries(signature);
  for (auto [index, raw] : llvm::enumerate(parts)) {
    StringRef entry = raw.trim();
    std::string where = "signature entry " + std::to_string(index + 1);
    ArgSpec spec;
    spec.text = entry.str();
    if (entry.empty())
      return error(where + " is empty");
    if (entry.starts_with("tensordesc")) {
      if (llvm::Error e = parseTensorDesc(entry, where, spec))
        return std::move(e);
      specs.push_back(spec);
      continue;
    }
    bool isPointer = entry.consume_front("*");
    auto [typeText, hint] = entry.split(':');
    typeText = typeText.trim();
    hint = hint.trim();
    std::optional<DType> dtype = DType::fromName(typeText);
    if (!dtype) {
      if (isPointer || entry.contains(':'))
        return error(where + " '" + spec.text + "': unknown type '" + typeText +
                     "'");
      auto constant = parseConstant(entry);
      if (!constant)
        return error(where + ": " + llvm::toString(constant.takeError()));
      spec.kind = ArgSpec::Constant;
      spec.constant = *constant;
      specs.push_back(spec);
      continue;
    }
    spec.kind = isPointer ? ArgSpec::Pointer : ArgSpec::Scalar;
    spec.dtype = *dtype;
    if (!hint.empty()) {
      if (hint == "16") {
        spec.divisibility = 16;
      } else if (hint == "1" && !isPointer) {
        spec.equalsOne = true;
      } else {
        return error(where + " '" + spec.text + "': unknown specialization ':" +
                     hint + "' (expected :16" +
                     (isPointer ? "" : " or :1") + ")");
      }
      if (!isPointer && !dtype->isInt())
        return error(where + " '" + spec.text +
                     "': only integers and pointers take a specialization");
    }
    specs.push_back(spec);
  }
  return specs;
}
