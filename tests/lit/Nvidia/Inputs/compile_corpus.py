"""Compiles every specialization of tests/frontend/corpus/kernels.txt for an
NVIDIA target to PTX (checking the entry and target lines) and, given a
ptxas, assembles each one. Prints one line per kernel and fails on the
first error."""

import argparse
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--target", default="sm_90a")
    parser.add_argument("--ptxas")
    args = parser.parse_args()
    lines = [l.strip() for l in open(os.path.join(args.corpus, "kernels.txt"))]
    specs = [l.split("|") for l in lines if l and not l.startswith("#")]
    if len(specs) < 20:
        sys.exit("kernels.txt has only %d kernels" % len(specs))
    arch = "sm_90a" if args.target == "sm_90" else args.target
    with tempfile.TemporaryDirectory() as tmp:
        for i, spec in enumerate(specs):
            path, kernel, signature = spec[0], spec[1], spec[2]
            ptx = os.path.join(tmp, "%d.ptx" % i)
            subprocess.run(["tegula", "compile", os.path.join(args.corpus, path),
                            "--kernel", kernel, "--signature", signature,
                            "--target", "nvidia:" + args.target, "--emit", "ptx", "-o", ptx], check=True)
            text = open(ptx).read()
            if ".target %s" % arch not in text or ".visible .entry %s(" % kernel not in text:
                sys.exit("%s:%s: the PTX lacks its target or entry" % (path, kernel))
            if args.ptxas:
                subprocess.run([args.ptxas, "-arch=" + arch, ptx, "-o",
                                os.path.join(tmp, "%d.cubin" % i)], check=True)
            print("ok %s %s%s" % (path, kernel, " (assembled)" if args.ptxas else ""))


if __name__ == "__main__":
    main()
