#!/usr/bin/env python3
"""Builds a self-contained wheel of the `tegula` Python package: the package
plus Tegula's own native libraries, its backend plugins and the `tegula`
executable, in tegula/_lib/, so that `pip install` of it (no root, no
environment variable) gives a working `import tegula` and `python -m tegula`.

Usage: scripts/build-wheel.py [--build DIR | --prefix DIR] [-o OUTDIR]

  --build DIR   a built CMake build folder (default: $TEGULA_BUILD_DIR, else
                ./build); its `core` and `plugin-*` install components are
                installed (cmake --install --component) into a temporary
                prefix first. Nothing is built.
  --prefix DIR  take the files from an existing install prefix instead
                (`cmake --install build --prefix DIR`, or a .deb layout).
  -o OUTDIR     where the wheel goes (default: ./dist).

The wheel holds tegula/_lib/ in an install prefix's shape:
  lib/libtegula_*.so.N        each under its soname (a wheel keeps no links)
  lib/tegula/plugins/*.so     the plugins, where the runtime looks beside itself
and tegula._accel (tegula/_accel.<abi>.so, when the build made it) in the
package itself;
  bin/tegula                  the command line (`python -m tegula compile
                              --emit tile-ir` runs it)
so the RUNPATH the install gave them ($ORIGIN/../lib, and LLVM 19's folder)
holds unchanged and nothing is patched.

NOT bundled: LLVM and MLIR (libLLVM.so.19.1, libMLIR.so.19.1 from Debian's
libllvm19 and libmlir-19 packages), Boost.Filesystem and the C/C++
libraries: they come from Debian 12's packages, which the wheel's users
install with apt (`apt-get install libllvm19 libmlir-19 libboost-filesystem1.74.0`).
The wheel is therefore tagged for this platform (py3-none-linux_x86_64), not
manylinux. The script fails when a bundled file needs a library that is
neither bundled nor found on this machine.

Runs offline: the wheel is built by pip with --no-build-isolation, from the
setuptools and wheel of the Python that runs this script (on Debian 12:
python3-setuptools and python3-wheel, which python3-pip depends on).
"""

import argparse
import base64
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def soname(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return m.group(1) if m else None


def install_components(build, prefix):
    """cmake --install of `core` and each `plugin-<backend>` the build made."""
    plugins = sorted(glob.glob(os.path.join(build, "lib", "tegula", "plugins",
                                            "libtegula_plugin_*.so")))
    backends = [os.path.basename(p)[len("libtegula_plugin_"):-len(".so")] for p in plugins]
    for component in ["core"] + ["plugin-" + b for b in backends]:
        run(["cmake", "--install", build, "--prefix", prefix, "--component", component],
            stdout=subprocess.DEVNULL)


def stage_native(prefix, dest):
    """Copies prefix/lib/libtegula_*.so.N (under their sonames), the plugins
    and bin/tegula into dest (tegula/_lib)."""
    lib_src = os.path.join(prefix, "lib")
    lib_dst = os.path.join(dest, "lib")
    plugins_dst = os.path.join(lib_dst, "tegula", "plugins")
    bin_dst = os.path.join(dest, "bin")
    for d in (plugins_dst, bin_dst):
        os.makedirs(d, exist_ok=True)
    copied = []
    for path in sorted(glob.glob(os.path.join(lib_src, "libtegula_*.so*"))):
        if os.path.islink(path):
            continue
        name = soname(path)
        if not name:
            continue
        shutil.copyfile(path, os.path.join(lib_dst, name))
        copied.append(os.path.join(lib_dst, name))
    if not any(os.path.basename(p) == "libtegula_runtime.so.1" for p in copied):
        sys.exit("build-wheel: no libtegula_runtime.so.1 in %s" % lib_src)
    for path in sorted(glob.glob(os.path.join(lib_src, "tegula", "plugins", "*.so"))):
        shutil.copyfile(path, os.path.join(plugins_dst, os.path.basename(path)))
        copied.append(os.path.join(plugins_dst, os.path.basename(path)))
    # tegula._accel (when the build had Python's headers): in the package
    # itself, where tegula looks first.
    for path in sorted(glob.glob(os.path.join(lib_src, "tegula", "python", "_accel*.so"))):
        target = os.path.join(os.path.dirname(dest), os.path.basename(path))
        shutil.copyfile(path, target)
        copied.append(target)
    exe = os.path.join(prefix, "bin", "tegula")
    if os.path.exists(exe):
        shutil.copy2(exe, os.path.join(bin_dst, "tegula"))
        os.chmod(os.path.join(bin_dst, "tegula"), 0o755)
        copied.append(os.path.join(bin_dst, "tegula"))
    return copied


def check_dependencies(files, dest):
    """Every library a bundled file needs resolves, the Tegula ones to the
    bundled copies; returns the system libraries they need."""
    lib_dir = os.path.realpath(os.path.join(dest, "lib"))
    system = set()
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    for f in files:
        out = subprocess.run(["ldd", f], check=True, capture_output=True, text=True,
                             env=env).stdout
        for line in out.splitlines():
            m = re.match(r"\s*(\S+) => (.*) \(0x", line)
            if not m:
                if "not found" in line:
                    sys.exit("build-wheel: %s needs %s" % (f, line.strip()))
                continue
            name, where = m.group(1), m.group(2).strip()
            if where == "not found":
                sys.exit("build-wheel: %s needs %s, which is neither bundled nor "
                         "installed here" % (f, name))
            if name.startswith("libtegula_"):
                if os.path.dirname(os.path.realpath(where)) != lib_dir:
                    sys.exit("build-wheel: %s takes %s from %s, not from the wheel"
                             % (f, name, where))
            else:
                system.add(name)
    return sorted(system)


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
        b"=").decode()


