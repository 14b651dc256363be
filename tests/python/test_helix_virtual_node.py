"""OGB's virtual node in helix's GNN encoder (GIN-virtual): outputs against a plain-NumPy
reimplementation of OGB's GNN_node_Virtualnode arithmetic on top of Hu et al.'s GIN layer (train
and eval mode, fast path on and off, JK 'last' and 'concat'), gradients against finite
differences, save/load round trips (and files written before the option existed), the errors,
the one-graph batches fine-tuning skips, and `sampan helix finetune --virtual-node`."""
import numpy as np
import pytest

import sampan as sp
from sampan.helix import native_available
from sampan.helix.finetune import skip_predicate
from sampan.helix.model_io import check_encoder_fits, load_encoder, load_model, save_encoder, save_model
from sampan.helix.models import GNNEncoder, GraphModel
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph
from test_helix_train_cli import SMILES

FEATS = (ATOM_DIMS, BOND_DIMS)
EPS = 1e-5  # BatchNorm1d's


def _batch(seed=0, count=5):
    rng = np.random.default_rng(seed)
    return make_batch([random_graph(rng) for _ in range(count)])


def _w(t):
    return t.detach().numpy().astype(np.float64)


def _batch_norm(z, norm, training):
    if training:
        mean, var = z.mean(0), z.var(0)  # biased variance, as BatchNorm normalizes with
    else:
        mean, var = _w(norm.running_mean), _w(norm.running_var)
    return (z - mean) / np.sqrt(var + EPS) * _w(norm.weight) + _w(norm.bias)


def _embed(encoder, x):
    return sum(_w(t.weight)[x[:, c]] for c, t in enumerate(encoder.tables))


def _gin_layer(conv, h, batch):
    """Hu et al.'s GIN: MLP(sum over in-edges (h_j + e_ji) + h_i + e_self)."""
    bonds = conv.bond_embedding
    e = _embed(bonds, batch.edge_attr)
    self_loop = _w(bonds.tables[0].weight)[bonds.dims[0]] + sum(_w(t.weight)[0] for t in list(bonds.tables)[1:])
    agg = np.zeros_like(h)
    np.add.at(agg, batch.edge_index[1], h[batch.edge_index[0]] + e)
    agg = agg + h + self_loop
    lin1, lin2 = conv.mlp[0], conv.mlp[2]
    r = np.maximum(agg @ _w(lin1.weight).T + _w(lin1.bias), 0.0)
    return r @ _w(lin2.weight).T + _w(lin2.bias)


def _vn_mlp(mlp, s, training):
    """Linear -> BatchNorm -> ReLU -> Linear -> BatchNorm -> ReLU over the graphs."""
    z = np.maximum(_batch_norm(s @ _w(mlp[0].weight).T + _w(mlp[0].bias), mlp[1], training), 0.0)
    return np.maximum(_batch_norm(z @ _w(mlp[3].weight).T + _w(mlp[3].bias), mlp[4], training), 0.0)


def numpy_encoder(enc, batch, training):
    """OGB's GNN_node_Virtualnode forward (dropout 0), written out in NumPy."""
    g = batch.num_graphs
    v = np.repeat(_w(enc.virtual_node.embedding), g, 0)  # the zero-initialised row, one per graph
    h_list = [_embed(enc.atom_encoder, batch.x)]
    for k in range(enc.num_layers):
        h_list[k] = h_list[k] + v[batch.batch]
        h = _batch_norm(_gin_layer(enc.convs[k], h_list[k], batch), enc.norms[k], training)
        if k < enc.num_layers - 1:
            h = np.maximum(h, 0.0)
        h_list.append(h)
        if k < enc.num_layers - 1:
            pooled = np.zeros((g, h.shape[1]))
            np.add.at(pooled, batch.batch, h_list[k])
            v = _vn_mlp(enc.virtual_node.mlps[k], pooled + v, training)
    return h_list[-1] if enc.jk == "last" else np.concatenate(h_list, 1)


def _randomize(model, seed):
    """Nonzero virtual-node row and BatchNorm affine parameters, so every term shows."""
    rng = np.random.default_rng(seed)
    for name, p in model.named_parameters():
        if name.endswith("virtual_node.embedding") or ".norms." in name or ".mlps." in name:
            p.numpy()[...] = rng.normal(size=p.shape)


