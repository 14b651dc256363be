"""se_e2_a speed against DeePMD-kit: energy+forces per atom-step, training steps/s, peak memory.

    OMP_NUM_THREADS=1 .venv/bin/python bench/deepmd/bench_deepmd.py [--deepmd-python PY] [--threads 1]
        [--repeat 10] [--train-steps 20] [--skip-deepmd] [--skip-large] [--skip-compressed]

Model: DeePMD-kit's water example (bench/deepmd/water_se_e2_a.json: se_e2_a, sel [46, 92],
rcut 6 Å, embedding [25, 50, 100], axis 16, fitting [240, 240, 240], float64, uncompressed).
Cases, each in its own process (its peak RSS is that process's ru_maxrss):
- energy+forces+virial of one water frame (data_0 frame 0, 192 atoms, periodic), including the
  neighbour list, with a frozen model as MD runs it (sampan: `sampan deepmd freeze`'s file through
  Potential.evaluate; DeePMD-kit: its frozen graph through DeepPot.eval);
- the same frame replicated 4x4x4 (12,288 atoms, box 49.8 Å);
- each energy+forces case again with the model compressed (`sampan deepmd compress` / `dp --tf
  compress`, both with their defaults: tables of step 0.01 extrapolated 5x, the distance bound from
  the training data);
- training steps per second on the water example (batch 1 frame of 192 atoms, force loss, so
  double backward), after warm-up steps (sampan: its Trainer; DeePMD-kit: `dp --tf train`, its
  own "average training time" over the steps after the first 10).
DeePMD-kit runs from another Python with the TensorFlow backend, given by --deepmd-python or
DEEPMD_PYTHON, else .venv-deepmd or .venv-bench of this checkout where `import deepmd` works:
    python3 -m venv .venv-deepmd && .venv-deepmd/bin/pip install "deepmd-kit[cpu]"
(about 600 MB with TensorFlow; kept out of bench/requirements.txt for that reason). Its model for the inference cases is the one its
training case wrote, frozen (weights do not change the cost). Both get the same thread settings
(OMP/OpenBLAS/TF intra- and inter-op threads = --threads). Times are wall clock (and CPU time of
the process where it can be separated); on a shared machine compare the ratios of one run and
note the load average printed with them.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INPUT = os.path.join(HERE, "water_se_e2_a.json")
REPLICATE = (4, 4, 4)


def data_dir():
    shared = os.environ.get("SAMPAN_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
    return os.path.join(shared, "deepmd_water")


def water_frame(replicate=(1, 1, 1)):
    """Coordinates [N, 3], cell [3, 3] rows, types [N] of data_0 frame 0, replicated."""
    import numpy as np

    system = os.path.join(data_dir(), "data_0")
    coord = np.load(os.path.join(system, "set.000", "coord.npy"))[0].reshape(-1, 3)
    cell = np.load(os.path.join(system, "set.000", "box.npy"))[0].reshape(3, 3)
    types = np.loadtxt(os.path.join(system, "type.raw"), dtype=int).ravel()
    shifts = [i * cell[0] + j * cell[1] + k * cell[2] for i in range(replicate[0]) for j in range(replicate[1])
              for k in range(replicate[2])]
    coord = np.concatenate([coord + s for s in shifts])
    types = np.tile(types, len(shifts))
    cell = cell * np.array(replicate)[:, None]
    return coord, cell, types


def training_config(steps, disp_freq, save_freq):
    with open(INPUT) as f:
        config = json.load(f)
    config.pop("_comment", None)
    text = json.dumps(config).replace("DATA/", data_dir().rstrip("/") + "/")
    config = json.loads(text)
    config["training"].update({"numb_steps": steps, "disp_freq": disp_freq, "save_freq": save_freq})
    return config


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# -- child cases (one process each) ------------------------------------------------------------
def case_sampan_infer(replicate, repeat, compressed=False):
    from sampan.deepmd import md
    from sampan.deepmd.compress import compress
    from sampan.deepmd.train import Trainer

    out = tempfile.mkdtemp()
    try:
        config = training_config(1, 1, 1)
        trainer = Trainer(config, base_dir=HERE, output_dir=out, log=lambda *a: None)
        trainer.init_statistics()
        # frozen, as MD runs it (and as DeePMD-kit's frozen graph): parameters without gradients
        path = os.path.join(out, "frozen_model.h5")
        trainer.model.save(path)
        if compressed:  # `sampan deepmd compress -t input.json`, DeePMD-kit's defaults (-s 0.01 -e 5)
            with open(os.path.join(out, "input.json"), "w") as f:
                json.dump(config, f)
            compress(path, os.path.join(out, "compressed.h5"), [os.path.join(out, "input.json")], log=lambda *a: None)
            path = os.path.join(out, "compressed.h5")
        model = md.load_deeppot(path)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    del trainer
    coord, cell, types = water_frame(replicate)
    box = md.box(cell)
    md.evaluate(model, coord, types, box)  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        md.evaluate(model, coord, types, box)
    return {"wall": (time.perf_counter() - wall) / repeat, "cpu": (time.process_time() - cpu) / repeat,
            "natoms": len(types), "rss_mb": peak_rss_mb()}


def case_sampan_train(steps):
    from sampan.deepmd.train import Trainer

    out = tempfile.mkdtemp()
    try:
        trainer = Trainer(training_config(1000000, 10 ** 9, 10 ** 9), base_dir=HERE, output_dir=out, log=lambda *a: None)
        trainer.stop_at = 3
        trainer.train()  # statistics + warm-up steps
        wall, cpu = time.perf_counter(), time.process_time()
        trainer.stop_at = 3 + steps
        trainer.train(init_stats=False)
        return {"wall": (time.perf_counter() - wall) / steps, "cpu": (time.process_time() - cpu) / steps,
                "rss_mb": peak_rss_mb()}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def case_deepmd_infer(model, replicate, repeat):
    from deepmd.infer import DeepPot

    dp = DeepPot(model)
    coord, cell, types = water_frame(replicate)
    args = (coord.reshape(1, -1), cell.reshape(1, -1), types.tolist())
    dp.eval(*args)  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        dp.eval(*args)
    return {"wall": (time.perf_counter() - wall) / repeat, "cpu": (time.process_time() - cpu) / repeat,
            "natoms": len(types), "rss_mb": peak_rss_mb()}


# -- parent ------------------------------------------------------------------------------------
def thread_env(threads):
    env = dict(os.environ)
    n = str(threads)
    env.update({"OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "DP_INTRA_OP_PARALLELISM_THREADS": n,
                "DP_INTER_OP_PARALLELISM_THREADS": n, "TF_NUM_INTRAOP_THREADS": n, "TF_NUM_INTEROP_THREADS": n,
                "TF_CPP_MIN_LOG_LEVEL": "2"})
    return env


def run_child(python, args, env, cwd=None):
    """JSON result of `python this_script --child ...` (its last stdout line)."""
    cmd = [python, os.path.abspath(__file__), "--child"] + [str(a) for a in args]
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def deepmd_train(python, steps, env, workdir):
    """DeePMD-kit's own average s/batch (excluding the first 10 batches) and the peak RSS of `dp train`."""
    config = training_config(steps, 10, 10 ** 6)
    with open(os.path.join(workdir, "input.json"), "w") as f:
        json.dump(config, f)
    dp = os.path.join(os.path.dirname(python), "dp")
    cmd = [dp] if os.path.exists(dp) else [python, "-c", "import sys; from deepmd.main import main; sys.exit(main())"]
    log_path = os.path.join(workdir, "train.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd + ["--tf", "train", "input.json"], cwd=workdir, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    text = open(log_path).read()
    if status != 0:
        raise RuntimeError(f"dp train failed (status {status}); log {log_path}:\n{text[-3000:]}")
    m = re.search(r"average training time: ([0-9.eE+-]+) s/batch", text)
    if not m:
        raise RuntimeError(f"no 'average training time' in {log_path}")
    with open(os.path.join(workdir, "freeze.log"), "w") as log:
        subprocess.run(cmd + ["--tf", "freeze", "-o", "frozen_model.pb"], cwd=workdir, env=env, stdout=log,
                       stderr=subprocess.STDOUT, check=True)
    return {"wall": float(m.group(1)), "cpu": None, "rss_mb": usage.ru_maxrss / 1024.0}, os.path.join(workdir, "frozen_model.pb")


def deepmd_compress(python, env, workdir):
    """`dp --tf compress` of the frozen model (its defaults: step 0.01, extrapolate 5, input.json's data)."""
    dp = os.path.join(os.path.dirname(python), "dp")
    cmd = [dp] if os.path.exists(dp) else [python, "-c", "import sys; from deepmd.main import main; sys.exit(main())"]
    with open(os.path.join(workdir, "compress.log"), "w") as log:
        subprocess.run(cmd + ["--tf", "compress", "-i", "frozen_model.pb", "-o", "frozen_model_compressed.pb",
                              "-t", "input.json"], cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
    return os.path.join(workdir, "frozen_model_compressed.pb")


def deepmd_python_default():
    for candidate in (os.environ.get("DEEPMD_PYTHON"), os.path.join(ROOT, ".venv-deepmd", "bin", "python"),
                      os.path.join(ROOT, ".venv-bench", "bin", "python")):
        if candidate and os.path.exists(candidate):
            ok = subprocess.run([candidate, "-c", "import deepmd.infer"], capture_output=True).returncode == 0
            if ok:
                return candidate
    return None


def fmt(v, scale=1.0, digits=1):
    return "-" if v is None else f"{v * scale:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deepmd-python", default=None, help="a Python with deepmd-kit (TF backend) installed")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=10, help="evaluations of the 192-atom frame (the large box: 2)")
    parser.add_argument("--train-steps", type=int, default=20)
    parser.add_argument("--skip-deepmd", action="store_true")
    parser.add_argument("--skip-large", action="store_true", help="no 12,288-atom case")
    parser.add_argument("--skip-compressed", action="store_true", help="no compressed-model rows")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        kind = args.child[0]
        if kind in ("sampan-infer", "sampan-infer-compressed"):
            result = case_sampan_infer(tuple(int(v) for v in args.child[1:4]), int(args.child[4]),
                                       compressed=kind.endswith("compressed"))
        elif kind == "sampan-train":
            result = case_sampan_train(int(args.child[1]))
        elif kind == "deepmd-infer":
            result = case_deepmd_infer(args.child[1], tuple(int(v) for v in args.child[2:5]), int(args.child[5]))
        else:
            raise SystemExit(f"unknown child case {kind}")
        print(json.dumps(result))
        return

    if not os.path.isdir(data_dir()):
        raise SystemExit(f"bench_deepmd: water data not found at {data_dir()} (set SAMPAN_SHARED_DATA)")
    env = thread_env(args.threads)
    dp_python = None if args.skip_deepmd else (args.deepmd_python or deepmd_python_default())
    if not args.skip_deepmd and dp_python is None:
        print("bench_deepmd: DeePMD-kit not found (give --deepmd-python or DEEPMD_PYTHON, a Python with "
              "`pip install deepmd-kit[cpu]`); sampan only")
    load_before = os.getloadavg()
    cases = [("192 atoms", (1, 1, 1), args.repeat)]
    if not args.skip_large:
        cases.append((f"{192 * 64:,} atoms", REPLICATE, 2))
    rows, speedups = [], []
    workdir = tempfile.mkdtemp(prefix="bench_deepmd_")
    try:
        ours_train = run_child(sys.executable, ["sampan-train", args.train_steps], env)
        theirs_train, model = (None, None)
        if dp_python:
            theirs_train, model = deepmd_train(dp_python, max(args.train_steps, 10) + 10, env, workdir)
        rows.append(("training step (1 frame)", ours_train, theirs_train, None))
        compressed_model = deepmd_compress(dp_python, env, workdir) if model and not args.skip_compressed else None
        for label, rep, repeat in cases:
            ours = run_child(sys.executable, ["sampan-infer", *rep, repeat], env)
            theirs = run_child(dp_python, ["deepmd-infer", model, *rep, repeat], env) if model else None
            rows.append((f"energy+forces, {label}", ours, theirs, ours["natoms"]))
            if args.skip_compressed:
                continue
            ours_c = run_child(sys.executable, ["sampan-infer-compressed", *rep, repeat], env)
            theirs_c = run_child(dp_python, ["deepmd-infer", compressed_model, *rep, repeat], env) if compressed_model else None
            rows.append((f"  compressed, {label}", ours_c, theirs_c, ours_c["natoms"]))
            speedups.append((label, ours["wall"] / ours_c["wall"],
                             theirs["wall"] / theirs_c["wall"] if theirs and theirs_c else None))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()

    print(f"\nse_e2_a water model, float64, {args.threads} thread(s); load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after ({os.cpu_count()} CPUs)")
    print(f"{'case':<30} {'sampan':>22} {'DeePMD-kit':>22} {'ratio':>8} {'peak RSS MB':>20}")
    for label, ours, theirs, natoms in rows:
        if natoms:  # microseconds per atom per step (wall; CPU in parentheses)
            o = f"{fmt(ours['wall'], 1e6 / natoms)} ({fmt(ours['cpu'], 1e6 / natoms)}) us/atom"
            t = f"{fmt(theirs['wall'], 1e6 / natoms)} ({fmt(theirs['cpu'], 1e6 / natoms)}) us/atom" if theirs else "-"
        else:  # steps per second (wall; CPU seconds per step in parentheses)
            o = f"{1 / ours['wall']:.2f} steps/s ({fmt(ours['cpu'], 1e3, 0)} ms)"
            t = f"{1 / theirs['wall']:.2f} steps/s" if theirs else "-"
        ratio = f"{ours['wall'] / theirs['wall']:.2f}" if theirs else "-"
        rss = f"{ours['rss_mb']:.0f} / {theirs['rss_mb']:.0f}" if theirs else f"{ours['rss_mb']:.0f}"
        print(f"{label:<30} {o:>22} {t:>22} {ratio:>8} {rss:>20}")
    print("ratio = sampan time / DeePMD-kit time (wall; < 1: sampan faster); peak RSS sampan / DeePMD-kit")
    for label, ours, theirs in speedups:
        t = f", DeePMD-kit {theirs:.2f}x" if theirs else ""
        print(f"compression speed-up (uncompressed / compressed time), {label}: sampan {ours:.2f}x{t}")


if __name__ == "__main__":
    main()
