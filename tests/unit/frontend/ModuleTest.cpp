//===- ModuleTest.cpp - finding kernels, imports and constants ------------===//
#include "tegula/Frontend/ASTDump.h"
#include "tegula/Frontend/Parser.h"

#include "gtest/gtest.h"

using namespace tegula::frontend;

namespace {

class ModuleTest : public ::testing::Test {
protected:
  Module &parse(llvm::StringRef Source) {
    Diags.clear();
    const SourceFile &File = SM.addBuffer(Source, "kernels.py");
    M = parseModule(File, Diags);
    return *M;
  }

  std::vector<std::string> functionNames() const {
    std::vector<std::string> Names;
    for (const FunctionDef *F : M->getFunctions())
      Names.push_back(F->getName().str());
    return Names;
  }

  std::vector<std::string> errors() const {
    std::vector<std::string> Out;
    for (const Diagnostic &D : Diags.getDiagnostics())
      Out.push_back(std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column) + ": " +
                    D.Message);
    return Out;
  }

  SourceManager SM;
  DiagnosticEngine Diags{SM};
  std::unique_ptr<Module> M;
};

using Names = std::vector<std::string>;

/// A kernel file as people write them: host code with torch, classes,
/// benchmarks, lambdas and comprehensions around the kernels.
const char *const RealisticFile = R"PY(#!/usr/bin/env python3
"""Fused kernels and their launchers."""
from __future__ import annotations

import math
import os, sys
from dataclasses import dataclass, field
from typing import Optional

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton import language as tlang

BLOCK: tl.constexpr = 128
ROWS = tl.constexpr(4)
EPS = 1e-5
USE_FAST_MATH = True
DEVICE = triton.runtime.driver.active.get_active_torch_device()
CONFIGS = [triton.Config({'BLOCK': b}, num_warps=w) for b in (64, 128) for w in (4, 8)]
SQUARES = {i: i * i for i in range(10)}
scale = lambda x: x * 2
if (n := len(sys.argv)) > 1:
    print(f"{n} arguments: {sys.argv[1:]!r}")


@dataclass
class LaunchConfig:
    """Host-side configuration."""
    num_warps: int = 4
    grid: tuple = field(default_factory=lambda: (1, 1, 1))

    @triton.jit
    def not_a_kernel_method(self):
        pass

    def total(self) -> int:
        return math.prod(self.grid)


class Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0], )](y, x, x.stride(0), x.shape[1], BLOCK=BLOCK)
        return y

    @staticmethod
    def backward(ctx, dy):
        raise NotImplementedError


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.autotune(configs=CONFIGS, key=['n_cols'])
@triton.jit
def softmax_kernel(y_ptr, x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float('inf'))
    x = x - tl.reduce(x, 0, _max)
    num = tl.exp(x)
    tl.store(y_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def launch(x: torch.Tensor, *args, **kwargs) -> torch.Tensor:
    try:
        return Softmax.apply(x)
    except RuntimeError as err:
        print("falling back", err, file=sys.stderr)
        return F.softmax(x, dim=-1)
    finally:
        pass


async def fetch():
    async with lock:
        await asyncio.sleep(0)
    return [await g() async for g in gens]


def gen():
    global COUNTER
    yield from range(3)


match sys.platform:
    case "linux":
        PLATFORM = 1
    case _:
        PLATFORM = 0

with open(os.devnull) as f, open(os.devnull) as g:
    pass

for i, (a, *rest) in enumerate([(1, 2, 3)]):
    del a
else:
    pass

while False:
    break

@triton.jit
def tail_kernel(out_ptr, n, EXTRA: tl.constexpr = 0):
    i = tl.arange(0, 16)
    tl.store(out_ptr + i, i + EXTRA, mask=i < n)

if __name__ == "__main__":
    x = torch.randn(8, 1000, device=DEVICE)
    assert torch.allclose(launch(x), torch.softmax(x, -1)), "mismatch"
    print({k: v for k, v in os.environ.items() if k.startswith("TRITON")})
)PY";

