# Tegula's Triton standard library, written in the Triton language.
#
# The front end compiles these functions exactly like user kernels: each name
# here is visible as `tl.<name>` (and `tl.math.<name>`, `tl.random.<name>`
# where Triton has it there). Builtins implemented in C++ (load, store,
# reduce, associative_scan, maximum, umulhi, ...) are in scope unqualified.
# Keeping these in the kernel language means one definition of their
# semantics for every target.

# ---------------------------------------------------------------------------
# Elementwise helpers
# ---------------------------------------------------------------------------


@jit
def cdiv(x, div):
    return (x + div - 1) // div


@jit
def sigmoid(x):
    return 1 / (1 + exp(-x))


@jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    if dim is None:
        _dim: constexpr = 0
    else:
        _dim: constexpr = dim
    z = x - max(x, _dim, keep_dims=keep_dims)
    num = exp(z)
    den = sum(num, _dim, keep_dims=keep_dims)
    return fdiv(num, den, ieee_rounding)


@jit
def ravel(x, can_reorder=False):
    return reshape(x, [x.numel], can_reorder=can_reorder)


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


@jit
def zeros(shape, dtype):
    return full(shape, 0, dtype)


@jit
def zeros_like(input):
    return zeros(input.shape, input.dtype)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@jit
def _promote_bfloat16_to_float32(x):
    if x.dtype == bfloat16:
        x = x.to(float32)
    return x


@jit
def _pick_sum_dtype(in_dtype, dtype):
    # An explicit dtype wins; narrow integers accumulate in 32 bits of their
    # signedness; bf16 accumulates in fp32.
    if dtype is not None:
        return dtype
    if in_dtype.is_int_signed():
        if in_dtype.int_bitwidth < 32:
            return int32
    if in_dtype.is_int_unsigned():
        if in_dtype.int_bitwidth < 32:
            return uint32
    if in_dtype == bfloat16:
        return float32
    return None


@jit
def _reduce_with_indices(input, axis, combine_fn, keep_dims=False):
    index = arange(0, input.shape[axis])
    for d in static_range(len(input.shape)):
        if d != axis:
            index = expand_dims(index, d)
    index = broadcast_to(index, input.shape)
    return reduce((input, index), axis, combine_fn, keep_dims=keep_dims)


@jit
def _elementwise_max(a, b):
    return maximum(a, b)


@jit
def _elementwise_min(a, b):
    return minimum(a, b)


@jit
def _arg_combine(value1, index1, value2, index2, tie_break_left, is_max):
    # The better of two (value, index) pairs; on equal values the smaller
    # index wins when tie_break_left.
    if tie_break_left:
        tie = value1 == value2 and index1 < index2
    else:
        tie = False
    if is_max:
        better = value1 > value2 or tie
    else:
        better = value1 < value2 or tie
    return where(better, value1, value2), where(better, index1, index2)


# Combine functions take exactly the reduced values, so each variant is its
# own function.
@jit
def _argmax_combine_tie_break_left(value1, index1, value2, index2):
    return _arg_combine(value1, index1, value2, index2, True, True)


@jit
def _argmax_combine_tie_break_fast(value1, index1, value2, index2):
    return _arg_combine(value1, index1, value2, index2, False, True)


@jit
def _argmin_combine_tie_break_left(value1, index1, value2, index2):
    return _arg_combine(value1, index1, value2, index2, True, False)


@jit
def _argmin_combine_tie_break_fast(value1, index1, value2, index2):
    return _arg_combine(value1, index1, value2, index2, False, False)


@jit
def _widen_for_minmax(input):
    if input.dtype.primitive_bitwidth < 32:
        if input.dtype.is_floating():
            input = input.to(float32)
        else:
            input = input.to(int32)
    return input


@jit
def _extreme(input, axis, return_indices, tie_break_left, keep_dims, is_max):
    # tl.max and tl.min: the extreme values, or (values, indices).
    input = _promote_bfloat16_to_float32(input)
    if return_indices:
        if is_max:
            combine = _argmax_combine_tie_break_left if tie_break_left else _argmax_combine_tie_break_fast
        else:
            combine = _argmin_combine_tie_break_left if tie_break_left else _argmin_combine_tie_break_fast
        return _reduce_with_indices(input, axis, combine, keep_dims=keep_dims)
    input = _widen_for_minmax(input)
    return reduce(input, axis, _elementwise_max if is_max else _elementwise_min, keep_dims=keep_dims)


