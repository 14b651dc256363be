"""Published molecular qubit Hamiltonians (atomic units: hartree, bohr) for VQE.

``h2_sto3g()``: H2 in the STO-3G basis at R = 1.401 bohr (0.7414 Å), Jordan-Wigner encoded on 4
qubits. Qubit q is spin orbital q: 0 = sigma_g up, 1 = sigma_g down, 2 = sigma_u up,
3 = sigma_u down; the Hartree-Fock state ``|0011>`` (qubits 0 and 1 occupied, amplitude index 3).

Sources (numbers transcribed, not computed here):
  * J. T. Seeley, M. J. Richard, P. J. Love, "The Bravyi-Kitaev transformation for quantum
    computation of electronic structure", J. Chem. Phys. 137, 224109 (2012), section on H2: the
    Jordan-Wigner qubit Hamiltonian, 15 Pauli terms (electronic part, no nuclear repulsion).
  * J. D. Whitfield, J. Biamonte, A. Aspuru-Guzik, "Simulation of electronic structure
    Hamiltonians using quantum computers", Mol. Phys. 109, 735 (2011), Table 1: the integrals
    behind it (h_11 = -1.252477, h_22 = -0.475934, J_11 = 0.674493, J_22 = 0.697397,
    J_12 = 0.663472, K_12 = 0.181287), given here as ``H2_STO3G_INTEGRALS`` so that a test can
    rebuild the Hamiltonian from second quantisation independently.

The lowest eigenvalue plus the nuclear repulsion 1/R is the full-CI energy -1.13727 hartree.

``h2_sto3g_at(bond_angstrom)``: the same Hamiltonian at any bond length, from STO-3G integrals
computed here in closed form (checked against the published ones at 1.4 and 1.401 bohr).
"""
import math

import numpy as np

from .hamiltonian import Hamiltonian

H2_BOND_BOHR = 1.401
H2_BOND_ANGSTROM = 0.7414
H2_NUCLEAR_REPULSION = 1.0 / H2_BOND_BOHR   # Z_A Z_B / R for two protons, hartree

# Spatial-orbital integrals (1 = sigma_g, 2 = sigma_u), hartree; Whitfield et al. 2011, Table 1.
H2_STO3G_INTEGRALS = {"h11": -1.252477, "h22": -0.475934, "J11": 0.674493, "J22": 0.697397,
                      "J12": 0.663472, "K12": 0.181287}

# Seeley, Richard, Love 2012: the Jordan-Wigner H2 Hamiltonian. Written there with qubit 3 on the
# left ("X3 X2 Y1 Y0"); each term is a product, so the order of the tokens does not matter.
_H2_STO3G_JW_TERMS = [
    (-0.81261, "I"),
    (0.171201, "Z0"), (0.171201, "Z1"), (-0.2227965, "Z2"), (-0.2227965, "Z3"),
    (0.16862325, "Z1 Z0"), (0.12054625, "Z2 Z0"), (0.165868, "Z2 Z1"),
    (0.165868, "Z3 Z0"), (0.12054625, "Z3 Z1"), (0.17434925, "Z3 Z2"),
    (-0.04532175, "X3 X2 Y1 Y0"), (0.04532175, "X3 Y2 Y1 X0"),
    (0.04532175, "Y3 X2 X1 Y0"), (-0.04532175, "Y3 Y2 X1 X0"),
]


def h2_sto3g(include_nuclear_repulsion=True):
    """The 4-qubit Jordan-Wigner Hamiltonian of H2 (STO-3G, 0.7414 Å) as a ``Hamiltonian``; with
    ``include_nuclear_repulsion`` its identity term also holds 1/R, so that eigenvalues are total
    energies (ground state -1.13727 hartree)."""
    terms = list(_H2_STO3G_JW_TERMS)
    if include_nuclear_repulsion:
        terms[0] = (terms[0][0] + H2_NUCLEAR_REPULSION, "I")
    return Hamiltonian(terms)


