"""The kernels of the frontend corpus (tests/frontend/corpus/*.py) as
launchable ``tegula.JITFunction``s, without importing the corpus modules.

The corpus files are Triton tutorials: at import they need torch, a CUDA
driver, ``triton.autotune``, ``triton.testing``... none of which exist here.
The launcher only needs, per kernel, its Python signature (parameter names,
defaults, which are ``tl.constexpr``) and its source file: the compiler reads
the whole file and finds the kernel by name. So each ``@triton.jit`` function
is rebuilt from the file's AST as a stub with the same parameters and an empty
body, compiled with the corpus file as its file name (so
``inspect.getsourcefile`` of the stub is the corpus file), and wrapped with
``tegula.jit``.
"""

import ast
import os

import tegula
import tegula.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(REPO, "tests", "frontend", "corpus")


def _is_jit_decorator(node):
    """@triton.jit, @triton.jit(...), @jit."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr == "jit"
    return isinstance(node, ast.Name) and node.id == "jit"


def load(file_name):
    """{kernel name: tegula.JITFunction} for every @triton.jit function of
    tests/frontend/corpus/<file_name>."""
    path = os.path.join(CORPUS, file_name)
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    stubs = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(map(_is_jit_decorator, node.decorator_list)):
            stub = ast.FunctionDef(name=node.name, args=node.args, body=[ast.Pass()],
                                   decorator_list=[], returns=None, type_comment=None)
            ast.copy_location(stub, node)
            ast.fix_missing_locations(stub)
            stubs.append(stub)
    module = ast.Module(body=stubs, type_ignores=[])
    # Annotations and defaults are evaluated: tl.constexpr, literals.
    namespace = {"tl": tl, "triton": tegula, "tlang": tl, "__name__": "corpus_" + file_name[:-3]}
    exec(compile(module, path, "exec"), namespace)
    return {s.name: tegula.jit(namespace[s.name]) for s in stubs}


def specializations():
    """[(file, kernel, signature)] from tests/frontend/corpus/kernels.txt."""
    out = []
    with open(os.path.join(CORPUS, "kernels.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            file_name, kernel, signature = line.split("|")[:3]
            out.append((file_name, kernel, signature.strip()))
    return out
