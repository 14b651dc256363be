"""A DeePMD-kit user's input.json in sampan deepmd train: key checking (unknown keys named with
their path, line and nearest valid key; DeePMD-kit's other keys accepted; aliases), systems given
as folders searched recursively, type_map.raw names mapped to the model's type order, and
"sel": "auto"."""
import json
import shutil

import numpy as np
import pytest

from shared_data import SHARED_DATA
from sampan.deepmd.input_keys import SECTIONS, checked_input

WATER = SHARED_DATA / "deepmd_water"
GOLDEN = SHARED_DATA / "deepmd_golden_se_e2_a" / "deeppot_sea.yaml"
needs_water = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")


def tiny_input(systems, sel=(46, 92)):
    return {
        "model": {"type_map": ["O", "H"],
                  "descriptor": {"type": "se_e2_a", "sel": list(sel) if not isinstance(sel, str) else sel,
                                 "rcut_smth": 0.5, "rcut": 6.0, "neuron": [2, 4], "axis_neuron": 2,
                                 "type_one_side": True, "seed": 1},
                  "fitting_net": {"neuron": [4], "seed": 1}, "data_stat_nbatch": 1},
        "learning_rate": {"type": "exp", "decay_steps": 2, "start_lr": 0.001, "stop_lr": 1e-5},
        "loss": {"type": "ener"},
        "training": {"training_data": {"systems": systems, "batch_size": 1}, "numb_steps": 2, "seed": 3},
    }


def test_misspelt_key_names_its_path_line_and_nearest_key():
    config = tiny_input(["x"])
    config["model"]["descriptor"]["rcutt"] = config["model"]["descriptor"].pop("rcut")
    text = json.dumps(config, indent=2)
    line = next(i + 1 for i, s in enumerate(text.splitlines()) if '"rcutt"' in s)
    with pytest.raises(ValueError) as error:
        checked_input(json.loads(text), "in.json", text)
    message = str(error.value)
    assert f"in.json, line {line}: model.descriptor.rcutt: unknown key; did you mean 'rcut'?" == message
    config = tiny_input(["x"])
    config["training"]["trainig_data"] = config["training"].pop("training_data")
    with pytest.raises(ValueError, match=r"training.trainig_data: unknown key; did you mean 'training_data'"):
        checked_input(config)
    config = tiny_input(["x"])
    config["loss"]["zzz"] = 1   # nothing close: the valid keys are listed
    with pytest.raises(ValueError, match=r"loss.zzz: unknown key; valid keys: .*limit_pref_e"):
        checked_input(config)


def test_a_feature_sampan_lacks_is_accepted_at_its_default_and_refused_otherwise():
    config = tiny_input(["x"])
    # DeePMD-kit's defaults of features sampan does not have: the same model, so accepted
    config["model"]["fitting_net"].update(numb_fparam=0, trainable=[True, True], atom_ener=[])
    config["model"]["descriptor"].update(set_davg_zero=False, env_protection=0)
    config["loss"].update(start_pref_ae=0, limit_pref_ae=0.0, use_huber=False)
    checked_input(config)
    for section, key, value in (("model.fitting_net", "numb_fparam", 2), ("model.descriptor", "exclude_types", [[0, 1]]),
                                ("model.descriptor", "set_davg_zero", True), ("loss", "start_pref_ae", 0.5),
                                ("model.fitting_net", "trainable", [True, False]), ("training", "opt_type", "LKF")):
        bad = tiny_input(["x"])
        target = bad
        for part in section.split("."):
            target = target[part]
        target[key] = value
        text = json.dumps(bad, indent=2)
        line = next(i + 1 for i, s in enumerate(text.splitlines()) if f'"{key}"' in s)
        with pytest.raises(ValueError) as error:
            checked_input(json.loads(text), "in.json", text)
        assert str(error.value).startswith(f"in.json, line {line}: {section}.{key} = {json.dumps(value)}: not supported")


def test_deepmd_kit_keys_sampan_ignores_comments_and_aliases_are_accepted():
    config = tiny_input(["x"])
    config["_comment"] = "top"
    config["model"]["descriptor"].update(precision="float64", _comment="that's all", exclude_types=[])
    config["model"]["fitting_net"]["n_neuron"] = config["model"]["fitting_net"].pop("neuron")
    config["training"].update(disp_training=True, time_training=True, profiling=False,
                              stop_batch=config["training"].pop("numb_steps"))
    out = checked_input(config)
    assert out["model"]["fitting_net"]["neuron"] == [4] and "n_neuron" not in out["model"]["fitting_net"]
    assert out["training"]["numb_steps"] == 2 and "stop_batch" not in out["training"]
    assert "n_neuron" in config["model"]["fitting_net"]  # the caller's dict is not changed
    both = tiny_input(["x"])
    both["training"]["stop_batch"] = 5
    with pytest.raises(ValueError, match="training.stop_batch is DeePMD-kit's alias of numb_steps"):
        checked_input(both)
    # every entry of the table is one of the kinds
    assert all(k in ("used", "required", "ignored") or k[0] in ("alias", "only") for t in SECTIONS.values() for k in t.values())


