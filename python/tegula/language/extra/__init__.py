"""``tl.extra``: vendor namespaces. Every vendor's ``libdevice``
(``extra.cuda.libdevice``, ``extra.hip.libdevice``) is the same set of
functions, which Tegula compiles for every target."""

from . import libdevice  # noqa: F401
from . import cuda  # noqa: F401
from . import hip  # noqa: F401

__all__ = ["libdevice", "cuda", "hip"]
