"""The C++ part of helix (sampan._C.helix), or a clear error saying why it is missing.

helix's featurization, readers, splits and drawing are C++ over RDKit; they are built only when
CMake finds RDKit's C++ libraries. The pure-Python parts of sampan.helix (models, metrics) work
without them, so the import of sampan.helix never fails: using a native function does.
"""
from .. import _C

_WHY_MISSING = (
    "sampan.helix's C++ part (featurization, readers, splits, drawing) is not built in this "
    "installation: CMake did not find RDKit's C++ libraries (see the warning 'helix is NOT built' "
    "in the configure output). On Debian: apt-get install librdkit-dev rdkit-data, then rebuild "
    "(make build)."
)


def available():
    """Whether the C++ part of helix is built."""
    return hasattr(_C, "helix")


def native():
    """sampan._C.helix; RuntimeError saying why when it is not built."""
    module = getattr(_C, "helix", None)
    if module is None:
        raise RuntimeError(_WHY_MISSING)
    return module
