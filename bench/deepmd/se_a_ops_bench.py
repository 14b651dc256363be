"""CPU time per call of the five se_e2_a ops and the env-matrix backward, on a random water-like
system (3,000 centres, 138 slots = sel 46+92, 15% empty), median of repeats, and a fingerprint
(sha256) of each result's bits: run it with two builds (PYTHONPATH=<checkout>/python) to compare
their speed and check that they compute the same bits.

    OMP_NUM_THREADS=1 .venv/bin/python bench/deepmd/se_a_ops_bench.py [REPEATS]
"""
import hashlib
import os
import sys
import time

import numpy as np
import sampan as sp
print("sampan from", os.path.dirname(sp.__file__))
rng = np.random.default_rng(0)
nloc, nnei, nall, nt = 3000, 138, 6000, 2
coord = sp.tensor(rng.uniform(0, 30, (nall, 3)))
at = sp.tensor(rng.integers(0, nt, nall).astype(np.int64))
nl = rng.integers(0, nall, (nloc, nnei)).astype(np.int64)
nl[rng.uniform(size=nl.shape) < 0.15] = -1
for i in range(nloc): nl[i][nl[i] == i] = -1
nl = sp.tensor(nl)
davg = sp.tensor(rng.uniform(-.1, .1, (nt, nnei * 4)))
dstd = sp.tensor(rng.uniform(.5, 1, (nt, nnei * 4)))
D = sp.ops.deepmd
em, emd, rij = D.prod_env_mat_a(coord, at, nl, davg, dstd, 40.0, 1.0)
a = sp.tensor(rng.normal(size=(nloc, nnei * 4)))
gf = sp.tensor(rng.normal(size=(nall, 3)))
gv = sp.tensor(rng.normal(size=(9,)))
gav = sp.tensor(rng.normal(size=(nall, 9)))
cr = coord.detach().requires_grad_()
w1, w2 = (sp.tensor(rng.normal(size=t.shape)) for t in (em, emd))
def env_backward():
    e, d, _ = D.prod_env_mat_a(cr, at, nl, davg, dstd, 40.0, 1.0)
    return sp.grad([(e * w1).sum() + (d * w2).sum()], [cr])
cases = {"prod_env_mat_a": lambda: D.prod_env_mat_a(coord, at, nl, davg, dstd, 40.0, 1.0),
         "env_mat fwd+bwd": env_backward,
         "prod_force_se_a": lambda: D.prod_force_se_a(a, emd, nl, nall),
         "prod_force_se_a_grad": lambda: D.prod_force_se_a_grad(gf, emd, nl),
         "prod_virial_se_a": lambda: D.prod_virial_se_a(a, emd, rij, nl, nall),
         "prod_virial_se_a_grad": lambda: D.prod_virial_se_a_grad(gv, gav, emd, rij, nl)}
for name, f in cases.items():
    out = f()
    out = out if isinstance(out, (list, tuple)) else [out]
    fingerprint = hashlib.sha256(b"".join(t.numpy().tobytes() for t in out)).hexdigest()[:12]
    ts = []
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 9):
        t = time.process_time(); f(); ts.append(time.process_time() - t)
    print(f"{name:<24} {1e3*np.median(ts):8.2f} ms  {fingerprint}")