def retag(wheel, out_dir):
    """py3-none-any -> py3-none-<platform>, Root-Is-Purelib false: the wheel
    carries native code for this platform (but no CPython extension, so any
    Python 3 takes it)."""
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    base = os.path.basename(wheel)
    if not base.endswith("-py3-none-any.whl"):
        sys.exit("build-wheel: unexpected wheel name %s" % base)
    new_name = base[:-len("any.whl")] + plat + ".whl"
    target = os.path.join(out_dir, new_name)
    with zipfile.ZipFile(wheel) as zin, zipfile.ZipFile(target, "w",
                                                        zipfile.ZIP_DEFLATED) as zout:
        infos = zin.infolist()
        record_name = next(i.filename for i in infos if i.filename.endswith(".dist-info/RECORD"))
        wheel_name = next(i.filename for i in infos if i.filename.endswith(".dist-info/WHEEL"))
        new_wheel = zin.read(wheel_name).decode()
        new_wheel = new_wheel.replace("Root-Is-Purelib: true", "Root-Is-Purelib: false")
        new_wheel = new_wheel.replace("Tag: py3-none-any", "Tag: py3-none-" + plat).encode()
        record = []
        for line in zin.read(record_name).decode().splitlines():
            if line.startswith(wheel_name + ","):
                line = "%s,%s,%d" % (wheel_name, _record_hash(new_wheel), len(new_wheel))
            record.append(line)
        for info in infos:
            if info.filename == record_name:
                continue
            data = new_wheel if info.filename == wheel_name else zin.read(info)
            zout.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        rinfo = zipfile.ZipInfo(record_name, date_time=infos[-1].date_time)
        rinfo.external_attr = 0o644 << 16
        zout.writestr(rinfo, "\n".join(record) + "\n", compress_type=zipfile.ZIP_DEFLATED)
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--build", help="the CMake build folder (default $TEGULA_BUILD_DIR or ./build)")
    g.add_argument("--prefix", help="an existing install prefix to take the files from")
    ap.add_argument("-o", "--out", default=os.path.join(os.getcwd(), "dist"))
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tegula-wheel-")
    try:
        prefix = args.prefix
        if prefix is None:
            build = args.build or os.environ.get("TEGULA_BUILD_DIR") or os.path.join(ROOT, "build")
            if not os.path.exists(os.path.join(build, "cmake_install.cmake")):
                sys.exit("build-wheel: %s is not a CMake build folder (build it with "
                         "scripts/build.sh first)" % build)
            prefix = os.path.join(work, "prefix")
            install_components(build, prefix)
        src = os.path.join(work, "src")
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                      "__pycache__", "_lib", "dist"))
        dest = os.path.join(src, "tegula", "_lib")
        files = stage_native(prefix, dest)
        system = check_dependencies(files, dest)
        dist = os.path.join(work, "dist")
        run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
             "--no-index", "-q", "-w", dist, src])
        wheels = glob.glob(os.path.join(dist, "tegula-*.whl"))
        if len(wheels) != 1:
            sys.exit("build-wheel: pip made %s" % (wheels or "no wheel"))
        os.makedirs(args.out, exist_ok=True)
        target = retag(wheels[0], args.out)
        print("build-wheel: bundled %d files: %s" % (len(files), ", ".join(
            os.path.relpath(f, dest) for f in files)))
        print("build-wheel: needs from the system (not bundled): %s" % ", ".join(system))
        print(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
