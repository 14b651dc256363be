"""Time of sp.distributed.all_reduce (avg) per call over float32 buffers, against a local copy of
the same buffer (memory traffic that every all-reduce pays at least once), under an MPI launcher:

    mpirun -n 2 --oversubscribe env PYTHONPATH=python OMP_NUM_THREADS=1 .venv/bin/python \
        bench/distributed_allreduce.py [elements ...]

The default sizes are a GIN 5x300's gradient (1,893,901 float32, what DataParallel.sync_gradients
reduces per step) and 64x smaller and larger ones. Rank 0 prints the best of 20 calls per size."""
import sys
import time

import sampan as sp

dist = sp.distributed
sizes = [int(a) for a in sys.argv[1:]] or [29_592, 1_893_901, 121_209_664]
for n in sizes:
    t = sp.ones(n)
    best_reduce = best_copy = float("inf")
    for _ in range(20):
        dist.barrier()
        s = time.perf_counter()
        dist.all_reduce(t, "avg")
        best_reduce = min(best_reduce, time.perf_counter() - s)
        s = time.perf_counter()
        t.clone()
        best_copy = min(best_copy, time.perf_counter() - s)
    if dist.rank() == 0:
        mb = 4 * n / 1e6
        print(f"{n:>11,} float32 ({mb:8.1f} MB) on {dist.world_size()} ranks: all_reduce {1e3 * best_reduce:8.3f} ms "
              f"({mb / best_reduce / 1e3:6.2f} GB/s), local copy {1e3 * best_copy:7.3f} ms, ratio "
              f"{best_reduce / best_copy:5.1f}", flush=True)
