"""The high-level training API (``sp.Model``), in the spirit of Paddle 2.x's ``paddle.Model``:
fit, evaluate, predict and resumable checkpoints over a network, an optimizer, a loss, metrics
(sp.metric) and callbacks (sp.callbacks)."""
from .model import Model

__all__ = ["Model"]
