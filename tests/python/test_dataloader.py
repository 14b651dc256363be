"""sampan.io data loading: Dataset/TensorDataset, DataLoader order (sequential, seeded shuffles per
epoch, pinned orders), worker processes (the same batches as the main process, errors naming the
index), DistributedSampler shares, the default collate of nested samples and its errors; and
sp.io.save/load still being sp.save/load."""
import collections

import numpy as np
import pytest

import sampan as sp

io = sp.io


class Squares(io.Dataset):
    """A computed dataset: (x, {"sq": x^2 as an array, "name": str}, int)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return sp.tensor([float(i), -float(i)]), {"sq": np.array([i * i], dtype=np.int64), "name": f"n{i}"}, i


class Failing(io.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"no sample {i}")
        return np.ones(2)


class Ragged(io.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return np.zeros(4 if i == 4 else 3), i


def as_plain(batch):
    """Nested batch -> nested Python values (tensors to lists with their dtype)."""
    if isinstance(batch, sp.Tensor):
        return ("tensor", str(batch.dtype), batch.tolist())
    if isinstance(batch, dict):
        return {k: as_plain(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch).__name__, [as_plain(v) for v in batch]
    return batch


def test_save_and_load_are_still_the_checkpoint_functions(tmp_path):
    assert sp.io.save is sp.save and sp.io.load is sp.load
    sp.io.save({"a": sp.tensor([1.0, 2.0]), "b": 3}, str(tmp_path / "c.h5"))
    back = sp.load(str(tmp_path / "c.h5"))
    assert back["a"].tolist() == [1.0, 2.0] and back["b"] == 3


def test_tensor_dataset_rows_and_errors():
    x = np.arange(12.0).reshape(6, 2)
    y = sp.arange(6)
    ds = io.TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert isinstance(xi, np.ndarray) and xi.tolist() == [8.0, 9.0] and yi.item() == 4
    assert ds[-1][1].item() == 5
    with pytest.raises(TypeError, match="argument 1 is a list"):
        io.TensorDataset(x, [1, 2, 3])
    with pytest.raises(ValueError, match="argument 1 has 5 rows, argument 0 has 6"):
        io.TensorDataset(x, sp.arange(5))
    with pytest.raises(IndexError, match="index 6 is out of range for 6"):
        ds[6]
    with pytest.raises(NotImplementedError, match="__getitem__"):
        io.Dataset()[0]


def test_sequential_batches_and_drop_last():
    ds = io.TensorDataset(sp.arange(10))
    loader = io.DataLoader(ds, batch_size=4)
    assert len(loader) == 3
    assert [b[0].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    loader = io.DataLoader(ds, batch_size=4, drop_last=True)
    assert len(loader) == 2 and [b[0].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_seeded_shuffle_is_pinned_reproducible_and_changes_per_epoch():
    # The order of a seed is a function of (n, seed, epoch) only: the same on every machine.
    assert io.permutation(10, 0, 0).tolist() == [3, 2, 1, 8, 6, 0, 7, 4, 5, 9]
    assert io.permutation(10, 0, 1).tolist() == [7, 4, 5, 1, 9, 8, 6, 2, 0, 3]
    assert io.permutation(10, 7, 0).tolist() == [6, 3, 4, 9, 0, 2, 8, 7, 5, 1]
    ds = io.TensorDataset(sp.arange(10))

    def order(loader):
        return [i for b in loader for i in b[0].tolist()]

    a = io.DataLoader(ds, batch_size=3, shuffle=True, seed=0)
    first, second = order(a), order(a)  # without set_epoch the epochs count the iterations
    assert first == [3, 2, 1, 8, 6, 0, 7, 4, 5, 9] and second == [7, 4, 5, 1, 9, 8, 6, 2, 0, 3]
    b = io.DataLoader(ds, batch_size=5, shuffle=True, seed=0)
    b.set_epoch(1)
    assert order(b) == second
    b.set_epoch(0)
    assert order(b) == first
    # a loader without seed draws one and its state resumes the order in another loader
    c = io.DataLoader(ds, batch_size=2, shuffle=True)
    c.set_epoch(3)
    state = c.state_dict()
    d = io.DataLoader(ds, batch_size=2, shuffle=True, seed=123)
    d.load_state_dict(state)
    assert order(d) == order(c)


@pytest.mark.parametrize("shuffle", [False, True])
def test_worker_processes_give_the_same_batches_in_order(shuffle):
    ds = Squares(23)
    main = io.DataLoader(ds, batch_size=4, shuffle=shuffle, seed=5)
    workers = io.DataLoader(ds, batch_size=4, shuffle=shuffle, seed=5, num_workers=3)
    for epoch in (0, 1):
        main.set_epoch(epoch)
        workers.set_epoch(epoch)
        expected = [as_plain(b) for b in main]
        got = [as_plain(b) for b in workers]
        assert len(got) == 6 and got == expected
    # stopping early leaves no process behind and the next pass starts again
    it = iter(workers)
    next(it)
    it.close()
    workers.set_epoch(0)
    main.set_epoch(0)
    assert [as_plain(b) for b in workers] == [as_plain(b) for b in main]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataset_errors_name_the_index(num_workers):
    loader = io.DataLoader(Failing(), batch_size=3, num_workers=num_workers)
    with pytest.raises(KeyError, match=r"dataset\[5\] raised KeyError: 'no sample 5'"):
        list(loader)
    ragged = io.DataLoader(Ragged(), batch_size=3, num_workers=num_workers)
    with pytest.raises(ValueError, match=r"dataset\[3\] and dataset\[4\] differ in field \[0\]: shape \(3,\) and "
                                         r"\(4,\)"):
        list(ragged)


def test_distributed_sampler_shares():
    ds = io.TensorDataset(sp.arange(10))
    shares = [io.DistributedSampler(ds, num_replicas=3, rank=r, seed=4) for r in range(3)]
    lists = [s.indices() for s in shares]
    assert [len(s) for s in shares] == [4, 4, 4] and all(len(x) == 4 for x in lists)
    order = io.permutation(10, 4, 0).tolist()
    padded = order + order[:2]  # padded to 12 with the order's first indices, as PyTorch's
    assert lists == [padded[r::3] for r in range(3)]
    assert sorted(sum(lists, [])) == sorted(range(10)) + sorted(order[:2]) or \
        sorted(set(sum(lists, []))) == list(range(10))
    assert sorted(set(sum(lists, []))) == list(range(10))
    for s in shares:
        s.set_epoch(1)
    again = [s.indices() for s in shares]
    assert again != lists and sorted(set(sum(again, []))) == list(range(10))
    dropped = [io.DistributedSampler(ds, 3, r, shuffle=False, drop_last=True).indices() for r in range(3)]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    # defaults from sp.distributed: rank 0 of 1 outside MPI
    if sp.distributed.world_size() == 1:
        alone = io.DistributedSampler(ds, shuffle=False)
        assert (alone.num_replicas, alone.rank, alone.indices()) == (1, 0, list(range(10)))
    with pytest.raises(ValueError, match=r"rank must be an int in \[0, 2\], got 3"):
        io.DistributedSampler(ds, num_replicas=3, rank=3)
    # a DataLoader forwards set_epoch to its sampler
    loader = io.DataLoader(ds, batch_size=2, sampler=io.DistributedSampler(ds, 2, 1, seed=9))
    loader.set_epoch(2)
    assert [i for b in loader for i in b[0].tolist()] == io.permutation(10, 9, 2).tolist()[1::2]


def test_collate_of_nested_structures():
    Pair = collections.namedtuple("Pair", "a b")
    samples = [{"x": (sp.tensor([1.0, 2.0]), np.float64(0.5)), "p": Pair(1, True), "s": "u", "l": [np.arange(2)]},
               {"x": (sp.tensor([3.0, 4.0]), np.float64(1.5)), "p": Pair(2, False), "s": "v", "l": [np.arange(2) + 5]}]
    batch = io.default_collate(samples)
    assert batch["x"][0].tolist() == [[1.0, 2.0], [3.0, 4.0]] and batch["x"][0].dtype == sp.float32
    assert batch["x"][1].dtype == sp.float64 and batch["x"][1].tolist() == [0.5, 1.5]
    assert isinstance(batch["p"], Pair) and batch["p"].a.tolist() == [1, 2] and batch["p"].a.dtype == sp.int64
    assert batch["p"].b.dtype == sp.bool and batch["p"].b.tolist() == [True, False]
    assert batch["s"] == ["u", "v"]
    assert isinstance(batch["l"], list) and batch["l"][0].tolist() == [[0, 1], [5, 6]]
    assert batch["l"][0].dtype == sp.int64
    # a tensor that requires grad keeps its graph through the stack
    w = sp.tensor([1.0, 2.0], requires_grad=True)
    stacked = io.default_collate([w * 2, w * 3])
    stacked.sum().backward()
    assert w.grad.tolist() == [5.0, 5.0]


def test_collate_errors_name_the_field_and_elements():
    with pytest.raises(io.CollateError, match=r"field \['x'\]\[1\] of batch elements 0 and 1 differ: shape \(2,\) "
                                              r"and \(3,\)"):
        io.default_collate([{"x": (1, np.zeros(2))}, {"x": (2, np.zeros(3))}])
    with pytest.raises(io.CollateError, match=r"keys \['a'\] and \['b'\]"):
        io.default_collate([{"a": 1}, {"b": 1}])
    with pytest.raises(io.CollateError, match=r"field \[0\] of batch elements 0 and 2 differ: a number and a Tensor"):
        io.default_collate([(1,), (2,), (sp.ones(1),)])
    with pytest.raises(io.CollateError, match="dtype float32 and float64"):
        io.default_collate([np.zeros(2, np.float32), np.zeros(2)])
    with pytest.raises(TypeError, match=r"cannot collate a set \(field \[0\]\)"):
        io.default_collate([({1},), ({2},)])
    with pytest.raises(TypeError, match="non-empty list of samples"):
        io.default_collate([])


def test_dataloader_argument_errors_name_the_argument():
    ds = io.TensorDataset(sp.arange(4))
    with pytest.raises(TypeError, match="batch_size must be an int >= 1, got 0"):
        io.DataLoader(ds, batch_size=0)
    with pytest.raises(TypeError, match="num_workers must be an int >= 0"):
        io.DataLoader(ds, num_workers=-1)
    with pytest.raises(TypeError, match="dataset must be a map-style dataset.*got int"):
        io.DataLoader(3)
    with pytest.raises(ValueError, match="either sampler or shuffle"):
        io.DataLoader(ds, shuffle=True, sampler=[0, 1])
    with pytest.raises(TypeError, match="collate_fn must be callable"):
        io.DataLoader(ds, collate_fn=1)
    with pytest.raises(TypeError, match="seed must be an int >= 0"):
        io.DataLoader(ds, shuffle=True, seed=-1)
    # a custom collate_fn gets the list of samples
    loader = io.DataLoader(ds, batch_size=3, collate_fn=lambda samples: len(samples))
    assert list(loader) == [3, 1]
