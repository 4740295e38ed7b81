#!/usr/bin/env python3
"""Compiles every specialization of the kernel corpus
(tests/frontend/corpus/kernels.txt) ahead of time, with no device, into one
kernel container per kernel holding an image for each target, then checks
each container with `tegula inspect` (one image per target, the kernel's
name). Prints one line per kernel; exits 1 on the first failure.

Usage: scripts/compile-corpus.py OUT_DIR [--tegula PATH] [--corpus DIR]
                                 [--target T]...   (default: every target
                                 the loaded plugins declare)
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def declared_targets(tegula):
    out = subprocess.run([tegula, "targets"], check=True, capture_output=True,
                         text=True).stdout
    return [t for line in out.splitlines() if line.startswith("  targets: ")
            for t in line.split()[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--tegula", default=os.path.join(ROOT, "build", "bin", "tegula"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests", "frontend", "corpus"))
    ap.add_argument("--target", action="append", dest="targets")
    args = ap.parse_args()
    targets = args.targets or declared_targets(args.tegula)
    os.makedirs(args.out, exist_ok=True)
    lines = [l.strip() for l in open(os.path.join(args.corpus, "kernels.txt"))]
    specs = [l.split("|") for l in lines if l and not l.startswith("#")]
    for i, spec in enumerate(specs):
        path, kernel, signature = spec[0], spec[1], spec[2]
        out = os.path.join(args.out, "%02d-%s.tgk" % (i, kernel))
        cmd = [args.tegula, "compile", os.path.join(args.corpus, path), "--kernel", kernel,
               "--signature", signature, "-o", out]
        for t in targets:
            cmd += ["--target", t]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            sys.exit("%s:%s: %s" % (path, kernel, done.stderr.strip()))
        shown = subprocess.run([args.tegula, "inspect", out], check=True,
                               capture_output=True, text=True).stdout
        images = re.findall(r"^\[\d+\] (\S+): kernel (\S+),", shown, re.M)
        if images != [(t, kernel) for t in targets]:
            sys.exit("%s:%s: the container holds %s, not %s" % (path, kernel, images, targets))
        print("ok %s %s: %d images" % (path, kernel, len(images)))


if __name__ == "__main__":
    main()
