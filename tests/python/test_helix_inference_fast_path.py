"""GIN's regrouped arithmetic (sampan/helix/models/fast_path.py) against the plain modules
(encoder.fast_path = False): the same outputs, losses and gradients to rounding, in eval and in
training, with and without the projected first layer, and BatchNorm folding against its closed form."""
import numpy as np
import pytest

import sampan as sp
from sampan.helix.models import GraphModel, fast_path
from helix_synthetic import make_batch, random_graph

FEATS = "pretrain_gnns"


def _batch(seed, count, n_min=3, n_max=9, empty_graphs=0):
    """count random molecules plus `empty_graphs` graphs with no atoms at the end."""
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, n_min, n_max) for _ in range(count)]
    batch = make_batch(graphs, (rng.random((count, 2)) > 0.5).astype(np.float64))
    batch.num_graphs += empty_graphs
    batch.y = np.concatenate([batch.y, np.zeros((empty_graphs, 2), np.float32)])
    batch.y_mask = np.concatenate([batch.y_mask, np.zeros((empty_graphs, 2), bool)])
    return batch


def _model(dtype, jk="last", pool="mean", layers=3, dim=24, dropout=0.0):
    sp.manual_seed(0)
    model = GraphModel(2, FEATS, num_layers=layers, emb_dim=dim, jk=jk, pool=pool, dropout=dropout).to(dtype)
    rng = np.random.default_rng(1)
    with sp.no_grad():  # BatchNorm statistics and affine maps away from their initial 0 / 1
        for norm in model.encoder.norms:
            for name in ("running_mean", "running_var", "weight", "bias"):
                t = getattr(norm, name)
                values = rng.uniform(0.5, 2.0, t.shape) if name in ("running_var", "weight") else rng.normal(size=t.shape)
                sp.copy_(t, sp.from_numpy(values.astype(np.float64)).to(dtype))
    return model


def _outputs(model, batch, fast, grad=False):
    model.encoder.fast_path = fast
    model.eval()
    if grad:
        return model(batch).numpy().astype(np.float64)
    with sp.no_grad():
        return model(batch).numpy().astype(np.float64)