TEST_F(ModuleTest, RealisticFileWithHostCode) {
  Module &Mod = parse(RealisticFile);
  EXPECT_EQ(errors(), Names{});
  EXPECT_EQ(functionNames(), (Names{"_max", "softmax_kernel", "tail_kernel"}));
  EXPECT_EQ(Mod.getImports().size(), 10u);
  EXPECT_EQ(Mod.resolveImport("tl"), "triton.language");
  EXPECT_EQ(Mod.resolveImport("tlang"), "triton.language");
  EXPECT_EQ(Mod.resolveImport("F"), "torch.nn.functional");
  EXPECT_EQ(Mod.resolveImport("torch"), "torch");
  EXPECT_EQ(Mod.resolveImport("dataclass"), "dataclasses.dataclass");
  EXPECT_EQ(Mod.resolveImport("annotations"), "__future__.annotations");
  EXPECT_EQ(Mod.resolveImport("scale"), "");

  std::vector<std::string> Globals;
  for (const GlobalConstant &G : Mod.getGlobals())
    Globals.push_back(G.Name.str());
  EXPECT_EQ(Globals, (Names{"BLOCK", "ROWS", "EPS", "USE_FAST_MATH"}));

  const FunctionDef *Softmax = Mod.lookupFunction("softmax_kernel");
  ASSERT_NE(Softmax, nullptr);
  EXPECT_EQ(Softmax->getLoc().Line, 61u);
  EXPECT_EQ(Softmax->getBody().size(), 6u);
  EXPECT_EQ(Softmax->getDecorators().size(), 2u);
  EXPECT_EQ(Mod.lookupFunction("launch"), nullptr);
  EXPECT_EQ(Mod.lookupFunction("not_a_kernel_method"), nullptr)
      << "class bodies are skipped whole";
}

TEST_F(ModuleTest, JitDecoratorSpellings) {
  parse("import triton\n"
        "import tegula\n"
        "import triton as tr\n"
        "from triton import jit as J\n"
        "@triton.jit\ndef a(): pass\n"
        "@tegula.jit\ndef b(): pass\n"
        "@triton.jit()\ndef c(): pass\n"
        "@triton.jit(noinline=True)\ndef d(): pass\n"
        "@tr.jit\ndef e(): pass\n"
        "@J\ndef f(): pass\n"
        "@J(interpret=False)\ndef g(): pass\n");
  EXPECT_EQ(errors(), Names{});
  EXPECT_EQ(functionNames(), (Names{"a", "b", "c", "d", "e", "f", "g"}));
}

TEST_F(ModuleTest, BareJitAndItsImports) {
  parse("@jit\ndef unbound(): pass\n");
  EXPECT_EQ(functionNames(), Names{"unbound"}) << "`@jit` with no import is accepted";
  parse("from tegula import jit\n@jit\ndef k(): pass\n");
  EXPECT_EQ(functionNames(), Names{"k"});
  parse("from triton.runtime.jit import jit\n@jit\ndef k(): pass\n");
  EXPECT_EQ(functionNames(), Names{"k"});
  parse("from numba import jit\n@jit\ndef host(): pass\n");
  EXPECT_EQ(functionNames(), Names{}) << "this `jit` is numba's";
  parse("import numba\n@numba.jit\ndef host(): pass\n");
  EXPECT_EQ(functionNames(), Names{});
  EXPECT_EQ(errors(), Names{});
}

TEST_F(ModuleTest, OtherDecoratedDefinitionsAreSkipped) {
  parse("import functools\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def cached(x): return {x: [y for y in x]}\n"
        "@torch.compile(mode='max-autotune', options={'a': lambda: 0})\n"
        "def compiled(x):\n"
        "    return x\n"
        "@property\n"
        "def prop(self): ...\n"
        "@dataclass\n"
        "class C:\n"
        "    x: int = 0\n"
        "@triton.jit\n"
        "def kernel(): pass\n");
  EXPECT_EQ(errors(), Names{});
  EXPECT_EQ(functionNames(), Names{"kernel"});
}

