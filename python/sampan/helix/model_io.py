"""Files of helix models: a fine-tuned GraphModel and a pretrained GNNEncoder, each one HDF5 file
written through sampan.save (a temp file, then a rename), with a "kind" that the loaders check."""
import numpy as np

import sampan
from .models import encoder_from_config

ENCODER_KIND = "sampan.helix.GNNEncoder"


def plain_data(value):
    """Tuples to lists, NumPy scalars to Python numbers: what sampan.save stores."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def save_model(model, path, extra=None):
    """Writes the model (its config and weights) to an HDF5 file through sampan.save (which
    writes a temp file and renames it)."""
    payload = {"kind": "sampan.helix.GraphModel", "config": plain_data(model.config), "state": model.state_dict()}
    if extra:
        payload["extra"] = plain_data(extra)
    sampan.save(payload, str(path))


def load_model(path):
    """The GraphModel saved by save_model."""
    from .models import model_from_config
    payload = sampan.load(str(path))
    if not isinstance(payload, dict) or payload.get("kind") != "sampan.helix.GraphModel":
        raise ValueError(f"{path}: not a sampan.helix GraphModel file (kind {payload.get('kind') if isinstance(payload, dict) else type(payload).__name__!r})")
    model = model_from_config(payload["config"])
    model.load_state_dict(payload["state"])
    model.eval()
    return model


def save_encoder(encoder, path, provenance=None):
    """Writes the encoder's config, weights and provenance (task, data, epochs ...) to HDF5."""
    sampan.save({"kind": ENCODER_KIND, "config": plain_data(encoder.config), "state": encoder.state_dict(),
                 "provenance": plain_data(provenance or {})}, str(path))


def load_encoder_payload(path):
    payload = sampan.load(str(path))
    if not isinstance(payload, dict) or payload.get("kind") != ENCODER_KIND:
        raise ValueError(f"{path}: not a sampan.helix pretrained encoder (expected kind {ENCODER_KIND!r})")
    return payload


def load_encoder(path):
    """The GNNEncoder saved by save_encoder (in eval mode) and its provenance."""
    payload = load_encoder_payload(path)
    encoder = encoder_from_config(payload["config"])
    encoder.load_state_dict(payload["state"])
    encoder.eval()
    return encoder, payload.get("provenance", {})


def check_encoder_fits(payload, model_config, path):
    """Raises a ValueError naming the field when a saved encoder cannot go into a GraphModel built
    from model_config (different featurizer, width, depth, layer type or virtual node)."""
    saved = dict({"virtual_node": False}, **payload["config"])  # encoders saved before the field had none
    for field in ("featurizer", "num_layers", "emb_dim", "conv", "jk", "virtual_node"):
        want = model_config.get(field)
        got = saved.get(field)
        if isinstance(want, tuple):
            want = plain_data(want)
        if want is not None and want != got:
            raise ValueError(f"{path}: the pretrained encoder has {field}={got!r} but the model asks {field}={want!r}")
