"""``sampan deepmd compress``: tabulate a frozen se_e2_a model's embedding nets (DeePMD-kit's ``dp compress``).

    sampan deepmd compress -i frozen_model.h5 -o compressed.h5 -t input.json [-s 0.01] [-e 5]

Each embedding net becomes a table of quintic polynomials in s~ (value, slope and curvature of the
net matched at every interval end; C++ DeepPot.compress, sampan/deepmd/embedding_table.h) over the
range that neighbours no closer than the training data's smallest distance produce, with intervals
of ``-s`` (step) and the range extended ``-e`` (extrapolate) times with a 10x coarser step. That
distance comes from the training data (``-t``: the training input.json, whose
``training.training_data.systems`` are read, or system folders) or is given (``--min-dist``).
The compressed model runs wherever the model ran (MD, LAMMPS, ``sampan deepmd test``, training of
the fitting nets); the tables replace the embedding nets.
"""
import json
import os

from .model import load_model
from .neighbor_stat import neighbor_stat
from .systems import read_systems


def training_min_distance(training, model):
    """The smallest neighbour distance (Å, within the model's rcut) in the training data: `training`
    is an input.json (its training_data systems, relative to its folder) or a list of system paths."""
    cfg = model.config
    paths = list(training)
    if len(paths) == 1 and paths[0].endswith(".json"):
        with open(paths[0]) as f:
            config = json.load(f)
        try:
            spec = config["training"]["training_data"]["systems"]
        except (KeyError, TypeError):
            raise ValueError(f"{paths[0]}: no training.training_data.systems to take the neighbour distances from")
        systems = read_systems(spec, cfg["type_map"], base=os.path.dirname(os.path.abspath(paths[0])),
                               what="training.training_data.systems")
    else:
        systems = read_systems(paths, cfg["type_map"], what="-t")
    stat = neighbor_stat(systems, cfg["rcut"], len(cfg["type_map"]))
    if not stat.min_nbor_dist < float("inf"):
        raise ValueError("the training data has no pair of atoms within rcut: give --min-dist")
    return stat.min_nbor_dist


def compress(model_path, output, training=None, min_dist=None, step=0.01, extrapolate=5.0, log=print):
    """Writes the compressed model to `output` and returns it (a DeepPot)."""
    model = load_model(model_path)
    if model.compressed:
        raise ValueError(f"{model_path}: the model is already compressed")
    if min_dist is None:
        if not training:
            raise ValueError("compress needs the smallest neighbour distance: give -t (the training input.json or "
                             "system folders) or --min-dist")
        min_dist = training_min_distance(training, model)
    model.compress(min_dist, step, extrapolate)
    model.save(output)
    info = model.compression
    log(f"compressed {model_path} -> {output}: min_dist {min_dist:.4f} A, step {step}, extrapolate {extrapolate}")
    for k, t in enumerate(info["tables"]):
        log(f"  embedding {k}: s~ in [{t['lower']:.4f}, {t['upper']:.4f}) by {t['stride0']}, "
            f"to {t['extrapolated']:.4f} by {t['stride1']}: {t['intervals']} intervals")
    return model


def add_compress_command(sub):
    p = sub.add_parser("compress", help="tabulate a frozen model's embedding nets (like dp compress)")
    p.add_argument("-i", "--input", required=True, help="a frozen model (.h5) or a DeePMD-kit YAML model")
    p.add_argument("-o", "--output", default="frozen_model_compressed.h5", help="model file to write")
    p.add_argument("-t", "--training-data", nargs="+", default=None, metavar="PATH",
                   help="the training input.json, or system folders: their smallest neighbour distance bounds the table")
    p.add_argument("--min-dist", type=float, default=None, metavar="A",
                   help="the smallest neighbour distance in A, instead of -t")
    p.add_argument("-s", "--step", type=float, default=0.01, help="table interval in s~ (default 0.01)")
    p.add_argument("-e", "--extrapolate", type=float, default=5.0,
                   help="the table's range beyond the data, as a multiple of the data's range (default 5)")
    p.set_defaults(run=_compress)


def _compress(args):
    compress(args.input, args.output, args.training_data, args.min_dist, args.step, args.extrapolate)
    return 0
