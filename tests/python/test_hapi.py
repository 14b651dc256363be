"""sp.Model (sampan.hapi), sp.metric and sp.callbacks: fitting regression and classification to
known solutions, evaluate/predict values, bit-identical resume from a checkpoint, early stopping on
scripted losses, the CSV/JSON logs, LR schedules stepped by the callback, progress output, the
errors; and data-parallel fit under `mpirun -n 2` (hapi_ranks.py)."""
import io as text_io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from mpi_launcher import mpirun_command

import sampan as sp

F = sp.nn.functional
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def regression_data(n=96, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3))
    y = x @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + 0.2 * rng.standard_normal((n, 1))
    return x, y


def least_squares_mse(x, y):
    a = np.hstack([x, np.ones((len(x), 1))])
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    return float(np.mean((a @ coef - y) ** 2))


def linear_model(lr=0.05, seed=1):
    sp.manual_seed(seed)
    model = sp.Model(sp.nn.Linear(3, 1, dtype=sp.float64))
    model.prepare(sp.optim.Adam(model.parameters(), lr=lr), F.mse_loss)
    return model


def test_fit_reaches_the_least_squares_optimum():
    x, y = regression_data()
    data = sp.io.TensorDataset(x, y)
    optimum = least_squares_mse(x, y)
    model = linear_model()
    before = model.evaluate(data, batch_size=32)["loss"]
    history = model.fit(data, epochs=60, batch_size=16, seed=0, verbose=0)
    assert len(history) == 60 and history[-1]["step"] == 60 * 6 and model.step == 360
    after = model.evaluate(data, batch_size=32)["loss"]
    assert before > 10 * optimum
    assert optimum <= after < 1.02 * optimum  # nothing beats least squares; Adam gets within 2 %
    w, b = model.network.weight.numpy(), model.network.bias.numpy()
    np.testing.assert_allclose(w.ravel(), np.linalg.lstsq(np.hstack([x, np.ones((96, 1))]), y, rcond=None)[0][:3, 0],
                               atol=0.02)
    assert abs(b[0] - 0.3) < 0.1


def test_classification_fits_separable_data_with_accuracy_and_auc():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((120, 2)).astype(np.float32)
    label = (x[:, 0] + 2 * x[:, 1] > 0).astype(np.int64)
    x += 0.5 * np.where(label[:, None] == 1, 1, -1) * np.array([1, 2], np.float32) / np.sqrt(5)  # a margin
    sp.manual_seed(0)
    net = sp.nn.Linear(2, 2)
    model = sp.Model(net)
    model.prepare(sp.optim.Adam(net.parameters(), lr=0.1), F.cross_entropy,
                  metrics=[sp.metric.Accuracy(), sp.metric.RocAuc()])
    data = sp.io.TensorDataset(x, label)
    history = model.fit(data, data, epochs=15, batch_size=20, seed=1, verbose=0)
    assert history[-1]["eval_acc"] == 1.0 and history[-1]["eval_auc"] == 1.0
    assert history[-1]["eval_loss"] < history[0]["eval_loss"]
    result = model.evaluate(data, batch_size=50)
    assert set(result) == {"loss", "acc", "auc"} and result["acc"] == 1.0


def test_evaluate_and_predict_values_and_shapes():
    x, y = regression_data(n=25)
    data = sp.io.TensorDataset(x, y)
    model = linear_model()
    w, b = model.network.weight.numpy(), model.network.bias.numpy()
    expected = x @ w.T + b
    result = model.evaluate(data, batch_size=10)  # batches 10, 10, 5: the mean over samples
    assert result["loss"] == pytest.approx(float(np.mean((expected - y) ** 2)), rel=1e-12)
    outputs = model.predict(data, batch_size=10)
    assert [tuple(o.shape) for o in outputs] == [(10, 1), (10, 1), (5, 1)]
    assert not any(o.requires_grad for o in outputs)  # no tape
    np.testing.assert_allclose(np.concatenate([o.numpy() for o in outputs]), expected, rtol=1e-13)
    stacked = model.predict(sp.io.TensorDataset(x), batch_size=7, stack_outputs=True)
    assert tuple(stacked.shape) == (25, 1)
    np.testing.assert_allclose(stacked.numpy(), expected, rtol=1e-13)
    # batch level
    assert model.eval_batch([sp.tensor(x)], [sp.tensor(y)])["loss"] == pytest.approx(result["loss"], rel=1e-12)
    assert tuple(model.predict_batch([x[:4]]).shape) == (4, 1)


