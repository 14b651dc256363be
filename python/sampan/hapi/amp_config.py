"""Model.prepare's ``amp`` argument: which autocast scope a step runs in and whether its loss is
scaled (float16 only, by default: bfloat16 has float32's range)."""
from dataclasses import dataclass, field

import sampan
from ..amp import GradScaler, autocast

_DTYPES = {"bfloat16": "bfloat16", "bf16": "bfloat16", "float16": "float16", "fp16": "float16", "half": "float16"}
_KEYS = ("dtype", "level", "loss_scaling", "init_scale", "growth_factor", "backoff_factor", "growth_interval",
         "low_precision_ops", "float32_ops")


@dataclass
class AmpConfig:
    dtype: object = None            # sp.bfloat16 / sp.float16; None: the device's default
    loss_scaling: object = None     # None: on for float16, off for bfloat16
    scaler_args: dict = field(default_factory=dict)
    low_precision_ops: tuple = ()
    float32_ops: tuple = ()

    def autocast(self, device):
        return autocast(device, self.dtype, True, self.low_precision_ops, self.float32_ops)

    def grad_scaler(self, device):
        dtype = self.dtype if self.dtype is not None else sampan.amp.get_autocast_dtype(device)
        scaling = (dtype == sampan.float16) if self.loss_scaling is None else bool(self.loss_scaling)
        return GradScaler(enabled=scaling, **self.scaler_args)


def _dtype(value):
    if value is None:
        return None
    if isinstance(value, str):
        if value == "O1":
            return None
        if value not in _DTYPES:
            raise ValueError(f"Model.prepare: amp dtype {value!r}: expected one of {', '.join(_DTYPES)} or 'O1'")
        return getattr(sampan, _DTYPES[value])
    if value in (sampan.bfloat16, sampan.float16):
        return value
    raise ValueError(f"Model.prepare: amp dtype must be sp.bfloat16 or sp.float16, got {value!r}")


def parse_amp(amp):
    """None (float32), a dtype ('bfloat16', 'float16', sp.bfloat16 ..., or Paddle's 'O1': the
    device's default) or a dict with keys dtype (or level), loss_scaling, init_scale,
    growth_factor, backoff_factor, growth_interval, low_precision_ops, float32_ops."""
    if amp is None or amp is False:
        return None
    if not isinstance(amp, dict):
        return AmpConfig(dtype=_dtype(amp))
    unknown = sorted(set(amp) - set(_KEYS))
    if unknown:
        raise ValueError(f"Model.prepare: amp has unknown key(s) {', '.join(map(repr, unknown))}; expected "
                         f"{', '.join(_KEYS)}")
    if "level" in amp and amp["level"] != "O1":
        raise ValueError(f"Model.prepare: amp level {amp['level']!r}: only 'O1' (autocast with float32 master "
                         "weights) is supported")
    scaler_args = {k: amp[k] for k in ("init_scale", "growth_factor", "backoff_factor", "growth_interval") if k in amp}
    return AmpConfig(dtype=_dtype(amp.get("dtype")), loss_scaling=amp.get("loss_scaling"), scaler_args=scaler_args,
                     low_precision_ops=tuple(amp.get("low_precision_ops", ())),
                     float32_ops=tuple(amp.get("float32_ops", ())))
