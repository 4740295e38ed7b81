"""Runs corpus kernels compiled by the intel plugin (its `spirv` stage) on
an OpenCL device that takes SPIR-V (Intel's OpenCL CPU runtime, installed
by scripts/install-deps.sh), through clCreateProgramWithIL, and compares
each result with a reference computed here in double precision on fresh
random inputs, the outputs poisoned first. Checks that the built kernel
runs at the sub-group size it requires (CL_KERNEL_COMPILE_SUB_GROUP_SIZE_
INTEL). Prints "ok KERNEL sg=N" per run; exits 1 on the first mismatch or
OpenCL error (with the build log when the program does not build).

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


CASES = [("add_kernel", case_vector_add), ("softmax_kernel", case_softmax),
         ("sum_kernel", case_atomic_sum)]


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
