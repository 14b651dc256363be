"""DeePMD models on a device: ``DeepPot.to(device)`` moves every tensor of the model (a failed move
leaves it as it was), ``evaluate`` then runs the network there with the neighbour search on the
host, and ``sampan deepmd train --device cuda`` trains there (its double backward included).
Without a GPU: the errors, named before any data is read; with one: the CPU's energies, forces,
virials and training curve to rounding."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from shared_data import SHARED_DATA

import sampan as sp
from sampan.deepmd.model import DeepPot, evaluate_system, frame_input
from sampan.deepmd.systems import read_systems
from sampan.deepmd.train import Trainer
from test_deepmd_train import tiny_input as train_input

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WATER = SHARED_DATA / "deepmd_water"
needs_water = pytest.mark.skipif(not WATER.exists(), reason=f"DeePMD water data not found at {WATER}")
needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")
without_gpu = pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present: the no-GPU errors do not arise")

CONFIG = {"type_map": ["O", "H"], "rcut": 6.0, "rcut_smth": 0.5, "sel": [46, 92], "neuron": [4, 8],
          "axis_neuron": 4, "type_one_side": False, "resnet_dt": True, "fitting_neuron": [16, 16],
          "fitting_resnet_dt": True}


def tiny_input(steps=3):
    """test_deepmd_train's tiny model on one water system, one frame per batch, no validation."""
    config = train_input(numb_steps=steps)
    config["model"]["data_stat_nbatch"] = 1
    config["training"]["training_data"] = {"systems": [str(WATER / "data_0")], "batch_size": 1}
    config["training"].pop("validation_data")
    return config


def run_cli(args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sampan", "deepmd", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def _expect_the_cpus_numbers_on_the_gpu(pot, system):
    """Energies, forces and virials of frames 0 and 1: the CPU model's, then the same model moved."""
    cpu = evaluate_system(pot, system, [0, 1])
    pot.to("cuda")
    assert pot.device == "cuda:0"
    gpu = evaluate_system(pot, system, [0, 1])
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g, c, rtol=1e-10, atol=1e-12)


def test_a_model_is_on_the_cpu_and_to_cpu_keeps_its_numbers():
    pot = DeepPot(CONFIG, 3)
    assert pot.device == "cpu"
    before = [p.numpy().copy() for p in pot.parameters()]
    assert pot.to("cpu") is pot
    for b, p in zip(before, pot.parameters()):
        np.testing.assert_array_equal(p.numpy(), b)


@without_gpu
def test_without_a_gpu_moving_a_model_raises_and_leaves_it_on_the_cpu():
    pot = DeepPot(CONFIG, 3)
    before = [p.numpy().copy() for p in pot.parameters()]
    with pytest.raises((RuntimeError, NotImplementedError), match="cuda|CUDA|GPU|nvcc"):
        pot.to("cuda")
    assert pot.device == "cpu"
    for b, p in zip(before, pot.parameters()):
        np.testing.assert_array_equal(p.numpy(), b)
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        pot.to("tpu")


@without_gpu
def test_without_a_gpu_train_on_cuda_is_refused_before_the_input_is_read(tmp_path):
    missing = tmp_path / "no_such_input.json"
    r = run_cli(["train", str(missing), "--device", "cuda"])
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--device cuda: no GPU in this process" in r.stderr
    r = run_cli(["train", str(missing), "--device", "npu"])
    assert r.returncode == 2 and "device must be 'cpu', 'cuda' or 'cuda:N', got 'npu'" in r.stderr


def test_a_trainer_refuses_a_name_that_is_no_device():
    with pytest.raises(ValueError, match="deepmd Trainer: device must be"):
        Trainer(tiny_input(), device="gpu0")


@needs_gpu
@needs_water
@pytest.mark.parametrize("one_side", [True, False])
def test_a_model_on_the_gpu_gives_the_cpus_energy_forces_and_virial(one_side):
    system = read_systems([str(WATER / "data_3")], ["O", "H"], ".", "systems")[0]
    pot = DeepPot(dict(CONFIG, type_one_side=one_side), 5)
    _expect_the_cpus_numbers_on_the_gpu(pot, system)
    assert all(p.device == "cuda:0" for p in pot.parameters())
    out = pot.evaluate(frame_input(pot, system, 0), True, False)
    assert out["force"].device == "cuda:0"
    # MD's entry point reads the GPU's numbers back to the host
    pot.to("cpu")
    assert pot.device == "cpu"


@needs_gpu
@needs_water
@pytest.mark.parametrize("one_side", [True, False])
def test_a_compressed_model_on_the_gpu_gives_the_cpus_energy_forces_and_virial(one_side):
    # The tables move with the model; the tabulated ops' CUDA twins run the contraction there.
    system = read_systems([str(WATER / "data_3")], ["O", "H"], ".", "systems")[0]
    pot = DeepPot(dict(CONFIG, type_one_side=one_side), 5)
    pot.compress(0.5)
    _expect_the_cpus_numbers_on_the_gpu(pot, system)
    assert pot.compressed


@needs_gpu
@needs_water
def test_training_on_the_gpu_follows_the_cpus_curve(tmp_path):
    curves = {}
    for device in ("cpu", "cuda"):
        folder = tmp_path / device
        folder.mkdir()
        path = folder / "input.json"
        path.write_text(json.dumps(tiny_input()))
        r = run_cli(["train", str(path), "-o", str(folder), "--device", device])
        assert r.returncode == 0, r.stderr
        rows = [line.split() for line in (folder / "lcurve.out").read_text().splitlines()[1:]]
        curves[device] = np.array([[float(v) for v in row] for row in rows])
    np.testing.assert_allclose(curves["cuda"], curves["cpu"], rtol=1e-8)
