"""``sampan quantum run circuit.qasm``: simulate an OpenQASM 2.0 circuit from |0...0>.

    sampan quantum run bell.qasm --shots 1000 --seed 7 --observable "1.0 Z0 Z1" --state-out psi.npy
    sampan quantum run big.qasm --device cuda --observable "1.0 Z0"   # the state on the GPU
    mpirun -n 4 sampan quantum run big.qasm --shots 100     # the state split over 4 ranks

One process runs without MPI. Launched by mpirun (Open MPI, MPICH or any PMI launcher) the
state vector is distributed over the ranks (their number a power of two: rank r holds the r-th
contiguous chunk of amplitudes, see sampan/quantum/distributed.h) and only rank 0 prints and
writes files. The shots are seeded: the same outcomes for any number of ranks. Output lists
bitstrings with qubit n-1 leftmost (qubit 0 is the least significant bit, as in Qiskit).

A circuit that measures (``creg`` and ``measure``) prints the counts of its classical registers
too, in Qiskit's key format (last register leftmost, bit 0 last). A circuit with ``reset``, a
mid-circuit measurement or ``if`` (on gates, measure or reset) runs its shots by shot branching on
the state vector, distributed under mpirun like any other (the same counts for any number of
ranks); it has no single final state, so no --state-out, and its --observable is the expectation
of its final density matrix, in one process (not under mpirun; not with ``if``).
"""
import json
import os
import sys
import tempfile
import time

import numpy as np

def register(subparsers):
    quantum = subparsers.add_parser("quantum", help="quantum circuit simulation")
    commands = quantum.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    run = commands.add_parser("run", help="simulate an OpenQASM 2.0 circuit (distributed under mpirun)",
                              description=__doc__.split("\n\n")[0])
    run.add_argument("qasm", help="OpenQASM 2.0 file")
    run.add_argument("--shots", type=int, default=0, help="measurements in the computational basis (default 0)")
    run.add_argument("--seed", type=int, default=0, help="seed of the shot sampler (default 0)")
    run.add_argument("--observable", action="append", default=[], metavar="'COEF PAULIS'",
                     help="a Hamiltonian term such as '1.0 Z0 Z1' or 'X2'; repeat to add terms")
    run.add_argument("--state-out", metavar="FILE", help="write the final state (complex128 .npy) on rank 0")
    run.add_argument("--no-fusion", action="store_true", help="apply gates one by one (no gate fusion)")
    run.add_argument("--device", default="cpu", metavar="DEVICE",
                     help="cpu (default) or cuda: simulate on the GPU, one process; shots drawn on the host")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    run.set_defaults(run=_run)


def parse_observable(terms):
    """Hamiltonian from ['1.0 Z0 Z1', 'X2', ...]: an optional leading coefficient, then Paulis."""
    from .hamiltonian import Hamiltonian
    parsed = []
    for text in terms:
        words = text.replace(",", " ").split()
        coef = 1.0
        if words:
            try:
                coef = float(words[0])
                words = words[1:]
            except ValueError:
                pass
        parsed.append((coef, " ".join(words)))
    return Hamiltonian(parsed)


def _error(message):
    print(f"sampan quantum run: error: {message}", file=sys.stderr)
    return 2


