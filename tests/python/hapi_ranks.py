"""Run under `mpirun -n 2` by test_hapi.py: sp.Model.fit data-parallel. Checks that the weights
after 4 epochs equal one process's training on the union of the ranks' batches (to 1e-12), that
the replicas are bit-identical, that rank 0 alone writes the log and the checkpoints, and that
resuming from the epoch-2 checkpoint gives bit-identical weights. Prints OK<rank>."""
import os
import sys

import numpy as np

import sampan as sp

dist = sp.distributed
F = sp.nn.functional
out_dir = sys.argv[1]
rank, ranks = dist.rank(), dist.world_size()
assert ranks == 2, ranks

rng = np.random.default_rng(0)
x = rng.standard_normal((24, 3))
y = x @ np.array([[1.0], [-1.0], [2.0]]) + 0.1 * rng.standard_normal((24, 1))
data = sp.io.TensorDataset(x, y)


def make(seed):
    sp.manual_seed(seed)
    net = sp.nn.Linear(3, 1, dtype=sp.float64)
    model = sp.Model(net)
    model.prepare(sp.optim.Adam(net.parameters(), lr=0.05), F.mse_loss)  # rank 0's weights everywhere
    return model


def weights(model):
    return [p.numpy().copy() for p in model.parameters()]


# different initial weights per rank: prepare must copy rank 0's
straight = make(1 + rank)
straight.fit(data, epochs=4, batch_size=4, seed=5, verbose=0,
             callbacks=[sp.callbacks.CSVLogger(os.path.join(out_dir, "log.csv")),
                        sp.callbacks.ModelCheckpoint(os.path.join(out_dir, "ckpt"), save_freq=2)])
final = weights(straight)

# one process on the union of the two ranks' batches, from rank 0's initial weights
sp.manual_seed(1)
ref = sp.nn.Linear(3, 1, dtype=sp.float64)
opt = sp.optim.Adam(ref.parameters(), lr=0.05)
for epoch in range(4):
    shares = []
    for r in range(2):
        s = sp.io.DistributedSampler(data, 2, r, seed=5)
        s.set_epoch(epoch)
        shares.append(s.indices())
    for step in range(3):
        idx = shares[0][4 * step:4 * step + 4] + shares[1][4 * step:4 * step + 4]
        opt.zero_grad()
        F.mse_loss(ref(sp.tensor(x[idx])), sp.tensor(y[idx])).backward()
        opt.step()
for a, b in zip(final, [p.numpy() for p in ref.parameters()]):
    assert np.max(np.abs(a - b)) < 1e-12, (a, b)

# replicas bit-identical
for p in straight.parameters():
    gathered = dist.all_gather(p.detach().clone())
    assert np.array_equal(gathered[0].numpy(), gathered[1].numpy())

dist.barrier()
assert sorted(os.listdir(os.path.join(out_dir, "ckpt"))) == ["epoch2.h5", "epoch4.h5", "final.h5"]
assert len(open(os.path.join(out_dir, "log.csv")).read().splitlines()) == 5

resumed = make(3)
resumed.load(os.path.join(out_dir, "ckpt", "epoch2.h5"))
resumed.fit(data, epochs=4, batch_size=4, verbose=0)  # the saved seed
for a, b in zip(final, weights(resumed)):
    assert np.array_equal(a, b), (a, b)
dist.barrier()
print(f"OK{rank}", flush=True)