TEST_F(ModuleTest, Imports) {
  Module &Mod = parse("import triton.language as tl, os.path\n"
                      "from triton import language as lang; import numpy as np\n"
                      "from . import sibling\n"
                      "from ..pkg.mod import (a, b as c,)\n"
                      "from x import *\n"
                      "import tegula.language as tgl\n");
  EXPECT_EQ(errors(), Names{});
  ASSERT_EQ(Mod.getImports().size(), 7u);
  EXPECT_EQ(Mod.resolveImport("tl"), "triton.language");
  EXPECT_EQ(Mod.resolveImport("os"), "os");
  EXPECT_EQ(Mod.resolveImport("lang"), "triton.language");
  EXPECT_EQ(Mod.resolveImport("np"), "numpy");
  EXPECT_EQ(Mod.resolveImport("sibling"), ".sibling");
  EXPECT_EQ(Mod.resolveImport("a"), "..pkg.mod.a");
  EXPECT_EQ(Mod.resolveImport("c"), "..pkg.mod.b");
  EXPECT_EQ(Mod.resolveImport("b"), "");
  EXPECT_EQ(Mod.resolveImport("tgl"), "tegula.language");
  auto *From = llvm::cast<ImportFromStmt>(Mod.getImports()[4]);
  EXPECT_EQ(From->getLevel(), 2u);
  EXPECT_EQ(From->getModule(), "pkg.mod");
  EXPECT_TRUE(llvm::cast<ImportFromStmt>(Mod.getImports()[5])->isStar());
  EXPECT_EQ(dumpToString(Mod.getImports()[0]),
            "(import (alias triton.language tl) (alias os.path))\n");
  EXPECT_EQ(dumpToString(Mod.getImports()[4]), "(from ..pkg.mod (alias a) (alias b c))\n");
  EXPECT_EQ(dumpToString(Mod.getImports()[5]), "(from x (alias *))\n");
}

TEST_F(ModuleTest, ConstantGlobals) {
  Module &Mod = parse("import triton.language as tl\n"
                      "BLOCK: tl.constexpr = 128\n"
                      "WRAPPED = tl.constexpr(64)\n"
                      "N = 4\n"
                      "EPS = 1e-5\n"
                      "FLAG = False\n"
                      "NEG = -1\n"
                      "SHIFT = 1 << 10\n"
                      "DERIVED = N * 2 + BLOCK\n"
                      "SHAPE = (16, 16)\n"
                      "NAME = 'kernel'\n"
                      "STRING_ANNOTATED: 'tl.constexpr' = 2\n"
                      "ANY: tl.constexpr = some_call()\n"
                      "N = 5\n");
  EXPECT_EQ(errors(), Names{});
  EXPECT_EQ(dumpToString(Mod),
            "(import (alias triton.language tl))\n"
            "(global BLOCK constexpr (int 128))\n"
            "(global WRAPPED constexpr (call (. tl constexpr) (int 64)))\n"
            "(global N (int 4))\n"
            "(global EPS (float 1e-05))\n"
            "(global FLAG False)\n"
            "(global NEG (u- (int 1)))\n"
            "(global SHIFT (<< (int 1) (int 10)))\n"
            "(global DERIVED (+ (* N (int 2)) BLOCK))\n"
            "(global SHAPE (tuple (int 16) (int 16)))\n"
            "(global NAME (str \"kernel\"))\n"
            "(global STRING_ANNOTATED constexpr (int 2))\n"
            "(global ANY constexpr (call some_call))\n"
            "(global N (int 5))\n");
  const GlobalConstant *N = Mod.lookupGlobal("N");
  ASSERT_NE(N, nullptr);
  EXPECT_EQ(llvm::cast<IntLiteralExpr>(N->Value)->getValue(), 5u) << "the last assignment wins";
  EXPECT_EQ(N->Loc.Line, 14u);
  EXPECT_TRUE(llvm::isa<AssignStmt>(N->Definition));
  const GlobalConstant *Block = Mod.lookupGlobal("BLOCK");
  ASSERT_NE(Block, nullptr);
  EXPECT_TRUE(Block->IsConstexpr);
  ASSERT_NE(Block->Annotation, nullptr);
  EXPECT_TRUE(llvm::isa<AnnAssignStmt>(Block->Definition));
  EXPECT_EQ(Mod.lookupGlobal("MISSING"), nullptr);
}

TEST_F(ModuleTest, NonConstantAssignmentsAreSkipped) {
  Module &Mod = parse("DEVICE = torch.device('cuda')\n"
                      "LIST = [1, 2]\n"
                      "FN = lambda: 0\n"
                      "D = {}\n"
                      "A = B = 1\n"
                      "UNKNOWN = other * 2\n"
                      "T: int\n"
                      "obj.attr = 1\n"
                      "COUNT = 0; COUNT += 1\n"
                      "X, Y = 1, 2\n"
                      "GEN = [i for i in range(3)]\n"
                      "W = (yield)\n");
  EXPECT_EQ(errors(), Names{});
  ASSERT_EQ(Mod.getGlobals().size(), 1u);
  EXPECT_EQ(Mod.getGlobals()[0].Name, "COUNT");
}