def test_save_for_inference_writes_a_graph_that_replays_any_batch(tmp_path):
    x, y = regression_data(n=40)
    model = linear_model()
    model.fit(sp.io.TensorDataset(x, y), epochs=2, batch_size=16, seed=0, verbose=0)
    path = tmp_path / "inference.h5"
    model.save(path, training=False)
    graph = sp.jit.load(path)
    assert graph.inputs[0]["dims"][0] == "batch"
    for n in (1, 7, 40):  # other batch sizes than the traced one
        np.testing.assert_array_equal(graph(sp.tensor(x[:n])).numpy(), model.predict_batch([x[:n]]).numpy())


def test_dict_batches_with_named_inputs_and_labels():
    class Named(sp.io.Dataset):
        def __init__(self, x, y):
            self.x, self.y = x, y

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return {"features": self.x[i], "target": self.y[i], "id": i}

    x, y = regression_data(n=40)
    sp.manual_seed(1)
    model = sp.Model(sp.nn.Linear(3, 1, dtype=sp.float64), inputs=["features"], labels=["target"])
    model.prepare(sp.optim.SGD(model.parameters(), lr=0.1), F.mse_loss)
    history = model.fit(Named(x, y), epochs=20, batch_size=8, seed=0, verbose=0)
    assert history[-1]["loss"] < 1.5 * least_squares_mse(x, y)


class DropoutNet(sp.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = sp.nn.Linear(3, 16, dtype=sp.float64)
        self.drop = sp.nn.Dropout(0.2)
        self.out = sp.nn.Linear(16, 1, dtype=sp.float64)

    def forward(self, x):
        return self.out(self.drop(sp.tanh(self.hidden(x))))


def resumable_model():
    sp.manual_seed(7)
    net = DropoutNet()
    model = sp.Model(net)
    opt = sp.optim.Adam(net.parameters(), lr=0.01)
    model.prepare(opt, F.mse_loss, metrics=sp.metric.Accuracy(threshold=0.0),
                  lr_scheduler=sp.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.8))
    return model


def test_resume_from_a_checkpoint_is_bit_identical(tmp_path):
    x, y = regression_data(n=50)
    data = sp.io.TensorDataset(x, y)
    evals = sp.io.TensorDataset(x[:20], y[:20])

    def callbacks(d):
        return [sp.callbacks.EarlyStopping(patience=100), sp.callbacks.CSVLogger(d / "log.csv"),
                sp.callbacks.JSONLogger(d / "log.jsonl"), sp.callbacks.ModelCheckpoint(d / "ckpt", save_freq=2)]

    straight_dir, split_dir = tmp_path / "straight", tmp_path / "split"
    straight = resumable_model()
    straight.fit(data, evals, epochs=6, batch_size=8, verbose=0, seed=11, callbacks=callbacks(straight_dir))
    first = resumable_model()
    first.fit(data, evals, epochs=4, batch_size=8, verbose=0, seed=11, callbacks=callbacks(split_dir))
    resumed = resumable_model()
    resumed.load(split_dir / "ckpt" / "epoch2.h5")
    assert resumed.epoch == 2 and resumed.step == 14
    resumed.fit(data, evals, epochs=6, batch_size=8, verbose=0, callbacks=callbacks(split_dir))  # the saved seed
    for (name, a), (_, b) in zip(straight.network.state_dict().items(), resumed.network.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    assert straight.step == resumed.step == 42
    assert straight.optimizer.param_groups[0]["lr"] == resumed.optimizer.param_groups[0]["lr"] == 0.01 * 0.8 ** 8
    # the logs of the resumed run hold exactly its 6 epochs, equal to the straight run's
    assert (split_dir / "log.csv").read_text() == (straight_dir / "log.csv").read_text()
    assert (split_dir / "log.jsonl").read_text() == (straight_dir / "log.jsonl").read_text()
    # a fresh model loaded from the straight run's final checkpoint has its weights
    final = resumable_model()
    final.load(straight_dir / "ckpt" / "final.h5")
    assert final.epoch == 6
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in
               zip(final.network.state_dict().values(), straight.network.state_dict().values()))


