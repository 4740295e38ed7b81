"""Seeded dropout of NumPy arrays with `tl.rand`.

The NumPy twin of dropout.py (for Pythons without torch), written for
Tegula's tests in the shape of Triton's low-memory-dropout tutorial (04);
`import tegula as triton` is its only Tegula-specific line. Checks that a
seed reproduces its mask, that other seeds do not, the dropped fraction and
the 1 / (1 - p) scale of the kept elements. Exits 1 when a check fails.
"""

import sys

import numpy as np

import tegula as triton
import tegula.language as tl


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    idx = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    x = tl.load(x_ptr + idx, mask=inside)
    keep = tl.rand(seed, idx) > p
    tl.store(out_ptr + idx, tl.where(keep, x / (1 - p), 0.0), mask=inside)


def seeded_dropout(x, p, seed, block=1024):
    out = np.empty_like(x)
    seeded_dropout_kernel[(triton.cdiv(x.size, block),)](x, out, x.size, p, seed, BLOCK=block)
    return out


failed = []


def check(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
    if not ok:
        failed.append(name)


n, p = 10007, 0.3
x = np.random.default_rng(11).random(n, dtype=np.float32) + np.float32(0.5)
first = seeded_dropout(x, p, seed=123)
check("dropout_numpy same seed", np.array_equal(first, seeded_dropout(x, p, seed=123)),
      "two runs with seed 123 agree")
check("dropout_numpy same seed other block",
      np.array_equal(first, seeded_dropout(x, p, seed=123, block=256)),
      "BLOCK 1024 and 256 agree")
differ = float(np.mean((first == 0) != (seeded_dropout(x, p, seed=321) == 0)))
check("dropout_numpy other seed", differ > 0.2,
      "seeds 123 and 321 disagree on %.3f of the elements" % differ)
kept = first != 0
dropped = 1 - float(kept.mean())
check("dropout_numpy rate", abs(dropped - p) < 0.03,
      "%.4f of %d dropped at p = %g" % (dropped, n, p))
err = float(np.abs(first[kept] - x[kept] / np.float32(1 - p)).max())
check("dropout_numpy scale", err <= 1e-5, "kept elements are x / (1 - p) to within %.3g" % err)
sys.exit(1 if failed else 0)