@pytest.mark.parametrize("jk", ["last", "concat"])
@pytest.mark.parametrize("fast", [True, False])
def test_virtual_node_encoder_matches_numpy(jk, fast):
    sp.manual_seed(0)
    model = GraphModel(2, FEATS, num_layers=3, emb_dim=6, jk=jk, dropout=0.0, virtual_node=True).double()
    _randomize(model, 1)
    enc = model.encoder
    enc.fast_path = fast
    batch = _batch()
    # training: BatchNorm with batch statistics
    want = numpy_encoder(enc, batch, training=True)
    got = enc(batch.x, batch.edge_index, batch.edge_attr, batch.batch, batch.num_graphs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # eval: running statistics (moved by the training forwards above), the pooled fast path too
    model.eval()
    want = numpy_encoder(enc, batch, training=False)
    got = enc(batch.x, batch.edge_index, batch.edge_attr, batch.batch, batch.num_graphs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    pooled = model.embed(batch).numpy()
    counts = np.bincount(batch.batch, minlength=batch.num_graphs)[:, None]
    sums = np.zeros((batch.num_graphs, want.shape[1]))
    np.add.at(sums, batch.batch, want)
    np.testing.assert_allclose(pooled, sums / counts, rtol=1e-10, atol=1e-12)


def test_virtual_node_changes_the_output_and_plain_models_are_unchanged():
    sp.manual_seed(0)
    plain = GraphModel(2, FEATS, num_layers=3, emb_dim=6, dropout=0.0).double()
    sp.manual_seed(0)
    virtual = GraphModel(2, FEATS, num_layers=3, emb_dim=6, dropout=0.0, virtual_node=True).double()
    assert not any("virtual_node" in k for k in plain.state_dict())
    assert plain.config["virtual_node"] is False and virtual.config["virtual_node"] is True
    batch = _batch()
    # Same seed, same GIN weights (the virtual node's are drawn after them); its zero row alone
    # leaves layer 1 as it is, its MLPs' output changes the later layers.
    assert np.abs(plain(batch).numpy() - virtual(batch).numpy()).max() > 1e-3


def test_virtual_node_gradients_match_finite_differences():
    sp.manual_seed(3)
    model = GraphModel(2, FEATS, num_layers=3, emb_dim=5, dropout=0.0, virtual_node=True).double()
    _randomize(model, 2)
    batch = _batch(4, 4)
    weights = sp.tensor(np.random.default_rng(0).normal(size=(4, 2)))

    def loss():
        return (model(batch) * weights).sum()

    model.zero_grad()
    loss().backward()
    params = dict(model.named_parameters())
    names = ["encoder.virtual_node.embedding", "encoder.virtual_node.mlps.0.0.weight",
             "encoder.virtual_node.mlps.1.1.weight", "encoder.virtual_node.mlps.0.4.bias",
             "encoder.convs.2.mlp.0.weight", "encoder.atom_encoder.tables.1.weight"]
    rng = np.random.default_rng(1)
    for name in names:
        p = params[name]
        values, grad = p.numpy(), p.grad.numpy()
        assert np.abs(grad).max() > 0, name
        for _ in range(3):
            if name.endswith("atom_encoder.tables.1.weight"):  # a row that is used
                idx = (int(batch.x[rng.integers(len(batch.x)), 1]), int(rng.integers(values.shape[1])))
            else:
                idx = tuple(int(rng.integers(s)) for s in values.shape)
            old = values[idx]
            with sp.no_grad():
                values[idx] = old + 1e-6
                up = loss().item()
                values[idx] = old - 1e-6
                down = loss().item()
                values[idx] = old
            fd = (up - down) / 2e-6
            assert abs(fd - grad[idx]) <= 1e-6 + 1e-5 * abs(fd), (name, idx, fd, grad[idx])


def test_save_and_load_round_trip(tmp_path):
    sp.manual_seed(5)
    model = GraphModel(2, FEATS, num_layers=2, emb_dim=6, virtual_node=True)
    _randomize(model, 3)
    batch = _batch()
    model(batch)  # move the running statistics
    model.eval()
    want = model(batch).numpy()
    save_model(model, tmp_path / "m.h5")
    loaded = load_model(tmp_path / "m.h5")
    assert loaded.config["virtual_node"] is True
    np.testing.assert_array_equal(loaded(batch).numpy(), want)
    save_encoder(model.encoder, tmp_path / "enc.h5")
    encoder, _ = load_encoder(tmp_path / "enc.h5")
    assert encoder.virtual_node is not None
    np.testing.assert_array_equal(
        encoder(batch.x, batch.edge_index, batch.edge_attr, batch.batch, batch.num_graphs).numpy(),
        model.encoder(batch.x, batch.edge_index, batch.edge_attr, batch.batch, batch.num_graphs).numpy())


def test_files_written_before_the_option_load_as_plain_models(tmp_path):
    model = GraphModel(2, FEATS, num_layers=2, emb_dim=6).eval()
    config = {k: v for k, v in model.config.items() if k != "virtual_node"}
    config["featurizer"] = [list(ATOM_DIMS), list(BOND_DIMS)]
    sp.save({"kind": "sampan.helix.GraphModel", "config": config, "state": model.state_dict()}, str(tmp_path / "old.h5"))
    loaded = load_model(tmp_path / "old.h5")
    assert loaded.encoder.virtual_node is None and loaded.config["virtual_node"] is False
    batch = _batch()
    np.testing.assert_array_equal(loaded(batch).numpy(), model(batch).numpy())
    # an old encoder file fits a plain model, not a virtual-node one
    old_encoder = {"config": {k: v for k, v in model.encoder.config.items() if k != "virtual_node"}}
    check_encoder_fits(old_encoder, dict(model.config), "old.h5")
    with pytest.raises(ValueError, match="virtual_node=False but the model asks virtual_node=True"):
        check_encoder_fits(old_encoder, dict(model.config, virtual_node=True), "old.h5")


def test_forward_without_the_batch_is_a_clear_error():
    encoder = GNNEncoder(FEATS, num_layers=2, emb_dim=4, virtual_node=True)
    batch = _batch()
    with pytest.raises(ValueError, match="forward needs batch .* got no batch"):
        encoder(batch.x, batch.edge_index, batch.edge_attr)
    # without a virtual node batch is not needed
    GNNEncoder(FEATS, num_layers=2, emb_dim=4)(batch.x, batch.edge_index, batch.edge_attr)


def test_one_graph_batches_are_skipped_for_virtual_node_models_only():
    one, two = _batch(0, 1), _batch(0, 2)
    virtual = GraphModel(1, FEATS, num_layers=2, emb_dim=4, virtual_node=True)
    plain = GraphModel(1, FEATS, num_layers=2, emb_dim=4)
    assert skip_predicate(virtual)(one) and not skip_predicate(virtual)(two)
    assert not skip_predicate(plain)(one)
    with pytest.raises(Exception, match="more than one value per channel"):
        virtual(one)  # what the skip avoids: the MLP's BatchNorm over a single graph


@pytest.mark.skipif(not native_available(), reason="sampan_helix not built (needs RDKit)")
def test_finetune_command_builds_a_virtual_node_model(tmp_path, monkeypatch):
    from sampan import cli
    monkeypatch.setenv("SAMPAN_HELIX_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "toy.csv"  # two made-up tasks: aromatic atom present, nitrogen present
    path.write_text("smiles,aromatic,nitrogen\n" + "".join(
        f"{s},{int(any(c in s for c in 'cnos'))},{int('N' in s or 'n' in s)}\n" for s in SMILES))
    out = tmp_path / "m.json"
    args = ["helix", "finetune", "--dataset", str(path), "--epochs", "1", "--seeds", "0", "--batch-size", "4",
            "--layers", "2", "--emb-dim", "8", "--no-progress", "--threads", "1", "--out", str(out)]
    assert cli.main(args + ["--virtual-node"]) == 0
    model = load_model(tmp_path / "m.h5")
    assert model.config["virtual_node"] is True and model.encoder.virtual_node is not None
    assert cli.main(args) == 0
    assert load_model(tmp_path / "m.h5").encoder.virtual_node is None