TEST_F(ModuleTest, ErrorInOneKernelDoesNotHideTheOthers) {
  parse("import triton\n"
        "@triton.jit\n"
        "def good1(x):\n"
        "    return x\n"
        "@triton.jit\n"
        "def bad(x):\n"
        "    y = [v for v in x]\n"
        "    return y\n"
        "def host():\n"
        "    return [v for v in range(3)]\n"
        "@triton.jit\n"
        "def bad2(x):\n"
        "    try:\n"
        "        pass\n"
        "    finally:\n"
        "        pass\n"
        "@triton.jit\n"
        "def good2(x):\n"
        "    return x + 1\n");
  EXPECT_EQ(errors(), (Names{"7:12: list comprehensions are not supported in kernels",
                             "13:5: 'try' statements are not supported in kernels"}));
  EXPECT_EQ(functionNames(), (Names{"good1", "good2"}));
}

TEST_F(ModuleTest, JitDecoratorMisuse) {
  parse("import triton\n@triton.jit\nclass A:\n    pass\n@triton.jit\ndef ok(): pass\n");
  EXPECT_EQ(errors(), Names{"3:1: '@triton.jit' must decorate a function definition"});
  EXPECT_EQ(functionNames(), Names{"ok"});
  parse("@triton.jit\nasync def f():\n    pass\n");
  EXPECT_EQ(errors(), Names{"2:1: async functions are not supported in kernels"});
  parse("@triton.jit(lambda: 0)\ndef f():\n    pass\n@triton.jit\ndef g(): pass\n");
  EXPECT_EQ(errors(), Names{"1:13: lambda expressions are not supported in kernels"});
  EXPECT_EQ(functionNames(), Names{"g"});
  parse("@triton.jit x\ndef f():\n    pass\n");
  EXPECT_EQ(errors(), Names{"1:13: expected newline after decorator"});
}

TEST_F(ModuleTest, UnexpectedIndentAtModuleLevel) {
  parse("  import os\n");
  EXPECT_EQ(errors(), Names{"1:3: unexpected indent"});
  parse("import os\n    import sys\n@jit\ndef k(): pass\n");
  EXPECT_EQ(errors(), Names{"2:5: unexpected indent"});
  EXPECT_EQ(functionNames(), Names{"k"});
}

TEST_F(ModuleTest, LexicalErrorsInHostCodeAreReported) {
  // Python rejects the whole file, so the front end does too; the kernels
  // before the error are kept.
  parse("@jit\ndef k(): pass\ndef host():\n    return 'unterminated\n@jit\ndef k2(): pass\n");
  EXPECT_EQ(errors(), Names{"4:12: unterminated string literal (detected at line 4)"});
  EXPECT_EQ(functionNames(), Names{"k"});
}

TEST_F(ModuleTest, RedefinitionAndConditionalDefinitions) {
  Module &Mod = parse("@jit\ndef k(x): return 1\n"
                      "if USE_V2:\n    @jit\n    def v2(x): return x\n"
                      "else:\n    @jit\n    def v2(x): return -x\n"
                      "    @jit\n    def v1(x): return x\n"
                      "@jit\ndef k(x): return 2\n");
  EXPECT_EQ(errors(), Names{});
  EXPECT_EQ(functionNames(), (Names{"k", "v2", "v1", "k"}));
  const FunctionDef *K = Mod.lookupFunction("k");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->getLoc().Line, 12u) << "the last definition wins";
  // A module-level if is read branch by branch: the first branch defines
  // v2, a later one only what no earlier branch defined.
  const FunctionDef *V2 = Mod.lookupFunction("v2");
  ASSERT_NE(V2, nullptr);
  EXPECT_EQ(V2->getLoc().Line, 5u);
  EXPECT_NE(Mod.lookupFunction("v1"), nullptr);
}

TEST_F(ModuleTest, EmptyAndCommentOnlyFiles) {
  EXPECT_TRUE(parse("").getFunctions().empty());
  EXPECT_TRUE(parse("# nothing\n\n\"\"\"docstring\"\"\"\n").getFunctions().empty());
  EXPECT_EQ(errors(), Names{});
}

} // namespace
