"""``tl.extra.hip.libdevice``: ``tl.extra.libdevice``'s functions."""

from ..libdevice import *  # noqa: F401,F403
from ..libdevice import __all__  # noqa: F401
