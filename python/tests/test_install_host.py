"""`pip install ./python` and the self-contained wheel, with no environment
variable (issue #19, item 5); `python -m tegula devices|targets|compile|
inspect` against the `tegula` command line.

ctest runs this as `python.install` with TEGULA_BUILD_DIR, the build folder:
Tegula is installed from it (`cmake --install`) into the prefix of a fresh
venv, as a user installs into a prefix of their own, and the package is
pip-installed there offline (--no-build-isolation: Debian's setuptools and
wheel). Every child process runs with PATH and HOME only. By hand,
TEGULA_INSTALL_TREE may name an existing install prefix to copy instead of
running `cmake --install`. Without either the install tests skip; the
lookup tests (the places tried, the error listing them) always run.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from tegula import _runtime

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
KERNEL = os.path.join(REPO, "examples", "vector_add.py")
SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"


def clean_env():
    """What `env -i PATH=... HOME=...` leaves: no TEGULA_*, no PYTHONPATH."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}


def run(cmd, cwd=None, timeout=120):
    r = subprocess.run(cmd, env=clean_env(), cwd=cwd, capture_output=True, timeout=timeout)
    assert r.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        " ".join(cmd), r.returncode, r.stdout.decode(errors="replace"),
        r.stderr.decode(errors="replace"))
    return r.stdout.decode()


def install_source():
    return os.environ.get("TEGULA_INSTALL_TREE"), os.environ.get("TEGULA_BUILD_DIR")


def copy_python_dir(dest):
    """python/ without tests and build leftovers: pip builds in the folder it
    is given, so the checkout stays untouched."""
    shutil.copytree(os.path.join(REPO, "python"), dest,
                    ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                  "__pycache__", "_lib", "dist"))
    return dest


def make_venv(path, system_site_packages):
    cmd = [PYTHON, "-m", "venv"] + (["--system-site-packages"] if system_site_packages else [])
    run(cmd + [str(path)])
    return os.path.join(str(path), "bin", "python")


@pytest.fixture(scope="module")
def prefix_venv(tmp_path_factory):
    """A venv whose prefix also holds an install of Tegula, with the package
    pip-installed from python/: (venv python, prefix)."""
    tree, build = install_source()
    if not tree and not build:
        pytest.skip("neither TEGULA_BUILD_DIR (set by ctest's python.install) nor "
                    "TEGULA_INSTALL_TREE names a Tegula to install")
    root = tmp_path_factory.mktemp("install")
    prefix = str(root / "venv")
    python = make_venv(prefix, system_site_packages=True)
    if tree:
        shutil.copytree(tree, prefix, symlinks=True, dirs_exist_ok=True)
    else:
        run(["cmake", "--install", build, "--prefix", prefix])
    src = copy_python_dir(str(root / "src"))
    run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "-q", src])
    return python, prefix


def test_import_finds_the_installed_runtime_without_environment(prefix_venv):
    python, prefix = prefix_venv
    out = run([python, "-c", "import tegula, tegula._runtime as r, tegula._compiler as c, "
               "tegula.language, tegula.runtime; print(tegula.devices()); "
               "print(r.library_path()); print(c.api_version())"], cwd="/")
    devices, path, api = out.splitlines()
    assert "<tegula.Device host:0 (host:x86_64," in devices
    # Found in the prefix's lib/, not in the checkout's build folder.
    assert os.path.realpath(path).startswith(os.path.realpath(prefix) + "/lib/")
    assert api.startswith("(1, ")
    # The package came from the venv's site-packages, with every subpackage.
    where = run([python, "-c", "import sys, tegula.runtime.driver, tegula.language; "
                 "print(sys.modules['tegula.runtime.driver'].__file__); "
                 "print(tegula.language.__file__)"], cwd="/")
    assert "/site-packages/tegula/runtime/driver.py\n" in where
    assert "/site-packages/tegula/language/__init__.py\n" in where


