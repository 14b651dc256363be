"""sp.save / sp.load: round trips of nested Python values and tensors, state dicts of models and
optimizers, the HDF5 layout as h5py sees it, atomic replacement (also under SIGKILL), and the
OSErrors for missing, truncated, foreign and non-HDF5 files."""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import sampan as sp

h5py = pytest.importorskip("h5py")


def test_round_trip_of_nested_values(tmp_path):
    rng = np.random.default_rng(0)
    obj = {
        "f32": sp.tensor(rng.standard_normal((3, 4)).astype(np.float32)),
        "f64": sp.tensor(rng.standard_normal(5)),
        "f16": sp.tensor(np.array([1.5, -2.25, 65504.0], dtype=np.float16)),
        "bf16": sp.tensor([1.0, -3.5, 0.15625]).to(sp.bfloat16),
        "i32": sp.tensor(np.arange(6, dtype=np.int32).reshape(2, 3)),
        "i64": sp.tensor([-(2 ** 62), 7]),
        "bool": sp.tensor([True, False, True]),
        "c64": sp.tensor(np.array([1 + 2j, -3.5j], dtype=np.complex64)),
        "c128": sp.tensor(np.array([[1 + 2j], [np.pi - 1j]])),
        "scalar_tensor": sp.tensor(2.5),
        "empty": sp.zeros(0, 3),
        "transposed": sp.tensor(np.arange(6.0).reshape(2, 3)).mT,
        "nested": {"list": [1, 2.5, "three", None, True], "tuple": (0.9, 0.999), "empty": {}},
        "int": -12, "float": 1e-300, "str": "Å ⚛", "none": None, "bool_value": False,
    }
    path = tmp_path / "tree.h5"
    sp.save(obj, path)  # pathlib.Path is accepted
    back = sp.load(str(path))
    assert list(back) == list(obj)  # key order kept
    for key, value in obj.items():
        if isinstance(value, sp.Tensor):
            got = back[key]
            assert isinstance(got, sp.Tensor) and got.dtype == value.dtype and got.shape == value.shape, key
            if value.dtype == sp.bfloat16:
                np.testing.assert_array_equal(got.to(sp.float32).numpy(), value.to(sp.float32).numpy())
            else:
                np.testing.assert_array_equal(got.numpy(), value.numpy())
        else:
            assert back[key] == value and type(back[key]) is type(value), key
    assert type(back["nested"]["tuple"]) is tuple and type(back["nested"]["list"]) is list


def test_numpy_values_and_top_level_leaves(tmp_path):
    sp.save(np.arange(4.0), tmp_path / "a.h5")
    got = sp.load(tmp_path / "a.h5")
    assert isinstance(got, sp.Tensor) and got.dtype == sp.float64
    np.testing.assert_array_equal(got.numpy(), np.arange(4.0))
    sp.save({"n": np.int64(3), "x": np.float32(0.5)}, tmp_path / "b.h5")
    assert sp.load(tmp_path / "b.h5") == {"n": 3, "x": 0.5}
    sp.save(7, tmp_path / "c.h5")
    assert sp.load(tmp_path / "c.h5") == 7


def test_tensor_requiring_grad_is_saved_as_data(tmp_path):
    w = sp.tensor([1.0, 2.0], requires_grad=True)
    sp.save({"w": w * 2}, tmp_path / "w.h5")  # a non-leaf: its values are saved
    back = sp.load(tmp_path / "w.h5")["w"]
    assert not back.requires_grad
    np.testing.assert_array_equal(back.numpy(), [2.0, 4.0])


def test_layout_is_readable_by_h5py(tmp_path):
    path = tmp_path / "layout.h5"
    sp.save({"model": {"layer.weight": sp.tensor(np.eye(2)), "half": sp.tensor(np.ones(2, np.float16))},
             "c": sp.tensor(np.array([1 + 2j])), "mask": sp.tensor([True, False]), "step": 3}, path)
    with h5py.File(path, "r") as f:
        assert f.attrs["sampan_format"] == "sampan-io"
        assert f.attrs["sampan_format_version"] == 1
        assert list(f.attrs["keys"]) == ["model", "c", "mask", "step"]
        np.testing.assert_array_equal(f["model"]["layer.weight"][()], np.eye(2))
        assert f["model"]["half"].dtype == np.float16
        assert f["c"].dtype == np.complex128 and f["c"][0] == 1 + 2j
        assert f["mask"].dtype == np.bool_
        assert f["step"][()] == 3 and f["step"].attrs["kind"] == "int"


