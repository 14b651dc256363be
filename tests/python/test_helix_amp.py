"""helix GNNs under sp.amp.autocast(bfloat16): the GIN (its fast path included: the in-place bias
add must not write float32 into a bfloat16 product) trains and predicts like float32 within
bfloat16's precision, and fits the same synthetic rule as in float32."""
import numpy as np
import pytest

import sampan as sp
from sampan.helix.models import GraphModel
from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, phosphorus_rule_set, random_graph

FEATS = (ATOM_DIMS, BOND_DIMS)


def batch_of(seed, count, rule=None):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng) for _ in range(count)]
    y = None if rule is None else np.array([[rule(g)] for g in graphs])
    return make_batch(graphs, y)


def loss_of(model, batch):
    return sp.nn.functional.binary_cross_entropy_with_logits(model(batch), batch.y, mask=batch.y_mask)


@pytest.mark.parametrize("conv", ["gin", "gcn", "gat"])
def test_a_training_step_and_eval_under_autocast_agree_with_float32(conv):
    batch = batch_of(0, 12, rule=lambda g: float((g[0][:, 0] == 7).any()))
    sp.manual_seed(2)
    model = GraphModel(1, FEATS, num_layers=3, emb_dim=32, conv=conv, dropout=0.0, pool="mean")
    loss32 = loss_of(model, batch)
    loss32.backward()
    grads32 = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    with sp.amp.autocast("cpu", dtype=sp.bfloat16):
        loss = loss_of(model, batch)
    loss.backward()
    assert loss.dtype == sp.float32
    assert abs(loss.item() - loss32.item()) < 0.02 * abs(loss32.item()) + 1e-3
    for p, g32 in zip(model.parameters(), grads32):
        assert p.grad.dtype == sp.float32
        # bfloat16 keeps 8 significant bits; through 3 layers a gradient tensor stays within 15%
        # (a wrong or missing gradient path would be off by 100%).
        assert np.linalg.norm(p.grad.numpy() - g32) <= 0.15 * np.linalg.norm(g32) + 1e-6
    model.eval()
    with sp.no_grad():
        want = model(batch).numpy()
        with sp.amp.autocast("cpu", dtype=sp.bfloat16):
            got = model(batch).to(sp.float32).numpy()
    np.testing.assert_allclose(got, want, atol=0.05 * (np.abs(want).max() + 1e-3))


def test_a_gin_fits_the_rule_under_autocast():
    """The phosphorus rule that test_helix_models fits in float32, learnt under bfloat16."""
    graphs, y = phosphorus_rule_set()
    batch = make_batch(graphs, y)
    sp.manual_seed(0)
    model = GraphModel(1, FEATS, num_layers=3, emb_dim=32, dropout=0.0, pool="sum")
    opt = sp.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        opt.zero_grad()
        with sp.amp.autocast("cpu", dtype=sp.bfloat16):
            loss = loss_of(model, batch)
        loss.backward()
        opt.step()
    model.eval()
    with sp.no_grad(), sp.amp.autocast("cpu", dtype=sp.bfloat16):
        predicted = model(batch).to(sp.float32).numpy() > 0
    assert (predicted == (y > 0.5)).mean() >= 0.95, loss.item()


def test_finetune_cli_trains_under_amp(tmp_path):
    """`sampan helix finetune --amp bfloat16` reaches the training loop: the same seed gives a
    training loss that differs from float32's by bfloat16 rounding only."""
    import json
    from sampan import cli
    rng = np.random.default_rng(0)
    pieces = ["C", "CC", "CCO", "CCN", "c1ccccc1", "C(=O)O", "CCCl", "CN"]
    rows = []
    for i in range(48):
        smiles = "".join(rng.choice(pieces, size=rng.integers(1, 4)))
        rows.append(f"{smiles},{0.1 * len(smiles) + 0.05 * smiles.count('N'):.3f}")
    data = tmp_path / "mols.csv"
    data.write_text("smiles,y\n" + "\n".join(rows) + "\n")
    losses = {}
    for amp in (None, "bfloat16"):
        out = tmp_path / f"{amp}.json"
        args = ["helix", "finetune", "--dataset", str(data), "--split", "random", "--epochs", "2", "--seeds", "0",
                "--layers", "2", "--emb-dim", "16", "--no-progress", "--threads", "1", "--out", str(out)]
        assert cli.main(args + (["--amp", amp] if amp else [])) == 0
        summary = json.loads(out.read_text())
        assert summary["amp"] == amp
        losses[amp] = summary["runs"][0]["history"]["train_loss"]
    assert losses[None] != losses["bfloat16"]
    np.testing.assert_allclose(losses["bfloat16"], losses[None], rtol=0.05)
