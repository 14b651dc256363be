"""Python threads: ops and backward release the GIL; hooks and NumPy-borrowed memory take it
back; grad mode is per thread."""
import ctypes
import os
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


def _loaded_libraries(predicate):
    return sorted({line.split()[-1] for line in open("/proc/self/maps")
                   if "/" in line and predicate(os.path.basename(line.split()[-1]))})


def _our_openblas():
    """The OpenBLAS that sampan's matmul calls, opened with ctypes, and its symbol prefix: PyPI's
    scipy-openblas32 (libscipy_openblas.so, names scipy_openblas_*) or Debian's libopenblas."""
    library = sp.blas_library()
    if library.startswith("scipy-openblas32"):
        libs = _loaded_libraries(lambda name: name == "libscipy_openblas.so")
        prefix = "scipy_openblas_"
    elif library.startswith("system OpenBLAS"):
        libs = _loaded_libraries(lambda name: name.startswith("libopenblas"))
        prefix = "openblas_"
    else:
        pytest.skip(f"matmul does not go through an OpenBLAS in this build ({library})")
    assert len(libs) == 1, f"expected one copy of sampan's OpenBLAS in the process, found {libs}"
    return ctypes.CDLL(libs[0]), prefix


def test_set_num_threads_sizes_the_blas_pool_too():
    # OpenBLAS's pthread build keeps its own pool (all cores by default): set_num_threads(1) must
    # reach it, or a "1-thread" matmul still runs on every core. Asked of the loaded library
    # itself, not only through sampan's wrapper.
    openblas, prefix = _our_openblas()
    pool_size = getattr(openblas, prefix + "get_num_threads")
    before = sp.get_num_threads()
    try:
        for n in (1, 2):
            sp.set_num_threads(n)
            assert pool_size() == n
            assert sp.blas_num_threads() == n
    finally:
        sp.set_num_threads(before)


def test_numpy_openblas_and_ours_coexist():
    # PyPI's NumPy carries its own OpenBLAS (scipy-openblas64: names scipy_*64_); sampan's is a
    # second copy with other names. Both must give the same products in one process, and sizing
    # sampan's pool must leave NumPy's alone.
    numpy_libs = _loaded_libraries(lambda name: "openblas64" in name)
    if not numpy_libs:
        pytest.skip("this NumPy does not carry PyPI's scipy-openblas64 (it links another BLAS)")
    numpy_blas = ctypes.CDLL(numpy_libs[0])
    numpy_pool = numpy_blas.scipy_openblas_get_num_threads64_
    ours, _ = _our_openblas()
    assert ours._name != numpy_libs[0]
    rng = np.random.default_rng(7)
    before, numpy_before = sp.get_num_threads(), numpy_pool()
    try:
        for n in (1, 2):
            sp.set_num_threads(n)
            assert numpy_pool() == numpy_before
            for dtype, tol in (("float32", 1e-4), ("float64", 1e-12), ("complex64", 1e-4)):
                # big enough (m*n*k > OpenBLAS's threading threshold) that both pools run
                a = rng.standard_normal((96, 160)).astype(dtype)
                b = rng.standard_normal((160, 120)).astype(dtype)
                if dtype == "complex64":
                    a = a + 1j * rng.standard_normal(a.shape).astype("float32")
                    b = b - 2j * b
                expected = a.astype("complex128" if dtype == "complex64" else "float64") @ b
                np.testing.assert_allclose((sp.from_numpy(a) @ sp.from_numpy(b)).numpy(), expected,
                                           rtol=tol, atol=tol * 160)
                np.testing.assert_allclose(a @ b, expected, rtol=tol, atol=tol * 160)
    finally:
        sp.set_num_threads(before)
