"""Run by test_distributed.py under `mpirun -n N` with a folder as argv[1]: data-parallel DeePMD
training (sampan.deepmd.train on the tiny se_e2_a model of test_deepmd_train.py) keeps the
replicas bit-identical, rank 0 alone writes lcurve.out and the checkpoints, and a restart from the
step-2 checkpoint ends where the uninterrupted run ends, bit for bit. Prints "rank R of N: OK"."""
import os
import sys

import numpy as np

import sampan as sp
from sampan.deepmd.train import train

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_deepmd_train import lcurve, tiny_input, write_input  # noqa: E402

dist = sp.distributed
rank, size = dist.rank(), dist.world_size()
folder = sys.argv[1]
a, b = os.path.join(folder, "a"), os.path.join(folder, "b")
from pathlib import Path  # noqa: E402


def flat(trainer):
    return np.concatenate([p.detach().numpy().ravel() for p in trainer.params])


config = tiny_input(numb_steps=4, save_freq=2)
if rank == 0:
    write_input(Path(a), config)
    write_input(Path(b), config)
dist.barrier()
trainer_a = train(os.path.join(a, "input.json"), output_dir=a, log=lambda *_: None)
replicas = dist.all_gather(sp.tensor(flat(trainer_a)))
assert all(np.array_equal(r.numpy(), replicas[0].numpy()) for r in replicas), "replicas diverged"
dist.barrier()
if rank == 0:
    _, rows = lcurve(Path(a))
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4], rows
    assert sorted(f for f in os.listdir(a) if f.endswith(".h5")) == ["model.ckpt-2.h5", "model.ckpt-4.h5", "model.ckpt.h5"]
    streams = sp.load(os.path.join(a, "model.ckpt-2.h5"))["loader"]["rngs"]  # every rank's data-order RNG
    assert len(streams) == size and len(set(streams)) == size, "the ranks drew their batches from one stream"

trainer_b = train(os.path.join(b, "input.json"), restart=os.path.join(a, "model.ckpt-2.h5"), output_dir=b,
                  log=lambda *_: None)
assert np.array_equal(flat(trainer_b), flat(trainer_a)), "the restarted run ends elsewhere than the uninterrupted one"
dist.barrier()
if rank == 0:
    _, rows_b = lcurve(Path(b))
    assert rows_b == rows[2:], (rows_b, rows[2:])
print(f"rank {rank} of {size}: OK", flush=True)