@jit
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extreme(input, axis, return_indices, return_indices_tie_break_left, keep_dims, True)


@jit
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    _, ret = _extreme(input, axis, True, tie_break_left, keep_dims, True)
    return ret


@jit
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extreme(input, axis, return_indices, return_indices_tie_break_left, keep_dims, False)


@jit
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    _, ret = _extreme(input, axis, True, tie_break_left, keep_dims, False)
    return ret


@jit
def _sum_combine(a, b):
    return a + b


@jit
def sum(input, axis=None, keep_dims=False, dtype=None):
    out_dtype: constexpr = _pick_sum_dtype(input.dtype, dtype)
    if out_dtype is not None:
        input = input.to(out_dtype)
    return reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@jit
def _xor_combine(a, b):
    return a ^ b


@jit
def xor_sum(input, axis=None, keep_dims=False):
    static_assert(input.dtype.is_int(), "xor_sum only supported for integers")
    return reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@jit
def _or_combine(a, b):
    return a | b


@jit
def reduce_or(input, axis, keep_dims=False):
    static_assert(input.dtype.is_int(), "reduce_or only supported for integers")
    return reduce(input, axis, _or_combine, keep_dims=keep_dims)


@jit
def cumsum(input, axis=0, reverse=False, dtype=None):
    out_dtype: constexpr = _pick_sum_dtype(input.dtype, dtype)
    if out_dtype is not None:
        input = input.to(out_dtype)
    return associative_scan(input, axis, _sum_combine, reverse)


@jit
def _prod_combine(a, b):
    return a * b


@jit
def cumprod(input, axis=0, reverse=False):
    input = _promote_bfloat16_to_float32(input)
    return associative_scan(input, axis, _prod_combine, reverse)


# ---------------------------------------------------------------------------
# Sort and flip (last dimension, power-of-2 sizes)
# ---------------------------------------------------------------------------


@jit
def _log2(n):
    # Exact for powers of 2, which sort and flip require.
    r = 0
    for i in static_range(64):
        if (1 << i) < n:
            r = i + 1
    return r


@jit
def _indicator(n_dims, idx, pos):
    # A tensor of n_dims dimensions of size 1 except dimension
    # n_dims - 1 - idx of size 2, holding [1, 0] (pos 0) or [0, 1] (pos 1).
    y = arange(0, 2)
    if pos == 0:
        y = 1 - y
    for n in static_range(0, n_dims):
        if n != n_dims - 1 - idx:
            y = expand_dims(y, n)
    return y


@jit
def _cast_to_int(x):
    y = x
    if x.dtype.is_floating():
        if x.dtype.primitive_bitwidth == 16:
            y = x.to(int16, bitcast=True)
        elif x.dtype.primitive_bitwidth == 32:
            y = x.to(int32, bitcast=True)
        else:
            y = x.to(int64, bitcast=True)
    return y


@jit
def _take_slice(x, n_dims, idx, pos):
    # Keep x's dtype: the slices are bitcast back to it.
    y = sum(x * _indicator(n_dims, idx, pos).to(x.dtype), n_dims - 1 - idx, dtype=x.dtype)
    return expand_dims(y, n_dims - 1 - idx)


@jit
def _compare_and_swap(x, desc_mask, n_dims, idx):
    x_int = _cast_to_int(x)
    l_int = _take_slice(x_int, n_dims, idx, 0)
    r_int = _take_slice(x_int, n_dims, idx, 1)
    l = l_int.to(x.dtype, bitcast=True)
    r = r_int.to(x.dtype, bitcast=True)
    desc_mask = desc_mask.to(x_int.dtype)
    zero = zeros_like(x_int)
    y = x_int ^ where((l > r) ^ desc_mask, l_int ^ r_int, zero)
    return y.to(x.dtype, bitcast=True)


@jit
def _bitonic_merge(x, n_dims, active_dims, order_type):
    # order_type 0: ascending, 1: descending, 2: alternating.
    if order_type == 2:
        desc_mask = _indicator(n_dims, active_dims, 1)
    else:
        desc_mask = full([], order_type, int32)
    for i in static_range(active_dims):
        x = _compare_and_swap(x, desc_mask, n_dims, active_dims - 1 - i)
    return x


