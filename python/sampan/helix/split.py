"""Train/valid/test splits of molecule datasets (C++; see helix/include/sampan/helix/split.h).

scaffold_split: the deterministic Bemis–Murcko split of Hu et al. 2020 / PaddleHelix / DeepChem
(80/10/10 by default); the seed does not change it. It reproduces the train/valid/test counts of
shared/data/moleculenet/SOURCE.md (e.g. HIV 32901/4113/4113, the ogbg-molhiv split sizes).
random_scaffold_split: scaffold groups in a seeded random order (Hu et al.). random_split: seeded
shuffle of the molecules. Each returns (train, valid, test) int64 index arrays.
"""
import numpy as np

from ._native import native

__all__ = ["murcko_scaffolds", "scaffold_split", "random_scaffold_split", "random_split", "split_dataset",
           "SPLITS"]

SPLITS = ("scaffold", "random_scaffold", "random")


def _smiles_of(data):
    smiles = getattr(data, "smiles", data)
    if isinstance(smiles, str):
        raise TypeError("expected a MoleculeDataset or a list of SMILES, got one string")
    return list(smiles)


def murcko_scaffolds(data, include_chirality=True, num_threads=0):
    """Canonical SMILES of each molecule's Murcko scaffold ('' for acyclic molecules)."""
    return native().murcko_scaffolds(_smiles_of(data), include_chirality, num_threads)


def scaffold_split(data, frac_train=0.8, frac_valid=0.1, frac_test=0.1, include_chirality=True):
    """Deterministic scaffold split of a MoleculeDataset or a SMILES list: (train, valid, test)."""
    scaffolds = murcko_scaffolds(data, include_chirality)
    return native().scaffold_split(scaffolds, frac_train, frac_valid, frac_test)


def random_scaffold_split(data, seed=0, frac_train=0.8, frac_valid=0.1, frac_test=0.1, include_chirality=True):
    """Seeded random-scaffold split (Hu et al.): (train, valid, test)."""
    scaffolds = murcko_scaffolds(data, include_chirality)
    return native().random_scaffold_split(scaffolds, int(seed), frac_train, frac_valid, frac_test)


def random_split(data, seed=0, frac_train=0.8, frac_valid=0.1, frac_test=0.1):
    """Seeded random split; `data` is a dataset, a SMILES list or a number of molecules."""
    n = data if isinstance(data, (int, np.integer)) else len(data)
    return native().random_split(int(n), int(seed), frac_train, frac_valid, frac_test)


def split_dataset(dataset, method="scaffold", seed=0, fractions=(0.8, 0.1, 0.1)):
    """(train, valid, test) MoleculeDatasets and the index arrays: ((train, valid, test), indices).

    method: 'scaffold' (deterministic; seed unused), 'random_scaffold' or 'random'.
    """
    if method == "scaffold":
        idx = scaffold_split(dataset, *fractions)
    elif method == "random_scaffold":
        idx = random_scaffold_split(dataset, seed, *fractions)
    elif method == "random":
        idx = random_split(dataset, seed, *fractions)
    else:
        raise ValueError(f"split_dataset: unknown method {method!r}; expected one of {', '.join(SPLITS)}")
    return tuple(dataset.subset(i) for i in idx), idx
