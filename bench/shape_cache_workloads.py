"""Workloads for call_op's per-thread shape-function cache (framework/src/op/dispatch.cpp): runs one
workload's step N times after a warm-up, and prints nothing. Compare two builds by instructions per
step under callgrind (the count does not depend on the machine's load): run with N and with 0 and
divide the difference by N.

    OMP_NUM_THREADS=1 PYTHONPATH=<checkout>/python valgrind --tool=callgrind \\
        --callgrind-out-file=/dev/null .venv/bin/python bench/shape_cache_workloads.py mlp 50

Workloads: add (a + b on [1] tensors: all hits), chain (100 adds on [1] and backward: all hits),
mlp (Adam step of an MLP 16-32-32-1 on a batch of 8: one op, many shapes), gin EMB (Adam step of
helix's 5-layer GIN, emb EMB, on 32 synthetic molecules).
"""
import os
import sys

import numpy as np

import sampan as sp

which, n = sys.argv[1], int(sys.argv[2])
if which == "add":
    a, b = sp.ones([1]), sp.ones([1])

    def step():
        return a + b
elif which == "chain":
    y = sp.ones([1])

    def step():
        c = sp.ones([1]).requires_grad_()
        for _ in range(100):
            c = c + y
        c.sum().backward()
elif which in ("mlp", "gin"):
    sp.manual_seed(0)
    if which == "mlp":
        model = sp.nn.MLP(16, [32, 32], 1)
        x = sp.tensor(np.random.default_rng(0).normal(size=(8, 16)).astype(np.float32))
        target = sp.tensor(np.random.default_rng(1).normal(size=(8, 1)).astype(np.float32))

        def loss_fn():
            return ((model(x) - target) ** 2).mean()
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
        from helix_synthetic import ATOM_DIMS, BOND_DIMS, make_batch, random_graph
        from sampan.helix.models import GraphModel
        rng = np.random.default_rng(0)
        model = GraphModel(1, (ATOM_DIMS, BOND_DIMS), num_layers=5, emb_dim=int(sys.argv[3]), conv="gin", jk="last",
                           pool="mean", dropout=0.0)
        batch = make_batch([random_graph(rng) for _ in range(32)], y=np.zeros((32, 1)))
        target = sp.tensor(batch.y)

        def loss_fn():
            return sp.nn.functional.binary_cross_entropy_with_logits(model(batch), target)
    opt = sp.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
else:
    sys.exit(f"unknown workload {which!r}: add, chain, mlp, gin EMB")
step()
for _ in range(n):
    step()
