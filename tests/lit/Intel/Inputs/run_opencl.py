"""Runs corpus kernels compiled by the intel plugin (its `spirv` stage) on
an OpenCL device that takes SPIR-V (Intel's OpenCL CPU runtime, installed
by scripts/install-deps.sh), through clCreateProgramWithIL, and compares
each result with a reference computed here in double precision on fresh
random inputs, the outputs poisoned first. Checks that the built kernel
runs at the sub-group size it requires (CL_KERNEL_COMPILE_SUB_GROUP_SIZE_
INTEL). The bf16 cases run Inputs/bf16.py (f32 -> bf16 rounding, checked
bit for bit) and the corpus matmul on bf16 inputs. Prints "ok KERNEL sg=N"
per run; exits 1 on the first mismatch or OpenCL error (with the build log
when the program does not build).

    run_opencl.py CORPUS [--sub-group-size N]... [--only NAME]...

The OpenCL platform is the first whose name contains "Intel"; the ICD
loader finds it through OCL_ICD_VENDORS. Every kernel is compiled before
OpenCL is initialized: Intel's runtime loads an LLVM of its own, and a
compile by the plugin after that failed in this process ("the tile IR does
not verify: block with no terminator").
"""

import argparse
import ctypes
import math
import os
import random
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import intel_compile  # noqa: E402

P = ctypes.c_void_p
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_PLATFORM_NAME = 0x0902
CL_PROGRAM_BUILD_LOG = 0x1183
CL_MEM_READ_WRITE = 1 << 0
CL_MEM_COPY_HOST_PTR = 1 << 5
CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL = 0x410A


class OpenCL:
    def __init__(self):
        self.cl = ctypes.CDLL("libOpenCL.so.1")
        cl = self.cl
        for name, restype in [("clCreateContext", P), ("clCreateCommandQueueWithProperties", P),
                              ("clCreateProgramWithIL", P), ("clCreateKernel", P),
                              ("clCreateBuffer", P)]:
            getattr(cl, name).restype = restype
        count = ctypes.c_uint()
        self.check(cl.clGetPlatformIDs(0, None, ctypes.byref(count)), "clGetPlatformIDs")
        platforms = (P * count.value)()
        self.check(cl.clGetPlatformIDs(count, platforms, None), "clGetPlatformIDs")
        self.platform = None
        for platform in platforms:
            name = ctypes.create_string_buffer(256)
            cl.clGetPlatformInfo(P(platform), CL_PLATFORM_NAME, 256, name, None)
            if b"Intel" in name.value:
                self.platform = P(platform)
                break
        if self.platform is None:
            sys.exit("run_opencl: no Intel OpenCL platform (OCL_ICD_VENDORS=%s)"
                     % os.environ.get("OCL_ICD_VENDORS"))
        self.device = P()
        self.check(cl.clGetDeviceIDs(self.platform, ctypes.c_uint64(CL_DEVICE_TYPE_ALL), 1,
                                     ctypes.byref(self.device), None), "clGetDeviceIDs")
        err = ctypes.c_int()
        self.context = P(cl.clCreateContext(None, 1, ctypes.byref(self.device), None, None,
                                            ctypes.byref(err)))
        self.check(err.value, "clCreateContext")
        self.queue = P(cl.clCreateCommandQueueWithProperties(self.context, self.device, None,
                                                             ctypes.byref(err)))
        self.check(err.value, "clCreateCommandQueueWithProperties")

    @staticmethod
    def check(code, what):
        if code != 0:
            sys.exit("run_opencl: %s returned %d" % (what, code))

    def kernel(self, spirv, name):
        cl = self.cl
        err = ctypes.c_int()
        program = P(cl.clCreateProgramWithIL(self.context, spirv, ctypes.c_size_t(len(spirv)),
                                             ctypes.byref(err)))
        self.check(err.value, "clCreateProgramWithIL")
        if cl.clBuildProgram(program, 1, ctypes.byref(self.device), b"", None, None) != 0:
            size = ctypes.c_size_t()
            cl.clGetProgramBuildInfo(program, self.device, CL_PROGRAM_BUILD_LOG, 0, None,
                                     ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value + 1)
            cl.clGetProgramBuildInfo(program, self.device, CL_PROGRAM_BUILD_LOG, size, log, None)
            sys.exit("run_opencl: %s does not build: %s" % (name, log.value.decode()))
        kernel = P(cl.clCreateKernel(program, name.encode(), ctypes.byref(err)))
        self.check(err.value, "clCreateKernel(%s)" % name)
        return kernel

    def sub_group_size(self, kernel):
        size = ctypes.c_size_t()
        self.check(self.cl.clGetKernelSubGroupInfo(
            kernel, self.device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, None,
            ctypes.sizeof(size), ctypes.byref(size), None), "clGetKernelSubGroupInfo")
        return size.value

    def buffer(self, data):
        err = ctypes.c_int()
        host = ctypes.create_string_buffer(bytes(data), len(data))
        mem = P(self.cl.clCreateBuffer(self.context, ctypes.c_uint64(CL_MEM_READ_WRITE |
                                                                     CL_MEM_COPY_HOST_PTR),
                                       ctypes.c_size_t(len(data)), host, ctypes.byref(err)))
        self.check(err.value, "clCreateBuffer")
        return mem, len(data)

    def run(self, kernel, args, groups, local):
        """|args|: ("buf", (mem, size)) or ("i32"/"f32", value)."""
        for i, (kind, value) in enumerate(args):
            if kind == "buf":
                arg = value[0]
                self.check(self.cl.clSetKernelArg(kernel, i, ctypes.sizeof(P),
                                                  ctypes.byref(arg)), "clSetKernelArg")
            else:
                raw = struct.pack("<i" if kind == "i32" else "<f", value)
                self.check(self.cl.clSetKernelArg(kernel, i, len(raw), raw), "clSetKernelArg")
        global_size = ctypes.c_size_t(groups * local)
        local_size = ctypes.c_size_t(local)
        self.check(self.cl.clEnqueueNDRangeKernel(self.queue, kernel, 1, None,
                                                  ctypes.byref(global_size),
                                                  ctypes.byref(local_size), 0, None, None),
                   "clEnqueueNDRangeKernel")
        self.check(self.cl.clFinish(self.queue), "clFinish")

    def read(self, buffer):
        mem, size = buffer
        host = ctypes.create_string_buffer(size)
        self.check(self.cl.clEnqueueReadBuffer(self.queue, mem, 1, 0, ctypes.c_size_t(size),
                                               host, 0, None, None), "clEnqueueReadBuffer")
        return host.raw


