//===- CompilerAPITest.cpp - libtegula_compiler's C API -------------------===//
//
// tegula/compiler.h through the shared library, as a C or Python user sees
// it: the bytecode of a kernel (read back with the tile dialect, and equal
// to what `tegula compile --emit tile-bytecode` writes), located diagnostics
// for kernel errors (equal to what the CLI prints), and every rejected
// argument.
//
//===----------------------------------------------------------------------===//
#include "tegula/compiler.h"

#include "tegula/Dialect/Tile/IR/Tile.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

const char *kVectorAdd = R"py(import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)
)py";

const char *kSyntaxError = R"py(import triton
import triton.language as tl


@triton.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK)
    tl.store(x_ptr, x)
)py";

const char *kTypeError = R"py(import triton
import triton.language as tl


@triton.jit
def shapes(x_ptr):
    a = tl.arange(0, 128) + tl.arange(0, 64)
    tl.store(x_ptr + a, a)
)py";

/// One compile through the C API.
struct Compiled {
  tegula_compiler_error_code code = TEGULA_COMPILER_SUCCESS;
  std::string message;
  std::string bytecode;
  std::string diagnostics;
};

tegula_compile_options makeOptions(const std::string &source,
                                   const char *fileName, const char *kernel,
                                   const char *signature) {
  tegula_compile_options o{};
  o.struct_size = sizeof(o);
  o.source = source.data();
  o.source_size = source.size();
  o.file_name = fileName;
  o.kernel_name = kernel;
  o.signature = signature;
  o.num_warps = 4;
  o.num_stages = 3;
  return o;
}

Compiled run(const tegula_compile_options &options) {
  Compiled c;
  tegula_compile_result_t *result = nullptr;
  tegula_compiler_error_t *error = tegula_compile_kernel(&options, &result);
  if (error) {
    c.code = tegula_compiler_error_get_code(error);
    c.message = tegula_compiler_error_get_message(error);
    tegula_compiler_error_destroy(error);
    EXPECT_EQ(result, nullptr);
    return c;
  }
  EXPECT_NE(result, nullptr);
  const char *bytes =
      static_cast<const char *>(tegula_compile_result_get_bytecode(result));
  c.bytecode.assign(bytes, tegula_compile_result_get_bytecode_size(result));
  c.diagnostics = tegula_compile_result_get_diagnostics(result);
  tegula_compile_result_destroy(result);
  return c;
}

Compiled compile(const std::string &source, const char *kernel,
                 const char *signature, const char *fileName = "kernel.py",
                 std::vector<const char *> constexprs = {}) {
  tegula_compile_options o = makeOptions(source, fileName, kernel, signature);
  o.constexprs = constexprs.data();
  o.num_constexprs = constexprs.size();
  return run(o);
}

/// What `tegula compile` prints for |source| written to a temporary file:
/// the bytecode on stdout (|emitBytecode|) or the diagnostics on stderr.
struct CliOutput {
  int status = -1;
  std::string out, err, path;
};

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliOutput runCli(const std::string &source, const char *kernel,
                 const char *signature) {
  CliOutput r;
  llvm::SmallString<128> path, outPath, errPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("compiler-api", "py", fd, path))
    return r;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << source;
  }
  llvm::sys::fs::createTemporaryFile("compiler-api", "out", outPath);
  llvm::sys::fs::createTemporaryFile("compiler-api", "err", errPath);
  std::vector<llvm::StringRef> args = {TEGULA_CLI,      "compile",
                                       path.str(),      "--kernel",
                                       kernel,          "--signature",
                                       signature,       "--emit",
                                       "tile-bytecode", "-o",
                                       outPath.str()};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt,
                                                errPath.str()};
  r.status = llvm::sys::ExecuteAndWait(TEGULA_CLI, args, std::nullopt,
                                       redirects);
  r.out = slurp(outPath.str().str());
  r.err = slurp(errPath.str().str());
  r.path = path.str().str();
  llvm::sys::fs::remove(path);
  llvm::sys::fs::remove(outPath);
  llvm::sys::fs::remove(errPath);
  return r;
}

TEST(CompilerAPI, Version) {
  uint32_t major = 0, minor = 99;
  tegula_compiler_get_api_version(&major, &minor);
  EXPECT_EQ(major, TEGULA_COMPILER_API_MAJOR);
  EXPECT_EQ(minor, TEGULA_COMPILER_API_MINOR);
}