def h2_double_excitation_ansatz(circuit, theta=None):
    """Appends the one-parameter UCC-doubles ansatz for H2 to a 4-qubit circuit: from ``|0000>`` it
    prepares ``cos(theta/2)|1100> + sin(theta/2)|0011>``, i.e. exp(theta/2 (T - T^+)) acting on the
    Hartree-Fock state up to a relabelling of theta, with T = a3^+ a2^+ a1 a0 (the only double
    excitation that keeps spin and spatial symmetry). Gates: RY(theta) q0, CNOT(0,1), X q2,
    CNOT(0,2), CNOT(2,3). theta: None (a new trainable angle), a number or an sp Tensor."""
    if circuit.n_qubits != 4:
        raise ValueError(f"h2_double_excitation_ansatz: needs a 4-qubit circuit, got {circuit.n_qubits} qubits")
    return circuit.ry(theta, 0).cnot(0, 1).x(2).cnot(0, 2).cnot(2, 3)


# ---- H2 at any bond length: STO-3G integrals computed here ----------------------------------------
# STO-3G fit of a Slater 1s with exponent zeta = 1.24 (hydrogen): Hehre, Stewart, Pople,
# J. Chem. Phys. 51, 2657 (1969); the values as tabulated in Szabo & Ostlund, Modern Quantum
# Chemistry, Table 3.8 / appendix B. Primitive exponents (bohr^-2) and contraction coefficients.
_STO3G_H_EXPONENTS = (3.42525091, 0.62391373, 0.16885540)
_STO3G_H_COEFFS = (0.15432897, 0.53532814, 0.44463454)
BOHR_PER_ANGSTROM = 1.0 / 0.529177210903   # CODATA 2018 Bohr radius


def _boys0(t):
    """F_0(t) = int_0^1 exp(-t u^2) du (Boys function of order 0)."""
    return 1.0 if t < 1e-12 else 0.5 * math.sqrt(math.pi / t) * math.erf(math.sqrt(t))


def h2_sto3g_integrals(bond_bohr):
    """Spatial-orbital integrals of H2 in STO-3G at the given bond length (bohr): the dict of
    ``H2_STO3G_INTEGRALS`` (h11, h22, J11, J22, J12, K12; 1 = sigma_g, 2 = sigma_u) plus "E_nuc"
    and "S" (the AO overlap). Closed-form s-Gaussian integrals (Szabo & Ostlund, appendix A); the
    molecular orbitals are fixed by symmetry in a minimal basis: sigma_g,u = (phi_A +- phi_B) /
    sqrt(2 (1 +- S)), so no SCF iteration is needed."""
    import math
    import numpy as np
    R = float(bond_bohr)
    if not R > 0:
        raise ValueError(f"h2_sto3g_integrals: the bond length must be > 0 bohr, got {bond_bohr!r}")
    centers = (0.0, R)  # along z
    prims = [(a, d * (2 * a / math.pi) ** 0.75) for a, d in zip(_STO3G_H_EXPONENTS, _STO3G_H_COEFFS)]

    def contract(f, *idx):
        # sum over primitives of the contracted basis functions named by center indices
        total = 0.0
        for combo in np.ndindex(*(3,) * len(idx)):
            coef = 1.0
            for k in combo:
                coef *= prims[k][1]
            total += coef * f(*[(prims[k][0], centers[c]) for k, c in zip(combo, idx)])
        return total

    def overlap(p, q):
        (a, A), (b, B) = p, q
        return (math.pi / (a + b)) ** 1.5 * math.exp(-a * b / (a + b) * (A - B) ** 2)

    def kinetic(p, q):
        (a, A), (b, B) = p, q
        mu = a * b / (a + b)
        return mu * (3 - 2 * mu * (A - B) ** 2) * overlap(p, q)

    def nuclear(p, q):  # both protons, Z = 1
        (a, A), (b, B) = p, q
        P = (a * A + b * B) / (a + b)
        pre = -2 * math.pi / (a + b) * math.exp(-a * b / (a + b) * (A - B) ** 2)
        return sum(pre * _boys0((a + b) * (P - C) ** 2) for C in centers)

    def eri(p, q, r, s):  # chemists' (pq|rs)
        (a, A), (b, B), (c, Cc), (d, D) = p, q, r, s
        P, Q = (a * A + b * B) / (a + b), (c * Cc + d * D) / (c + d)
        return (2 * math.pi ** 2.5 / ((a + b) * (c + d) * math.sqrt(a + b + c + d))
                * math.exp(-a * b / (a + b) * (A - B) ** 2 - c * d / (c + d) * (Cc - D) ** 2)
                * _boys0((a + b) * (c + d) / (a + b + c + d) * (P - Q) ** 2))

    S = np.array([[contract(overlap, i, j) for j in range(2)] for i in range(2)])
    Hcore = np.array([[contract(kinetic, i, j) + contract(nuclear, i, j) for j in range(2)] for i in range(2)])
    G = np.zeros((2, 2, 2, 2))
    for idx in np.ndindex(2, 2, 2, 2):
        G[idx] = contract(eri, *idx)
    s = S[0, 1]
    C = np.array([[1, 1], [1, -1]]) / np.sqrt([2 * (1 + s), 2 * (1 - s)])  # columns: sigma_g, sigma_u
    h = C.T @ Hcore @ C
    g = np.einsum("pi,qj,rk,sl,pqrs->ijkl", C, C, C, C, G)
    return {"h11": h[0, 0], "h22": h[1, 1], "J11": g[0, 0, 0, 0], "J22": g[1, 1, 1, 1],
            "J12": g[0, 0, 1, 1], "K12": g[0, 1, 0, 1], "E_nuc": 1.0 / R, "S": s}