class Scripted(sp.nn.Module):
    """A network whose evaluation loss is scripted: one value per evaluation."""

    def __init__(self, values):
        super().__init__()
        self.w = sp.nn.Parameter(sp.zeros(1, dtype=sp.float64))
        self.values = list(values)
        self.evaluations = 0

    def forward(self, x):
        return x * self.w

    def loss(self, out, y):
        if self.training:
            return ((out - y) ** 2).mean()
        return (out * 0).sum() + self.values[min(self.evaluations, len(self.values) - 1)]


class CountEvals(sp.callbacks.Callback):
    def on_eval_end(self, logs=None):
        self.model.network.evaluations += 1


def scripted_fit(values, epochs=20, **kwargs):
    net = Scripted(values)
    model = sp.Model(net)
    model.prepare(sp.optim.SGD(net.parameters(), lr=0.1), net.loss)
    data = sp.io.TensorDataset(np.ones((4, 1)), np.ones((4, 1)))
    stop = sp.callbacks.EarlyStopping(**kwargs)
    history = model.fit(data, data, epochs=epochs, batch_size=4, verbose=0, callbacks=[CountEvals(), stop])
    return stop, history


def test_early_stopping_stops_at_the_right_epoch():
    stop, history = scripted_fit([5, 4, 4.5, 3, 3.2, 3.1, 3.3, 1.0], patience=1)
    assert (stop.stopped_epoch, stop.best_epoch, stop.best_value, len(history)) == (5, 3, 3.0, 6)
    assert [h["eval_loss"] for h in history] == [5, 4, 4.5, 3, 3.2, 3.1]
    stop, history = scripted_fit([5, 4.8, 4.6, 4.4, 1.0], patience=0, min_delta=0.5)
    assert (stop.stopped_epoch, len(history)) == (1, 2)
    stop, history = scripted_fit([5, 6, 4.5, 4.0], patience=0, baseline=4.6)
    assert (stop.stopped_epoch, stop.best_epoch) == (0, None) and stop.best_state is None
    stop, history = scripted_fit([0.1, 0.3, 0.2, 0.25], monitor="loss", mode="max", patience=1)
    assert (stop.stopped_epoch, stop.best_epoch) == (3, 1)
    stop, history = scripted_fit([1, 0.9, 0.8], patience=0, epochs=3)  # keeps improving: no stop
    assert stop.stopped_epoch is None and len(history) == 3 and stop.best_state is not None
    assert sp.callbacks.EarlyStopping(monitor="eval_acc").mode == "max"
    with pytest.raises(KeyError, match="monitor 'acc' is not in the logs"):
        scripted_fit([1.0], monitor="acc")


def test_csv_and_json_logs_hold_one_row_per_epoch(tmp_path):
    x, y = regression_data(n=30)
    data = sp.io.TensorDataset(x, y)
    model = linear_model()
    history = model.fit(data, data, epochs=4, batch_size=10, seed=2, verbose=0, eval_freq=2,
                        callbacks=[sp.callbacks.CSVLogger(tmp_path / "log.csv"),
                                   sp.callbacks.JSONLogger(tmp_path / "log.jsonl")])
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0] == "epoch,loss,step,eval_loss"
    assert len(lines) == 5
    rows = [line.split(",") for line in lines[1:]]
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4] and [int(r[2]) for r in rows] == [3, 6, 9, 12]
    assert [float(r[1]) for r in rows] == [h["loss"] for h in history]
    assert [r[3] for r in rows] == ["", repr(history[1]["eval_loss"]), "", repr(history[3]["eval_loss"])]
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in records] == [1, 2, 3, 4]
    assert [r["loss"] for r in records] == [h["loss"] for h in history]
    assert "eval_loss" not in records[0] and records[1]["eval_loss"] == history[1]["eval_loss"]
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]  # temp files renamed away


