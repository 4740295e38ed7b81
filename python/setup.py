"""setuptools hook of pyproject.toml (which holds everything else): records
the build tree of the checkout this package is installed from, so that
after the README's commands (scripts/main.sh or scripts/test.sh build
<repo>/build) `pip install ./python` gives a working `import tegula` with no
environment variable, before anything is installed. The recorded folder is
tried last, after a bundled, an installed and a loader-found runtime
(tegula/_runtime.py); a copy of python/ elsewhere (scripts/build-wheel.py,
the tests) records nothing."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def build_lib_dirs():
    builds = [os.path.join(os.path.dirname(HERE), "build")]
    if os.environ.get("TEGULA_BUILD_DIR"):
        builds.insert(0, os.environ["TEGULA_BUILD_DIR"])
    out = []
    for b in builds:
        lib = os.path.join(os.path.abspath(b), "lib")
        if os.path.exists(os.path.join(lib, "libtegula_runtime.so.1")) and lib not in out:
            out.append(lib)
    return out


class BuildPy(build_py):
    def run(self):
        super().run()
        dirs = build_lib_dirs()
        if not dirs:
            return
        target = os.path.join(self.build_lib, "tegula", "_build_tree.py")
        with open(target, "w") as f:
            f.write('"""Written by python/setup.py: the build tree(s) of the checkout this '
                    'package was installed from."""\n\nLIB_DIRS = %r\n' % dirs)


setup(cmdclass={"build_py": BuildPy})
