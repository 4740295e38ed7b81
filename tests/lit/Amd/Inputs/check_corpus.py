"""Compiles every specialization of tests/frontend/corpus/kernels.txt for
one AMD target into an AMD image and checks its code object against what
the compiler says (the image's JSON header) and what the target allows
(plugins/amd/AmdTargets.cpp), from `llvm-readobj --notes`:

  - one kernel, named as the image says, for amdgcn-amd-amdhsa--<arch>
  - .wavefront_size: 64 (gfx9) or 32 (gfx11)
  - .max_flat_workgroup_size: num_warps x wave size
  - explicit arguments at the offsets and sizes of the kit's packing (each
    at the next multiple of its size, runtime.h) and a kernarg segment
    that holds them
  - .group_segment_fixed_size (LDS) equal to the lowering's lds_bytes and
    at most the target's LDS per workgroup
  - .private_segment_fixed_size 0 and no spills, except for the kernels
    named by --scratch (given with the reason in the test)
  - VGPR, SGPR and AGPR counts within the target's limits

Prints one line per kernel and exits 1 after the first failure."""

import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amd_compile import CompileError, Runtime, tile_bytecode  # noqa: E402

# plugins/amd/AmdTargets.cpp: wave size, LDS per workgroup and register
# limits.
TARGETS = {
    "gfx90a": dict(wave=64, lds=65536, vgprs=512, sgprs=108, agprs=256),
    "gfx942": dict(wave=64, lds=65536, vgprs=512, sgprs=108, agprs=256),
    "gfx1100": dict(wave=32, lds=65536, vgprs=256, sgprs=108, agprs=0),
}


def read_image(data):
    """(header, hsaco) of an AMD image (plugins/amd/AmdImage.h)."""
    if data[:8] != b"TGAMDHSA":
        raise ValueError("not an AMD image (magic %r)" % data[:8])
    version, header_size = struct.unpack_from("<II", data, 8)
    (payload,) = struct.unpack_from("<Q", data, 16)
    header = json.loads(data[24:24 + header_size])
    hsaco = data[24 + header_size:24 + header_size + payload]
    if len(hsaco) != payload:
        raise ValueError("the image is truncated")
    return header, hsaco


