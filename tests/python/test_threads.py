"""Python threads: ops and backward release the GIL; hooks and NumPy-borrowed memory take it
back; grad mode is per thread."""
import threading

import numpy as np
import pytest

import sampan as sp


def _work(results, index):
    total = 0.0
    for i in range(200):
        a = np.full((64,), float(i))
        x = sp.from_numpy(a)                     # borrowed memory, released from any thread
        w = sp.tensor(np.ones(64), requires_grad=True)
        seen = []
        w.register_hook(lambda g: seen.append(1))  # a Python hook run inside backward
        (x * w).sum().backward()
        total += w.grad.sum().item() + len(seen)
        del x, a
    results[index] = total


def test_ops_and_backward_in_threads():
    results = [None] * 4
    threads = [threading.Thread(target=_work, args=(results, i)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    expected = sum(64.0 * i + 1 for i in range(200))
    assert results == [expected] * 4


def test_grad_mode_is_per_thread():
    seen = {}

    def other():
        seen["enabled"] = sp.is_grad_enabled()
    with sp.no_grad():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert not sp.is_grad_enabled()
    assert seen["enabled"] is True


def test_set_num_threads_sizes_openblas_pool_too():
    # OpenBLAS's pthread build keeps its own pool (all cores by default): set_num_threads(1) must
    # reach it, or a "1-thread" matmul still runs on every core.
    import ctypes
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libopenblas" in line})
    if not libs:
        pytest.skip("matmul does not go through OpenBLAS in this build")
    openblas = ctypes.CDLL(libs[0])
    before = sp.get_num_threads()
    try:
        for n in (1, 2):
            sp.set_num_threads(n)
            assert openblas.openblas_get_num_threads() == n
    finally:
        sp.set_num_threads(before)
