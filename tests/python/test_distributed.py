"""sp.distributed: one-rank semantics and errors in this process; the collectives and
data-parallel training under `mpirun -n 2` and `-n 3` (distributed_ranks.py), data-parallel
helix pretraining with a stop and resume (helix_pretrain_ranks.py), and data-parallel DeePMD
training with a restart (deepmd_train_ranks.py)."""
import os
import re
import subprocess
import sys

import pytest
from mpi_launcher import mpirun_command

import sampan as sp

dist = sp.distributed
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def test_outside_a_launcher_this_process_is_rank_0_of_1():
    if sp._C.distributed.under_launcher():
        pytest.skip("this test checks a process that no MPI launcher started")
    assert not dist.is_active()
    assert (dist.rank(), dist.world_size()) == (0, 1)
    t = sp.tensor([1.5, -2.0])
    assert dist.all_reduce(t, "avg") is t and t.tolist() == [1.5, -2.0]
    assert dist.broadcast(t) is t and t.tolist() == [1.5, -2.0]
    (g,) = dist.all_gather(t)
    assert g.tolist() == t.tolist() and g is not t
    dist.barrier()
    assert dist.shard([1, 2, 3]) == [1, 2, 3]
    model = sp.nn.Linear(2, 1)
    dp = dist.DataParallel(model)
    model(sp.ones(3, 2)).sum().backward()
    before = model.weight.grad.tolist()
    dp.sync_gradients()  # one rank: the average is the gradient itself
    assert model.weight.grad.tolist() == before
    assert dp.in_features == 2  # attributes come from the wrapped module
    bare = dist.DataParallel.__new__(dist.DataParallel)  # e.g. a copy made without __init__
    with pytest.raises(AttributeError, match="no wrapped module"):
        bare.training


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="reduce op 'median'"):
        dist.all_reduce(sp.ones(2), "median")
    with pytest.raises(TypeError, match="'max' of complex128"):
        dist.all_reduce(sp.tensor([1j], dtype=sp.complex128), "max")
    with pytest.raises(TypeError, match="'avg' of int64 would round"):
        dist.all_reduce(sp.tensor([1, 2], dtype=sp.int64), "avg")
    with pytest.raises(TypeError, match="dtype bool is not supported"):
        dist.all_reduce(sp.tensor([True]))
    with pytest.raises(ValueError, match="not contiguous"):
        dist.all_reduce(sp.ones(2, 3).mT)
    with pytest.raises(ValueError, match=r"root 1 is not a rank \(0 to 0\)"):
        dist.broadcast(sp.ones(2), root=1)
    with pytest.raises(ValueError, match="dest 0 is this rank"):
        dist.send(sp.ones(2), 0)
    with pytest.raises(ValueError, match=r"source 1 is not a rank \(0 to 0\)"):
        dist.recv(sp.ones(2), 1)


@pytest.mark.parametrize("ranks", [2, 3])
def test_collectives_and_data_parallel_training_undermpirun_command(ranks):
    if not dist.is_available():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    launcher = mpirun_command(ranks)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), OMP_NUM_THREADS="1")
    r = subprocess.run([*launcher, sys.executable, os.path.join(HERE, "distributed_ranks.py")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    # mpirun forwards the ranks' output as it comes: two lines may arrive joined
    ok = sorted(re.findall(r"rank (\d+) of (\d+): OK", r.stdout))
    assert ok == [(str(k), str(ranks)) for k in range(ranks)], r.stdout


NCI_SMI = "/usr/share/RDKit/Data/NCI/first_5K.smi"


@pytest.mark.parametrize("ranks", [2, 3])
def test_data_parallel_helix_pretraining_stops_and_resumes_undermpirun_command(ranks, tmp_path):
    from sampan import helix
    if not dist.is_available():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    if not helix.native_available():
        pytest.skip("helix's featurization is not built (RDKit's C++ libraries were not found)")
    if not os.path.exists(NCI_SMI):
        pytest.skip(f"{NCI_SMI} is missing (Debian package rdkit-data)")
    launcher = mpirun_command(ranks)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), OMP_NUM_THREADS="1",
               SAMPAN_HELIX_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([*launcher, sys.executable, os.path.join(HERE, "helix_pretrain_ranks.py"), str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    ok = sorted(re.findall(r"rank (\d+) of (\d+): OK", r.stdout))
    assert ok == [(str(k), str(ranks)) for k in range(ranks)], r.stdout


def test_helix_pretrain_command_under_mpirun_writes_once(tmp_path):
    from sampan import helix
    if not (dist.is_available() and helix.native_available() and os.path.exists(NCI_SMI)):
        pytest.skip("needs MPI, helix's featurization (RDKit) and rdkit-data")
    launcher = mpirun_command(2)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), OMP_NUM_THREADS="1",
               SAMPAN_HELIX_CACHE=str(tmp_path / "cache"))
    out = tmp_path / "enc.h5"
    args = ["-m", "sampan", "helix", "pretrain", "--dataset", NCI_SMI, "--max-molecules", "128", "--batch-size", "32",
            "--epochs", "2", "--layers", "2", "--emb-dim", "16", "--out", str(out), "--no-progress"]
    r = subprocess.run([*launcher, sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("data-parallel over 2 ranks") == 1 and r.stdout.count("encoder -> ") == 1, r.stdout
    assert r.stdout.count("  epoch 2: loss") == 1, r.stdout
    from sampan.helix import pretrain as pt
    _, provenance = pt.load_encoder(str(out))
    assert provenance["ranks"] == 2 and len(provenance["history"]["loss"]) == 2
    r = subprocess.run([*launcher, sys.executable, *args[:-1], "--task", "supervised"], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode != 0 and "run supervised pretraining in one process" in r.stderr, r.stderr


def test_data_parallel_deepmd_training_restarts_undermpirun_command(tmp_path):
    from shared_data import SHARED_DATA
    if not (SHARED_DATA / "deepmd_water").exists():
        pytest.skip(f"DeePMD water data not found at {SHARED_DATA / 'deepmd_water'}")
    if not dist.is_available():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    launcher = mpirun_command(2)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"), HERE]), OMP_NUM_THREADS="1")
    r = subprocess.run([*launcher, sys.executable, os.path.join(HERE, "deepmd_train_ranks.py"), str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"rank (\d+) of (\d+): OK", r.stdout)) == [("0", "2"), ("1", "2")], r.stdout
    # a checkpoint of 2 ranks does not restart on 1
    from sampan.deepmd.train import train
    with pytest.raises(ValueError, match=r"written by a run on 2 rank\(s\) but this run has 1"):
        train(str(tmp_path / "b" / "input.json"), restart=str(tmp_path / "a" / "model.ckpt-2.h5"),
              output_dir=str(tmp_path / "c"), log=lambda *_: None)
