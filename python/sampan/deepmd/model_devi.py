"""Model deviation of an ensemble of models, DeePMD-kit's definitions (``dp model-devi``,
deepmd/infer/model_devi.py; the LAMMPS pair style writes the same first seven columns).

With k over the models and std the population standard deviation over them:
- force: for atom i, e_i = sqrt(sum_xyz std_k(F_i)^2) = sqrt(mean_k |F_i^k - <F_i>|^2);
  max_devi_f, min_devi_f, avg_devi_f are the max, min and mean of e_i over the atoms;
- virial (divided by the number of atoms): s_c = std_k(W_c / N) for the 9 components c;
  max_devi_v, min_devi_v are the max and min of s_c, avg_devi_v = sqrt(mean_c s_c^2);
- devi_e: std_k(E / N), the energy per atom.
"""
import os

import numpy as np

COLUMNS = ("step", "max_devi_v", "min_devi_v", "avg_devi_v", "max_devi_f", "min_devi_f", "avg_devi_f", "devi_e")
LAMMPS_COLUMNS = COLUMNS[:7]  # the pair style writes no devi_e (as DeePMD-kit's pair_style deepmd)


def force_deviation(forces):
    """forces [nmodels, nframes, natoms, 3] -> (max, min, avg) [nframes] of the per-atom deviation."""
    per_atom = np.linalg.norm(np.std(np.asarray(forces, dtype=float), axis=0), axis=-1)
    return per_atom.max(axis=-1), per_atom.min(axis=-1), per_atom.mean(axis=-1)


def virial_deviation(virials_per_atom):
    """virials / natoms [nmodels, nframes, 9] -> (max, min, avg) [nframes] over the 9 components."""
    per_component = np.std(np.asarray(virials_per_atom, dtype=float), axis=0)
    return per_component.max(axis=-1), per_component.min(axis=-1), np.sqrt((per_component ** 2).mean(axis=-1))


def energy_deviation(energies_per_atom):
    """energies / natoms [nmodels, nframes] -> [nframes]."""
    return np.std(np.asarray(energies_per_atom, dtype=float), axis=0)


def deviation_rows(steps, energies, forces, virials, natoms):
    """[nframes, 8] rows in COLUMNS order from every model's energies [nm, nf], forces
    [nm, nf, natoms, 3] and virials [nm, nf, 9] (eV, eV/Å, eV)."""
    energies, virials = np.asarray(energies, dtype=float), np.asarray(virials, dtype=float)
    columns = [np.asarray(steps, dtype=float)]
    columns += list(virial_deviation(virials.reshape(virials.shape[0], virials.shape[1], 9) / natoms))
    columns += list(force_deviation(forces))
    columns.append(energy_deviation(energies / natoms))
    return np.stack(columns, axis=1)


def header(columns=COLUMNS):
    """The column header line: "#", step right-aligned in 11, each value column in 19."""
    return "#" + f"{columns[0]:>11}" + "".join(f"{c:>19}" for c in columns[1:])


def format_row(row):
    return f"{int(row[0]):12d}" + "".join(f"{v:19.6e}" for v in row[1:])


def write_model_devi(path, blocks):
    """Writes model_devi.out: for each (title, rows) a "# title" line (when the title is not
    None), the column header and the rows. Temp file in the same folder, then renamed."""
    lines = []
    for title, rows in blocks:
        if title is not None:
            lines.append(f"# {title}")
        lines.append(header(COLUMNS[: np.shape(rows)[1]] if len(rows) else COLUMNS))
        lines.extend(format_row(r) for r in rows)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def make_model_devi(model_paths, system_spec, output, frequency=1):
    """``sampan deepmd model-devi``: the deviation of the models on every frame of the systems
    under system_spec (step = frame index * frequency), written to output; returns the blocks."""
    from .model import evaluate_system, load_model
    from .systems import read_systems
    if len(model_paths) < 2:
        raise ValueError(f"model-devi: needs at least two models, got {len(model_paths)}")
    if frequency < 1:
        raise ValueError(f"model-devi: the frequency must be a positive number of steps, got {frequency}")
    models = [load_model(p) for p in model_paths]
    type_map = list(models[0].config["type_map"])
    for path, m in zip(model_paths[1:], models[1:]):
        if list(m.config["type_map"]) != type_map:
            raise ValueError(f"{path}: type_map {list(m.config['type_map'])} differs from {model_paths[0]}'s "
                             f"{type_map}; the models must share one type_map")
    blocks = []
    for system in read_systems(system_spec, type_map, what="-s/--system"):
        outputs = [evaluate_system(m, system) for m in models]
        steps = np.arange(system.nframes) * frequency
        rows = deviation_rows(steps, [o[0] for o in outputs], [o[1] for o in outputs], [o[2] for o in outputs],
                              system.natoms)
        blocks.append((system.path, rows))
    write_model_devi(output, blocks)
    return blocks
