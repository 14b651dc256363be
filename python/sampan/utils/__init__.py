"""sampan.utils: tools around the engine. ``cpp_extension``: just-in-time custom op libraries
(``load``) and loading built ones (``load_op_library``)."""
from . import cpp_extension  # noqa: F401