def h2_hamiltonian_from_integrals(ints, nuclear_repulsion=0.0):
    """The 4-qubit Jordan-Wigner Hamiltonian of a two-orbital H2 from its spatial integrals (keys
    h11 h22 J11 J22 J12 K12), qubits as in ``h2_sto3g``. With n_p = (1 - Z_p)/2 the one-body part
    sum h_p n_p and the density-density part sum_{p<q} V_pq n_p n_q give the I, Z and ZZ terms
    (V = J11, J22 within an orbital, J12 - K12 for equal spins, J12 for opposite spins across
    orbitals); the spin-flip exchange a2^+ a3^+ a1 a0 + h.c. gives the four XXYY terms of weight
    K12 / 4 (signs as in Seeley et al. 2012). ``h2_hamiltonian_from_integrals(H2_STO3G_INTEGRALS)``
    reproduces the published coefficients."""
    h11, h22, J11, J22, J12, K12 = (float(ints[k]) for k in ("h11", "h22", "J11", "J22", "J12", "K12"))
    same = J12 - K12
    terms = [
        (h11 + h22 + (J11 + J22 + 2 * same + 2 * J12) / 4 + nuclear_repulsion, "I"),
        (-h11 / 2 - (J11 + same + J12) / 4, "Z0"), (-h11 / 2 - (J11 + same + J12) / 4, "Z1"),
        (-h22 / 2 - (J22 + same + J12) / 4, "Z2"), (-h22 / 2 - (J22 + same + J12) / 4, "Z3"),
        (J11 / 4, "Z0 Z1"), (same / 4, "Z0 Z2"), (J12 / 4, "Z1 Z2"),
        (J12 / 4, "Z0 Z3"), (same / 4, "Z1 Z3"), (J22 / 4, "Z2 Z3"),
        (-K12 / 4, "X3 X2 Y1 Y0"), (K12 / 4, "X3 Y2 Y1 X0"), (K12 / 4, "Y3 X2 X1 Y0"), (-K12 / 4, "Y3 Y2 X1 X0"),
    ]
    return Hamiltonian(terms)


def h2_sto3g_at(bond_angstrom):
    """H2 (STO-3G) at any bond length in Å: integrals computed by ``h2_sto3g_integrals``, the
    nuclear repulsion included. At 0.7414 Å it agrees with the published ``h2_sto3g()`` to the
    published digits (1e-6 hartree)."""
    R = float(bond_angstrom) * BOHR_PER_ANGSTROM
    ints = h2_sto3g_integrals(R)
    return h2_hamiltonian_from_integrals(ints, ints["E_nuc"])