def test_a_kernel_launches_from_the_install(prefix_venv, tmp_path):
    python, _ = prefix_venv
    script = tmp_path / "launch.py"
    script.write_text(
        "import numpy as np, tegula, tegula.language as tl\n"
        "@tegula.jit\n"
        "def add(x, y, o, n, B: tl.constexpr):\n"
        "    i = tl.program_id(0) * B + tl.arange(0, B)\n"
        "    m = i < n\n"
        "    tl.store(o + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)\n"
        "x = np.arange(100, dtype=np.float32); y = np.full(100, 2, np.float32)\n"
        "o = np.zeros_like(x)\n"
        "add[(2,)](x, y, o, 100, B=64)\n"
        "assert (o == x + 2).all(), o\n"
        "print('ok')\n")
    assert run([python, str(script)], cwd=str(tmp_path)).strip() == "ok"


@pytest.mark.parametrize("args", [["devices"], ["targets"], ["targets", "--markdown"]])
def test_python_m_tegula_prints_what_the_command_line_prints(prefix_venv, args):
    python, prefix = prefix_venv
    py = run([python, "-m", "tegula"] + args, cwd="/")
    cli = run([os.path.join(prefix, "bin", "tegula")] + args, cwd="/")
    assert py == cli
    if args == ["devices"]:
        assert "  host:0  " in py and "loaded  host " in py
        assert os.path.join(prefix, "lib", "tegula", "plugins") in py
    else:
        assert "host:x86_64" in py


def test_python_m_tegula_compile_matches_the_command_line(prefix_venv, tmp_path):
    python, prefix = prefix_venv
    tool = os.path.join(prefix, "bin", "tegula")
    common = [KERNEL, "--kernel", "add_kernel", "--signature", SIGNATURE]
    for extra, name in [(["--emit", "tile-bytecode"], "k.bc"),
                        (["--target", "host:x86_64", "--emit", "llvm-ir"], "k.ll"),
                        (["--target", "host:x86_64"], "k.tgk")]:
        run([python, "-m", "tegula", "compile"] + common + extra + ["-o", str(tmp_path / name)])
        run([tool, "compile"] + common + extra + ["-o", str(tmp_path / ("cli-" + name))])
        mine = (tmp_path / name).read_bytes()
        assert mine and mine == (tmp_path / ("cli-" + name)).read_bytes(), name
    assert b"define" in (tmp_path / "k.ll").read_bytes()
    inspect = run([python, "-m", "tegula", "inspect", str(tmp_path / "k.tgk")])
    assert inspect == run([tool, "inspect", str(tmp_path / "k.tgk")])
    assert "host:x86_64: kernel add_kernel" in inspect
    # tile IR as text goes through the executable, with the same arguments.
    ir = run([python, "-m", "tegula", "compile"] + common)
    assert "tile.func @add_kernel" in ir
    # A kernel error: the diagnostics, exit status 1.
    r = subprocess.run([python, "-m", "tegula", "compile", KERNEL, "--kernel", "nope",
                        "--signature", SIGNATURE, "--emit", "tile-bytecode"],
                       env=clean_env(), capture_output=True)
    assert r.returncode == 1
    assert b"no @jit function named 'nope'" in r.stderr


