"""Compiles one kernel for an AMD target through the runtime's C API
(tegula_runtime_compile_stage), as `tegula compile --target amd:<arch>
--emit <stage>` does, but returning the plugin's own image (its JSON header
and the hsaco) rather than a kernel container: check_corpus.py reads the
compiler's view of each kernel from it.

  amd_compile.py FILE --kernel K --signature S --target amd:ARCH
                 [--emit llvm-ir|asm|hsaco|image] [--option KEY=VALUE]...
                 [-o OUT]

The tile bytecode comes from `tegula compile --emit tile-bytecode`; the
runtime library is the one beside the `tegula` on PATH (build/lib), or
$TEGULA_RUNTIME_LIB. Errors print as "amd_compile: error: <message>" and
exit 1."""

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile


class Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("plugin_path", ctypes.c_char_p),
                ("visible_backends", ctypes.c_char_p),
                ("default_plugin_dir", ctypes.c_char_p)]


class CompileOption(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


def fail(message):
    sys.stderr.write("amd_compile: error: %s\n" % message)
    sys.exit(1)


def runtime_library():
    if os.environ.get("TEGULA_RUNTIME_LIB"):
        return os.environ["TEGULA_RUNTIME_LIB"]
    tool = shutil.which("tegula")
    if not tool:
        fail("no tegula on PATH")
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(tool))),
                        "lib", "libtegula_runtime.so")


def tile_bytecode(path, kernel, signature):
    """The tile bytecode of |kernel| in |path| specialized for |signature|
    (`tegula compile --emit tile-bytecode`); exits on failure."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "kernel.tbc")
        done = subprocess.run(["tegula", "compile", path, "--kernel", kernel,
                               "--signature", signature, "--emit", "tile-bytecode",
                               "-o", out])
        if done.returncode:
            sys.exit(done.returncode)
        return open(out, "rb").read()


class CompileError(Exception):
    pass


class Runtime:
    """libtegula_runtime with only the amd plugin loaded."""

    def __init__(self):
        lib = ctypes.CDLL(runtime_library())
        P, E = ctypes.c_void_p, ctypes.c_void_p
        lib.tegula_error_get_message.restype = ctypes.c_char_p
        lib.tegula_error_get_message.argtypes = [E]
        lib.tegula_runtime_create.restype = E
        lib.tegula_runtime_create.argtypes = [ctypes.POINTER(Options), ctypes.POINTER(P)]
        lib.tegula_runtime_compile_stage.restype = E
        lib.tegula_runtime_compile_stage.argtypes = [
            P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.POINTER(CompileOption), ctypes.c_size_t, ctypes.POINTER(P)]
        lib.tegula_image_get_data.restype = ctypes.c_void_p
        lib.tegula_image_get_data.argtypes = [P]
        lib.tegula_image_get_size.restype = ctypes.c_size_t
        lib.tegula_image_get_size.argtypes = [P]
        lib.tegula_image_destroy.argtypes = [P]
        self.lib = lib
        options = Options(ctypes.sizeof(Options), None, b"amd", None)
        self.runtime = P()
        error = lib.tegula_runtime_create(ctypes.byref(options), ctypes.byref(self.runtime))
        if error:
            raise CompileError(lib.tegula_error_get_message(error).decode())

    def compile(self, target, stage, bytecode, options=()):
        """The output of |stage| for |target|; CompileError with the
        runtime's message on failure."""
        lib = self.lib
        pairs = list(options)
        array = (CompileOption * max(1, len(pairs)))(
            *[CompileOption(k.encode(), v.encode()) for k, v in pairs])
        image = ctypes.c_void_p()
        error = lib.tegula_runtime_compile_stage(
            self.runtime, target.encode(), stage.encode(), bytecode, len(bytecode),
            array, len(pairs), ctypes.byref(image))
        if error:
            raise CompileError(lib.tegula_error_get_message(error).decode())
        out = ctypes.string_at(lib.tegula_image_get_data(image),
                               lib.tegula_image_get_size(image))
        lib.tegula_image_destroy(image)
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--signature", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--emit", default="image")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("-o", dest="output", default="-")
    args = parser.parse_args()
    data = tile_bytecode(args.file, args.kernel, args.signature)
    try:
        out = Runtime().compile(args.target, args.emit, data,
                                [o.split("=", 1) for o in args.option])
    except CompileError as error:
        fail(str(error))
    if args.output == "-":
        sys.stdout.buffer.write(out)
    else:
        open(args.output, "wb").write(out)


if __name__ == "__main__":
    main()
