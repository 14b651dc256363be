"""Running a circuit on a state vector distributed over MPI ranks, from Python::

    # mpirun -n 4 python script.py
    from sampan.quantum import Circuit
    from sampan.quantum.distributed import run
    c = Circuit.from_qasm(open("big.qasm").read())
    r = run(c, observable=[(1.0, "Z0 Z1")], shots=1000, seed=7)
    if r["rank"] == 0:
        print(r["expectation"], r["counts"])

Every rank calls run() with the same circuit. Rank r holds the r-th contiguous chunk of the
2^n amplitudes (the number of ranks a power of two); gates on the top log2(ranks) qubits
exchange half a chunk with the partner rank (sampan/quantum/distributed.h). MPI is initialised
on the first distributed call, not at import; outside an MPI launcher run() uses one process and
makes no MPI call. The shots are seeded and the same for any number of ranks, also for circuits
with mid-circuit measurements, resets and ``if`` (shot branching; see run()).
"""
import os

import sampan as sp

from .hamiltonian import Hamiltonian

_LAUNCHER_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "SLURM_NTASKS_MPI")


def under_mpi_launcher():
    """Whether this process was started by an MPI launcher (mpirun/mpiexec/srun)."""
    return any(v in os.environ for v in _LAUNCHER_VARS)


def run(circuit, observable=None, shots=0, seed=0, gather_state=False, use_mpi=None, device="cpu"):
    """Simulates `circuit` from ``|0...0>``; returns {rank, size, expectation (None without an
    observable), counts {bitstring: shots} (rank 0; qubit n-1 leftmost), register_counts (rank 0,
    when the circuit measures into classical registers and shots > 0: Qiskit's keys, as
    Circuit.counts), branches, state (complex128 numpy array on rank 0 when gather_state, else
    None)}. observable: a Hamiltonian or its terms [(coef, "Z0 Z1"), ...]. use_mpi: None = exactly
    when started by an MPI launcher.

    A circuit with mid-circuit measurements, resets or classically controlled gates (``if``) runs
    its shots by shot branching on the distributed state (run_measured_circuit in
    sampan/quantum/distributed.h): the same counts for any number of ranks and the same as
    ``circuit.counts(shots, seed, method='statevector')`` in one process. Such a circuit has no
    single final state, so no observable and no gather_state.

    device='cuda': the state is simulated and <H> taken on the GPU, in one process (one rank); the
    state then comes to the host, where its shots are drawn as on the CPU (the same sampler, so the
    CPU's counts wherever the two states' probabilities round alike)."""
    if use_mpi is None:
        use_mpi = under_mpi_launcher()
    if use_mpi and not sp._C.quantum_built_with_mpi():
        raise RuntimeError("started by an MPI launcher but sampan was built without MPI "
                           "(install libopenmpi-dev and rebuild)")
    n = circuit.n_qubits
    if circuit.mid_circuit_measurements or circuit.classical_conditions or circuit.has_channels:
        if str(device) != "cpu":
            raise ValueError(f"device {device}: the circuit measures mid-circuit, resets or has classically controlled "
                             "gates, whose shots run by shot branching on the CPU")
        if observable is not None or gather_state:
            raise ValueError("the circuit measures mid-circuit, resets or has classically controlled gates: it has no "
                             "single final state, so no observable and no gathered state (its counts are sampled by "
                             "shot branching)")
        if not circuit.state_vector_runnable:
            raise ValueError("the circuit has noise channels, which a distributed state vector cannot apply "
                             "(only measurements and resets): use Circuit.counts(method='density_matrix')")
        params, enc, consts, n_clbits, terminal, mids, conditions = circuit.measured_program()
        r = sp._C.quantum_run_measured_circuit(n, enc, params, consts, n_clbits, terminal, mids, conditions,
                                               int(shots), int(seed), use_mpi=bool(use_mpi))
        out = {"rank": r["rank"], "size": r["size"], "expectation": None, "state": None, "branches": r["branches"],
               "counts": {format(i, f"0{n}b"): c for i, c in r["counts"]},
               "register_counts": (circuit.register_keys(r["register_counts"])
                                   if r["rank"] == 0 and n_clbits and shots else None)}
        return out
    paulis, coeffs = [], []
    if observable is not None:
        h = observable if isinstance(observable, Hamiltonian) else Hamiltonian(observable)
        paulis, coeffs = h.encode(n)
    params, enc, consts = circuit.encode()
    params = [float(v) for v in params.detach().numpy().reshape(-1)]
    r = sp._C.quantum_run_circuit(n, enc, params, consts, paulis, coeffs, shots=int(shots), seed=int(seed),
                                  gather_state=bool(gather_state), use_mpi=bool(use_mpi),
                                  device=str(device))
    r["counts"] = {format(i, f"0{n}b"): c for i, c in r["counts"]}
    r["branches"] = 1
    r["register_counts"] = (circuit.register_counts(r["counts"])
                            if r["rank"] == 0 and circuit.measurements and shots else None)
    if r["state"] is not None:
        r["state"] = r["state"].numpy()
    return r
