"""Instructions per training step under callgrind (deterministic, unlike timings on a loaded
machine): a GIN (helix) or se_e2_a (deepmd) model is set up and warmed up without instrumentation,
then callgrind counts `--steps` training steps only.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/step_instructions.py gin --steps 3
    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/step_instructions.py deepmd --steps 3
    # prints: gin: 3 steps, 1234567890 instructions, 411522630 per step (callgrind output: ...)

The script starts itself under `valgrind --tool=callgrind --instr-atstart=no`; after the warm-up
the child writes a flag file, the parent turns instrumentation on (callgrind_control -i on), and
the child runs the counted steps. gin: 5 layers x --emb-dim (300), one batch of 32 BBBP molecules
(NCI's first_5K.smi without the shared data) trained on repeatedly, dropout 0.5, Adam, one thread.
deepmd: the water se_e2_a example's Trainer (force loss, so a double backward), one thread.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(1, os.path.join(HERE, "helix"))
sys.path.insert(2, os.path.join(HERE, "deepmd"))


def _wait_for_go(flag):
    """Tells the parent that the warm-up is done and waits until instrumentation is on."""
    if not flag:
        return
    open(flag + ".ready", "w").close()
    while not os.path.exists(flag + ".go"):
        time.sleep(0.1)


def _first_rows_csv(path, rows):
    """A CSV of the header and the first `rows` molecules of `path` (featurizing the whole set
    under valgrind would take longer than the steps)."""
    tmp = tempfile.NamedTemporaryFile("w", suffix=os.path.splitext(path)[1], delete=False)
    with open(path) as f:
        for k, line in enumerate(f):
            if k > rows:
                break
            tmp.write(line)
    tmp.close()
    return tmp.name


def gin(steps, emb_dim, flag):
    import sampan as sp
    from train_bench import DATASETS, load_batches
    from sampan.helix.finetune import masked_loss
    from sampan.helix.models import GraphModel
    sp.set_num_threads(1)
    path = _first_rows_csv(next(p for p in DATASETS if os.path.exists(p)), 40)
    try:
        _, batches = load_batches(path, 1, 32)
    finally:
        os.unlink(path)
    sp.manual_seed(0)
    model = GraphModel(batches[0].y.shape[1], "pretrain_gnns", 5, emb_dim, dropout=0.5)
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    b = batches[0]

    def step():
        opt.zero_grad()
        masked_loss(model(b), b, True).backward()
        opt.step()

    step()  # warm-up: shape caches, allocator, Adam state
    _wait_for_go(flag)
    for _ in range(steps):
        step()


def deepmd(steps, flag):
    import sampan as sp
    from bench_deepmd import training_config
    from sampan.deepmd.train import Trainer
    sp.set_num_threads(1)
    out = tempfile.mkdtemp()
    try:
        trainer = Trainer(training_config(1000000, 10 ** 9, 10 ** 9), base_dir=os.path.join(HERE, "deepmd"),
                          output_dir=out, log=lambda *a: None)
        trainer.stop_at = 2
        trainer.train()  # statistics + warm-up steps
        _wait_for_go(flag)
        trainer.stop_at = 2 + steps
        trainer.train(init_stats=False)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def under_callgrind(args):
    """Runs this script under callgrind with instrumentation off until the warm-up is done."""
    work = tempfile.mkdtemp(prefix="step_instructions.")
    flag = os.path.join(work, "flag")
    out = args.output or os.path.join(work, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", sys.executable,
           os.path.abspath(__file__), args.workload, "--steps", str(args.steps), "--emb-dim", str(args.emb_dim),
           "--child", flag]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    log = open(os.path.join(work, "valgrind.log"), "w")
    child = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    while not os.path.exists(flag + ".ready"):
        if child.poll() is not None:
            sys.exit(f"the child exited ({child.returncode}) before its warm-up ended; see {log.name}")
        time.sleep(0.5)
    subprocess.run(["callgrind_control", "-i", "on", str(child.pid)], check=True, stdout=subprocess.DEVNULL)
    open(flag + ".go", "w").close()
    if child.wait() != 0:
        sys.exit(f"the child failed ({child.returncode}); see {log.name}")
    with open(out) as f:
        totals = [int(m.group(1)) for m in (re.match(r"(?:summary|totals): (\d+)", line) for line in f) if m]
    total = max(totals)
    print(f"{args.workload}: {args.steps} steps, {total} instructions, {total // args.steps} per step "
          f"(callgrind output: {out})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=["gin", "deepmd"])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--emb-dim", type=int, default=300)
    parser.add_argument("--output", help="callgrind output file (default: a temporary folder)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the flag path, inside valgrind
    args = parser.parse_args()
    if args.child is None:
        return under_callgrind(args)
    if args.workload == "gin":
        gin(args.steps, args.emb_dim, args.child)
    else:
        deepmd(args.steps, args.child)


if __name__ == "__main__":
    main()
