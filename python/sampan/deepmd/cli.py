"""``sampan deepmd``: train / test / freeze, after DeePMD-kit's ``dp train``, ``dp test``, ``dp freeze``."""
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
    p.set_defaults(run=_train)

    p = sub.add_parser("test", help="energy and force errors of a model on a system (like dp test)")
    p.add_argument("-m", "--model", required=True, help="a frozen model (.h5) or a DeePMD-kit YAML model")
    p.add_argument("-s", "--system", required=True, help="a DeePMD system folder")
    p.add_argument("-n", "--numb-test", type=int, default=0, help="frames to test (0 = all)")
    p.set_defaults(run=_test)

    p = sub.add_parser("freeze", help="write a model file that the C++ DeepPot (MD, LAMMPS) loads")
    p.add_argument("-c", "--checkpoint", default="model.ckpt.h5", help="training checkpoint (default model.ckpt.h5)")
    p.add_argument("-o", "--output", default="frozen_model.h5", help="model file to write")
    p.set_defaults(run=_freeze)

    from .md_cli import add_md_command
    add_md_command(sub)


def _train(args):
    from .train import train
    train(args.input, restart=args.restart, output_dir=args.output_dir, stop_at=args.stop_at)
    return 0


def test_model(model_path, system_path, numb_test=0, out=None):
    """dp test's numbers: energy MAE/RMSE (total and per atom), force MAE/RMSE; returns them."""
    out = sys.stdout if out is None else out
    from .data import load_system
    from .model import evaluate_system, load_model
    model = load_model(model_path)
    system = load_system(system_path)
    n = system.nframes if numb_test <= 0 else min(numb_test, system.nframes)
    energy, force, virial = evaluate_system(model, system, range(n))
    result = {"nframes": n}
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
    return result


def _test(args):
    test_model(args.model, args.system, args.numb_test)
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