def test_the_self_contained_wheel(tmp_path):
    """scripts/build-wheel.py, then pip install of the wheel into a venv
    without system site-packages: the runtime, the compiler and the plugins
    come from the wheel."""
    tree, build = install_source()
    if not tree and not build:
        pytest.skip("neither TEGULA_BUILD_DIR (set by ctest's python.install) nor "
                    "TEGULA_INSTALL_TREE names a Tegula to put into the wheel")
    where = ["--prefix", tree] if tree else ["--build", build]
    out = run([PYTHON, os.path.join(REPO, "scripts", "build-wheel.py")] + where +
              ["-o", str(tmp_path / "dist")])
    assert "libLLVM.so.19.1" in out.split("not bundled):")[1]  # said, not bundled
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    wheel = tmp_path / "dist" / ("tegula-0.1.0-py3-none-%s.whl" % plat)
    assert wheel.exists(), os.listdir(str(tmp_path / "dist"))
    python = make_venv(tmp_path / "venv", system_site_packages=False)
    run([python, "-m", "pip", "install", "--no-index", "-q", str(wheel)])
    out = run([python, "-c", "import tegula, tegula._runtime as r, tegula._compiler as c; "
               "print(tegula.devices()); print(r.library_path()); "
               "print(c.api_version()); print(c.compile_kernel(open(%r).read(), "
               "'add_kernel', %r)[:4])" % (KERNEL, SIGNATURE)], cwd="/")
    devices, path, api, bytecode = out.splitlines()
    assert "<tegula.Device host:0 (host:x86_64," in devices
    assert "/site-packages/tegula/_lib/lib/libtegula_runtime.so.1" in path
    assert api.startswith("(1, ") and bytecode == "b'ML\\xefR'"  # MLIR bytecode magic
    devices = run([python, "-m", "tegula", "devices"], cwd="/")
    assert "site-packages/tegula/_lib/lib/tegula/plugins/libtegula_plugin_host.so" in devices
    assert "  host:0  " in devices
    # tile IR as text through the wheel's own `tegula` executable.
    ir = run([python, "-m", "tegula", "compile", KERNEL, "--kernel", "add_kernel",
              "--signature", SIGNATURE])
    assert "tile.func @add_kernel" in ir


def test_pip_install_from_a_built_checkout(tmp_path):
    """The README's commands build <checkout>/build and install nothing; then
    `pip install ./python` records that build tree (python/setup.py), and
    `import tegula` finds the runtime there, plugins beside it, with no
    environment variable. The checkout here is a copy of python/ beside a
    build/lib of this build's libraries."""
    tree, build = install_source()
    if not tree and not build:
        pytest.skip("neither TEGULA_BUILD_DIR (set by ctest's python.install) nor "
                    "TEGULA_INSTALL_TREE names a built Tegula")
    installed = [p for _, p in _runtime._candidates()[1:]
                 if p and os.sep in p and os.path.exists(p)]
    if installed:
        pytest.skip("a Tegula is installed on this machine (%s), which comes first"
                    % installed[0])
    checkout = tmp_path / "checkout"
    copy_python_dir(str(checkout / "python"))
    (checkout / "build").mkdir()
    os.symlink(os.path.join(tree or build, "lib"), str(checkout / "build" / "lib"))
    python = make_venv(tmp_path / "venv", system_site_packages=True)
    run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "-q", "./python"], cwd=str(checkout))
    out = run([python, "-c", "import tegula, tegula._runtime as r; print(tegula.devices()); "
               "print(r.library_path())"], cwd="/")
    devices, path = out.splitlines()
    assert "<tegula.Device host:0 (host:x86_64," in devices
    assert os.path.realpath(path).startswith(os.path.realpath(os.path.join(tree or build, "lib")))
    # What was recorded is tried last, and named in the places tried.
    out = run([python, "-c", "import tegula._runtime as r; print(r._candidates()[-1])"], cwd="/")
    assert "the build tree this package was installed from" in out
    assert str(checkout / "build" / "lib" / "libtegula_runtime.so.1") in out


