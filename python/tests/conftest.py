"""Test setup. ctest (tests/CMakeLists.txt, test `python`) sets
TEGULA_RUNTIME_LIB, PYTHONPATH and TEGULA_PLUGIN_PATH; run by hand, the
defaults below point at <repo>/build."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)

os.environ.setdefault("TEGULA_RUNTIME_LIB",
                      os.path.join(REPO, "build", "lib", "libtegula_runtime.so"))
os.environ.setdefault("TEGULA_PLUGIN_PATH",
                      os.path.join(REPO, "build", "tests", "runtime", "plugins"))
# A disk cache of this session's own: kernels cached by an earlier run, or by
# another checkout, never stand in for a compile the tests mean to make.
import tempfile
os.environ.setdefault("TEGULA_CACHE_DIR", tempfile.mkdtemp(prefix="tegula-test-cache-"))
# Only the fake backend: its two devices are the ones the tests expect.
os.environ.setdefault("TEGULA_VISIBLE_BACKENDS", "testdev")


@pytest.fixture(scope="module")
def host():
    """host:0 on a runtime of its own (the host tests: python.host)."""
    import tegula
    rt = tegula.Runtime(visible_backends="host")
    try:
        dev = rt.find_device("host:0")
    except tegula.TegulaError:
        pytest.fail("no host:0: the host plugin did not load (%s)" % rt.plugins)
    yield dev
    rt.close()


def pytest_sessionfinish(session, exitstatus):
    # No tests collected (pytest's exit status 5) means a wrong path or a
    # broken collection: make it a plain failure, never a silent pass.
    if session.testscollected == 0 or exitstatus == 5:
        session.exitstatus = 1
