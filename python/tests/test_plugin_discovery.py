"""Plugin discovery opens only regular files and says when a plugin folder or
file could have been written by another user (docs/runtime.md, "Plugin
discovery"). Each discovery runs in a child process with a timeout: a
discovery that hangs (as it did on a FIFO named like a plugin) fails the
test instead of hanging the suite."""

import json
import os
import subprocess
import sys

import pytest

_CHILD = r"""
import json, os, sys
import tegula
folder = os.environ["FOLDER"]
for _ in range(int(os.environ.get("RUNTIMES", "1"))):
    rt = tegula.Runtime(plugin_path=folder, visible_backends="", default_plugin_dir="")
    plugins = rt.plugins
    devices = [d.name for d in rt.devices]
    rt.close()
print(json.dumps({"plugins": plugins, "devices": devices}))
"""


def discover(folder, runtimes=1):
    """(plugin records, device names, stderr lines) of discovery over
    |folder| in a child process, which must finish within 60 s."""
    env = dict(os.environ, FOLDER=str(folder), RUNTIMES=str(runtimes))
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("plugin discovery over %s did not return within 60 s" % folder)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    return out["plugins"], out["devices"], done.stderr.splitlines()


def warnings(lines):
    return [line for line in lines if line.startswith("tegula: warning: ")]


def record(plugins, path):
    (found,) = [p for p in plugins if p["path"] == str(path)]
    return found


def test_a_fifo_named_like_a_plugin_is_skipped_not_opened(tmp_path):
    fifo = tmp_path / "libtegula_plugin_x.so"
    os.mkfifo(fifo)
    plugins, devices, lines = discover(tmp_path)
    r = record(plugins, fifo)
    assert not r["loaded"]
    assert r["skip_reason"] == "not a regular file (a FIFO); not opened"
    assert r["skip_message"] == "%s: not a regular file (a FIFO); not opened" % fifo
    assert devices == []
    assert warnings(lines) == []


def test_a_symlink_to_a_fifo_and_a_socket_are_skipped(tmp_path):
    import socket
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "libtegula_plugin_link.so"
    link.symlink_to(fifo)
    sock_path = tmp_path / "libtegula_plugin_sock.so"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(sock_path))
        plugins, _, _ = discover(tmp_path)
    finally:
        sock.close()
    assert record(plugins, link)["skip_reason"] == "not a regular file (a FIFO); not opened"
    assert record(plugins, sock_path)["skip_reason"] == \
        "not a regular file (a socket); not opened"


def test_a_fifo_given_as_a_path_entry_is_skipped(tmp_path):
    fifo = tmp_path / "libtegula_plugin_x.so"
    os.mkfifo(fifo)
    plugins, devices, _ = discover(fifo)
    assert not record(plugins, fifo)["loaded"]
    assert devices == []


def _fake_plugin(folder, name):
    path = folder / ("libtegula_plugin_%s.so" % name)
    path.write_text("not a library\n")
    return path


def test_a_world_writable_folder_warns_once(tmp_path):
    folder = tmp_path / "plugins"
    folder.mkdir()
    _fake_plugin(folder, "x")
    os.chmod(folder, 0o1777)  # sticky, as /tmp: anyone may still add a file
    _, _, lines = discover(folder, runtimes=3)
    assert warnings(lines) == [
        "tegula: warning: plugin folder %s is world-writable: any user can add a plugin "
        "this process will load" % folder]


def test_a_world_writable_plugin_warns_and_still_loads_nothing_else_changes(tmp_path):
    path = _fake_plugin(tmp_path, "x")
    os.chmod(path, 0o666)
    plugins, _, lines = discover(tmp_path, runtimes=2)
    assert warnings(lines) == [
        "tegula: warning: plugin %s is world-writable: any user can change the code this "
        "process loads; loading it anyway" % path]
    assert record(plugins, path)["skip_reason"].startswith("not a loadable shared library")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_plugin_owned_by_another_user_warns(tmp_path):
    path = _fake_plugin(tmp_path, "x")
    os.chown(path, 12345, 12345)
    _, _, lines = discover(tmp_path)
    assert warnings(lines) == [
        "tegula: warning: plugin %s is owned by user 12345, neither root nor the current "
        "user %d; loading it anyway" % (path, os.geteuid())]


def test_a_private_folder_and_plugin_say_nothing(tmp_path):
    os.chmod(tmp_path, 0o755)
    path = _fake_plugin(tmp_path, "x")
    os.chmod(path, 0o644)
    plugins, _, lines = discover(tmp_path)
    assert warnings(lines) == []
    assert record(plugins, path)["skip_reason"].startswith("not a loadable shared library")