TEST(CompilerAPI, BytecodeRoundTrips) {
  Compiled c = compile(kVectorAdd, "add_kernel",
                       "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  ASSERT_EQ(c.code, TEGULA_COMPILER_SUCCESS) << c.message;
  ASSERT_GE(c.bytecode.size(), 4u);
  EXPECT_EQ(c.bytecode.substr(0, 4), std::string("ML\xef" "R"));
  EXPECT_EQ(c.diagnostics, "");

  mlir::MLIRContext context;
  context.loadDialect<tegula::tile::TileDialect>();
  mlir::Block block;
  llvm::MemoryBufferRef buffer(c.bytecode, "bytecode");
  ASSERT_TRUE(mlir::succeeded(
      mlir::readBytecodeFile(buffer, &block, mlir::ParserConfig(&context))));
  auto module = llvm::dyn_cast<mlir::ModuleOp>(&block.front());
  ASSERT_TRUE(module);
  auto func = module.lookupSymbol<tegula::tile::FuncOp>("add_kernel");
  ASSERT_TRUE(func);
  // The constexpr is gone; the three pointers and n remain.
  EXPECT_EQ(func.getFunctionType().getNumInputs(), 4u);
  EXPECT_EQ(module->getAttrOfType<mlir::IntegerAttr>("tile.num_warps").getInt(),
            4);
}

/// The kernel's arguments and its tile.out_of_bounds ops, read back from
/// |bytecode|.
std::pair<unsigned, unsigned> argsAndChecks(const std::string &bytecode) {
  mlir::MLIRContext context;
  context.loadDialect<tegula::tile::TileDialect>();
  mlir::Block block;
  llvm::MemoryBufferRef buffer(bytecode, "bytecode");
  if (mlir::failed(mlir::readBytecodeFile(buffer, &block,
                                          mlir::ParserConfig(&context))))
    return {0, 0};
  auto module = llvm::cast<mlir::ModuleOp>(&block.front());
  auto func = module.lookupSymbol<tegula::tile::FuncOp>("add_kernel");
  unsigned checks = 0;
  func.walk([&](tegula::tile::OutOfBoundsOp) { ++checks; });
  return {func.getFunctionType().getNumInputs(), checks};
}

TEST(CompilerAPI, DebugAddsBoundsChecksAndTheirArguments) {
  const char *sig = "*fp32:16, *fp32:16, *fp32:16, i32, 1024";
  std::string source = kVectorAdd;
  tegula_compile_options o = makeOptions(source, "kernel.py", "add_kernel", sig);
  Compiled plain = run(o);
  ASSERT_EQ(plain.code, TEGULA_COMPILER_SUCCESS) << plain.message;
  EXPECT_EQ(argsAndChecks(plain.bytecode), std::make_pair(4u, 0u));
  o.debug = 1;
  Compiled debug = run(o);
  ASSERT_EQ(debug.code, TEGULA_COMPILER_SUCCESS) << debug.message;
  // Two bounds per pointer; two loads and a store checked.
  EXPECT_EQ(argsAndChecks(debug.bytecode), std::make_pair(10u, 3u));
  // A caller of API 1.2 (a struct without the field) gets no debug mode.
  o.struct_size = offsetof(tegula_compile_options, debug);
  Compiled old = run(o);
  ASSERT_EQ(old.code, TEGULA_COMPILER_SUCCESS) << old.message;
  EXPECT_EQ(old.bytecode, plain.bytecode);
}

TEST(CompilerAPI, SameBytesAsTheCommandLine) {
  const char *sig = "*fp32:16, *fp32:16, *fp32:16, i32:1, 256";
  CliOutput cli = runCli(kVectorAdd, "add_kernel", sig);
  ASSERT_EQ(cli.status, 0) << cli.err;
  Compiled c = compile(kVectorAdd, "add_kernel", sig, cli.path.c_str());
  ASSERT_EQ(c.code, TEGULA_COMPILER_SUCCESS) << c.message;
  EXPECT_EQ(c.bytecode, cli.out);
}

TEST(CompilerAPI, KeywordConstexprs) {
  Compiled c = compile(kVectorAdd, "add_kernel", "*fp32:16, *fp32, *fp32, i32",
                       "kernel.py", {"BLOCK_SIZE=64"});
  ASSERT_EQ(c.code, TEGULA_COMPILER_SUCCESS) << c.message;
  Compiled bad = compile(kVectorAdd, "add_kernel", "*fp32, *fp32, *fp32, i32",
                         "kernel.py", {"BLOCK_SIZE=@"});
  EXPECT_EQ(bad.code, TEGULA_COMPILER_ERROR_INVALID_SIGNATURE);
  EXPECT_NE(bad.message.find("constexpr BLOCK_SIZE: "), std::string::npos)
      << bad.message;
}

TEST(CompilerAPI, SyntaxErrorIsLocatedAsTheCommandLineSaysIt) {
  Compiled c = compile(kSyntaxError, "broken", "*fp32, 128", "bad_syntax.py");
  ASSERT_EQ(c.code, TEGULA_COMPILER_ERROR_KERNEL);
  EXPECT_EQ(c.message.rfind("bad_syntax.py:8:5: error: expected ',' or ')'\n"
                            "    tl.store(x_ptr, x)\n"
                            "    ^\n",
                            0),
            0u)
      << c.message;
  EXPECT_NE(c.message.find("bad_syntax.py:7:16: error: '(' was never closed\n"
                           "    x = tl.load(x_ptr + tl.arange(0, BLOCK)\n"
                           "               ^\n"),
            std::string::npos)
      << c.message;

  CliOutput cli = runCli(kSyntaxError, "broken", "*fp32, 128");
  EXPECT_EQ(cli.status, 1);
  Compiled same = compile(kSyntaxError, "broken", "*fp32, 128", cli.path.c_str());
  EXPECT_EQ(same.message, cli.err);
}

TEST(CompilerAPI, TypeErrorIsLocatedAsTheCommandLineSaysIt) {
  Compiled c = compile(kTypeError, "shapes", "*i32", "shapes.py");
  ASSERT_EQ(c.code, TEGULA_COMPILER_ERROR_KERNEL);
  EXPECT_EQ(c.message.rfind("shapes.py:7:", 0), 0u) << c.message;
  EXPECT_NE(c.message.find("error: incompatible shapes"), std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("^\n"), std::string::npos) << c.message;

  CliOutput cli = runCli(kTypeError, "shapes", "*i32");
  EXPECT_EQ(cli.status, 1);
  Compiled same = compile(kTypeError, "shapes", "*i32", cli.path.c_str());
  EXPECT_EQ(same.message, cli.err);
}

TEST(CompilerAPI, UnknownKernel) {
  Compiled c = compile(kVectorAdd, "mul_kernel", "*fp32", "vadd.py");
  ASSERT_EQ(c.code, TEGULA_COMPILER_ERROR_KERNEL);
  EXPECT_NE(c.message.find("vadd.py:1:1: error: no @jit function named "
                           "'mul_kernel'; the file defines add_kernel"),
            std::string::npos)
      << c.message;
}

TEST(CompilerAPI, BadSignature) {
  Compiled c = compile(kVectorAdd, "add_kernel", "*fp32:16, *float33, i32");
  ASSERT_EQ(c.code, TEGULA_COMPILER_ERROR_INVALID_SIGNATURE);
  EXPECT_EQ(c.message.rfind("invalid signature: ", 0), 0u) << c.message;
  EXPECT_EQ(c.message.find('\n'), std::string::npos) << c.message;

  // Parses, but does not fit the parameters: a located kernel error.
  Compiled count = compile(kVectorAdd, "add_kernel",
                           "*fp32, *fp32, *fp32, i32, 1024, 7", "vadd.py");
  ASSERT_EQ(count.code, TEGULA_COMPILER_ERROR_KERNEL);
  EXPECT_NE(count.message.find("vadd.py:6:5: error: the signature has 6 "
                               "entries but 'add_kernel' takes 5 parameters"),
            std::string::npos)
      << count.message;
}

TEST(CompilerAPI, RejectsBadArguments) {
  std::string source = kVectorAdd;
  const char *sig = "*fp32, *fp32, *fp32, i32, 64";
  tegula_compile_result_t *result = nullptr;
  auto expectInvalid = [&](const tegula_compile_options *o, const char *what) {
    tegula_compiler_error_t *e = tegula_compile_kernel(o, &result);
    ASSERT_NE(e, nullptr) << what;
    EXPECT_EQ(tegula_compiler_error_get_code(e),
              TEGULA_COMPILER_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tegula_compiler_error_get_message(e)).find(what),
              std::string::npos)
        << tegula_compiler_error_get_message(e);
    EXPECT_EQ(result, nullptr);
    tegula_compiler_error_destroy(e);
  };
  expectInvalid(nullptr, "options or out is NULL");
  tegula_compile_options o = makeOptions(source, "k.py", "add_kernel", sig);
  tegula_compiler_error_t *noOut = tegula_compile_kernel(&o, nullptr);
  EXPECT_EQ(tegula_compiler_error_get_code(noOut),
            TEGULA_COMPILER_ERROR_INVALID_ARGUMENT);
  tegula_compiler_error_destroy(noOut);
  tegula_compile_options small = o;
  small.struct_size = sizeof(size_t);
  expectInvalid(&small, "struct_size");
  tegula_compile_options noKernel = o;
  noKernel.kernel_name = nullptr;
  expectInvalid(&noKernel, "kernel_name");
  tegula_compile_options noSig = o;
  noSig.signature = nullptr;
  expectInvalid(&noSig, "signature");
  tegula_compile_options warps = o;
  warps.num_warps = 3;
  expectInvalid(&warps, "num_warps is 3");
  warps.num_warps = 0;
  expectInvalid(&warps, "num_warps is 0");
  tegula_compile_options stages = o;
  stages.num_stages = -1;
  expectInvalid(&stages, "num_stages");
  const char *noEquals[] = {"BLOCK_SIZE"};
  tegula_compile_options ce = o;
  ce.constexprs = noEquals;
  ce.num_constexprs = 1;
  expectInvalid(&ce, "not NAME=VALUE");

  EXPECT_EQ(tegula_compiler_error_get_code(nullptr), TEGULA_COMPILER_SUCCESS);
  EXPECT_STREQ(tegula_compiler_error_get_message(nullptr), "");
  tegula_compiler_error_destroy(nullptr);
  tegula_compile_result_destroy(nullptr);
}

