"""Import of DeePMD-kit's backend-neutral (dpmodel) YAML serialization for se_e2_a models with
``type_one_side: false`` (one embedding net per (centre type, neighbour type) pair).

The golden fixture (deeppot_sea.yaml, tests/cpp/deepmd_bridge/deep_pot_golden_test.cpp) covers
type_one_side: true only. Here a DeepPot with per-pair nets and non-trivial weights and
statistics is written in DeePMD-kit's layout (as `dp convert-backend model.pth model.yaml`
writes it: model.descriptor.embeddings is a NetworkCollection with ndim 2 whose flat `networks`
list holds the net of key (centre ti, neighbour tj) at index ti + tj * ntypes, DeePMD-kit's
NetworkCollection._convert_key), read back by the importer, and compared with the model it came
from; forces are checked against the finite-difference gradient of the imported energy.
"""
import json

import numpy as np
import pytest

import sampan as sp  # noqa: F401
from sampan.deepmd import md
from sampan.deepmd.model import DeepPot, load_model

CONFIG = {"type_map": ["O", "H"], "rcut": 4.0, "rcut_smth": 0.5, "sel": [8, 16], "neuron": [4, 8],
          "axis_neuron": 2, "type_one_side": False, "resnet_dt": True, "fitting_neuron": [8, 8],
          "fitting_resnet_dt": True}


def _scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    return json.dumps(v)  # a (nested) list of numbers: YAML flow style


def _yaml(obj, indent=0):
    """Block-style YAML of nested dicts / lists of dicts (lists of numbers in flow style)."""
    pad = " " * indent
    lines = []
    for key, value in obj.items():
        key = json.dumps(key) if key.startswith("@") else key
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{key}:")
            lines += _yaml(value, indent + 2)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"{pad}{key}:")
            for item in value:
                sub = _yaml(item, indent + 4)
                sub[0] = f"{pad}  - " + sub[0][indent + 4:]
                lines += sub
        elif isinstance(value, dict):
            lines.append(f"{pad}{key}: {{}}")
        else:
            lines.append(f"{pad}{key}: {_scalar(value)}")
    return lines


def _array(a):
    a = np.asarray(a, dtype=np.float64)
    return {"@class": "np.ndarray", "@is_variable": True, "@version": 1, "dtype": "float64", "value": a.tolist()}


def _nets(model, part):
    """Our nets as DeePMD-kit network dicts, in our order (embeddings: centre-major)."""
    names, params = model.parameter_names(), model.parameters()
    values = {n: p.detach().numpy().copy() for n, p in zip(names, params)}
    nets = []
    k = 0
    while f"{part}.{k}.layer.0.w" in values:
        layers = []
        depth = 0
        while f"{part}.{k}.layer.{depth}.w" in values:
            depth += 1
        for l in range(depth):
            base = f"{part}.{k}.layer.{l}"
            last = part == "fitting" and l == depth - 1  # the fitting net's linear output layer
            idt = values.get(base + ".idt")
            layers.append({"@class": "Layer", "@version": 1,
                           "@variables": {"w": _array(values[base + ".w"]), "b": _array(values[base + ".b"]),
                                          "idt": None if idt is None else _array(idt)},
                           "activation_function": "none" if last else "tanh", "bias": True,
                           "precision": "float64", "resnet": not last, "use_timestep": idt is not None})
        nets.append({"@class": "EmbeddingNetwork" if part == "embedding" else "FittingNetwork",
                     "@version": 2, "layers": layers})
        k += 1
    return nets


def write_dpmodel_yaml(model, path, deepmd_order=True, keep_nets=None):
    """``model`` in DeePMD-kit's dpmodel layout. deepmd_order=False writes the pair nets in our
    centre-major order instead (a wrong file, to show that the test tells the two apart);
    keep_nets: only the first so many embedding nets (a broken file)."""
    cfg = model.config
    nt, nnei = len(cfg["sel"]), sum(cfg["sel"])
    ours = _nets(model, "embedding")
    if deepmd_order:  # index ti + tj * nt holds the net of (centre ti, neighbour tj) = ours[ti * nt + tj]
        embeddings = [ours[ti * nt + tj] for tj in range(nt) for ti in range(nt)]
    else:
        embeddings = ours
    embeddings = embeddings[:keep_nets]
    descriptor = {"@class": "Descriptor", "@version": 2, "type": "se_e2_a", "activation_function": "tanh",
                  "axis_neuron": cfg["axis_neuron"],
                  "@variables": {"davg": _array(model.davg.numpy().reshape(nt, nnei, 4)),
                                 "dstd": _array(model.dstd.numpy().reshape(nt, nnei, 4))},
                  "embeddings": {"@class": "NetworkCollection", "@version": 1, "ndim": 2, "ntypes": nt,
                                 "network_type": "embedding_network", "networks": embeddings},
                  "env_mat": {"rcut": cfg["rcut"], "rcut_smth": cfg["rcut_smth"]}, "env_protection": 0.0,
                  "exclude_types": [], "neuron": cfg["neuron"], "precision": "float64", "rcut": cfg["rcut"],
                  "rcut_smth": cfg["rcut_smth"], "resnet_dt": cfg["resnet_dt"], "sel": cfg["sel"],
                  "set_davg_zero": False, "type_map": cfg["type_map"], "type_one_side": False}
    fitting = {"@class": "Fitting", "@version": 2, "type": "ener", "activation_function": "tanh",
               "@variables": {"bias_atom_e": _array(model.bias_atom_e.numpy().reshape(nt, 1))},
               "dim_descrpt": cfg["neuron"][-1] * cfg["axis_neuron"], "dim_out": 1, "mixed_types": False,
               "neuron": cfg["fitting_neuron"], "numb_aparam": 0, "numb_fparam": 0,
               "resnet_dt": cfg["fitting_resnet_dt"], "exclude_types": [],
               "nets": {"@class": "NetworkCollection", "@version": 1, "ndim": 1, "ntypes": nt,
                        "network_type": "fitting_network", "networks": _nets(model, "fitting")}}
    root = {"@variables": {}, "backend": "PyTorch",
            "model": {"@class": "Model", "@version": 2, "type": "standard", "type_map": cfg["type_map"],
                      "atom_exclude_types": [], "pair_exclude_types": [],
                      "@variables": {"out_bias": _array(model.out_bias.numpy().reshape(1, nt, 1)),
                                     "out_std": _array(np.ones((1, nt, 1)))},
                      "descriptor": descriptor, "fitting": fitting}}
    path.write_text("\n".join(_yaml(root)) + "\n")