def test_the_deb_layout(tmp_path):
    """The tegula-core and tegula-plugin-host packages (cpack, as the ctest
    `packaging` makes them in <build>/packages), extracted with dpkg -x into
    a scratch root whose usr/ is the venv's prefix: the .deb files alone,
    /usr/lib/libtegula_runtime.so.1 and /usr/lib/tegula/plugins/, give
    `import tegula` its host device."""
    import glob
    debs = os.environ.get("TEGULA_DEB_DIR") or (
        os.path.join(os.environ["TEGULA_BUILD_DIR"], "packages")
        if os.environ.get("TEGULA_BUILD_DIR") else None)
    core = sorted(glob.glob(os.path.join(debs or "/nonexistent", "tegula-core_*.deb")))
    host = sorted(glob.glob(os.path.join(debs or "/nonexistent", "tegula-plugin-host_*.deb")))
    if not core or not host or not shutil.which("dpkg-deb"):
        pytest.skip("no tegula-core and tegula-plugin-host .deb in %s (the ctest "
                    "`packaging` makes them) or no dpkg-deb" % debs)
    root = tmp_path / "root"
    for deb in (core[-1], host[-1]):
        run(["dpkg-deb", "-x", deb, str(root)])
    usr = str(root / "usr")
    assert os.path.islink(os.path.join(usr, "lib", "libtegula_runtime.so.1"))
    python = make_venv(usr, system_site_packages=True)
    src = copy_python_dir(str(tmp_path / "src"))
    run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "-q", src])
    out = run([python, "-c", "import tegula, tegula._runtime as r; print(tegula.devices()); "
               "print(r.library_path()); print(tegula.Runtime().search_dirs)"], cwd="/")
    devices, path, dirs = out.splitlines()
    assert "<tegula.Device host:0 (host:x86_64," in devices
    assert os.path.realpath(path).startswith(os.path.realpath(usr) + "/lib/libtegula_runtime")
    assert os.path.join(os.path.realpath(usr), "lib", "tegula", "plugins") in dirs


# -- the lookup, in this process ---------------------------------------------


def test_the_places_tried_without_environment(monkeypatch):
    monkeypatch.delenv("TEGULA_RUNTIME_LIB", raising=False)
    cands = _runtime._candidates()
    what = [w for w, _ in cands]
    paths = [p for _, p in cands]
    bundled = os.path.join(os.path.dirname(_runtime.__file__), "_lib", "lib",
                           "libtegula_runtime.so.1")
    assert cands[0] == ("bundled with the package", bundled)
    for d in (os.path.join(sys.prefix, "lib"), "/usr/local/lib", "/usr/lib"):
        assert ("installed lib dir", os.path.join(d, "libtegula_runtime.so.1")) in cands
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:  # Debian's /usr/lib/x86_64-linux-gnu
        assert os.path.join("/usr/lib", multiarch, "libtegula_runtime.so.1") in paths
    # The prefixes before the loader's own search and find_library.
    assert what.index("the loader's default search") > what.index("installed lib dir")
    assert paths[what.index("the loader's default search")] == "libtegula_runtime.so.1"
    assert what[-1] == 'ctypes.util.find_library("tegula_runtime")'


def test_not_found_lists_every_place_tried(monkeypatch, tmp_path):
    monkeypatch.delenv("TEGULA_RUNTIME_LIB", raising=False)
    monkeypatch.setattr(_runtime, "_lib", None)
    monkeypatch.setattr(_runtime, "SONAME", "libtegula_runtime_nonexistent.so.1")
    monkeypatch.setattr(_runtime, "bundled_lib_dir", lambda: str(tmp_path / "bundled"))
    monkeypatch.setattr(_runtime, "installed_lib_dirs",
                        lambda: [str(tmp_path / "a" / "lib"), "/usr/lib"])
    monkeypatch.setattr(_runtime.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(_runtime.RuntimeLibraryNotFound) as info:
        _runtime.load_library()
    msg = str(info.value)
    name = "libtegula_runtime_nonexistent.so.1"
    assert "bundled with the package: %s (no such file)" % (tmp_path / "bundled" / name) in msg
    assert "installed lib dir: %s (no such file)" % (tmp_path / "a" / "lib" / name) in msg
    assert "installed lib dir: /usr/lib/%s (no such file)" % name in msg
    assert "the loader's default search: %s (" % name in msg  # with dlopen's reason
    assert 'ctypes.util.find_library("tegula_runtime"): not found' in msg
    assert "TEGULA_RUNTIME_LIB" in msg and "cmake --install" in msg  # how to fix it
    assert isinstance(info.value, OSError)
