"""Tegula launches as PyTorch custom operators (docs/torch.md).

``tegula.torch.custom_op("ns::name", fake=...)`` makes a function that
launches Tegula kernels on tensors a ``torch.library`` operator: opaque to
``torch.compile`` (which traces it through its fake implementation, so
``fullgraph=True`` holds), kept by ``torch.export``, and given autograd by
``op.register_autograd`` or by a ``torch.autograd.Function`` whose forward
and backward call such operators.

The operator's body runs with real tensors only; a Tegula launch on a CUDA
tensor goes on PyTorch's current stream (``_interop.py``), so it is
captured by ``torch.cuda.graph`` like any other work on that stream.
Importing this module imports torch.
"""

import functools

import torch

__all__ = ["custom_op", "check_same_device"]


def _tensors(name, value):
    """(name, tensor) pairs of a tensor argument or a list/tuple of them."""
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if isinstance(value, (list, tuple)):
        return [("%s[%d]" % (name, i), v) for i, v in enumerate(value)
                if isinstance(v, torch.Tensor)]
    return []


def check_same_device(op_name, named_args):
    """ValueError naming the operator and the arguments when the tensors of
    |named_args| ({parameter: value}) are not all on one device; the device
    otherwise (None without tensors). A kernel reads every pointer on the
    device it runs on, so tensors elsewhere would be read as garbage."""
    seen = []
    for name, value in named_args.items():
        seen.extend(_tensors(name, value))
    if not seen:
        return None
    first = seen[0][1].device
    if any(t.device != first for _, t in seen):
        raise ValueError("%s: all tensors must be on one device, got %s" % (
            op_name, ", ".join("%s on %s" % (n, t.device) for n, t in seen)))
    return first


def custom_op(name, fn=None, *, mutates_args=(), fake=None, device_types=None, schema=None):
    """Registers |fn| as the PyTorch operator |name| (``"namespace::op"``).

    |fn| launches Tegula kernels and returns new tensors (or mutates the
    arguments named in |mutates_args|); its type annotations give the
    operator's schema, as for ``torch.library.custom_op``, unless |schema|
    does. |fake|, when given, is the fake (meta) implementation:
    the same parameters, returns empty tensors of the outputs' shapes,
    dtypes and devices and launches nothing (``torch.compile`` and
    ``torch.export`` call it on FakeTensors). Without it, register one with
    ``op.register_fake`` before tracing. Calling the operator with tensors
    on different devices is a ValueError naming them.

    Used as a decorator (``@custom_op("ns::f", fake=...)``) or directly.
    Returns the ``torch.library.CustomOpDef``: call it, or
    ``torch.ops.namespace.op``."""
    if fn is None:
        return lambda f: custom_op(name, f, mutates_args=mutates_args, fake=fake,
                                   device_types=device_types, schema=schema)
    import inspect
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        check_same_device(name, bound.arguments)
        return fn(*args, **kwargs)

    op = torch.library.custom_op(name, checked, mutates_args=mutates_args,
                                 device_types=device_types, schema=schema)
    if fake is not None:
        @functools.wraps(fake)
        def checked_fake(*args, **kwargs):
            check_same_device(name, inspect.signature(fake).bind(*args, **kwargs).arguments)
            return fake(*args, **kwargs)
        op.register_fake(checked_fake)
    return op
