# Kernels for test_errors_host.py: kernels that do not compile (each error
# at a line the test names: keep the lines where they are), and kernels
# that run. Line numbers matter: add new kernels at the end.
import tegula
import tegula.language as tl


@tegula.jit
def shape_error(x_ptr, N: tl.constexpr):
    a = tl.arange(0, N) + tl.arange(0, 2 * N)
    tl.store(x_ptr + tl.arange(0, N), a)


@tegula.jit
def with_statement(x_ptr, N: tl.constexpr):
    with open("f") as f:
        pass


@tegula.jit
def asserts_small(x_ptr, N: tl.constexpr):
    tl.static_assert(N <= 64, "N is at most 64")
    tl.store(x_ptr + tl.arange(0, N), tl.zeros((N,), tl.float32))


@tegula.jit
def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


@tegula.jit
def scale(x_ptr: tl.pointer_type(tl.float32), y_ptr, n: tl.int32, factor: float, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@tegula.jit
def transpose(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, TRANS: tl.constexpr):
    # y = x.T, through a layout conversion (shared memory under the host's
    # SIMT emulation) with TRANS, by addresses alone without.
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    if TRANS:
        tl.store(y_ptr + offs_n[:, None] * M + offs_m[None, :], tl.trans(x))
    else:
        tl.store(y_ptr + offs_m[:, None] + offs_n[None, :] * M, x)


@tegula.jit
def dot_loop(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for i in range(0, 4):
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@tegula.jit(do_not_specialize=["x_ptr"])
def add_one_nospec(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


@tegula.jit(do_not_specialize_on_alignment=["x_ptr"])
def add_one_noalign(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def _add_metadata(grid, kernel, args):
    return {"name": "add_one_meta<%d>" % args["BLOCK"], "bytes": 8 * args["n"],
            "grid_x": grid[0]}


@tegula.jit(launch_metadata=_add_metadata)
def add_one_meta(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
