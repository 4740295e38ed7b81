"""Compiles a Triton-language kernel for an Intel target through the Tegula
runtime's C API (tegula_runtime_compile_stage, by ctypes), stopping at a
stage the intel plugin declares: llvm-ir, spirv, spirv-asm or image.

    intel_compile.py FILE --kernel K --signature S --target intel:pvc
                     --stage spirv [--option key=value]... [-o OUT]
    intel_compile.py --bytecode FILE.tbc --target ... (tile bytecode as is)

The tile bytecode comes from `tegula compile --emit tile-bytecode`, or, for
tile IR the front end cannot make, from `tegula-opt --emit-bytecode`. On a
compile error it prints "intel_compile: error: <message> (code N)" on stderr
and exits 1. The runtime library is $TEGULA_RUNTIME_LIB, else
<build>/lib/libtegula_runtime.so next to the `tegula` on PATH.
"""

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile


class CompileError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class TgCompileOption(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


_lib = None


def runtime_library():
    global _lib
    if _lib is None:
        path = os.environ.get("TEGULA_RUNTIME_LIB")
        if not path:
            tool = shutil.which("tegula")
            if not tool:
                sys.exit("intel_compile: no `tegula` on PATH and no TEGULA_RUNTIME_LIB")
            path = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(tool))),
                                "lib", "libtegula_runtime.so")
        lib = ctypes.CDLL(path)
        P, E = ctypes.c_void_p, ctypes.c_void_p
        lib.tegula_runtime_create.restype = E
        lib.tegula_runtime_create.argtypes = [P, ctypes.POINTER(P)]
        lib.tegula_runtime_compile_stage.restype = E
        lib.tegula_runtime_compile_stage.argtypes = [
            P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.POINTER(TgCompileOption), ctypes.c_size_t, ctypes.POINTER(P)]
        lib.tegula_error_get_code.restype = ctypes.c_int
        lib.tegula_error_get_code.argtypes = [E]
        lib.tegula_error_get_message.restype = ctypes.c_char_p
        lib.tegula_error_get_message.argtypes = [E]
        lib.tegula_error_destroy.argtypes = [E]
        lib.tegula_image_get_data.restype = ctypes.c_void_p
        lib.tegula_image_get_data.argtypes = [P]
        lib.tegula_image_get_size.restype = ctypes.c_size_t
        lib.tegula_image_get_size.argtypes = [P]
        lib.tegula_image_destroy.argtypes = [P]
        lib.tegula_runtime_destroy.argtypes = [P]
        _lib = lib
    return _lib


def _check(lib, error):
    if error:
        code = lib.tegula_error_get_code(error)
        message = lib.tegula_error_get_message(error).decode("utf-8", "replace")
        lib.tegula_error_destroy(error)
        raise CompileError(message, code)


def compile_stage(bytecode, target, stage, options=()):
    """The bytes of |stage| for |bytecode| (tile bytecode) on |target|."""
    lib = runtime_library()
    runtime = ctypes.c_void_p()
    _check(lib, lib.tegula_runtime_create(None, ctypes.byref(runtime)))
    try:
        opts = (TgCompileOption * max(1, len(options)))()
        for i, (key, value) in enumerate(options):
            opts[i].key = key.encode()
            opts[i].value = value.encode()
        image = ctypes.c_void_p()
        _check(lib, lib.tegula_runtime_compile_stage(
            runtime, target.encode(), stage.encode(), bytecode, len(bytecode),
            opts, len(options), ctypes.byref(image)))
        try:
            return ctypes.string_at(lib.tegula_image_get_data(image),
                                    lib.tegula_image_get_size(image))
        finally:
            lib.tegula_image_destroy(image)
    finally:
        lib.tegula_runtime_destroy(runtime)


def tile_bytecode(path, kernel, signature, constexprs=()):
    """`tegula compile --emit tile-bytecode` of one specialization."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "k.tbc")
        command = ["tegula", "compile", path, "--kernel", kernel, "--signature", signature,
                   "--emit", "tile-bytecode", "-o", out]
        for constexpr in constexprs:
            command += ["--constexpr", constexpr]
        subprocess.run(command, check=True)
        with open(out, "rb") as f:
            return f.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?")
    parser.add_argument("--bytecode")
    parser.add_argument("--kernel")
    parser.add_argument("--signature")
    parser.add_argument("--constexpr", action="append", default=[])
    parser.add_argument("--target", required=True)
    parser.add_argument("--stage", default="image")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("-o", dest="output", default="-")
    args = parser.parse_args()
    options = [tuple(o.split("=", 1)) for o in args.option]
    if args.bytecode:
        with open(args.bytecode, "rb") as f:
            bytecode = f.read()
    elif args.file and args.kernel and args.signature:
        bytecode = tile_bytecode(args.file, args.kernel, args.signature, args.constexpr)
    else:
        parser.error("give FILE --kernel K --signature S, or --bytecode FILE")
    try:
        data = compile_stage(bytecode, args.target, args.stage, options)
    except CompileError as e:
        sys.stderr.write("intel_compile: error: %s (code %d)\n" % (e, e.code))
        sys.exit(1)
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
