"""The tape keeps only what each op's gradient reads (sp.autograd.set_saved_tensor_selection), and
ops write over buffers nothing else holds (sp.autograd.set_buffer_donation): a GIN and a GCN
train to the same bits either way, with less peak memory per step; the switches are process-wide."""
import os
import sys

import numpy as np
import pytest

import sampan as sp
from sampan.helix.models import GraphModel
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import memory_bench  # noqa: E402  (the elementwise chain whose bytes are checked here)


@pytest.fixture
def selection():
    before = sp.autograd.saved_tensor_selection_enabled(), sp.autograd.buffer_donation_enabled()
    yield sp.autograd.set_saved_tensor_selection
    sp.autograd.set_saved_tensor_selection(before[0])
    sp.autograd.set_buffer_donation(before[1])


def batches(count=3, size=10):
    rng = np.random.default_rng(4)
    out = []
    for _ in range(count):
        graphs = [random_graph(rng) for _ in range(size)]
        out.append(make_batch(graphs, np.array([[float((g[0][:, 0] == 7).any())] for g in graphs])))
    return out


def train(conv, data, keep_only_what_is_read, donation=True):
    """Parameters after three Adam steps, and the peak CPU bytes of the last step above the start."""
    sp.autograd.set_saved_tensor_selection(keep_only_what_is_read)
    sp.autograd.set_buffer_donation(donation)
    sp.manual_seed(3)
    model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=3, emb_dim=64, conv=conv, dropout=0.5, pool="mean")
    opt = sp.optim.Adam(model.parameters(), lr=1e-2)
    peak = 0
    for k, b in enumerate(data):
        if k == len(data) - 1:  # the optimizer's state exists from here on
            base = sp.profiler.memory_allocated("cpu")
            sp.profiler.reset_peak_memory_stats("cpu")
        opt.zero_grad()
        loss = sp.nn.functional.binary_cross_entropy_with_logits(model(b), b.y, mask=b.y_mask)
        loss.backward()
        opt.step()
        if k == len(data) - 1:
            peak = sp.profiler.max_memory_allocated("cpu") - base
    return [p.numpy().copy() for p in model.parameters()], peak


@pytest.mark.parametrize("conv", ["gin", "gcn"])
def test_training_gives_the_same_bits_with_less_peak_memory(selection, conv):
    data = batches()
    kept_all, peak_all = train(conv, data, False)
    selected, peak_selected = train(conv, data, True)
    for a, b in zip(kept_all, selected):
        assert np.array_equal(a, b)
    # bytes, not seconds: the same step allocates the same buffers in every run
    assert peak_selected < 0.85 * peak_all, (peak_selected, peak_all)


@pytest.mark.parametrize("conv", ["gin", "gcn"])
def test_buffer_donation_trains_to_the_same_bits(selection, conv):
    data = batches()
    fresh, peak_fresh = train(conv, data, True, donation=False)
    donated, peak_donated = train(conv, data, True, donation=True)
    for a, b in zip(fresh, donated):
        assert np.array_equal(a, b)
    # a GNN step's peak is set where a product's gradient is made beside its input's: no
    # elementwise op runs then, so donation cannot lower it (bench/memory_bench.py: 1.00)
    assert peak_donated <= peak_fresh, (peak_donated, peak_fresh)


def backward_peak_of_an_elementwise_chain(donation):
    sp.autograd.set_buffer_donation(donation)
    return memory_bench.chain_backward()


def test_buffer_donation_halves_the_backward_of_an_elementwise_chain(selection):
    g_fresh, peak_fresh = backward_peak_of_an_elementwise_chain(False)
    g_donated, peak_donated = backward_peak_of_an_elementwise_chain(True)
    assert np.array_equal(g_fresh, g_donated)
    n = (1 << 16) * 8
    # without donation each relu and product gradient is a new buffer beside the one it reads;
    # with it the gradient is written over the buffer it was handed
    assert peak_fresh == 2 * n and peak_donated == n, (peak_fresh, peak_donated)


def test_python_never_donates_a_tensor_it_holds(selection):
    sp.autograd.set_buffer_donation(True)
    x = sp.tensor([-1.0, 2.0, -3.0])
    y = sp.relu(x)
    assert x.tolist() == [-1.0, 2.0, -3.0] and y.tolist() == [0.0, 2.0, 0.0]
    z = sp.relu(x * 2.0)  # a temporary: still a Python object while the call runs
    assert z.tolist() == [0.0, 4.0, 0.0]


def test_the_switch_is_process_wide_and_reads_back(selection):
    selection(False)
    assert sp.autograd.saved_tensor_selection_enabled() is False
    selection(True)
    assert sp.autograd.saved_tensor_selection_enabled() is True
    sp.autograd.set_buffer_donation(False)
    assert sp.autograd.buffer_donation_enabled() is False
    sp.autograd.set_buffer_donation(True)
    assert sp.autograd.buffer_donation_enabled() is True


def test_an_unkept_input_is_freed_while_the_graph_lives(selection):
    selection(True)
    x = sp.randn(64, 32, dtype=sp.float64).requires_grad_()
    w = sp.randn(32, 256, dtype=sp.float64).requires_grad_()
    b = sp.randn(256, dtype=sp.float64).requires_grad_()
    base = sp.profiler.memory_allocated("cpu")
    y = x @ w + b  # add's gradient reads neither operand: x @ w is freed once y exists
    held = sp.profiler.memory_allocated("cpu") - base
    assert held == 64 * 256 * 8  # y alone
    y.sum().backward()
    assert np.allclose(b.grad.numpy(), 64.0)


def test_the_schema_says_what_each_op_keeps():
    assert sp.ops.schema("core::add")["saves_for_vjp"] == []
    assert sp.ops.schema("core::relu")["saves_for_vjp"] == ["out"]
    assert sp.ops.schema("core::batch_norm_train")["saves_for_vjp"] == ["x", "weight", "mean", "var"]
    assert sp.ops.schema("core::logsumexp")["saves_for_vjp"] is None  # not declared: everything
    assert sp.ops.schema("core::add")["output_may_reuse"] == ["x", "y"]
    assert sp.ops.schema("core::relu_backward")["output_may_reuse"] == ["grad"]
    assert sp.ops.schema("core::matmul")["output_may_reuse"] == []
