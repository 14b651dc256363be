"""Device names as the Python API takes them: one list, and the two functions that read a
``device`` argument (Tensor.to, Module.to, and every creation function's ``device=``)."""

DEVICE_NAMES = ("cpu", "cuda")


def device_name(device):
    """'cuda' -> 'cuda:0' (the name Tensor.device reports); others as given."""
    device = str(device)
    return "cuda:0" if device == "cuda" else device


def device_argument(device, who):
    """The device name a ``device=`` argument asks for ('cuda' -> 'cuda:0'), or None for None;
    a name that is no device raises ValueError naming ``who``."""
    if device is None:
        return None
    name = device_name(device)
    if name.split(":")[0] not in DEVICE_NAMES:
        raise ValueError(f"{who}: device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    return name
