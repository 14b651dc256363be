"""Training checkpoints that let an interrupted fine-tuning or pretraining run continue exactly
where it stopped (the same numbers as a run that was never interrupted).

A checkpoint holds everything the next epoch reads: the model's weights and buffers (BatchNorm
running statistics), the optimizer's state (Adam moments and step counts), the best-validation
weights, epoch and score, the per-epoch history, and every random stream: sampan's default
generator (dropout) and the NumPy generators that shuffle batches and pick masked atoms. It is
one HDF5 file written through sampan.save, which writes a temp file and renames it, so a process
killed while saving leaves the previous checkpoint intact.
"""
import json
import os

import sampan

CHECKPOINT_KIND = "sampan.helix.TrainingCheckpoint"


def numpy_rng_state(rng):
    """A NumPy Generator's state as a JSON string (PCG64's 128-bit integers survive JSON)."""
    return json.dumps(rng.bit_generator.state)


def set_numpy_rng_state(rng, state):
    rng.bit_generator.state = json.loads(state)


def sampan_rng_state():
    """The default generator's (seed, offset) as decimal strings (uint64 values)."""
    seed, offset = sampan.default_generator.get_state()
    return [str(seed), str(offset)]


def set_sampan_rng_state(state):
    sampan.default_generator.set_state((int(state[0]), int(state[1])))


def loader_rng_state(loader):
    """The shuffling state of a loader that has one (sampan.helix.data.DataLoader), else None."""
    return loader.rng_state() if hasattr(loader, "rng_state") else None


def set_loader_rng_state(loader, state):
    if state is not None and hasattr(loader, "set_rng_state"):
        loader.set_rng_state(state)


def save_checkpoint(path, payload):
    """Writes payload (a dict of tensors, numbers, strings, lists, dicts) atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    sampan.save(dict(payload, kind=CHECKPOINT_KIND), str(path))


def load_checkpoint(path, what):
    """The payload saved by save_checkpoint; a clear error when the file is something else."""
    payload = sampan.load(str(path))
    if not isinstance(payload, dict) or payload.get("kind") != CHECKPOINT_KIND:
        raise ValueError(f"{path}: not a sampan.helix training checkpoint (expected kind {CHECKPOINT_KIND!r}); "
                         f"delete it to restart {what} from the beginning")
    return payload


def restore_training(payload, model, optimizer, history_keys):
    """Puts the model, the optimizer and sampan's random stream back as saved; returns the
    history lists (one per key). Shared by fine-tuning and pretraining."""
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    set_sampan_rng_state(payload["sampan_rng"])
    return {k: [float(v) for v in payload["history"][k]] for k in history_keys}


def check_matches(payload, path, **expected):
    """Raises a ValueError naming the field when a checkpoint was written by a run with other
    settings (resuming it would silently mix two protocols)."""
    for field, want in expected.items():
        got = payload.get(field)
        if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
            got, want = list(got), list(want)
        if got != want:
            raise ValueError(f"{path}: the checkpoint was written with {field}={got!r} but this run has "
                             f"{field}={want!r}; delete it or use the original settings")


def write_json_atomic(path, record):
    """JSON to a temp file, then rename: a reader never sees a half-written result."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1, default=float)
    os.replace(tmp, path)