// API 1.2: helpers of other modules are found under search_paths, and the
// result names the files read; a library given the 1.1 struct searches
// nothing but the kernel's own folder.
TEST(CompilerAPI, SearchPathsAndImportedFiles) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tegula-api-modules", dir));
  llvm::SmallString<128> helpers(dir);
  llvm::sys::path::append(helpers, "api_helpers.py");
  {
    std::ofstream out(std::string(helpers.str()));
    out << "import triton\n\n@triton.jit\ndef twice(x):\n    return x * 2\n";
  }
  std::string source = R"py(
import triton
import triton.language as tl
from api_helpers import twice

@triton.jit
def k(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, twice(tl.load(x_ptr + offs)))
)py";
  tegula_compile_options o = makeOptions(source, "k.py", "k", "*fp32");
  std::string root(dir.str());
  const char *roots[] = {root.c_str()};
  o.search_paths = roots;
  o.num_search_paths = 1;
  tegula_compile_result_t *result = nullptr;
  tegula_compiler_error_t *error = tegula_compile_kernel(&o, &result);
  ASSERT_EQ(error, nullptr) << tegula_compiler_error_get_message(error);
  ASSERT_EQ(tegula_compile_result_get_num_imported_files(result), 1u);
  EXPECT_EQ(std::string(tegula_compile_result_get_imported_file(result, 0)),
            std::string(helpers.str()));
  EXPECT_EQ(tegula_compile_result_get_imported_file(result, 1), nullptr);
  tegula_compile_result_destroy(result);
  EXPECT_EQ(tegula_compile_result_get_num_imported_files(nullptr), 0u);

  tegula_compile_options old = o;
  old.struct_size = offsetof(tegula_compile_options, search_paths);
  Compiled c = run(old);
  EXPECT_EQ(c.code, TEGULA_COMPILER_ERROR_KERNEL);
  EXPECT_NE(c.message.find("cannot find module 'api_helpers'"), std::string::npos)
      << c.message;

  const char *nullRoot[] = {nullptr};
  o.search_paths = nullRoot;
  c = run(o);
  EXPECT_EQ(c.code, TEGULA_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(c.message.find("search path 0 is NULL"), std::string::npos) << c.message;
  llvm::sys::fs::remove(helpers);
  llvm::sys::fs::remove(dir);
}

TEST(CompilerAPI, ConcurrentCompilesAgree) {
  Compiled reference = compile(kVectorAdd, "add_kernel",
                               "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  ASSERT_EQ(reference.code, TEGULA_COMPILER_SUCCESS);
  std::vector<Compiled> results(6);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      results[i] = i % 2 ? compile(kVectorAdd, "add_kernel",
                                   "*fp32:16, *fp32:16, *fp32:16, i32, 1024")
                         : compile(kTypeError, "shapes", "*i32", "shapes.py");
    });
  for (std::thread &t : threads)
    t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    if (i % 2) {
      EXPECT_EQ(results[i].code, TEGULA_COMPILER_SUCCESS) << results[i].message;
      EXPECT_EQ(results[i].bytecode, reference.bytecode);
    } else {
      EXPECT_EQ(results[i].code, TEGULA_COMPILER_ERROR_KERNEL);
    }
  }
}

} // namespace
