"""Test systems for the MD tests (test_deepmd_md.py, test_deepmd_traced.py)."""
import numpy as np


def fcc_lattice(n, a, tilt=(0.0, 0.0, 0.0), jitter=0.2, seed=0, two_types=True):
    """n^3 fcc cells (lattice a, Å) in a restricted triclinic box, jittered: positions [4 n^3, 3],
    types (every third atom type 1 when two_types) and the 3x3 cell (lattice vectors as rows)."""
    rng = np.random.default_rng(seed)
    L = n * a
    cell = np.array([[L, 0, 0], [tilt[0], L, 0], [tilt[1], tilt[2], L]])
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    frac = np.array([(np.array([i, j, k]) + b) / n for i in range(n) for j in range(n) for k in range(n)
                     for b in basis])
    x = frac @ cell + rng.uniform(-jitter, jitter, size=frac.shape)
    types = np.array([1 if two_types and i % 3 == 0 else 0 for i in range(len(x))])
    return x, types, cell
