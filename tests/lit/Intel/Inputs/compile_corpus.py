"""Compiles every specialization of tests/frontend/corpus/kernels.txt for an
Intel target to SPIR-V through the intel plugin (intel_compile.py), at each
sub-group size given, and checks each module with the external spirv-val
(besides the plugin's own in-process validation), and that no pointer in
it is OpUndef. Prints one line per
module, "ok FILE KERNEL sg=N BYTES", and fails on the first error.

Also takes --time: each module's compile time in milliseconds on the line.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import intel_compile  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--target", default="intel:pvc")
    parser.add_argument("--sub-group-size", action="append", default=[])
    parser.add_argument("--spirv-val", default="spirv-val")
    parser.add_argument("--spirv-dis", default="spirv-dis")
    args = parser.parse_args()
    sizes = args.sub_group_size or ["16"]
    lines = [l.strip() for l in open(os.path.join(args.corpus, "kernels.txt"))]
    specs = [l.split("|") for l in lines if l and not l.startswith("#")]
    if len(specs) < 20:
        sys.exit("kernels.txt has only %d kernels" % len(specs))
    with tempfile.TemporaryDirectory() as tmp:
        for i, spec in enumerate(specs):
            path, kernel, signature = spec[0], spec[1], spec[2]
            constexprs = spec[3].split() if len(spec) > 3 else []
            bytecode = intel_compile.tile_bytecode(os.path.join(args.corpus, path), kernel,
                                                   signature, constexprs)
            for size in sizes:
                start = time.perf_counter()
                try:
                    spirv = intel_compile.compile_stage(
                        bytecode, args.target, "spirv",
                        [("sub_group_size", size)])
                except intel_compile.CompileError as e:
                    sys.exit("%s:%s sg=%s: %s (code %d)" % (path, kernel, size, e, e.code))
                ms = (time.perf_counter() - start) * 1000
                out = os.path.join(tmp, "%d-%s.spv" % (i, size))
                with open(out, "wb") as f:
                    f.write(spirv)
                subprocess.run([args.spirv_val, out], check=True)
                # An undefined pointer is a constant the translator lost
                # (LLVM 15 reads constant expressions it cannot decode as
                # undef); spirv-val accepts it, the device crashes on it.
                text = subprocess.run([args.spirv_dis, out], check=True,
                                      capture_output=True, text=True).stdout
                if "OpUndef %_ptr" in text:
                    sys.exit("%s:%s sg=%s: the SPIR-V loads or stores through an undefined "
                             "pointer" % (path, kernel, size))
                print("ok %s %s sg=%s %d bytes %.0f ms" % (path, kernel, size, len(spirv), ms))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
