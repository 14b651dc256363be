"""CPU time of the graph ops of message passing (index_select gather, index_add, segment_sum/mean/max
reductions, and the other gather/scatter/segment ops with CUDA twins: gather, scatter_add,
index_copy, segment_count) at a GIN batch's size (32 molecules ~ 900 nodes, ~1,900 directed edges, 300 features)
and at a 50x larger one, median of repeats, with a fingerprint (sha256) of each result's bits: run
it with two builds (PYTHONPATH=<checkout>/python) to compare speed and check the same bits.

    OMP_NUM_THREADS=1 .venv/bin/python bench/helix/graph_ops_bench.py
"""
import hashlib
import os
import time

import numpy as np
import sampan as sp
print("sampan from", os.path.dirname(sp.__file__))
rng = np.random.default_rng(0)
for nodes, edges, feat in [(900, 1900, 300), (45000, 95000, 64)]:
    h = sp.tensor(rng.normal(size=(nodes, feat)))
    src = sp.tensor(rng.integers(0, nodes, edges).astype(np.int64))
    dst = sp.tensor(np.sort(rng.integers(0, nodes, edges)).astype(np.int64))
    dst_u = sp.tensor(rng.integers(0, nodes, edges).astype(np.int64))
    msgs = sp.index_select(h, 0, src)
    src2d = sp.tensor(rng.integers(0, nodes, (edges, feat)).astype(np.int64))
    dst2d = sp.tensor(rng.integers(0, nodes, (edges, feat)).astype(np.int64))
    perm = sp.tensor(rng.permutation(nodes).astype(np.int64))
    cases = {"index_select": lambda: sp.index_select(h, 0, src),
             "segment_sum sorted": lambda: sp.segment_sum(msgs, dst, nodes),
             "segment_sum unsorted": lambda: sp.segment_sum(msgs, dst_u, nodes),
             "segment_mean": lambda: sp.segment_mean(msgs, dst_u, nodes),
             "segment_max": lambda: sp.segment_max(msgs, dst_u, nodes),
             "index_add": lambda: sp.index_add(h, 0, dst_u, msgs),
             # gather/scatter_add with a full-rank index: each edge picks one column per feature.
             "gather": lambda: sp.gather(h, 0, src2d),
             "scatter_add": lambda: sp.scatter_add(h, 0, dst2d, msgs),
             "index_copy": lambda: sp.index_copy(h, 0, perm, h),
             "segment_count": lambda: sp.segment_count(dst_u, nodes)}
    for name, f in cases.items():
        out = f()
        out = out[0] if isinstance(out, tuple) else out
        times = []
        for _ in range(15):
            t = time.process_time(); f(); times.append(time.process_time() - t)
        fp = hashlib.sha256(out.numpy().tobytes()).hexdigest()[:12]
        print(f"{nodes:>6} nodes {edges:>6} edges x{feat:<4} {name:<22} {1e6*np.median(times):9.1f} us  {fp}")
