"""``sampan deepmd``: train / test / freeze / neighbor-stat / model-devi, after DeePMD-kit's ``dp`` commands."""
import os
import sys

import numpy as np


def register(subparsers):
    parser = subparsers.add_parser("deepmd", help="DeePMD-style potentials (se_e2_a): train, test, freeze")
    sub = parser.add_subparsers(dest="deepmd_command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("train", help="train an se_e2_a model from a DeePMD-kit input.json")
    p.add_argument("input", help="input.json (DeePMD-kit's format: model, learning_rate, loss, training)")
    p.add_argument("--restart", metavar="CKPT", help="continue from a checkpoint (model.ckpt.h5)")
    p.add_argument("-o", "--output-dir", default=None, help="where lcurve.out and checkpoints go (default: cwd)")
    p.add_argument("--stop-at", type=int, default=None, metavar="STEP",
                   help="stop after STEP steps of the numb_steps schedule (e.g. 10000 of 1000000)")
    p.add_argument("--device", default="cpu", metavar="DEVICE",
                   help="cpu (default) or cuda: the model and its double backward on the GPU")
    p.set_defaults(run=_train)

    p = sub.add_parser("test", help="energy and force errors of a model on a system (like dp test)")
    p.add_argument("-m", "--model", required=True, help="a frozen model (.h5) or a DeePMD-kit YAML model")
    p.add_argument("-s", "--system", required=True, help="a DeePMD system folder")
    p.add_argument("-n", "--numb-test", type=int, default=0, help="frames to test (0 = all)")
    p.add_argument("-d", "--detail-file", metavar="PREFIX", default=None,
                   help="write PREFIX.e.out, .e_peratom.out, .f.out, .v.out, .v_peratom.out (dp test's layout)")
    p.set_defaults(run=_test)

    p = sub.add_parser("neighbor-stat", help="min distance and max neighbour counts of data (like dp neighbor-stat)")
    p.add_argument("-s", "--system", required=True, help="a folder searched for DeePMD systems")
    p.add_argument("-r", "--rcut", type=float, default=6.0, help="cutoff radius in A (default 6.0)")
    p.add_argument("-t", "--type-map", nargs="*", default=None, metavar="TYPE",
                   help="type names in the model's order (default: the systems' type_map.raw)")
    p.set_defaults(run=_neighbor_stat)

    p = sub.add_parser("model-devi", help="deviation of several models on systems (like dp model-devi)")
    p.add_argument("-m", "--models", nargs="+", required=True, help="two or more models (.h5 or DeePMD-kit YAML)")
    p.add_argument("-s", "--system", required=True, help="a folder searched for DeePMD systems")
    p.add_argument("-o", "--output", default="model_devi.out", help="file to write (default model_devi.out)")
    p.add_argument("-f", "--frequency", type=int, default=1, help="MD steps between frames (step column)")
    p.set_defaults(run=_model_devi)

    p = sub.add_parser("freeze", help="write a model file that the C++ DeepPot (MD, LAMMPS) loads")
    p.add_argument("-c", "--checkpoint", default="model.ckpt.h5", help="training checkpoint (default model.ckpt.h5)")
    p.add_argument("-o", "--output", default="frozen_model.h5", help="model file to write")
    p.set_defaults(run=_freeze)

    from .compress import add_compress_command
    add_compress_command(sub)

    from .md_cli import add_md_command
    add_md_command(sub)


def _train(args):
    from .._device import device_problem
    from .train import train
    problem = device_problem(args.device)
    if problem:  # before the data is read
        print(f"sampan deepmd train: error: --device {args.device}: {problem}", file=sys.stderr)
        return 2
    train(args.input, restart=args.restart, output_dir=args.output_dir, stop_at=args.stop_at, device=args.device)
    return 0


def test_system(model, system, numb_test=0, out=None):
    """dp test's numbers on one System: energy MAE/RMSE (total and per atom), force MAE/RMSE,
    virial RMSE; returns them and the system's detail-file tables."""
    from .detail_files import system_tables
    from .model import evaluate_system
    out = sys.stdout if out is None else out
    n = system.nframes if numb_test <= 0 else min(numb_test, system.nframes)
    energy, force, virial = evaluate_system(model, system, range(n))
    result = {"system": system.path, "nframes": n}
    print(f"# testing system : {system.path}", file=out)
    print(f"# number of test data : {n}", file=out)
    if system.energy is not None:
        de = energy - system.energy[:n]
        result.update(e_mae=float(np.abs(de).mean()), e_rmse=float(np.sqrt((de ** 2).mean())))
        result.update(e_mae_atom=result["e_mae"] / system.natoms, e_rmse_atom=result["e_rmse"] / system.natoms)
        print(f"Energy MAE         : {result['e_mae']:e} eV", file=out)
        print(f"Energy RMSE        : {result['e_rmse']:e} eV", file=out)
        print(f"Energy MAE/Natoms  : {result['e_mae_atom']:e} eV", file=out)
        print(f"Energy RMSE/Natoms : {result['e_rmse_atom']:e} eV", file=out)
    if system.force is not None:
        df = force - system.force[:n]
        result.update(f_mae=float(np.abs(df).mean()), f_rmse=float(np.sqrt((df ** 2).mean())))
        print(f"Force  MAE         : {result['f_mae']:e} eV/A", file=out)
        print(f"Force  RMSE        : {result['f_rmse']:e} eV/A", file=out)
    if system.virial is not None:
        dv = virial - system.virial[:n].reshape(n, 9)
        result.update(v_rmse=float(np.sqrt((dv ** 2).mean())))
        print(f"Virial RMSE        : {result['v_rmse']:e} eV", file=out)
        print(f"Virial RMSE/Natoms : {result['v_rmse'] / system.natoms:e} eV", file=out)
    return result, system_tables(system, n, energy, force, virial)


def test_model(model_path, system_path, numb_test=0, out=None, detail_file=None):
    """``sampan deepmd test``: test_system on every system under system_path (searched as
    DeePMD-kit does); with detail_file, writes dp test's detail files. Returns the results."""
    from .detail_files import write_detail_files
    from .model import load_model
    from .systems import read_systems
    model = load_model(model_path)
    results, blocks = [], []
    for system in read_systems(system_path, model.config["type_map"], what="-s/--system"):
        result, tables = test_system(model, system, numb_test, out)
        results.append(result)
        blocks.append((system.path, tables))
    if detail_file:
        write_detail_files(detail_file, blocks)
    return results


def _test(args):
    test_model(args.model, args.system, args.numb_test, detail_file=args.detail_file)
    return 0


def _neighbor_stat(args):
    from .neighbor_stat import DEFAULT_AUTO_FACTOR, auto_sel, neighbor_stat
    from .systems import in_type_map, read_stored
    systems = read_stored(args.system, what="-s/--system")
    type_map = args.type_map
    if not type_map:  # the names of the systems' type_map.raw, in order of appearance
        type_map = []
        for s in systems:
            type_map += [name for name in s.type_map if name not in type_map]
    if type_map:
        systems = [in_type_map(s, type_map) for s in systems]
        names = list(type_map)
    else:
        names = [str(t) for t in range(max(int(s.atom_types.max()) for s in systems) + 1)]
    stat = neighbor_stat(systems, args.rcut, len(names))
    print(f"systems: {len(systems)}, frames: {sum(s.nframes for s in systems)}, rcut: {args.rcut} A")
    print(f"min_nbor_dist: {stat.min_nbor_dist:.6f}")
    print(f"max_nbor_size: {stat.max_nbor_size}")
    for name, count in zip(names, stat.max_nbor_size):
        print(f"  type {name}: at most {count} neighbours within {args.rcut} A")
    print(f'sel "auto" (factor {DEFAULT_AUTO_FACTOR}): {auto_sel(stat.max_nbor_size)}')
    return 0


def _model_devi(args):
    from .model_devi import make_model_devi
    make_model_devi(args.models, args.system, args.output, args.frequency)
    print(f"wrote {args.output}")
    return 0


def freeze(checkpoint, output):
    """Writes the model of a training checkpoint as a model file (DeepPot.load reads it)."""
    import json

    import sampan as sp
    from .model import DeepPot
    state = sp.load(checkpoint)
    if not isinstance(state, dict) or state.get("format") != "sampan-deepmd-checkpoint":
        raise ValueError(f"{checkpoint}: not a sampan deepmd training checkpoint")
    model = DeepPot(json.loads(state["model_config"]), 1)
    with sp.no_grad():
        for p, saved in zip(model.parameters(), state["params"]):
            sp.copy_(p, saved)
    model.davg, model.dstd, model.bias_atom_e = state["davg"], state["dstd"], state["bias_atom_e"]
    model.save(output)
    return model


def _freeze(args):
    if not os.path.exists(args.checkpoint):
        print(f"sampan deepmd freeze: error: checkpoint {args.checkpoint} not found", file=sys.stderr)
        return 2
    freeze(args.checkpoint, args.output)
    print(f"wrote {args.output}")
    return 0