def f32s(values):
    return struct.pack("<%df" % len(values), *values)


def unf32s(raw):
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


NAN = float("nan")


def close(got, want, rel, abs_=0.0):
    return (not math.isnan(got)) and abs(got - want) <= abs_ + rel * abs(want)


def case_vector_add(cl, compile_for, sg):
    n, block = 3000, 1024
    x = [random.uniform(-1, 1) for _ in range(n)]
    y = [random.uniform(-1, 1) for _ in range(n)]
    kernel, local = compile_for("vector_add.py", "add_kernel",
                                "*fp32:16, *fp32:16, *fp32:16, i32, 1024")
    bx, by, out = cl.buffer(f32s(x)), cl.buffer(f32s(y)), cl.buffer(f32s([NAN] * (n + 8)))
    cl.run(kernel, [("buf", bx), ("buf", by), ("buf", out), ("i32", n)],
           (n + block - 1) // block, local)
    got = unf32s(cl.read(out))
    # fp32 rounding of the double sum of two fp32 inputs.
    want = [struct.unpack("<f", struct.pack("<f", a + b))[0] for a, b in zip(
        unf32s(f32s(x)), unf32s(f32s(y)))]
    bad = [i for i in range(n) if got[i] != want[i]]
    untouched = all(math.isnan(v) for v in got[n:])
    return not bad and untouched, "first mismatch at %s" % (bad[:1] or "the tail")


def case_softmax(cl, compile_for, sg):
    rows, cols = 37, 781
    x = unf32s(f32s([random.uniform(-5, 5) for _ in range(rows * cols)]))
    kernel, local = compile_for("softmax.py", "softmax_kernel",
                                "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4")
    bx, out = cl.buffer(f32s(x)), cl.buffer(f32s([NAN] * (rows * cols)))
    cl.run(kernel, [("buf", out), ("buf", bx), ("i32", cols), ("i32", cols), ("i32", rows),
                    ("i32", cols)], 8, local)
    got = unf32s(cl.read(out))
    for r in range(rows):
        row = x[r * cols:(r + 1) * cols]
        top = max(row)
        e = [math.exp(v - top) for v in row]
        s = sum(e)
        for c in range(cols):
            if not close(got[r * cols + c], e[c] / s, 1e-4, 1e-7):
                return False, "row %d col %d: %r, want %r" % (r, c, got[r * cols + c], e[c] / s)
    return True, ""


def case_atomic_sum(cl, compile_for, sg):
    n, block = 10000, 1024
    x = unf32s(f32s([random.uniform(0, 1) for _ in range(n)]))
    kernel, local = compile_for("atomics.py", "sum_kernel", "*fp32:16, *fp32:16, i32, 1024")
    bx, out = cl.buffer(f32s(x)), cl.buffer(f32s([0.0]))
    cl.run(kernel, [("buf", bx), ("buf", out), ("i32", n)], (n + block - 1) // block, local)
    got = unf32s(cl.read(out))[0]
    return close(got, math.fsum(x), 1e-4), "%r, want %r" % (got, math.fsum(x))


def f32_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def bits_f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bf16_reference(bits):
    """The bf16 bits nearest to the float with |bits|, ties to even, found
    from its exact value (not by the bit trick the compiler uses); None for
    a NaN, which must become a quiet NaN."""
    value = bits_f32(bits)
    return None if math.isnan(value) else bf16_bits_of(value)


def bf16_value(bits):
    return bits_f32(bits << 16)


def is_quiet_nan_bf16(bits):
    return (bits & 0x7F80) == 0x7F80 and (bits & 0x0040) != 0


def case_bf16_round(cl, compile_for, sg):
    special = [
        0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,  # ties to even, near ties
        0xBF808000, 0xBF818000,                          # negative ties
        0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0xFF7FFFFF,  # to infinity or the largest
        0x7F800000, 0xFF800000, 0x00000000, 0x80000000,  # infinities, zeros
        0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF,  # quiet and signalling NaNs
        0xFF800001, 0x7F80FFFF,                          # NaNs with low payload only
        0x00000001, 0x00008000, 0x00018000, 0x00008001,  # float subnormals
        0x007FFFFF, 0x007F8000, 0x807F8000, 0x00400000,  # bf16 subnormals
        0x00800000, 0x3F800000, 0x3FFFFFFF, 0x4B7FFFFF,
    ]
    n, block = 5000, 1024
    bits = special + [random.getrandbits(32) for _ in range(n - len(special))]
    kernel, local = compile_for(os.path.join(HERE, "bf16.py"), "bf16_round_kernel",
                                "*fp32:16, *bf16:16, *fp32:16, i32, 1024")
    bx = cl.buffer(struct.pack("<%dI" % n, *bits))
    by = cl.buffer(struct.pack("<%dH" % (n + 8), *([0xFFFF] * (n + 8))))
    br = cl.buffer(f32s([NAN] * n))
    cl.run(kernel, [("buf", bx), ("buf", by), ("buf", br), ("i32", n)],
           (n + block - 1) // block, local)
    got = struct.unpack("<%dH" % (n + 8), cl.read(by))
    got_r = struct.unpack("<%dI" % n, cl.read(br))
    if any(v != 0xFFFF for v in got[n:]):
        return False, "a store past n"
    for i in range(n):
        want = bf16_reference(bits[i])
        if want is None:
            ok = is_quiet_nan_bf16(got[i])
        else:
            ok = got[i] == want
        if not ok:
            return False, "bf16(0x%08x) = 0x%04x, want %s" % (
                bits[i], got[i], "a quiet NaN" if want is None else "0x%04x" % want)
        # r = f32(bf16(bf16(y * y) + y)): each bf16 operation rounded once
        # (y * y is exact in double, the sum of two bf16 values too).
        if want is None:
            ok = math.isnan(bits_f32(got_r[i]))
        else:
            y = bf16_value(want)
            square = bf16_value_of(y * y)
            total = bf16_value_of(square + y) if square is not None else None
            ok = (math.isnan(bits_f32(got_r[i])) if total is None
                  else got_r[i] == f32_bits(total))
        if not ok:
            return False, "r for x=0x%08x: 0x%08x" % (bits[i], got_r[i])
    return True, ""


def bf16_value_of(value):
    """|value| (a double holding an exact result) rounded to bf16, as a
    float; None for a NaN."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return value
    if abs(value) >= 2.0 ** 128:
        return math.copysign(math.inf, value)
    if value == 0.0:
        return value
    exact = Fraction(abs(value))
    exponent = max(math.frexp(abs(value))[1] - 1, -126)
    quantum = Fraction(2) ** (exponent - 7)
    rounded = float(round(exact / quantum) * quantum)
    if rounded >= 2.0 ** 128:
        rounded = math.inf
    return math.copysign(rounded, value)


def bf16_bits_of(value):
    """The bf16 bits nearest to |value| (a double), ties to even."""
    return f32_bits(bf16_value_of(value)) >> 16


def case_bf16_matmul(cl, compile_for, sg):
    m, n, k = 50, 48, 80
    a = [bf16_bits_of(random.uniform(-2, 2)) for _ in range(m * k)]
    b = [bf16_bits_of(random.uniform(-2, 2)) for _ in range(k * n)]
    kernel, local = compile_for(
        "matmul.py", "matmul_kernel",
        '*bf16:16, *bf16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, '
        'i32:16, i32:1, 32, 32, 32, 4, ""')
    ba = cl.buffer(struct.pack("<%dH" % (m * k), *a))
    bb = cl.buffer(struct.pack("<%dH" % (k * n), *b))
    bc = cl.buffer(struct.pack("<%dH" % (m * n), *([0x7E00] * (m * n))))
    groups = ((m + 31) // 32) * ((n + 31) // 32)
    cl.run(kernel, [("buf", ba), ("buf", bb), ("buf", bc), ("i32", m), ("i32", n),
                    ("i32", k), ("i32", k), ("i32", 1), ("i32", n), ("i32", 1),
                    ("i32", n), ("i32", 1)], groups, local)
    got = struct.unpack("<%de" % (m * n), cl.read(bc))
    av = [bf16_value(v) for v in a]
    bv = [bf16_value(v) for v in b]
    for i in range(m):
        for j in range(n):
            products = [av[i * k + l] * bv[l * n + j] for l in range(k)]
            want = math.fsum(products)
            # The products are exact in fp32 (8-bit significands); K fp32
            # additions err by at most K * 2^-24 * sum |a b|, and the fp16
            # result rounds by 2^-11 relative (2^-25 absolute near zero).
            accumulation = k * 2.0 ** -24 * math.fsum(abs(p) for p in products)
            bound = accumulation + 2.0 ** -11 * (abs(want) + accumulation) + 2.0 ** -25
            if not abs(got[i * n + j] - want) <= bound:
                return False, "c[%d][%d] = %r, want %r (bound %g)" % (
                    i, j, got[i * n + j], want, bound)
    return True, ""


CASES = [("add_kernel", case_vector_add), ("softmax_kernel", case_softmax),
         ("sum_kernel", case_atomic_sum), ("bf16_round_kernel", case_bf16_round),
         ("matmul_kernel", case_bf16_matmul)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--target", default="intel:pvc")
    parser.add_argument("--sub-group-size", action="append", default=[])
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    random.seed(os.getpid())
    sizes = [int(s) for s in (args.sub_group_size or ["16"])]
    cases = [(name, case) for name, case in CASES if not args.only or name in args.only]

    # Phase 1: SPIR-V of every case at every size, before OpenCL loads.
    spirvs = {}

    def compile_only(sg):
        def compile_for(path, kernel, signature):
            bytecode = intel_compile.tile_bytecode(os.path.join(args.corpus, path), kernel,
                                                   signature)
            options = [("sub_group_size", str(sg))]
            spirvs[(sg, kernel)] = intel_compile.compile_stage(bytecode, args.target, "spirv",
                                                               options)
            raise StopIteration
        return compile_for

    for sg in sizes:
        for name, case in cases:
            try:
                case(None, compile_only(sg), sg)
            except StopIteration:
                pass

    # Phase 2: build, run and compare.
    cl = OpenCL()
    for sg in sizes:
        for name, case in cases:
            def compile_for(path, kernel, signature):
                built = cl.kernel(spirvs[(sg, kernel)], kernel)
                if cl.sub_group_size(built) != sg:
                    sys.exit("run_opencl: %s runs with sub-groups of %d, not %d"
                             % (kernel, cl.sub_group_size(built), sg))
                # 4 sub-groups per work-group unless the kernel says otherwise
                # (the corpus kernels here do not).
                return built, 4 * sg

            ok, why = case(cl, compile_for, sg)
            if not ok:
                sys.exit("run_opencl: %s sg=%d: wrong result: %s" % (name, sg, why))
            print("ok %s sg=%d" % (name, sg))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