def _save_npy(path, array):
    """np.save to a temporary file next to `path`, then rename (no half-written file)."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".sampan-state-", suffix=".npy", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _density_matrix_expectation(circuit, hamiltonian):
    """<H> of the final density matrix (one process): the mixture over mid-circuit outcomes. A
    circuit with classically controlled gates has no single final state (its gates depend on the
    branch): refused."""
    if circuit.classical_conditions:
        raise ValueError("--observable: the circuit has classically controlled gates (if), so no single state "
                         "to take an expectation value of")
    return float(circuit.expectation(hamiltonian).item())


def _run(args):
    import sampan as sp
    from .._device import device_problem
    from .circuit import Circuit
    from .distributed import run as run_distributed, under_mpi_launcher

    if args.shots < 0:
        return _error(f"--shots must be >= 0, got {args.shots}")
    if args.seed < 0:
        return _error(f"--seed must be >= 0, got {args.seed}")
    try:
        with open(args.qasm, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return _error(f"cannot read {args.qasm}: {e.strerror or e}")
    try:
        circuit = Circuit.from_qasm(text)
    except ValueError as e:
        return _error(f"{args.qasm}: {e}")
    n = circuit.n_qubits
    try:
        hamiltonian = parse_observable(args.observable)
        hamiltonian.encode(n)  # checks the qubit range here, with the option's name
    except (ValueError, TypeError, IndexError) as e:
        return _error(f"--observable: {e}")
    problem = device_problem(args.device)
    if problem:
        return _error(f"--device {args.device}: {problem}")
    if args.no_fusion:
        sp._C.quantum_set_fusion(False)
    measured = bool(circuit.measurements or circuit.mid_circuit_measurements)
    branching = bool(circuit.mid_circuit_measurements or circuit.classical_conditions or circuit.has_channels)
    t0 = time.perf_counter()
    try:
        if branching:
            if args.device != "cpu":
                return _error(f"{args.qasm}: with reset, a mid-circuit measurement or if the circuit runs its shots "
                              "by shot branching, on the CPU: --device cuda is not available")
            if args.state_out:
                return _error(f"{args.qasm}: with reset, a mid-circuit measurement or if the circuit has no single "
                              "final state vector: --state-out is not available")
            expectation = None
            if args.observable:
                if under_mpi_launcher():
                    return _error(f"{args.qasm}: an expectation value of a circuit with reset or a mid-circuit "
                                  "measurement needs its density matrix, which is not distributed: run the "
                                  "--observable without mpirun")
                expectation = _density_matrix_expectation(circuit, hamiltonian)
            # The shots: shot branching on the (distributed) state vector.
            result = run_distributed(circuit, None, shots=args.shots, seed=args.seed)
            result["expectation"] = expectation
        else:
            result = run_distributed(circuit, hamiltonian if args.observable else None, shots=args.shots,
                                     seed=args.seed, gather_state=bool(args.state_out), device=args.device)
        register_counts = result["register_counts"] if measured and args.shots and result["rank"] == 0 else None
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        return _error(str(e))
    seconds = time.perf_counter() - t0
    if result["rank"] != 0:
        return 0
    if args.state_out:
        _save_npy(args.state_out, result["state"])
    counts = result["counts"]
    if args.json:
        out = {"file": args.qasm, "n_qubits": n, "gates": len(circuit), "ranks": result["size"],
               "device": args.device,
               "fusion": not args.no_fusion, "seconds": seconds, "expectation": result["expectation"],
               "shots": args.shots, "seed": args.seed, "counts": counts, "register_counts": register_counts,
               "branches": result.get("branches", 1),
               "state_out": args.state_out}
        print(json.dumps(out))
        return 0
    where = f"{result['size']} rank(s)" if args.device == "cpu" else f"on {args.device}"
    print(f"{args.qasm}: {n} qubits, {len(circuit)} gates; {where}, "
          f"fusion {'off' if args.no_fusion else 'on'}; {seconds:.3f} s")
    if result["expectation"] is not None:
        print(f"<H> = {result['expectation']:.12g}   (H = {' + '.join(args.observable)})")
    if register_counts is not None:
        names = " ".join(name for name, _ in reversed(circuit.classical_registers))
        print(f"counts of the classical registers ({args.shots} shots, seed {args.seed}; key '{names}', "
              "each with bit 0 last):")
    elif args.shots:
        print(f"counts ({args.shots} shots, seed {args.seed}; qubit {n - 1} leftmost):")
    if args.shots:
        ordered = sorted((register_counts or counts).items(), key=lambda kv: (-kv[1], kv[0]))
        for bits, c in ordered[:64]:
            print(f"  {bits}  {c}")
        if len(ordered) > 64:
            print(f"  ... {len(ordered) - 64} more outcomes (use --json for all)")
    if args.state_out:
        print(f"state written to {args.state_out}")
    return 0