def test_model_and_optimizer_state_round_trip(tmp_path):
    sp.manual_seed(1)
    model = sp.nn.MLP(3, [8], 2)
    opt = sp.optim.Adam(model.parameters(), lr=1e-2)
    x = sp.tensor(np.random.default_rng(1).standard_normal((16, 3)).astype(np.float32))
    for _ in range(3):
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
    sp.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, tmp_path / "ckpt.h5")

    sp.manual_seed(2)
    clone = sp.nn.MLP(3, [8], 2)
    clone_opt = sp.optim.Adam(clone.parameters(), lr=1.0)
    ckpt = sp.load(tmp_path / "ckpt.h5")
    clone.load_state_dict(ckpt["model"])
    clone_opt.load_state_dict(ckpt["optimizer"])
    assert ckpt["epoch"] == 3 and clone_opt.param_groups[0]["lr"] == 1e-2
    assert clone_opt.param_groups[0]["betas"] == (0.9, 0.999)
    for m, o in ((model, opt), (clone, clone_opt)):  # one more identical step each
        o.zero_grad()
        (m(x) ** 2).mean().backward()
        o.step()
    for (name, a), (_, b) in zip(model.state_dict().items(), clone.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_save_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "ckpt.h5"
    sp.save({"step": 1}, path)
    sp.save({"step": 2}, path)
    assert sp.load(path) == {"step": 2}
    with pytest.raises(ValueError, match="NUL"):
        sp.save({"w": sp.zeros(1000), "name": "a\0b"}, path)
    assert sp.load(path) == {"step": 2}  # the failed save kept the previous file
    assert sorted(os.listdir(tmp_path)) == ["ckpt.h5"]


_WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import sampan as sp
    big = {"w": sp.tensor(np.full((2000, 2000), 2.0)), "version": 2}
    print("ready", flush=True)
    while True:
        sp.save(big, sys.argv[1])
""")


def test_kill_during_save_leaves_the_old_or_the_new_file(tmp_path):
    path = tmp_path / "ckpt.h5"
    sp.save({"w": sp.ones(3), "version": 1}, path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for delay in (0.05, 0.13, 0.31):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, env=env)
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        got = sp.load(path)  # never a half-written file
        assert got["version"] in (1, 2)
        if got["version"] == 2:
            assert got["w"].shape == (2000, 2000) and float(got["w"][1999, 1999]) == 2.0


def test_missing_file_names_the_path(tmp_path):
    path = tmp_path / "missing.h5"
    with pytest.raises(OSError, match="no such file") as info:
        sp.load(path)
    assert str(path) in str(info.value)


def test_truncated_file_names_the_path(tmp_path):
    path = tmp_path / "full.h5"
    sp.save({"w": sp.tensor(np.arange(4096.0))}, path)
    data = path.read_bytes()
    for keep in (len(data) // 2, len(data) - 1, 100):
        cut = tmp_path / f"cut{keep}.h5"
        cut.write_bytes(data[:keep])
        with pytest.raises(OSError) as info:
            sp.load(cut)
        assert f"not a sampan file / truncated: {cut}" in str(info.value)


def test_text_file_is_not_a_sampan_file(tmp_path):
    path = tmp_path / "notes.h5"
    path.write_text("not HDF5\n")
    with pytest.raises(OSError, match="not a sampan file / truncated") as info:
        sp.load(path)
    assert str(path) in str(info.value)


def test_foreign_hdf5_file_says_what_is_missing(tmp_path):
    path = tmp_path / "foreign.h5"
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(OSError, match="not a sampan file.*'sampan_format'") as info:
        sp.load(path)
    assert str(path) in str(info.value)


def test_unsupported_values_are_named(tmp_path):
    with pytest.raises(TypeError, match=r"obj\['a'\]\[1\].*'set'"):
        sp.save({"a": [1, {2}]}, tmp_path / "x.h5")
    with pytest.raises(TypeError, match="only str keys"):
        sp.save({1: 2}, tmp_path / "x.h5")
    with pytest.raises(ValueError, match="int64"):
        sp.save(2 ** 70, tmp_path / "x.h5")
    with pytest.raises(OSError, match="does not exist"):
        sp.save(1, tmp_path / "no" / "dir" / "x.h5")
    assert not any(pathlib.Path(tmp_path).iterdir())