def test_missing_required_keys_are_named():
    config = tiny_input(["x"])
    del config["model"]["descriptor"]["sel"]
    with pytest.raises(ValueError, match=r"in.json: model.descriptor.sel: missing"):
        checked_input(config, "in.json")
    config = tiny_input(["x"])
    del config["training"]["training_data"]
    with pytest.raises(ValueError, match=r"training.training_data: missing"):
        checked_input(config)
    config = tiny_input(["x"])
    config["model"]["descriptor"] = [1, 2]
    with pytest.raises(ValueError, match=r"model.descriptor: expected an object, found list"):
        checked_input(config)


@needs_water
def test_systems_given_as_folders_are_searched_recursively(tmp_path):
    from sampan.deepmd.train import Trainer
    shutil.copytree(WATER / "data_0", tmp_path / "train" / "a" / "data_0")
    shutil.copytree(WATER / "data_2", tmp_path / "train" / "b" / "deeper" / "data_2")
    (tmp_path / "empty").mkdir()
    trainer = Trainer(tiny_input("train"), base_dir=str(tmp_path), output_dir=str(tmp_path), log=lambda *_: None)
    found = [s.path for s in trainer.train_systems]
    assert [p.split("train/")[1] for p in found] == ["a/data_0", "b/deeper/data_2"]
    assert [s.nframes for s in trainer.train_systems] == [80, 80]
    # a list mixing a system and a folder of systems
    trainer = Trainer(tiny_input([str(WATER / "data_3"), "train/b"]), base_dir=str(tmp_path),
                      output_dir=str(tmp_path), log=lambda *_: None)
    assert [s.path.rstrip("/").split("/")[-1] for s in trainer.train_systems] == ["data_3", "data_2"]
    with pytest.raises(ValueError, match=r"training.training_data.systems: no DeePMD system .* in .*empty"):
        Trainer(tiny_input("empty"), base_dir=str(tmp_path), output_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"training.training_data.systems: .*nowhere is not a folder"):
        Trainer(tiny_input(["nowhere"]), base_dir=str(tmp_path), output_dir=str(tmp_path))


@needs_water
def test_type_map_raw_names_are_mapped_to_the_model_order(tmp_path):
    if not GOLDEN.exists():
        pytest.skip(f"golden model not found at {GOLDEN}")
    from sampan.deepmd.model import evaluate_system, load_model
    from sampan.deepmd.systems import read_systems
    swapped = tmp_path / "swapped"
    shutil.copytree(WATER / "data_3", swapped)
    types = np.loadtxt(WATER / "data_3" / "type.raw", dtype=int)
    np.savetxt(swapped / "type.raw", 1 - types, fmt="%d")     # 0 is H now, 1 is O
    (swapped / "type_map.raw").write_text("H\nO\n")
    model = load_model(str(GOLDEN))
    original = read_systems(WATER / "data_3", ["O", "H"])[0]
    mapped = read_systems(swapped, ["O", "H"])[0]
    np.testing.assert_array_equal(mapped.atom_types, original.atom_types)
    e0, f0, _ = evaluate_system(model, original, range(1))
    e1, f1, _ = evaluate_system(model, mapped, range(1))
    np.testing.assert_array_equal(e0, e1)
    np.testing.assert_array_equal(f0, f1)
    (swapped / "type_map.raw").write_text("H\nC\n")
    with pytest.raises(ValueError, match=r"swapped: type 'C' of type_map.raw is not in the model's type_map"):
        read_systems(swapped, ["O", "H"])


@needs_water
def test_sel_auto_is_the_neighbour_statistics_rule(tmp_path):
    from sampan.deepmd.neighbor_stat import neighbor_stat
    from sampan.deepmd.systems import read_systems
    from sampan.deepmd.train import Trainer
    logged = []
    trainer = Trainer(tiny_input([str(WATER / "data_0")], sel="auto:1.2"), output_dir=str(tmp_path),
                      log=logged.append)
    counts = neighbor_stat(read_systems(WATER / "data_0", ["O", "H"]), 6.0, 2).max_nbor_size
    expected = [4 * -(-int(n * 1.2) // 4) for n in counts]
    assert trainer.model.config["sel"] == expected
    assert any(f"-> sel {expected}" in line for line in logged)
    assert trainer.config["model"]["descriptor"]["sel"] == expected


@needs_water
def test_hdf5_files_are_read_with_every_system_in_them(tmp_path):
    pytest.importorskip("h5py", reason="the optional extra 'test' is not installed (pip install sampan[test])")
    from sampan.deepmd.data import load_system, save_system
    from sampan.deepmd.systems import read_systems
    a, b = load_system(WATER / "data_0"), load_system(WATER / "data_3")
    save_system(a, f"{tmp_path / 'both.h5'}#/a", fmt="deepmd/hdf5")
    save_system(b, f"{tmp_path / 'both.h5'}#/b", fmt="deepmd/hdf5")
    systems = read_systems([str(tmp_path / "both.h5")], ["O", "H"])
    assert [s.nframes for s in systems] == [80, 80]
    np.testing.assert_array_equal(systems[1].coord, b.coord)
    only_b = read_systems(f"{tmp_path / 'both.h5'}#/b", ["O", "H"])
    assert len(only_b) == 1 and np.array_equal(only_b[0].energy, b.energy)
