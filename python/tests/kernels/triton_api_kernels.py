# Kernels of test_triton_api_host.py, decorated as Triton programs decorate
# them (autotune, heuristics, jit options). `tegula compile` reads this whole
# file; the decorators above @tegula.jit are host code it skips.
import tegula
import tegula.language as tl

BLOCKS = (32, 64, 128)
CONFIGS = [tegula.Config({"BLOCK_SIZE": b}, num_warps=1) for b in BLOCKS]


@tegula.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tegula.autotune(configs=CONFIGS, key=["n_elements"])
@tegula.jit
def add_tuned(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tegula.jit
def sum_atomic(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Each program adds its block's sum to *out_ptr: run twice without a
    # reset, the result doubles.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


@tegula.jit
def increment(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # In place: each run adds 1 again.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


@tegula.jit
def scale_even(x_ptr, out_ptr, n, alpha, BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr):
    # One program covers everything: BLOCK_SIZE >= n, from a heuristic.
    offsets = tl.arange(0, BLOCK_SIZE)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * alpha)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * alpha, mask=mask)


@tegula.jit
def block_limited(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Configs with BLOCK_SIZE above 64 do not compile (as a config that
    # needs more resources than the device has does not).
    tl.static_assert(BLOCK_SIZE <= 64)
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)


@tegula.jit(do_not_specialize=["n_elements"], debug=False, noinline=False)
def copy_nospec(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@tegula.jit(do_not_specialize_on_alignment=[2])
def copy_unaligned(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@tegula.jit
def stages_param(out_ptr, BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # A parameter named as a launch keyword, as tutorial 02's softmax_kernel
    # has: the keyword num_stages= sets both (Triton binds it to both).
    offsets = tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offsets, tl.zeros([BLOCK_SIZE], dtype=tl.int32) + num_stages)
