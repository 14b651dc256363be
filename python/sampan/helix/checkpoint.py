"""Training checkpoints that let an interrupted fine-tuning or pretraining run continue exactly
where it stopped (the same numbers as a run that was never interrupted).

The training runs on sp.Model, and a checkpoint is sp.Model's checkpoint state (Model.checkpoint_state:
the model's weights and buffers, BatchNorm running statistics included, the optimizer's state, epoch,
every rank's sampan random stream (dropout), the loader's shuffling state and the callbacks' states:
the best-validation weights, epoch and score, the per-epoch history) with helix's fields beside it
(the settings a resumed run must match, the seconds, the NumPy streams that pick masked atoms),
under the kind below. It is one HDF5 file written through sampan.save, which writes a temp file
and renames it, so a process killed while saving leaves the previous checkpoint intact.
Checkpoints of the loops before sp.Model (fields model, sampan_rng, loader_rng) are converted on
load (upgraded).
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


def save_training(path, trainer, fields):
    """The checkpoint of an sp.Model run (trainer.checkpoint_state(): weights, optimizer, epoch,
    random streams, loader, callbacks) with `fields` beside it, under this module's kind; every
    rank calls it (the streams are gathered), the process that writes checkpoints writes."""
    payload = dict(trainer.checkpoint_state(), **fields)
    if trainer.writes_checkpoints():
        save_checkpoint(path, payload)


def upgraded(saved, callback_states):
    """A checkpoint in the layout of sp.Model's checkpoint state: as it is when it has one; one
    written before helix trained on sp.Model (fields model, sampan_rng, loader_rng, rank_streams)
    converted, its callbacks' states from callback_states(saved)."""
    if "network" in saved:
        return saved
    if "model" not in saved or "sampan_rng" not in saved:
        raise ValueError("not a resumable sampan.helix training checkpoint (no weights or random streams); "
                         "delete it to restart")
    streams = [json.loads(r)["sampan_rng"] for r in saved["rank_streams"]] if "rank_streams" in saved \
        else [saved["sampan_rng"]]
    rng = [f"{int(s[0])} {int(s[1])}" for s in streams]
    out = dict(saved, network=saved["model"], step=0, rng=rng, world_size=len(rng), loader_seed=-1,
               loader={"rng": saved["loader_rng"]} if "loader_rng" in saved else None,
               callbacks=callback_states(saved))
    return out


def history_lists(saved, keys):
    """The history lists of a checkpoint as Python floats."""
    return {k: [float(v) for v in saved[k]] for k in keys}




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