def _relative(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


@pytest.mark.parametrize("pool", ["mean", "sum", "max", "attention"])
@pytest.mark.parametrize("jk", ["last", "concat", "max"])
def test_eval_outputs_equal_the_plain_modules(jk, pool):
    """Big batch (projected first layer, combination table of bonds, folded BatchNorm, the last
    Linear after a linear readout) and a small one (no projection), two empty graphs at the end."""
    for count, n_max in ((40, 14), (4, 6)):
        batch = _batch(7, count, n_max=n_max, empty_graphs=2)
        for dtype, tol in ((sp.float64, 1e-12), (sp.float32, 1e-5)):
            model = _model(dtype, jk, pool)
            plain = _outputs(model, batch, False)
            assert _relative(_outputs(model, batch, True), plain) <= tol, (count, dtype)
            assert _relative(_outputs(model, batch, True, grad=True), plain) <= tol, (count, dtype)


def test_the_big_batch_takes_the_projected_first_layer_and_the_small_one_does_not():
    model = _model(sp.float64)
    rows = fast_path.table_rows(model.encoder.atom_encoder) + fast_path.table_rows(model.encoder.convs[0].bond_embedding)
    assert rows == (119 + 2) + (4 + 2) + (5 + 2) + (4 + 2)
    assert _batch(7, 40, n_max=14).x.shape[0] > rows > _batch(7, 4, n_max=6).x.shape[0]


def test_folded_linear_is_the_closed_form_of_linear_then_batch_norm():
    linear, norm = sp.nn.Linear(5, 3).to(sp.float64), sp.nn.BatchNorm1d(3).to(sp.float64)
    rng = np.random.default_rng(2)
    mean, var, gamma, beta = rng.normal(size=3), rng.uniform(0.1, 3, 3), rng.normal(size=3), rng.normal(size=3)
    with sp.no_grad():
        for t, v in ((norm.running_mean, mean), (norm.running_var, var), (norm.weight, gamma), (norm.bias, beta)):
            sp.copy_(t, sp.from_numpy(v))
    norm.eval()
    r = rng.normal(size=(7, 5))
    w, b = linear.weight.numpy(), linear.bias.numpy()
    expected = ((r @ w.T + b) - mean) / np.sqrt(var + norm.eps) * gamma + beta
    weight, bias = fast_path.folded_linear(linear, norm)
    np.testing.assert_allclose(r @ weight.numpy().T + bias.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_eval_follows_the_weights_after_training_steps():
    """The folded weights are made on every call: after Adam steps the eval outputs are still the plain ones."""
    batch = _batch(5, 40, n_max=14)
    model = _model(sp.float64, dropout=0.5)
    opt = sp.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(2):
        model.train()
        opt.zero_grad()
        sp.nn.functional.binary_cross_entropy_with_logits(model(batch), batch.y.astype(np.float64),
                                                          mask=batch.y_mask).backward()
        opt.step()
        assert _relative(_outputs(model, batch, True), _outputs(model, batch, False)) <= 1e-12


def _train(fast, jk, dtype, steps=3):
    batch = _batch(9, 40, n_max=14)
    model = _model(dtype, jk, dropout=0.5)
    model.encoder.fast_path = fast
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    sp.manual_seed(4)  # the same dropout masks on both paths
    losses, grads = [], []
    for _ in range(steps):
        model.train()
        opt.zero_grad()
        y = batch.y.astype(np.float64) if dtype is sp.float64 else batch.y
        loss = sp.nn.functional.binary_cross_entropy_with_logits(model(batch), y, mask=batch.y_mask)
        loss.backward()
        grads.append({k: p.grad.numpy().astype(np.float64) for k, p in model.named_parameters()})
        opt.step()
        losses.append(loss.item())
    return np.array(losses), grads


@pytest.mark.parametrize("jk", ["last", "concat"])
def test_training_losses_and_gradients_equal_the_plain_modules(jk):
    """float64, the projected first layer: three Adam steps, losses and every gradient to 1e-10
    (of the largest gradient for the biases before BatchNorm, whose exact gradient is 0)."""
    fast_losses, fast_grads = _train(True, jk, sp.float64)
    plain_losses, plain_grads = _train(False, jk, sp.float64)
    np.testing.assert_allclose(fast_losses, plain_losses, rtol=1e-10)
    for fast, plain in zip(fast_grads, plain_grads):
        scale = max(np.abs(g).max() for g in plain.values())
        for k in plain:
            assert np.abs(fast[k] - plain[k]).max() <= 1e-10 * max(np.abs(plain[k]).max(), 1e-3 * scale), k


def test_float32_first_gradients_agree_to_rounding():
    fast_losses, fast_grads = _train(True, "last", sp.float32, steps=1)
    plain_losses, plain_grads = _train(False, "last", sp.float32, steps=1)
    assert abs(fast_losses[0] - plain_losses[0]) <= 1e-5 * abs(plain_losses[0])
    scale = max(np.abs(g).max() for g in plain_grads[0].values())
    for k, plain in plain_grads[0].items():
        assert np.abs(fast_grads[0][k] - plain).max() <= 1e-4 * max(np.abs(plain).max(), 1e-3 * scale), k


def test_combined_bond_table_gives_the_bits_of_the_per_column_sum():
    model = _model(sp.float32)
    bonds = model.encoder.convs[0].bond_embedding
    attr = _batch(3, 40, n_max=14).edge_attr
    tables = [t.weight.numpy() for t in bonds.tables]
    per_column = tables[0][attr[:, 0]] + tables[1][attr[:, 1]]
    combined = bonds.combined_table([t.weight for t in bonds.tables]).numpy()
    assert bonds.combinations() == combined.shape[0] == 7 * 6
    assert np.array_equal(combined[bonds.combined_index(sp.from_numpy(attr)).numpy()], per_column)


def test_bad_bond_features_are_a_clear_error_on_the_fast_path():
    batch = _batch(3, 40, n_max=14)
    batch.edge_attr = batch.edge_attr[:, :1].copy()
    model = _model(sp.float32)
    model.eval()
    with sp.no_grad(), pytest.raises(ValueError, match=r"bond encoder: expected an int64 matrix \[n, 2\].*got shape"):
        model(batch)
    batch = _batch(3, 40, n_max=14)
    batch.edge_attr = batch.edge_attr[:-1].copy()
    with sp.no_grad(), pytest.raises(ValueError, match="GINConv: edge_attr has"):
        model(batch)
