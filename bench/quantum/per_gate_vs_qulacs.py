"""Per gate against qulacs, every target qubit (issue 4 target (b)), by process CPU time divided by
the thread count (THREADS, default 1): time slicing on a shared box drops out. With THREADS > 1
this is the time per thread, a duration only if the work is balanced and waiting threads sleep,
so the script sets OMP_WAIT_POLICY=passive for both libraries (and QULACS_NUM_THREADS).

Ours and qulacs run interleaved target by target in one process. Ours: K copies of the gate minus
one copy through `sp.ops.quantum.statevector` (fusion off), divided by K - 1, so the state
preparation cancels; qulacs: `update_quantum_state` K times on a Haar state. CNOT has its control
at target + 1 (the weak case of pair walks). Prints ns per amplitude per target and the mean ratio.

    OMP_NUM_THREADS=1 PYTHONPATH=python .venv-bench/bin/python bench/quantum/per_gate_vs_qulacs.py 20 dense,H,CNOT [REPEATS]
    THREADS=2 OMP_NUM_THREADS=2 PYTHONPATH=python ...   # both libraries on 2 threads
"""
import os
import sys
import time

THREADS = int(os.environ.get('THREADS', '1'))
if THREADS > 1:  # read by each library's OpenMP runtime when it loads, so before the imports
    os.environ['OMP_WAIT_POLICY'] = 'passive'
    os.environ['OMP_NUM_THREADS'] = os.environ['QULACS_NUM_THREADS'] = str(THREADS)

import numpy as np
import sampan as sp, qulacs
from qulacs import gate as qg
sp.set_num_threads(THREADS); sp._C.quantum_set_fusion(False)
n = int(sys.argv[1]); gates = sys.argv[2].split(","); R = int(sys.argv[3]) if len(sys.argv) > 3 else 5
K = int(os.environ.get('K', '8'))
clk = lambda: time.process_time() / THREADS
params = sp.tensor([0.3, 0.5, 0.7], dtype=sp.float64)
def best(fn):
    fn(); b = 1e9
    for _ in range(R):
        t0 = clk(); fn(); b = min(b, clk() - t0)
    return b
c_, s_ = np.cos(0.15), np.sin(0.15)
u3m = np.array([[c_, -np.exp(0.7j) * s_], [np.exp(0.5j) * s_, np.exp(1.2j) * c_]])
st = qulacs.QuantumState(n); st.set_Haar_random_state(7)
tot = {}
allr = []
for g in gates:
    ro, rq = [], []
    for t in range(n):
        one = {"H": [0, t], "CNOT": [13, (t + 1) % n, t], "dense": [12, t, 0, 1, 2]}[g]
        run = lambda reps: sp.ops.quantum.statevector(params, one * reps, [], n)
        o = (best(lambda: run(K)) - best(lambda: run(1))) / (K - 1)
        qgate = {"H": lambda: qg.H(t), "CNOT": lambda: qg.CNOT((t + 1) % n, t), "dense": lambda: qg.DenseMatrix(t, u3m)}[g]()
        def body():
            for _ in range(K): qgate.update_quantum_state(st)
        q = best(body) / K
        ro.append(o * 1e9 / 2**n); rq.append(q * 1e9 / 2**n)
    ro, rq = np.array(ro), np.array(rq)
    allr.append(ro.mean()/rq.mean()); print(f"n={n} {g}: ours {ro.mean():.3f} qulacs {rq.mean():.3f} ratio {ro.mean()/rq.mean():.2f}")
    print("   ours  ", " ".join(f"{x:.2f}" for x in ro))
    print("   qulacs", " ".join(f"{x:.2f}" for x in rq))

print(f'mean ratio n={n} threads {THREADS}: {np.mean(allr):.2f}')
