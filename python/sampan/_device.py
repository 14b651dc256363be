"""Device names as the Python API takes them: one list, the two functions that read a ``device``
argument (Tensor.to, Module.to, and every creation function's ``device=``), and the check the
command lines make of a ``--device`` flag before they read any data."""

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


def device_problem(device, flag="--device"):
    """Why work cannot run on `device` (a name that is no device, or no GPU in this process), or
    None: what a command line says, with its flag, before it reads its input."""
    try:
        name = device_argument(device, flag)
    except ValueError as e:
        return str(e).split(": ", 1)[1]
    from . import cuda
    if name != "cpu" and not cuda.is_available():
        return f"no GPU in this process ({cuda.unavailable_reason()})"
    return None
