"""Module.to / .cuda() / .cpu(): parameters and buffers move and convert together, shared
parameters stay shared, and a failed move (no GPU here) leaves the module exactly as it was. With
a GPU, a model's state goes to cuda:0 and back with the same bits, and sampan.save writes GPU
tensors (from a host copy); sampan.load(map_location=) puts a checkpoint's tensors on a device, and
refuses a name that is no device. The GPU half skips, naming the reason, where there is no GPU."""
import numpy as np
import pytest

import sampan as sp
from sampan import nn

needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")


def model():
    sp.manual_seed(5)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))


def state(m):
    return {k: (v.device, v.dtype, v.cpu().numpy().copy()) for k, v in m.state_dict().items()}


def test_to_the_device_it_is_on_keeps_every_parameter_object():
    m = model()
    before = list(m.parameters())
    assert m.to("cpu") is m and m.cpu() is m
    assert all(a is b for a, b in zip(before, m.parameters()))


def test_dtype_and_device_arguments_as_tensor_to_takes_them():
    m = model().to("cpu", sp.float64)
    kinds = {k: (v.device, str(v.dtype)) for k, v in m.state_dict().items()}
    assert kinds["0.weight"] == ("cpu", "float64") and kinds["1.running_var"] == ("cpu", "float64")
    assert kinds["1.num_batches_tracked"] == ("cpu", "int64")  # counters keep their dtype
    assert all(p.requires_grad and isinstance(p, nn.Parameter) for p in m.parameters())
    m.to(dtype="float32")
    assert {str(p.dtype) for p in m.parameters()} == {"float32"}
    with pytest.raises(ValueError, match="Module.to: 'gpu' is neither a device"):
        m.to("gpu")


def test_tied_parameters_stay_tied():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight
    m = nn.Sequential(a, b).to(sp.float64)
    assert m[0].weight is m[1].weight and m[0].weight.dtype == sp.float64
    assert len(list(m.parameters())) == 3  # one weight, two biases


def test_a_conversion_failing_midway_installs_nothing(monkeypatch):
    m = model()
    before, parameters = state(m), list(m.parameters())
    real_to, calls = sp.Tensor.to, []

    def third_fails(self, *args, **kwargs):  # the first two tensors convert, the third cannot
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("simulated failure of the third copy")
        return real_to(self, *args, **kwargs)

    monkeypatch.setattr(sp.Tensor, "to", third_fails)
    with pytest.raises(RuntimeError, match="simulated failure"):
        m.to(sp.float64)
    monkeypatch.undo()
    assert all(a is b for a, b in zip(parameters, m.parameters()))
    after = state(m)
    for k in before:
        assert before[k][:2] == after[k][:2], k
        np.testing.assert_array_equal(before[k][2], after[k][2])


@pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present; the no-GPU error is not reachable")
def test_without_a_gpu_the_move_names_the_reason_and_changes_nothing():
    m = model()
    parameters = list(m.parameters())
    with pytest.raises((RuntimeError, NotImplementedError), match="cuda|CUDA"):
        m.cuda()
    assert all(a is b and a.device == "cpu" for a, b in zip(parameters, m.parameters()))


@needs_gpu
def test_a_model_goes_to_the_gpu_and_back_with_the_same_bits(tmp_path):
    m = model()
    before = state(m)
    m.cuda()
    assert {v.device for v in m.state_dict().values()} == {"cuda:0"}
    assert all(p.requires_grad for p in m.parameters())
    path = str(tmp_path / "gpu.h5")
    sp.save(m.state_dict(), path)  # written from host copies
    loaded = sp.load(path)
    m.cpu()
    for k, (_, dtype, values) in before.items():
        assert loaded[k].device == "cpu" and loaded[k].dtype == dtype
        np.testing.assert_array_equal(loaded[k].numpy(), values)
        np.testing.assert_array_equal(m.state_dict()[k].numpy(), values)


def _checkpoint(tmp_path):
    path = str(tmp_path / "checkpoint.h5")
    sp.save({"model": model().state_dict(), "history": [sp.tensor([0.5, 0.25]), 3, "adam"],
             "pair": (sp.ones(2, dtype=sp.float64), None)}, path)
    return path


def test_load_with_map_location_cpu_is_the_plain_load(tmp_path):
    path = _checkpoint(tmp_path)
    plain, placed = sp.load(path), sp.load(path, map_location="cpu")
    assert list(placed["model"]) == list(plain["model"])  # key order kept
    for k, v in plain["model"].items():
        assert placed["model"][k].device == "cpu"
        np.testing.assert_array_equal(placed["model"][k].numpy(), v.numpy())
    assert placed["history"][1:] == [3, "adam"] and isinstance(placed["pair"], tuple) and placed["pair"][1] is None


def test_load_refuses_a_map_location_that_is_no_device(tmp_path):
    path = _checkpoint(tmp_path)
    with pytest.raises(ValueError, match=r"sp.load\(map_location=...\): device must be"):
        sp.load(path, map_location="gpu")


@pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present; the no-GPU error is not reachable")
def test_load_onto_a_missing_gpu_names_the_reason(tmp_path):
    path = _checkpoint(tmp_path)
    with pytest.raises((RuntimeError, NotImplementedError), match="cuda:0"):
        sp.load(path, map_location="cuda")


@needs_gpu
def test_load_with_map_location_cuda_puts_every_tensor_on_the_gpu(tmp_path):
    path = _checkpoint(tmp_path)
    plain, placed = sp.load(path), sp.load(path, map_location="cuda")
    for k, v in plain["model"].items():
        assert placed["model"][k].device == "cuda:0" and placed["model"][k].dtype == v.dtype
        np.testing.assert_array_equal(placed["model"][k].cpu().numpy(), v.numpy())
    assert placed["history"][0].device == "cuda:0" and placed["pair"][0].device == "cuda:0"
    m = model().cuda()
    m.load_state_dict(placed["model"])
    assert {v.device for v in m.state_dict().values()} == {"cuda:0"}
