"""Peak memory of one training step: what the tape keeps with and without its saved-tensor
selection (each op's .saves_for_vjp: only what its gradient reads), and with and without buffer
donation on top (.output_may_reuse: an op writes over an input buffer its call alone holds, as
the gradients handed from vjp to vjp are), float32 against autocast.

    OMP_NUM_THREADS=1 .venv/bin/python bench/memory_bench.py [--batches 10] [--emb-dim 300]

Two steps, both measured as the CPU allocator's peak above what was held before the step
(sp.profiler.max_memory_allocated("cpu") after reset_peak_memory_stats, after a warm-up pass so
that the optimizer's state already exists), so the figure is the step's own working memory:
- GIN 5x300 (Hu et al.'s model, bench/helix/train_bench.py's), one pass over batches of 32 BBBP
  molecules with Adam, float32 and under autocast(bfloat16);
- se_e2_a on DeePMD's water example (float64, a force loss and so a double backward), one
  training step of sampan.deepmd.train's Trainer, batch of 1 frame of 192 atoms;
- and, for scale, the backward pass alone of a chain of elementwise ops (relu of a product by a
  constant plus a shift, four times), where every gradient can be written over the one before.
The two are switched with sp.autograd.set_saved_tensor_selection and set_buffer_donation; the
numbers are bytes, so one run gives them exactly (the same step allocates the same buffers).
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(1, os.path.join(HERE, "helix"))
sys.path.insert(2, os.path.join(HERE, "deepmd"))

import sampan as sp  # noqa: E402
import train_bench  # noqa: E402  (GIN model, batches and step_peak_bytes)


def with_settings(selection, donation, fn):
    before = sp.autograd.saved_tensor_selection_enabled(), sp.autograd.buffer_donation_enabled()
    sp.autograd.set_saved_tensor_selection(selection)
    sp.autograd.set_buffer_donation(donation)
    try:
        return fn()
    finally:
        sp.autograd.set_saved_tensor_selection(before[0])
        sp.autograd.set_buffer_donation(before[1])


def three_ways(fn):
    """(keeps everything, keeps what the vjps read, the same plus buffer donation)."""
    return with_settings(False, False, fn), with_settings(True, False, fn), with_settings(True, True, fn)


def gin_peak(batches, emb_dim, amp):
    """Peak bytes of one training pass over `batches` above what was held before it: the largest
    step's working memory (each step's intermediates are freed before the next)."""
    return train_bench.step_peak_bytes(batches, 5, emb_dim, 1, amp)


def se_e2_a_peak():
    import bench_deepmd
    from sampan.deepmd.train import Trainer

    out = tempfile.mkdtemp()
    try:
        config = bench_deepmd.training_config(1000000, 10 ** 9, 10 ** 9)
        trainer = Trainer(config, base_dir=os.path.join(HERE, "deepmd"), output_dir=out, log=lambda *a: None)
        trainer.stop_at = 2
        trainer.train()  # statistics and two warm-up steps: the optimizer's state exists
        base = sp.profiler.memory_allocated("cpu")
        sp.profiler.reset_peak_memory_stats("cpu")
        trainer.stop_at = 3
        trainer.train(init_stats=False)
        return sp.profiler.max_memory_allocated("cpu") - base
    finally:
        shutil.rmtree(out, ignore_errors=True)


def chain_backward():
    """(x's gradient, peak bytes) of the backward pass of four relu(h * m + 0.1) over 2^16
    float64 (m constant, as a dropout mask is): elementwise gradients only, what donation is for.
    tests/python/test_saved_tensors.py checks its bytes exactly."""
    sp.manual_seed(1)
    x = sp.randn(1 << 16, dtype=sp.float64).requires_grad_()
    m = sp.randn(1 << 16, dtype=sp.float64)
    h = x
    for _ in range(4):
        h = sp.relu(h * m + 0.1)
    loss = h.sum()
    del h
    base = sp.profiler.memory_allocated("cpu")
    sp.profiler.reset_peak_memory_stats("cpu")
    loss.backward()
    return x.grad.numpy().copy(), sp.profiler.max_memory_allocated("cpu") - base


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=10, help="GIN batches of 32 molecules (default 10)")
    ap.add_argument("--emb-dim", type=int, default=300)
    ap.add_argument("--skip-deepmd", action="store_true", help="only the GIN rows")
    args = ap.parse_args()
    sp.set_num_threads(1)

    path = next(p for p in train_bench.DATASETS if os.path.exists(p))
    _, batches = train_bench.load_batches(path, args.batches, 32)
    rows = []
    for label, amp in (("GIN 5x300, float32", None), ("GIN 5x300, autocast bfloat16", "bfloat16")):
        rows.append((label,) + three_ways(lambda: gin_peak(batches, args.emb_dim, amp)))
    if not args.skip_deepmd:
        rows.append(("se_e2_a water, float64, force loss",) + three_ways(se_e2_a_peak))
    rows.append(("backward of 4 x relu(h * m + 0.1), 2^16 float64",) + three_ways(lambda: chain_backward()[1]))

    mib = 1024.0 ** 2
    print("| training step | keeps everything (MiB) | keeps what the vjps read | and donates buffers | "
          "ratios to keeping everything | donation alone |")
    print("|---|---|---|---|---|---|")
    for label, everything, selected, donated in rows:
        print(f"| {label} | {everything / mib:.2f} | {selected / mib:.2f} | {donated / mib:.2f} | "
              f"{selected / everything:.2f}, {donated / everything:.2f} | {donated / selected:.2f} |")


if __name__ == "__main__":
    main()
