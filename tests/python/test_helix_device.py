"""helix models on a device: GraphBatch.to puts a batch's arrays on it as tensors, which the GIN
and the pretraining tasks take as they take NumPy arrays (the same bits on the CPU; the tasks
pick atoms on the host and put what they make on the batch's device), sp.Model places batches on
its network's device, and on a GPU a training step gives the CPU's loss and gradients to
rounding."""

import numpy as np
import pytest

import sampan as sp
from sampan.helix.data import GraphBatch
from sampan.helix.finetune import masked_loss
from sampan.helix.models import GNNEncoder, GraphModel
from sampan.helix.pretrain import AttributeMasking, ContextPrediction, pretrain
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph

needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")


def graph_batch(seed=0, count=10):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng) for _ in range(count)]
    y = np.array([[float((g[0][:, 0] == 7).any())] for g in graphs])
    ns = make_batch(graphs, y)
    offsets = np.concatenate([[0], np.cumsum(ns.counts)]).astype(np.int64)
    edge_counts = np.array([2 * len(g[1]) for g in graphs], np.int64)
    return GraphBatch(ns.x, ns.edge_index, ns.edge_attr, ns.batch, ns.num_graphs, ns.counts, offsets, edge_counts,
                      ns.y, ns.y_mask, np.arange(count, dtype=np.int64), [""] * count, "pretrain_gnns")


def test_graph_batch_to_makes_tensors_of_the_same_values():
    batch = graph_batch()
    moved = batch.to("cpu")
    for field in ("x", "edge_index", "edge_attr", "batch", "counts", "node_offsets", "edge_counts", "y", "y_mask"):
        t = getattr(moved, field)
        assert isinstance(t, sp.Tensor) and t.device == "cpu", field
        np.testing.assert_array_equal(t.numpy(), getattr(batch, field))
    assert moved.num_graphs == batch.num_graphs and moved.smiles == batch.smiles
    with pytest.raises(ValueError, match="device must be"):
        batch.to("npu")


@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_a_gin_step_on_a_moved_batch_has_the_bits_of_the_numpy_batch(dropout):
    batch = graph_batch(1)
    results = []
    for b in (batch, batch.to("cpu")):
        sp.manual_seed(3)
        model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=3, emb_dim=16, dropout=dropout)
        loss = masked_loss(model(b), b, classification=True)
        loss.backward()
        results.append([loss.numpy()] + [p.grad.numpy().copy() for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_sp_model_leaves_cpu_batches_as_they_are():
    sp.manual_seed(0)
    model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=2, emb_dim=8, dropout=0.0)
    trained = sp.Model(model, split_batch=lambda b: ([b], [b]))
    trained.prepare(sp.optim.Adam(model.parameters(), 1e-2), lambda out, b: masked_loss(out, b, True))
    batch = graph_batch(2)
    assert "loss" in trained.train_batch([batch], [batch])
    assert trained._placement() == "cpu"


@needs_gpu
@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_a_gin_training_step_on_the_gpu_gives_the_cpus_loss_and_gradients(dropout):
    batch = graph_batch(4, count=16)
    results = {}
    for device in ("cpu", "cuda"):
        sp.manual_seed(5)
        model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=3, emb_dim=32, dropout=dropout).to(device)
        b = batch.to(device)
        loss = masked_loss(model(b), b, classification=True)
        loss.backward()
        assert all(p.grad.device == ("cpu" if device == "cpu" else "cuda:0") for p in model.parameters())
        results[device] = [loss.cpu().numpy()] + [p.grad.cpu().numpy() for p in model.parameters()]
    for got, want in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


@needs_gpu
def test_sp_model_fits_a_gin_on_the_gpu_from_cpu_batches():
    batch = graph_batch(6, count=24)
    losses = {}
    for device in ("cpu", "cuda"):
        sp.manual_seed(7)
        model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=2, emb_dim=16, dropout=0.0).to(device)
        trained = sp.Model(model, split_batch=lambda b: ([b], [b]))
        trained.prepare(sp.optim.Adam(model.parameters(), 1e-2), lambda out, b: masked_loss(out, b, True))
        losses[device] = [trained.train_batch([batch], [batch])["loss"] for _ in range(10)]
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-4)


def pretraining_task(task, seed=4):
    sp.manual_seed(2)
    encoder = GNNEncoder("pretrain_gnns", num_layers=3, emb_dim=16, dropout=0.0)
    return AttributeMasking(encoder, 0.15, seed=seed) if task == "attr_mask" else ContextPrediction(encoder, 3, seed=seed)


@pytest.mark.parametrize("task", ["attr_mask", "context_pred"])
def test_pretraining_tasks_on_a_moved_batch_have_the_bits_of_the_numpy_batch(task):
    batch = graph_batch(3, count=12)
    results = []
    for b in (batch, batch.to("cpu")):
        model = pretraining_task(task)
        loss, accuracy = model(b)
        loss.backward()
        results.append([loss.numpy(), accuracy] + [p.grad.numpy().copy() for p in model.parameters()
                                                     if p.grad is not None])
    assert len(results[0]) == len(results[1]) > 2
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@needs_gpu
@pytest.mark.parametrize("task", ["attr_mask", "context_pred"])
def test_pretraining_on_the_gpu_follows_the_cpus_losses(task):
    batches = [graph_batch(10 + k, count=12) for k in range(4)]
    history = {}
    for device in ("cpu", "cuda"):
        model = pretraining_task(task)
        result = pretrain(model, batches, epochs=2, lr=1e-2, device=device)
        assert all(str(p.device) == ("cpu" if device == "cpu" else "cuda:0") for p in model.parameters())
        history[device] = result["history"]
    for key in history["cpu"]:
        np.testing.assert_allclose(history["cuda"][key], history["cpu"][key], rtol=1e-4, atol=1e-6)