def pair_model(seed=3):
    """A type_one_side: false DeepPot with non-trivial statistics and biases."""
    model = DeepPot(CONFIG, seed)
    rng = np.random.default_rng(seed)
    nt, nd = 2, 4 * sum(CONFIG["sel"])
    model.davg = sp.tensor(rng.uniform(-0.1, 0.1, size=(nt, nd)))
    model.dstd = sp.tensor(rng.uniform(0.5, 1.5, size=(nt, nd)))
    model.bias_atom_e = sp.tensor(np.array([-93.5, -187.2]))
    model.out_bias = sp.tensor(np.array([0.25, -0.5]))
    model.validate()
    return model


def configuration(seed=0):
    """12 atoms (4 O-type, 8 H-type) at least 1.1 Å apart in a periodic 7.5 Å cube."""
    rng = np.random.default_rng(seed)
    L = 7.5
    x = []
    while len(x) < 12:
        p = rng.uniform(0, L, size=3)
        if all(np.linalg.norm((p - q) - L * np.round((p - q) / L)) > 1.1 for q in x):
            x.append(p)
    return np.array(x), np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]), md.box([L] * 3)


def test_type_one_side_false_model_imports_with_deepmd_kits_network_order(tmp_path):
    model = pair_model()
    x, types, box = configuration()
    cfg_ext = model.extend(x.ravel().tolist(), types.tolist(), np.diag([7.5] * 3).ravel().tolist())
    assert not cfg_ext.any_overflow()
    path = tmp_path / "pair.yaml"
    write_dpmodel_yaml(model, path)
    imported = load_model(path)
    assert imported.config["type_one_side"] is False
    e0, f0, w0 = md.evaluate(model, x, types, box)
    e1, f1, w1 = md.evaluate(imported, x, types, box)
    assert e1 == pytest.approx(e0, rel=1e-13, abs=1e-12)
    np.testing.assert_allclose(f1, f0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(w1, w0, rtol=0, atol=1e-11)
    # The four pair nets differ, so the (centre, neighbour) order matters: a file holding them in
    # centre-major order gives another energy (this is what the test would catch).
    wrong = tmp_path / "wrong_order.yaml"
    write_dpmodel_yaml(model, wrong, deepmd_order=False)
    e2, f2, _ = md.evaluate(load_model(wrong), x, types, box)
    assert abs(e2 - e0) > 1e-6 and np.abs(f2 - f0).max() > 1e-6  # vs agreement to 1e-12 above
    # the imported model through the frozen-file path too (what MD and LAMMPS load)
    imported.save(str(tmp_path / "frozen.h5"))
    e3, f3, _ = md.evaluate(md.load_deeppot(tmp_path / "frozen.h5"), x, types, box)
    assert e3 == e1 and np.array_equal(f3, f1)


def test_imported_pair_model_forces_are_minus_the_energy_gradient(tmp_path):
    model = pair_model(seed=5)
    path = tmp_path / "pair.yaml"
    write_dpmodel_yaml(model, path)
    pot = load_model(path)
    x, types, box = configuration(seed=1)
    _, f, _ = md.evaluate(pot, x, types, box)
    h = 1e-5
    fd = np.zeros_like(x)
    for i in range(len(x)):
        for a in range(3):
            xp, xm = x.copy(), x.copy()
            xp[i, a] += h
            xm[i, a] -= h
            fd[i, a] = -(md.evaluate(pot, xp, types, box)[0] - md.evaluate(pot, xm, types, box)[0]) / (2 * h)
    # central differences: error ~ h^2 |d3E/dx3| ~ 1e-10 eV/Å, plus rounding ~ 1e-16 * |E| / h ~ 1e-9
    np.testing.assert_allclose(f, fd, rtol=0, atol=2e-7)
    assert np.abs(f).max() > 1e-3  # not vacuous


def test_pair_model_with_the_wrong_number_of_networks_is_refused(tmp_path):
    path = tmp_path / "three_nets.yaml"
    write_dpmodel_yaml(pair_model(), path, keep_nets=3)  # 3 nets for 2 types, type_one_side false
    with pytest.raises(ValueError, match=r"three_nets.yaml: model.descriptor.embeddings.networks: expected 4 networks"):
        load_model(path)
