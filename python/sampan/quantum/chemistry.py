"""Published molecular qubit Hamiltonians (atomic units: hartree, bohr) for VQE.

``h2_sto3g()``: H2 in the STO-3G basis at R = 1.401 bohr (0.7414 Å), Jordan-Wigner encoded on 4
qubits. Qubit q is spin orbital q: 0 = sigma_g up, 1 = sigma_g down, 2 = sigma_u up,
3 = sigma_u down; the Hartree-Fock state |0011> (qubits 0 and 1 occupied, amplitude index 3).

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
"""
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
    """Appends the one-parameter UCC-doubles ansatz for H2 to a 4-qubit circuit: from |0000> it
    prepares cos(theta/2)|1100> + sin(theta/2)|0011>, i.e. exp(theta/2 (T - T^+)) acting on the
    Hartree-Fock state up to a relabelling of theta, with T = a3^+ a2^+ a1 a0 (the only double
    excitation that keeps spin and spatial symmetry). Gates: RY(theta) q0, CNOT(0,1), X q2,
    CNOT(0,2), CNOT(2,3). theta: None (a new trainable angle), a number or an sp Tensor."""
    if circuit.n_qubits != 4:
        raise ValueError(f"h2_double_excitation_ansatz: needs a 4-qubit circuit, got {circuit.n_qubits} qubits")
    return circuit.ry(theta, 0).cnot(0, 1).x(2).cnot(0, 2).cnot(2, 3)