def test_lr_scheduler_callback_by_step_and_by_epoch():
    x, y = regression_data(n=20)
    data = sp.io.TensorDataset(x, y)
    for by_epoch, expected in ((False, 0.1 * 0.5 ** 4), (True, 0.1 * 0.5 ** 1)):
        sp.manual_seed(0)
        net = sp.nn.Linear(3, 1, dtype=sp.float64)
        opt = sp.optim.SGD(net.parameters(), lr=0.1)
        sched = sp.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
        model = sp.Model(net)
        model.prepare(opt, F.mse_loss, lr_scheduler=sched)
        callbacks = [sp.callbacks.LRScheduler(by_step=False, by_epoch=True)] if by_epoch else None
        model.fit(data, epochs=4, batch_size=5, seed=0, verbose=0, callbacks=callbacks)  # 16 steps, 4 epochs
        assert opt.param_groups[0]["lr"] == pytest.approx(expected, rel=1e-15)
    with pytest.raises(ValueError, match="exactly one of by_step and by_epoch"):
        sp.callbacks.LRScheduler(by_step=True, by_epoch=True)


def test_progress_bar_lines_and_silence(capsys):
    x, y = regression_data(n=20)
    data = sp.io.TensorDataset(x, y)
    out = text_io.StringIO()
    model = linear_model()
    model.fit(data, data, epochs=3, batch_size=5, seed=0, verbose=0,
              callbacks=[sp.callbacks.ProgressBar(log_freq=2, verbose=1, file=out, use_tqdm=False)])
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["Epoch 1/3", lines[1], lines[2]] and lines[1].startswith("step 2/4 - loss ")
    assert lines[2].startswith("step 4/4 - loss ")
    assert lines[3].startswith("Epoch 1/3 - loss ") and "eval_loss" in lines[3] and len(lines) == 12
    out = text_io.StringIO()
    model.fit(data, epochs=2, batch_size=5, seed=0, verbose=0,
              callbacks=[sp.callbacks.ProgressBar(verbose=2, file=out)])
    assert len(out.getvalue().splitlines()) == 2
    model.fit(data, epochs=2, batch_size=5, seed=0, verbose=0)
    assert capsys.readouterr().out == "" and capsys.readouterr().err == ""


def test_roc_auc_matches_hand_computed_values():
    m = sp.metric.RocAuc()
    m.update(sp.tensor([0.1, 0.4]), np.array([0, 0]))
    m.update(np.array([[0.35], [0.8]]), sp.tensor([[1], [1]]))
    assert m.accumulate() == 0.75 and m.name() == "auc"  # sklearn's documented example
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 200)
    scores = np.round(rng.random(200) + 0.3 * labels, 1)  # many ties
    pos, neg = scores[labels == 1], scores[labels == 0]
    pairs = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    assert sp.metric.roc_auc_score(labels, scores) == pytest.approx(pairs / (len(pos) * len(neg)), rel=1e-14)
    probs = np.stack([1 - scores, scores], axis=1)
    m.reset()
    for i in range(0, 200, 64):
        m.update(probs[i:i + 64], labels[i:i + 64])
    assert m.accumulate() == pytest.approx(pairs / (len(pos) * len(neg)), rel=1e-14)
    assert np.isnan(sp.metric.roc_auc_score([1, 1], [0.2, 0.3]))


def test_accuracy_topk_and_binary():
    m = sp.metric.Accuracy(topk=(1, 2))
    pred = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    assert m.update(pred, np.array([1, 1, 0, 0])) == [0.25, 0.75]
    assert m.name() == ["acc_top1", "acc_top2"] and m.accumulate() == [0.25, 0.75]
    b = sp.metric.Accuracy()
    b.update(sp.tensor([0.9, 0.2, 0.6]), sp.tensor([1, 0, 0]))
    assert b.accumulate() == pytest.approx(2 / 3) and b.name() == "acc"
    with pytest.raises(ValueError, match="3 predictions but 2 labels"):
        b.update(np.zeros(3), np.zeros(2))


