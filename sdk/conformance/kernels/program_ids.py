# tegula: --kernel program_ids --signature "*i32:16"
"""Each program writes its ids and the grid's size on the three axes to its
own record of 6 values, records in x-fastest order."""
import triton
import triton.language as tl


@triton.jit
def program_ids(out_ptr):
    x = tl.program_id(axis=0)
    y = tl.program_id(axis=1)
    z = tl.program_id(axis=2)
    nx = tl.num_programs(axis=0)
    ny = tl.num_programs(axis=1)
    nz = tl.num_programs(axis=2)
    record = out_ptr + ((z * ny + y) * nx + x) * 6
    tl.store(record + 0, x)
    tl.store(record + 1, y)
    tl.store(record + 2, z)
    tl.store(record + 3, nx)
    tl.store(record + 4, ny)
    tl.store(record + 5, nz)
