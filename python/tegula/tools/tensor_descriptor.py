"""Host-built tensor descriptors, as Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``: a kernel parameter
given one is a ``tensordesc<DTYPE[block]>`` in the signature and works as
``tl.make_tensor_descriptor``'s value in the kernel (``desc.load``,
``desc.store``, atomics). The launch passes the base pointer, the shape and
the strides but the last (docs/python.md)."""

from dataclasses import dataclass
from typing import Any, List


def _dtype_bytes(base):
    from .._jit import dtype_name
    dt = getattr(base, "dtype", None)
    try:
        name = dtype_name(dt)
        size = int(dt.itemsize)
    except (TypeError, AttributeError, ValueError):
        raise TypeError("TensorDescriptor: the base must be an array with a dtype, not %r"
                        % type(base).__name__) from None
    return name, size


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        if len(self.strides) != rank:
            raise ValueError("TensorDescriptor: %d strides for %d dimensions"
                             % (len(self.strides), rank))
        if len(self.block_shape) != rank:
            raise ValueError("TensorDescriptor: block_shape has %d dimensions, the shape %d"
                             % (len(self.block_shape), rank))
        if not 1 <= rank <= 5:
            raise ValueError("TensorDescriptor: rank must be 1 to 5, not %d" % rank)
        self._check_block_powers()
        name, elem = _dtype_bytes(self.base)
        self._dtype = name
        self._elem = elem
        if self.strides[-1] != 1:
            raise ValueError("TensorDescriptor: the last dimension must be contiguous "
                             "(stride 1), got strides %r" % (list(self.strides),))
        for s in self.strides[:-1]:
            if (s * elem) % 16:
                raise ValueError("TensorDescriptor: strides must be 16-byte aligned, got %r "
                                 "(elements of %d bytes)" % (list(self.strides), elem))
        if self.padding not in ("zero", "nan"):
            raise ValueError("TensorDescriptor: padding must be 'zero' or 'nan', not %r"
                             % (self.padding,))
        if self.padding == "nan" and not name.startswith(("fp", "bf")):
            raise ValueError("TensorDescriptor: padding 'nan' needs a floating-point "
                             "tensor, not %s" % name)

    def _check_block_powers(self):
        for b in self.block_shape:
            if not isinstance(b, int) or b <= 0 or b & (b - 1):
                raise ValueError("TensorDescriptor: block_shape dimensions must be powers "
                                 "of 2, got %r" % (list(self.block_shape),))

    def check_block(self):
        """ValueError unless block_shape fits: one power of 2 per dimension,
        at least 16 bytes in the last. Made when the descriptor is launched,
        not when it is built: as in Triton, a descriptor may be built with a
        placeholder block (tutorial 06 builds its descriptors with
        ``block_shape=[1, 1]``) that an autotune config's pre_hook sets
        before the launch; Triton checks the 16 bytes when it compiles."""
        if len(self.block_shape) != len(self.shape):
            raise ValueError("TensorDescriptor: block_shape has %d dimensions, the shape %d"
                             % (len(self.block_shape), len(self.shape)))
        self._check_block_powers()
        if self.block_shape[-1] * self._elem < 16:
            raise ValueError("TensorDescriptor: the block's last dimension must be at least "
                             "16 bytes, got %d * %d" % (self.block_shape[-1], self._elem))

    @property
    def dtype_name(self):
        return self._dtype

    def signature_entry(self):
        """The parameter's signature entry, once check_block() passed."""
        self.check_block()
        entry = "tensordesc<%s[%s]" % (self._dtype, ", ".join(str(b) for b in self.block_shape))
        return entry + (", nan>" if self.padding == "nan" else ">")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """A descriptor of all of |tensor| (a NumPy array, a torch tensor, a
        tegula array), its shape and strides in elements."""
        shape = list(tensor.shape)
        stride = getattr(tensor, "stride", None)
        if callable(stride):  # torch
            strides = list(stride())
        else:
            item = tensor.dtype.itemsize
            strides = []
            for s in tensor.strides:
                if s % item:
                    raise ValueError("TensorDescriptor.from_tensor: a stride of %d bytes is "
                                     "not a whole number of %d-byte elements" % (s, item))
                strides.append(s // item)
        return TensorDescriptor(tensor, shape, strides, list(block_shape), padding)