def notes(readobj, hsaco):
    """The AMDGPU metadata of |hsaco| as (kernels, target), where each
    kernel is a dict of its scalar fields plus "args", a list of dicts."""
    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(hsaco)
        f.flush()
        text = subprocess.run([readobj, "--notes", f.name], check=True,
                              capture_output=True, text=True).stdout
    target = re.search(r"amdhsa\.target:\s+(\S+)", text).group(1)
    kernels = []
    kernel = arg = None
    for line in text.splitlines():
        m = re.match(r"^  - \.(\w+):\s*(.*)$", line)
        if m:  # a new kernel
            kernel = {"args": []}
            kernels.append(kernel)
            arg = None
            if m.group(2):
                kernel[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^      - \.(\w+):\s*(.*)$", line)
        if m and kernel is not None:  # a new argument
            arg = {m.group(1): m.group(2)}
            kernel["args"].append(arg)
            continue
        m = re.match(r"^        \.(\w+):\s*(.*)$", line)
        if m and arg is not None:
            arg[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^    \.(\w+):\s*(.*)$", line)
        if m and kernel is not None:
            arg = None
            if m.group(2):
                kernel[m.group(1)] = m.group(2)
    return kernels, target


def check(header, kernels, target, arch, scratch_ok):
    """The problems of one code object, as a list of strings."""
    limits = TARGETS[arch]
    problems = []
    if target != "amdgcn-amd-amdhsa--" + arch:
        problems.append("target %s" % target)
    if len(kernels) != 1:
        return problems + ["%d kernels in the code object" % len(kernels)]
    k = kernels[0]
    n = lambda key: int(k.get(key, "-1"))
    if k.get("name") != header["kernel"]:
        problems.append("kernel %s, the image says %s" % (k.get("name"), header["kernel"]))
    if n("wavefront_size") != limits["wave"] or header["wave_size"] != limits["wave"]:
        problems.append("wavefront size %d" % n("wavefront_size"))
    threads = header["num_warps"] * limits["wave"]
    if n("max_flat_workgroup_size") != threads:
        problems.append("max flat workgroup size %d, not %d" %
                        (n("max_flat_workgroup_size"), threads))
    offset = 0
    explicit = [a for a in k["args"] if not a.get("value_kind", "").startswith("hidden_")]
    if len(explicit) != len(header["arg_sizes"]):
        problems.append("%d explicit arguments, the image packs %d" %
                        (len(explicit), len(header["arg_sizes"])))
    for i, (arg, size) in enumerate(zip(explicit, header["arg_sizes"])):
        offset = (offset + size - 1) // size * size
        if int(arg["offset"]) != offset or int(arg["size"]) != size:
            problems.append("argument %d at %s size %s, packed at %d size %d" %
                            (i, arg["offset"], arg["size"], offset, size))
        offset += size
    if n("kernarg_segment_size") < offset:
        problems.append("kernarg segment %d < %d packed bytes" % (n("kernarg_segment_size"), offset))
    if n("group_segment_fixed_size") != header["lds_bytes"]:
        problems.append("group segment %d, the compiler computed %d LDS bytes" %
                        (n("group_segment_fixed_size"), header["lds_bytes"]))
    if not 0 <= n("group_segment_fixed_size") <= limits["lds"]:
        problems.append("group segment %d over %d LDS bytes" %
                        (n("group_segment_fixed_size"), limits["lds"]))
    if not scratch_ok:
        for key in ("private_segment_fixed_size", "vgpr_spill_count", "sgpr_spill_count"):
            if n(key) != 0:
                problems.append("%s %d" % (key, n(key)))
    if limits["agprs"] == 0 and "agpr_count" not in k:
        k["agpr_count"] = "0"  # RDNA has no AGPRs: the note has no count
    for key, limit in (("vgpr_count", limits["vgprs"]), ("sgpr_count", limits["sgprs"]),
                       ("agpr_count", limits["agprs"])):
        if not 0 <= n(key) <= limit:
            problems.append("%s %d over %d" % (key, n(key), limit))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--target", required=True, choices=sorted(TARGETS))
    parser.add_argument("--readobj", default="llvm-readobj-19")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--scratch", action="append", default=[],
                        help="file:kernel[:index] allowed to use scratch")
    parser.add_argument("--expect-error", action="append", default=[],
                        help="file:kernel:index=TEXT: the compile must fail "
                        "with a message containing TEXT")
    args = parser.parse_args()
    lines = [l.strip() for l in open(os.path.join(args.corpus, "kernels.txt"))]
    specs = [l.split("|") for l in lines if l and not l.startswith("#")]
    if len(specs) < 20:
        sys.exit("kernels.txt has only %d kernels" % len(specs))
    runtime = Runtime()
    options = [o.split("=", 1) for o in args.option]
    expected = dict(e.split("=", 1) for e in args.expect_error)
    seen = {}
    for spec in specs:
        path, kernel, signature = spec[0], spec[1], spec[2]
        index = seen[(path, kernel)] = seen.get((path, kernel), -1) + 1
        name = "%s:%s:%d" % (path, kernel, index)
        data = tile_bytecode(os.path.join(args.corpus, path), kernel, signature)
        try:
            header, hsaco = read_image(runtime.compile("amd:" + args.target, "image",
                                                       data, options))
        except (CompileError, ValueError) as error:
            if name in expected and expected[name] in str(error):
                print("error %s %s: %s" % (name, args.target, error))
                continue
            sys.exit("FAIL %s: %s" % (name, error))
        if name in expected:
            sys.exit("FAIL %s on %s: compiled, expected an error with '%s'" %
                     (name, args.target, expected[name]))
        kernels, target = notes(args.readobj, hsaco)
        scratch_ok = name in args.scratch or "%s:%s" % (path, kernel) in args.scratch
        problems = check(header, kernels, target, args.target, scratch_ok)
        if problems:
            sys.exit("FAIL %s on %s: %s" % (name, args.target, "; ".join(problems)))
        k = kernels[0]
        print("ok %s %s wave%s lds %s vgpr %s sgpr %s scratch %s" % (
            name, args.target, k["wavefront_size"], k["group_segment_fixed_size"],
            k["vgpr_count"], k["sgpr_count"], k["private_segment_fixed_size"]))


if __name__ == "__main__":
    main()