@jit
def sort(x, dim=None, descending=0):
    static_assert(dim is None or dim == len(x.shape) - 1,
                  "only sorting along the last dimension is supported")
    n: constexpr = x.shape[len(x.shape) - 1]
    static_assert((n & (n - 1)) == 0, "sort needs a power-of-2 size")
    log_numel: constexpr = _log2(x.numel)
    log_n: constexpr = _log2(n)
    shape2 = [2] * log_numel
    y = reshape(x, shape2)
    for i in static_range(1, log_n + 1):
        if i == log_n:
            y = _bitonic_merge(y, log_numel, i, descending)
        else:
            y = _bitonic_merge(y, log_numel, i, 2)
    return reshape(y, x.shape)


@jit
def flip(x, dim=None):
    static_assert(dim is None or dim == len(x.shape) - 1,
                  "only flipping the last dimension is supported")
    last: constexpr = len(x.shape) - 1
    n: constexpr = x.shape[last]
    index = n - 1 - arange(0, n)
    for d in static_range(last):
        index = expand_dims(index, 0)
    index = broadcast_to(index, x.shape)
    return gather(x, index, last)


# ---------------------------------------------------------------------------
# Random numbers: Philox 4x32-10, bit-exact with Triton
# ---------------------------------------------------------------------------

