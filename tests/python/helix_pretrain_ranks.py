"""Run by test_distributed.py under `mpirun -n N` with a shared folder as argv[1]: data-parallel
attribute-masking pretraining on rdkit-data molecules keeps the replicas bit-identical, lowers the
loss, and a run stopped after an epoch and resumed from rank 0's checkpoint ends with the weights
and history of the uninterrupted run. Prints "rank R of N: OK ..." per rank."""
import os
import sys
import warnings

import numpy as np

import sampan as sp
from sampan.helix import pretrain as pt
from sampan.helix.data import DataLoader, load_dataset
from sampan.helix.models import GNNEncoder

dist = sp.distributed
rank, size = dist.rank(), dist.world_size()
folder = sys.argv[1]
with warnings.catch_warnings():  # the 6 SMILES RDKit rejects are reported as warnings
    warnings.simplefilter("ignore")
    dataset = load_dataset("/usr/share/RDKit/Data/NCI/first_5K.smi", featurizer="pretrain_gnns", label_columns=[])[:160]


class Stop(Exception):
    pass


class StoppingLoader(DataLoader):
    """Raises Stop on every rank when epoch `stop_at` would begin (a kill between two epochs)."""

    def __init__(self, *args, stop_at=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.stop_at, self.epoch = stop_at, 0

    def shard(self, rank, size, max_batches=None):
        self.epoch += 1
        if self.epoch == self.stop_at:
            raise Stop()
        return super().shard(rank, size, max_batches)


def run(checkpoint=None, stop_at=None):
    sp.manual_seed(0)
    task = pt.AttributeMasking(GNNEncoder("pretrain_gnns", num_layers=2, emb_dim=16), seed=0)
    loader = StoppingLoader(dataset, 16, shuffle=True, seed=0, stop_at=stop_at)
    return task, pt.pretrain(task, loader, epochs=4, checkpoint=checkpoint)


def flat(task):
    return np.concatenate([p.detach().numpy().ravel() for p in task.parameters()])


task_a, result_a = run()
losses = result_a["history"]["loss"]
assert losses[-1] < losses[0], losses
replicas = dist.all_gather(sp.tensor(flat(task_a)))
assert all(np.array_equal(r.numpy(), replicas[0].numpy()) for r in replicas), "replicas diverged"
histories = dist.all_gather(sp.tensor(losses, dtype=sp.float64))
assert all(np.array_equal(h.numpy(), histories[0].numpy()) for h in histories), "ranks report other histories"

checkpoint = os.path.join(folder, "pretrain.ckpt.h5")
try:
    run(checkpoint, stop_at=3)  # epochs 1 and 2 run, the checkpoint holds epoch 2
    raise AssertionError("the loader did not stop the run")
except Stop:
    pass
dist.barrier()  # rank 0 has written the checkpoint
task_c, result_c = run(checkpoint)
assert np.array_equal(flat(task_c), flat(task_a)), "the resumed run's weights differ from the uninterrupted run's"
assert result_c["history"] == result_a["history"], (result_c["history"], result_a["history"])
try:  # fewer batches than ranks: refused on every rank, before any step
    pt.pretrain(pt.AttributeMasking(GNNEncoder("pretrain_gnns", num_layers=1, emb_dim=8)),
                DataLoader(dataset[:size * 4], size * 4), epochs=1)
    raise AssertionError("one batch for several ranks was not refused")
except ValueError as e:
    assert f"1 batch(es) of {size * 4} molecules per epoch cannot be shared by {size} ranks" in str(e), str(e)
print(f"rank {rank} of {size}: OK (loss {losses[0]:.3f} -> {losses[-1]:.3f}; resumed run identical)", flush=True)
