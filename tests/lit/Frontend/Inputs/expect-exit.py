"""Runs a command and succeeds only if it exits with the given status.

usage: expect-exit.py STATUS COMMAND [ARG]...

The command's stdout and stderr pass through unchanged, so the output can
be piped into FileCheck. lit's `not` only tells zero from non-zero; this
tells 1 (an error in the kernel or its options) from 2 (a usage error).
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.stderr.write(__doc__)
    sys.exit(3)
want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
sys.stdout.buffer.write(proc.stdout)
sys.stdout.buffer.write(proc.stderr)
sys.stdout.flush()
if proc.returncode != want:
    sys.stderr.write("expect-exit.py: %s exited with %d, expected %d\n"
                     % (sys.argv[2], proc.returncode, want))
    sys.exit(1)
