"""Run by test_distributed.py under `mpirun -n N`: every rank checks the collectives and that
data-parallel training equals one process training on the whole batch. Prints one line
"rank R of N: OK ..." per rank; any failed check raises (mpirun then exits non-zero)."""
import numpy as np

import sampan as sp

dist = sp.distributed
rank, size = dist.rank(), dist.world_size()
assert dist.is_active() and size > 1, (dist.is_active(), size)

# --- collectives: values every rank can predict ---
values = list(range(1, size + 1))  # rank r contributes r + 1
t = sp.tensor([rank + 1.0, -(rank + 1.0)], dtype=sp.float32)
assert dist.all_reduce(t, "sum").tolist() == [sum(values), -sum(values)]
t = sp.tensor([rank + 1.0, -(rank + 1.0)], dtype=sp.float64)
assert dist.all_reduce(t, "avg").tolist() == [sum(values) / size, -sum(values) / size]
t = sp.tensor([rank + 1, -(rank + 1)], dtype=sp.int64)
assert dist.all_reduce(t, "max").tolist() == [size, -1]
t = sp.tensor([rank + 1, -(rank + 1)], dtype=sp.int32)
assert dist.all_reduce(t, "min").tolist() == [1, -size]
z = sp.tensor(np.array([1 + 1j * rank], dtype=np.complex128))
assert dist.all_reduce(z, "sum").numpy()[0] == size + 1j * sum(range(size))
b = sp.tensor([float(rank), 10.0 * rank])
dist.broadcast(b, root=size - 1)
assert b.tolist() == [size - 1.0, 10.0 * (size - 1)]
gathered = dist.all_gather(sp.tensor([[rank, 10 * rank]], dtype=sp.int64))
assert [g.tolist() for g in gathered] == [[[r, 10 * r]] for r in range(size)]
assert dist.shard(list(range(7))) == list(range(7))[rank::size]

# --- point to point: a ring, even ranks sending first ---
right, left = (rank + 1) % size, (rank - 1) % size
out, got = sp.tensor([float(rank)] * 3), sp.zeros(3)
if rank % 2 == 0:
    dist.send(out, right, tag=7)
    dist.recv(got, left, tag=7)
else:
    dist.recv(got, left, tag=7)
    dist.send(out, right, tag=7)
assert got.tolist() == [float(left)] * 3, got.tolist()
if rank == 0:  # a message of the wrong size is consumed and refused
    dist.send(sp.zeros(4), 1, tag=8)
elif rank == 1:
    try:
        dist.recv(sp.zeros(3), 0, tag=8)
        raise AssertionError("a 4-element message was received into 3 elements")
    except ValueError as e:
        assert "has 16 bytes, but the tensor (3 x float32) holds 12" in str(e), str(e)
dist.barrier()

# --- a disagreement is an error on every rank, not a hang ---
try:
    dist.all_reduce(sp.zeros(3 + rank))
    raise AssertionError("ranks with tensors of different sizes were not refused")
except ValueError as e:
    assert "disagree on the element count (3 to" in str(e), str(e)
dist.barrier()

# --- data-parallel training equals one process on the whole batch ---
rng = np.random.default_rng(0)
x_all = sp.tensor(rng.normal(size=(4 * size, 5)))            # float64, the same on every rank
y_all = sp.tensor(rng.normal(size=(4 * size, 1)))
sp.manual_seed(100 + rank)                                    # different initial weights per rank
model = sp.nn.MLP(5, [8], 1, activation="tanh").double()
dp = dist.DataParallel(model)                                 # rank 0's weights everywhere
reference = sp.nn.MLP(5, [8], 1, activation="tanh").double()
reference.load_state_dict({k: v.clone() for k, v in model.state_dict().items()})
opt = sp.optim.Adam(dp.parameters(), lr=1e-2)
ref_opt = sp.optim.Adam(reference.parameters(), lr=1e-2)
mine = np.arange(4 * size)[rank::size]                        # this rank's rows
x_mine, y_mine = x_all[sp.tensor(mine)], y_all[sp.tensor(mine)]
worst_grad = 0.0
for step in range(5):
    opt.zero_grad()
    ((dp(x_mine) - y_mine) ** 2).mean().backward()
    dp.sync_gradients()
    ref_opt.zero_grad()
    ((reference(x_all) - y_all) ** 2).mean().backward()
    # the averaged gradient is the whole batch's (Adam alone would hide a wrong scale)
    for p, q in zip(model.parameters(), reference.parameters()):
        worst_grad = max(worst_grad, float(np.abs(p.grad.numpy() - q.grad.numpy()).max()))
    opt.step()
    ref_opt.step()
assert worst_grad < 1e-14, f"averaged gradients differ from the whole batch's by {worst_grad}"
worst = max(float(np.abs(p.numpy() - q.numpy()).max()) for p, q in zip(model.parameters(), reference.parameters()))
assert worst < 1e-12, f"data-parallel weights differ from one process's by {worst}"
flat = sp.concat([p.detach().reshape(-1) for p in model.parameters()])
replicas = dist.all_gather(flat)
assert all(np.array_equal(r.numpy(), replicas[0].numpy()) for r in replicas), "replicas diverged"

# --- buffers: root's BatchNorm statistics reach every rank before a training forward ---
bn = sp.nn.BatchNorm1d(3, momentum=0.0)                       # momentum 0: forward keeps the buffers
bn_dp = dist.DataParallel(bn)
bn.running_mean.copy_(sp.full([3], float(rank)))
bn_dp.eval()
bn_dp(sp.ones(4, 3))
assert bn.running_mean.tolist() == [float(rank)] * 3          # eval: no broadcast
bn_dp.train()
bn_dp(sp.ones(4, 3))
assert bn.running_mean.tolist() == [0.0] * 3                  # training: root's statistics first

print(f"rank {rank} of {size}: OK (data-parallel vs one process: gradients {worst_grad:.1e}, "
      f"weights after 5 steps {worst:.1e})", flush=True)
