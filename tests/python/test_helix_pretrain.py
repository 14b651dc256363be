"""helix pretraining: attribute masking and context prediction (Hu et al. 2020) on synthetic
molecules, checked against brute-force definitions, and encoder checkpoints."""
import numpy as np
import pytest

import sampan as sp
from sampan.helix import pretrain as pt
from sampan.helix.models import GNNEncoder, GraphModel
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph

FEATS = (ATOM_DIMS, BOND_DIMS)


def _bond_rule_graphs(seed, count, n_min=4, n_max=14):
    """Atom type 7 when the atom has a double bond (type 1), else 6: predictable from the bonds."""
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(count):
        x, bonds, attr = random_graph(rng, n_min, n_max)
        attr[:, 0] = rng.choice([0, 1], len(bonds), p=[0.7, 0.3])
        x[:, 0] = 6
        for (i, j), t in zip(bonds, attr[:, 0]):
            if t == 1:
                x[i, 0] = x[j, 0] = 7
        graphs.append((x, bonds, attr))
    return graphs


def _all_pairs_distances(n, edge_index):
    d = np.full((n, n), np.inf)
    np.fill_diagonal(d, 0)
    d[edge_index[0], edge_index[1]] = 1
    for k in range(n):  # Floyd-Warshall
        d = np.minimum(d, d[:, [k]] + d[[k], :])
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def test_mask_atoms_masks_int_015n_plus_1_atoms_per_molecule():
    graphs = _bond_rule_graphs(0, 8)
    batch = make_batch(graphs)
    x_masked, masked, targets = pt.mask_atoms(batch, ATOM_DIMS, 0.15, np.random.default_rng(0))
    x, xm, idx = batch.x, x_masked.numpy(), masked.numpy()
    graph_of = batch.batch
    for g, (gx, _, _) in enumerate(graphs):
        assert (graph_of[idx] == g).sum() == int(0.15 * len(gx) + 1)
    assert (xm[idx] == np.array(ATOM_DIMS)).all()
    untouched = np.setdiff1d(np.arange(len(x)), idx)
    assert (xm[untouched] == x[untouched]).all()
    assert (targets.numpy() == x[idx, 0]).all()


def test_hop_distances_match_floyd_warshall():
    batch = make_batch([random_graph(np.random.default_rng(s), 6, 14) for s in range(4)])
    n, e = batch.x.shape[0], batch.edge_index
    sources = [0, 5, n - 1]
    np.testing.assert_array_equal(pt.hop_distances(n, e, sources), _all_pairs_distances(n, e)[sources])


def test_context_pairs_follow_the_hop_rings():
    graphs = [random_graph(np.random.default_rng(s), 10, 16) for s in range(5)]
    batch = make_batch(graphs)
    k, r1, r2 = 2, 1, 4
    n, e = batch.x.shape[0], batch.edge_index
    full = _all_pairs_distances(n, e)
    rng = np.random.default_rng(3)
    sub, centers, ctx, anchors, anchor_mol, m = pt.context_pairs(batch, k, r1, r2, np.random.default_rng(3))
    # Recompute the same random centers and the rings by brute force.
    graph_of = batch.batch
    chosen = [int(rng.choice(np.flatnonzero(graph_of == g))) for g in range(len(graphs))]
    kept = [c for c in chosen if ((full[c] > r1) & (full[c] <= r2)).any()]
    assert m == len(kept)
    want_sub = sum(((full[c] >= 0) & (full[c] <= k)).sum() for c in kept)
    want_ctx = sum(((full[c] > r1) & (full[c] <= r2)).sum() for c in kept)
    want_anchor = [((full[c] > r1) & (full[c] <= k)).sum() for c in kept]
    assert sub.x.shape[0] == want_sub and ctx.x.shape[0] == want_ctx
    np.testing.assert_array_equal(np.bincount(anchor_mol.numpy(), minlength=m), want_anchor)
    # The centers in the substructure batch are the chosen atoms (same features).
    np.testing.assert_array_equal(sub.x.numpy()[centers.numpy()], batch.x[kept])
    # Subgraph edges stay inside their atom set.
    assert sub.edge_index.numpy().max() < sub.x.shape[0] and ctx.edge_index.numpy().max() < ctx.x.shape[0]


