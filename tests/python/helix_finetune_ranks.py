"""Run by test_helix_ogb_molhiv.py under `mpirun -n N` with a folder and a small HIV CSV as argv:
data-parallel fine-tuning (sampan.helix.finetune) of a small GIN-virtual keeps the replicas
bit-identical, every rank reports the same history (validation and test evaluated with rank 0's
BatchNorm statistics everywhere), a run stopped after an epoch and resumed from rank 0's checkpoint
ends with the uninterrupted run's weights and history, and a checkpoint written by one process is
refused by N ranks. Prints "rank R of N: OK ..." per rank."""
import os
import sys

import numpy as np

import sampan as sp
from sampan.helix import finetune as ft
from sampan.helix.data import DataLoader, load_dataset
from sampan.helix.models import GraphModel
from sampan.helix.split import split_dataset

dist = sp.distributed
rank, size = dist.rank(), dist.world_size()
folder, csv_path = sys.argv[1], sys.argv[2]
(train, valid, test), _ = split_dataset(load_dataset(csv_path, featurizer="ogb"), "scaffold")


class Stop(Exception):
    pass


def flat(model):
    return np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


def run(checkpoint=None, stop_at=None, data_parallel=None):
    sp.manual_seed(0)
    model = GraphModel(1, "ogb", num_layers=2, emb_dim=16, dropout=0.5, virtual_node=True)
    initial = flat(model)

    def on_epoch(epoch, record):
        if epoch == stop_at:
            raise Stop()

    result = ft.finetune(model, DataLoader(train, 8, shuffle=True, seed=0), DataLoader(valid, 64), DataLoader(test, 64),
                         epochs=3, on_epoch=on_epoch, checkpoint=checkpoint, checkpoint_every=1,
                         data_parallel=data_parallel)
    return model, result, initial


model_a, result_a, initial = run()
assert not np.array_equal(flat(model_a), initial), "no step was taken"
replicas = dist.all_gather(sp.tensor(flat(model_a)))
assert all(np.array_equal(r.numpy(), replicas[0].numpy()) for r in replicas), "replicas diverged"
for key in ("train_loss", "valid", "test"):
    histories = dist.all_gather(sp.tensor(result_a["history"][key], dtype=sp.float64))
    assert all(np.array_equal(h.numpy(), histories[0].numpy(), equal_nan=True) for h in histories), \
        f"ranks report other {key} histories"
assert len(result_a["history"]["valid"]) == 3 and 1 <= result_a["best_epoch"] <= 3, result_a

checkpoint = os.path.join(folder, "finetune.ckpt.h5")
try:
    run(checkpoint, stop_at=1)  # epoch 1 runs and is checkpointed, then the run stops
    raise AssertionError("on_epoch did not stop the run")
except Stop:
    pass
dist.barrier()  # rank 0 has written the checkpoint
model_c, result_c, _ = run(checkpoint)
assert np.array_equal(flat(model_c), flat(model_a)), "the resumed run's weights differ from the uninterrupted run's"
assert result_c["history"] == result_a["history"], (result_c["history"], result_a["history"])

alone = os.path.join(folder, "one_process.ckpt.h5")
if rank == 0:
    try:
        run(alone, stop_at=1, data_parallel=False)
    except Stop:
        pass
dist.barrier()
try:
    run(alone)
    raise AssertionError(f"a one-process checkpoint was resumed on {size} ranks")
except ValueError as e:
    assert f"written by a run on 1 rank(s) but this run has {size}" in str(e), str(e)
print(f"rank {rank} of {size}: OK (best epoch {result_a['best_epoch']}, resumed run identical)", flush=True)
