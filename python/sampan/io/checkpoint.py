"""``sp.save`` and ``sp.load``: the C++ checkpoint functions (sampan/io.h), and ``map_location``
to load a checkpoint's tensors straight onto a device."""
from .. import _C
from .._C import Tensor
from .._device import device_argument

save = _C.save


def load(path, map_location=None):
    """What ``sp.save`` wrote: the same nesting of dicts (key order kept), lists, tuples, scalars
    and tensors, the tensors on the CPU unless ``map_location`` names a device ('cpu', 'cuda',
    'cuda:0'; PyTorch's argument), where each is then copied with its requires_grad flag. Every
    copy is made before anything is returned, so a failed move (no GPU) raises and leaves
    nothing half moved. OSError naming the path for a missing, truncated or foreign file."""
    device = device_argument(map_location, "sp.load(map_location=...)")
    obj = _C.load(path)
    return obj if device is None or device == "cpu" else _moved(obj, device)


def _moved(obj, device):
    if isinstance(obj, Tensor):
        return obj.detach()._to_device(device).requires_grad_(obj.requires_grad)
    if isinstance(obj, dict):
        return {key: _moved(value, device) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_moved(value, device) for value in obj)
    return obj