PHILOX_KEY_A: constexpr = 0x9E3779B9
PHILOX_KEY_B: constexpr = 0xBB67AE85
PHILOX_ROUND_A: constexpr = 0xD2511F53
PHILOX_ROUND_B: constexpr = 0xCD9E8D57
N_ROUNDS_DEFAULT: constexpr = 10


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    for _ in static_range(n_rounds):
        _c0, _c2 = c0, c2
        c0 = umulhi(PHILOX_ROUND_B, _c2) ^ c1 ^ k0
        c2 = umulhi(PHILOX_ROUND_A, _c0) ^ c3 ^ k1
        c1 = PHILOX_ROUND_B * _c2
        c3 = PHILOX_ROUND_A * _c0
        k0 = k0 + PHILOX_KEY_A
        k1 = k1 + PHILOX_KEY_B
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    seed = to_tensor(seed)
    static_assert(seed.dtype.is_int(), "the seed of philox must be an integer")
    seed = seed.to(uint64)
    c0 = to_tensor(c0)
    c1 = to_tensor(c1)
    c2 = to_tensor(c2)
    c3 = to_tensor(c3)
    static_assert(c0.dtype.primitive_bitwidth == 32, "philox supports 32-bit offsets")
    seed_hi = ((seed >> 32) & 0xffffffff).to(uint32)
    seed_lo = (seed & 0xffffffff).to(uint32)
    c0 = c0.to(uint32, bitcast=True)
    c1 = c1.to(uint32, bitcast=True)
    c2 = c2.to(uint32, bitcast=True)
    c3 = c3.to(uint32, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@jit
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    _0 = offset * 0
    return philox(seed, offset, _0, _0, _0, n_rounds)


@jit
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    ret, _, _, _ = randint4x(seed, offset, n_rounds)
    return ret


@jit
def uint_to_uniform_float(x):
    # Largest scale such that MAX_INT * scale < 1.0 after float rounding.
    static_assert(x.dtype.primitive_bitwidth == 32, "uint_to_uniform_float takes 32-bit values")
    x = x.to(int32, bitcast=True)
    scale = 4.6566127342e-10
    x = where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    source = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(source)


@jit
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    u3 = uint_to_uniform_float(i3)
    u4 = uint_to_uniform_float(i4)
    return u1, u2, u3, u4


@jit
def pair_uniform_to_normal(u1, u2):
    u1 = maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = sqrt(-2.0 * log(u1))
    return r * cos(th), r * sin(th)


@jit
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    n1, _ = pair_uniform_to_normal(u1, u2)
    return n1


@jit
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


# ---------------------------------------------------------------------------
# Microscaled dots (tl.dot_scaled): every target decomposes them as Triton
# does without native support: each operand upcast to bf16 with its e8m0
# scales applied (exact: e2m1, e4m3 and e5m2 values times a power of two
# are bf16 values), then tl.dot with an fp32 accumulator.
# ---------------------------------------------------------------------------


@jit
def _e8m0_to_float32(scale):
    # 2^(s - 127); 0 is 2^-127 (a denormal), 255 NaN, as the OCP MX spec.
    bits = scale.to(uint32) << 23
    bits = where(scale == 0, 0x00400000, bits)
    bits = where(scale == 255, 0x7FC00000, bits)
    return bits.to(float32, bitcast=True)


@jit
def _e2m1_to_bf16(nibbles):
    # One fp4 (e2m1) value per uint8 (its low 4 bits) as bf16 bits:
    # exponent field e, mantissa bit m: 0.5 m for e == 0, else
    # (1 + 0.5 m) 2^(e - 1).
    n = nibbles.to(uint16)
    sign = (n >> 3) & 1
    e = (n >> 1) & 3
    m = n & 1
    bits = where(e == 0, where(m == 1, 0x3F00, 0), ((e + 126) << 7) | (m << 6))
    return (bits | (sign << 15)).to(uint16).to(bfloat16, bitcast=True)


@jit
def _mx_upcast(x, scale, fmt: constexpr, k_pack: constexpr, is_rhs: constexpr):
    # x as bf16 [M, K] (lhs) or [K, N] (rhs), its scales ([M, K // 32] or
    # [N, K // 32], or None) applied.
    if fmt == "e2m1":
        static_assert(x.dtype == uint8, "e2m1 operands are uint8 tensors, two values a byte")
        static_assert(k_pack, "tl.dot_scaled: e2m1 packed along M or N (k_pack=False) is not supported yet")
        lo = _e2m1_to_bf16(x & 15)
        hi = _e2m1_to_bf16(x >> 4)
        if is_rhs:
            # Packed along K, the first dimension: [K / 2, N] -> [K, N].
            v = permute(join(lo, hi), (0, 2, 1))
            v = reshape(v, [x.shape[0] * 2, x.shape[1]])
        else:
            v = reshape(join(lo, hi), [x.shape[0], x.shape[1] * 2])
    elif fmt == "e4m3":
        if x.dtype == uint8:
            x = x.to(float8e4nv, bitcast=True)
        static_assert(x.dtype == float8e4nv, "e4m3 operands are uint8 or float8e4nv tensors")
        v = x.to(bfloat16)
    elif fmt == "e5m2":
        if x.dtype == uint8:
            x = x.to(float8e5, bitcast=True)
        static_assert(x.dtype == float8e5, "e5m2 operands are uint8 or float8e5 tensors")
        v = x.to(bfloat16)
    elif fmt == "bf16":
        static_assert(x.dtype == bfloat16, "bf16 operands are bfloat16 tensors")
        v = x
    else:
        static_assert(fmt == "fp16", "tl.dot_scaled formats are e2m1, e4m3, e5m2, bf16 and fp16")
        static_assert(x.dtype == float16, "fp16 operands are float16 tensors")
        v = x.to(bfloat16)
    if scale is not None:
        static_assert(scale.dtype == uint8, "microscaling scales are uint8 (e8m0) tensors")
        if is_rhs:
            k: constexpr = v.shape[0]
            outer: constexpr = v.shape[1]
        else:
            k: constexpr = v.shape[1]
            outer: constexpr = v.shape[0]
        static_assert(k % 32 == 0, "tl.dot_scaled: K must be a multiple of 32 (one scale per 32 values)")
        static_assert(scale.shape[0] == outer and scale.shape[1] == k // 32,
                      "tl.dot_scaled: a scale tensor is [M, K // 32] for lhs and [N, K // 32] for rhs")
        s = _e8m0_to_float32(scale)
        s = reshape(broadcast_to(expand_dims(s, 2), [outer, k // 32, 32]), [outer, k])
        if is_rhs:
            s = trans(s)
        v = (v.to(float32) * s).to(bfloat16)
    return v


@jit
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32):
    static_assert(out_dtype == float32, "Only float32 is supported for out_dtype at the moment")
    a = _mx_upcast(lhs, lhs_scale, lhs_format, lhs_k_pack, False)
    b = _mx_upcast(rhs, rhs_scale, rhs_format, rhs_k_pack, True)
    return dot(a, b, acc, out_dtype=float32)