def test_attribute_masking_learns_a_predictable_atom_type():
    graphs = _bond_rule_graphs(1, 64)
    batches = [make_batch(graphs[s:s + 16]) for s in range(0, 64, 16)]
    sp.manual_seed(0)
    task = pt.AttributeMasking(GNNEncoder(FEATS, num_layers=2, emb_dim=32), seed=0)
    result = pt.pretrain(task, batches, epochs=30, lr=5e-3)
    acc = result["history"]["accuracy"]
    # The majority type (6) is about 60 % of atoms; the bonds decide the type exactly.
    assert np.mean(acc[-5:]) > 0.9, acc
    assert result["history"]["loss"][-1] < 0.3 * result["history"]["loss"][0]


def test_context_prediction_separates_own_context_from_others():
    rng = np.random.default_rng(2)
    graphs = [random_graph(rng, 8, 16, atom_types=(6, 7, 8, 9, 15, 16, 17)) for _ in range(64)]
    batches = [make_batch(graphs[s:s + 16]) for s in range(0, 64, 16)]
    sp.manual_seed(0)
    task = pt.ContextPrediction(GNNEncoder(FEATS, num_layers=2, emb_dim=32), context_size=2, seed=0)
    result = pt.pretrain(task, batches, epochs=60, lr=1e-3)
    loss, acc = result["history"]["loss"], result["history"]["accuracy"]
    # Chance is 0.5 (as many negatives as positives); random centers keep it well below 1.
    assert np.mean(loss[-5:]) < 0.5 * loss[0] and np.mean(acc[-5:]) > 0.7, (loss, acc)


def test_supervised_pretraining_reduces_the_loss():
    graphs = _bond_rule_graphs(3, 32)
    y = np.array([[float((g[0][:, 0] == 7).any()), float(len(g[0]) > 8)] for g in graphs])
    batches = [make_batch(graphs[s:s + 8], y[s:s + 8]) for s in range(0, 32, 8)]
    sp.manual_seed(0)
    encoder = GNNEncoder(FEATS, num_layers=2, emb_dim=16)
    before = [p.numpy().copy() for p in encoder.parameters()]
    loss = pt.pretrain_supervised(encoder, 2, batches, epochs=20, lr=5e-3)["history"]["loss"]
    assert loss[-1] < 0.5 * loss[0]
    assert any(np.abs(a - p.numpy()).max() > 0 for a, p in zip(before, encoder.parameters()))


def test_encoder_checkpoint_round_trip_and_fit_check(tmp_path):
    sp.manual_seed(4)
    encoder = GNNEncoder(FEATS, num_layers=2, emb_dim=8, jk="sum")
    batch = make_batch(_bond_rule_graphs(4, 3))
    encoder(batch.x, batch.edge_index, batch.edge_attr)  # move the BatchNorm running statistics
    encoder.eval()
    want = encoder(batch.x, batch.edge_index, batch.edge_attr).numpy()
    path = tmp_path / "enc.h5"
    pt.save_encoder(encoder, path, {"task": "attr_mask", "epochs": 1})
    loaded, provenance = pt.load_encoder(path)
    assert provenance == {"task": "attr_mask", "epochs": 1}
    np.testing.assert_allclose(loaded(batch.x, batch.edge_index, batch.edge_attr).numpy(), want, rtol=1e-6)
    # Into a GraphModel for fine-tuning.
    model = GraphModel(1, FEATS, num_layers=2, emb_dim=8, jk="sum")
    payload = pt.load_encoder_payload(path)
    pt.check_encoder_fits(payload, {"featurizer": FEATS, "num_layers": 2, "emb_dim": 8, "conv": "gin", "jk": "sum"}, path)
    model.encoder.load_state_dict(payload["state"])
    model.eval()
    np.testing.assert_allclose(model.encoder(batch.x, batch.edge_index, batch.edge_attr).numpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="emb_dim=8 but the model asks emb_dim=300"):
        pt.check_encoder_fits(payload, {"emb_dim": 300}, path)
    with pytest.raises(ValueError, match="not a sampan.helix pretrained encoder"):
        pt.load_encoder_payload(_other(tmp_path))


def _other(tmp_path):
    path = tmp_path / "other.h5"
    sp.save({"kind": "something else"}, str(path))
    return path
