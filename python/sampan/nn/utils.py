"""``sp.nn.utils``: gradient clipping (defined in sampan.optim.clip, named here as in PyTorch)."""
from ..optim.clip import clip_grad_norm_, clip_grad_value_  # noqa: F401
