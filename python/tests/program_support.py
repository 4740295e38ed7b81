"""Running the programs of triton_programs/ from the tests that check them
(test_triton_api_host.py: the NumPy ones; test_tutorials_torch.py: the
torch ones)."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "triton_programs")


def start_program(name, tmp_path, timeout=300):
    """Runs triton_programs/|name| in |tmp_path| under this Python, with the
    package on PYTHONPATH; the finished process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(HERE)] + [p for p in [env.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, os.path.join(PROGRAMS, name)], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=timeout)


def check_exit(proc, name):
    """|proc|, once it exited with 0 and printed no FAIL line."""
    assert proc.returncode == 0 and "\nFAIL " not in "\n" + proc.stdout, \
        "%s exited with %d:\n%s\n%s" % (name, proc.returncode, proc.stdout[-4000:],
                                        proc.stderr[-8000:])
    return proc


def perf_table(out, plot_name):
    """perf_report's table |plot_name| in |out|: its header's words, and its
    rows' numbers (the index left out)."""
    lines = out.split(plot_name + ":\n", 1)[1].splitlines()
    rows = []
    for line in lines[1:]:
        cells = line.split()
        if not cells or not cells[0].isdigit():
            break
        rows.append([float(c) for c in cells[1:]])
    return lines[0].split(), rows