def test_errors_name_the_argument(tmp_path):
    with pytest.raises(TypeError, match="network must be a sampan.nn.Module, got function"):
        sp.Model(lambda x: x)
    model = sp.Model(sp.nn.Linear(3, 1, dtype=sp.float64))
    data = sp.io.TensorDataset(*regression_data(n=8))
    with pytest.raises(RuntimeError, match=r"call prepare\(optimizer=..., loss=...\) first"):
        model.fit(data)
    with pytest.raises(ValueError, match="amp dtype 'int8': expected one of bfloat16, bf16"):
        model.prepare(sp.optim.SGD(model.parameters(), lr=0.1), F.mse_loss, amp="int8")
    with pytest.raises(ValueError, match="amp has unknown key\\(s\\) 'scale'"):
        model.prepare(sp.optim.SGD(model.parameters(), lr=0.1), F.mse_loss, amp={"scale": 2.0})
    with pytest.raises(TypeError, match="optimizer must be a sampan.optim.Optimizer"):
        model.prepare("adam", F.mse_loss)
    with pytest.raises(TypeError, match=r"metrics\[1\] is a str"):
        model.prepare(sp.optim.SGD(model.parameters(), lr=0.1), F.mse_loss, metrics=[sp.metric.Accuracy(), "acc"])
    model.prepare(sp.optim.SGD(model.parameters(), lr=0.1), F.mse_loss)
    with pytest.raises(TypeError, match="fit: train_data: expected a sampan.io.Dataset .* got int"):
        model.fit(5)
    with pytest.raises(TypeError, match="fit: eval_data: expected"):
        model.fit(data, eval_data=3.0)
    with pytest.raises(TypeError, match="epochs must be an int >= 0"):
        model.fit(data, epochs=1.5)
    with pytest.raises(TypeError, match=r"callbacks\[0\] is a int"):
        model.fit(data, callbacks=[1], verbose=0)
    with pytest.raises(TypeError, match="batch_size must be an int >= 1"):
        model.evaluate(data, batch_size=0)
    sp.save([1, 2], str(tmp_path / "list.h5"))
    with pytest.raises(ValueError, match="not a sampan.Model checkpoint"):
        model.load(tmp_path / "list.h5")
    # a plain state dict loads the network's weights only
    sp.save(sp.nn.Linear(3, 1, dtype=sp.float64).state_dict(), str(tmp_path / "weights.h5"))
    model.load(tmp_path / "weights.h5")
    assert model.network.weight.tolist() == sp.load(str(tmp_path / "weights.h5"))["weight"].tolist()

    class Wrong(sp.nn.Module):
        def forward(self, x):
            return x

    bad = sp.Model(Wrong())
    bad.prepare(sp.optim.SGD(sp.nn.Linear(1, 1).parameters(), lr=0.1), lambda out, y: out - y)
    with pytest.raises(ValueError, match=r"the loss function returned a tensor of shape \(8, 3\)"):
        bad.fit(sp.io.TensorDataset(np.ones((8, 3)), np.ones((8, 3))), batch_size=8, verbose=0)


def test_data_parallel_fit_under_mpirun(tmp_path):
    if not sp.distributed.is_available():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    launcher = mpirun_command(2)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), OMP_NUM_THREADS="1")
    r = subprocess.run([*launcher, sys.executable, os.path.join(HERE, "hapi_ranks.py"), str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"OK(\d)", r.stdout)) == ["0", "1"], r.stdout  # lines may arrive joined
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert len(lines) == 5  # one writer: a header and 4 epochs


# ---- hooks for batches of any kind (what helix's training runs on) --------------------------------

class _Pair:
    """A batch object that is not a tuple: the model reads x, the loss reads y and a weight."""

    def __init__(self, x, y):
        self.x, self.y = sp.tensor(x), sp.tensor(y)


