"""``kernel.warmup(*args, grid=...)``: the specialization a launch with these
arguments would make, compiled and loaded, with nothing launched (what
Triton's ``JITFunction.warmup`` does). Autotune compiles each config this
way first, so that a config that does not compile is told apart from one
that fails to run.

The steps are the launch's own (``_launch``): binding, device, grid check,
classification of each argument; only the launch itself, and the copies of
host arrays to a device, are left out. An array that a launch would copy
into a device buffer is taken as 16-byte aligned, as new device buffers
are.
"""

from . import _interop
from . import _launch
from . import language as tl
from ._jit import MockTensor, dtype_name


def _placeholder_dtype(value):
    """The signature dtype name of a dtype given in place of an array
    (``tl.float32``, ``np.float32``, ``np.dtype("f4")``, ``torch.float16``),
    or None when |value| is no dtype. Triton's MockTensor(dtype) is its dtype."""
    if isinstance(value, MockTensor):
        value = value.dtype
    if isinstance(value, tl.pointer_type):
        return value.element_ty.short_name
    if isinstance(value, tl.dtype):
        return value.short_name
    try:
        import numpy as np
        if isinstance(value, np.dtype) or (isinstance(value, type)
                                           and issubclass(value, np.generic)):
            return dtype_name(np.dtype(value))
    except ImportError:  # pragma: no cover
        pass
    torch = _interop._torch()
    if torch is not None and isinstance(value, torch.dtype):
        return dtype_name(value)
    return None


def warmup(fn, grid, args, kwargs, num_warps, num_stages, device, stream, options):
    """The CompiledKernel for this call, compiled (or found in the caches)."""
    _launch.check_launch_options(fn, num_warps, num_stages)
    try:
        stream = _interop.parse_stream(stream)
    except (TypeError, ValueError) as e:
        raise type(e)("%s: %s" % (fn.__name__, e)) from None
    arguments = _launch.bind(fn, args, kwargs)
    dtypes = {p.name: d for p in fn.params if p.name not in fn.constexprs
              for d in [_placeholder_dtype(arguments[p.name])] if d is not None}
    # dtypes are neither buffers nor device arrays: they decide no device.
    arrays = _launch.device_arrays(fn, arguments)
    device = _launch.resolve_device(fn, device, stream, arguments, arrays)
    if grid is not None:
        meta = {k: (v.value if isinstance(v, tl.constexpr) else v)
                for k, v in arguments.items()}
        _launch.normalize_grid(fn, grid, meta)
    entries, _ = _launch.specialize(fn, arguments, device, arrays, dtypes=dtypes)
    return _launch.get_kernel(fn, device, ", ".join(entries), num_warps, num_stages, options)