class _PairNet(sp.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = sp.nn.Linear(3, 1, dtype=sp.float64)

    def forward(self, batch):
        return self.linear(batch.x)


class _Batches:
    def __init__(self, batches):
        self.batches, self.epochs = batches, 0

    def __iter__(self):
        self.epochs += 1
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


def _pair_batches(n=8):
    x, y = regression_data(16 * n)
    return [_Pair(x[i:i + 16], y[i:i + 16]) for i in range(0, 16 * n, 16)]


def _pair_model(seed=1):
    sp.manual_seed(seed)
    model = sp.Model(_PairNet(), split_batch=lambda b: ([b], [b]))
    model.prepare(sp.optim.SGD(model.parameters(), lr=0.05), lambda out, batch: F.mse_loss(out, batch.y))
    return model


def test_split_batch_skip_batch_and_max_batches_on_an_iterable_of_batch_objects():
    batches = _pair_batches()
    model = _pair_model()
    seen = []

    class Seen(sp.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append((step, "loss" in logs, logs.get("skipped")))

    loader = _Batches(batches)
    skip = {id(batches[1])}
    history = model.fit(loader, epochs=2, verbose=0, max_batches=5, skip_batch=lambda b: id(b) in skip,
                        callbacks=[Seen()])
    assert loader.epochs == 2 and model.step == 8  # 5 batches an epoch, one skipped
    assert seen[:5] == [(0, True, None), (1, False, 1.0), (2, True, None), (3, True, None), (4, True, None)]
    # By hand: the same SGD steps on batches 0, 2, 3, 4 twice; the epoch's loss is the mean over steps
    # (a batch object holds no array field that counts samples).
    sp.manual_seed(1)
    net = _PairNet()
    opt = sp.optim.SGD(net.parameters(), lr=0.05)
    for _ in range(2):
        losses = []
        for b in (batches[0], batches[2], batches[3], batches[4]):
            opt.zero_grad()
            loss = F.mse_loss(net(b), b.y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    np.testing.assert_array_equal(net.linear.weight.numpy(), model.network.linear.weight.numpy())
    assert history[-1]["loss"] == sum(losses) / 4
    # A loss of None skips the step too.
    model = _pair_model()
    model.prepare(model.optimizer, lambda out, batch: None if batch is batches[0] else F.mse_loss(out, batch.y))
    model.fit(_Batches(batches[:3]), epochs=1, verbose=0)
    assert model.step == 2
    with pytest.raises(ValueError, match="either split_batch or inputs"):
        sp.Model(_PairNet(), inputs=1, split_batch=lambda b: ([b], [b]))


def test_checkpoint_state_with_own_fields_resumes_bit_for_bit(tmp_path):
    batches = _pair_batches()

    def run(stop=None, resume=None):
        model = _pair_model(seed=2 if resume else 1)
        best = sp.callbacks.EarlyStopping(monitor="loss", patience=None, restore_best_weights=True)
        if resume is not None:
            saved = sp.load(str(resume))
            assert saved["kind"] == "mine" and saved["note"] == "kept"
            model.load_checkpoint_state(saved)

        class Save(sp.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                if epoch + 1 == stop:
                    sp.save(dict(self.model.checkpoint_state(), kind="mine", note="kept"), str(tmp_path / "c.h5"))
                    self.model.stop_training = True

        history = model.fit(_Batches(batches), eval_data=_Batches(batches[:2]), epochs=6, verbose=0,
                            callbacks=[best, Save()])
        return model, best, history

    whole, best, _ = run()
    assert best.best_epoch is not None and best.stopped_epoch is None  # patience=None: never stops
    run(stop=3)
    resumed, best_resumed, history = run(resume=tmp_path / "c.h5")
    assert len(history) == 3 and best_resumed.best_epoch == best.best_epoch
    for k, v in whole.network.state_dict().items():  # the best check's weights, restored at the end
        np.testing.assert_array_equal(resumed.network.state_dict()[k].numpy(), v.numpy())
        np.testing.assert_array_equal(best.best_state[k].numpy(), v.numpy())
    with pytest.raises(ValueError, match="not a sampan.Model checkpoint state"):
        whole.load_checkpoint_state({"kind": "mine"})


def test_max_batches_draws_no_batch_beyond_the_limit():
    x, y = regression_data(n=40)

    class Counted:
        draws = 0

        def __iter__(self):
            for i in range(0, 40, 8):
                Counted.draws += 1
                yield sp.tensor(x[i:i + 8]), sp.tensor(y[i:i + 8])

    model = linear_model()
    model.fit(Counted(), epochs=2, max_batches=3, verbose=0)
    assert Counted.draws == 6 and model.step == 6  # 3 per epoch, no fourth drawn and dropped
