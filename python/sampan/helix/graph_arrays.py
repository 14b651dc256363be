"""The featurizer's graphs as one dict of flat arrays (node and edge offsets, atom and bond
features, edge endpoints, source_index, invalid), featurized in chunks when progress is reported.

Its own module so that both the dataset readers (``data.read_dataset``) and ``featurize`` use it
without importing each other; ``sampan.helix.featurize.featurize_graphs`` is this function.
"""
import numpy as np

from ._native import native


def featurize_graphs(smiles, featurizer="ogb", rows=None, num_threads=0, progress=None, chunk_size=4096):
    """The C++ featurizer's dict of flat arrays for `smiles` (see sampan._C.helix.featurize_smiles).

    progress: None, or a callable called with the number of molecules done after each chunk (a
    tqdm bar's update); the molecules are then featurized in chunks of `chunk_size` (each chunk
    in parallel) and the chunks joined.
    """
    h = native()
    rows = [] if rows is None else list(np.asarray(rows, dtype=np.int64))
    if progress is None or len(smiles) <= chunk_size:
        out = h.featurize_smiles(smiles, featurizer, rows, num_threads)
        if progress is not None:
            progress(len(smiles))
        return out
    parts = []
    for start in range(0, len(smiles), chunk_size):
        stop = min(start + chunk_size, len(smiles))
        parts.append((start, h.featurize_smiles(smiles[start:stop], featurizer, rows[start:stop] if rows else [],
                                                num_threads)))
        progress(stop - start)
    return _join_graphs(parts)


def _join_graphs(parts):
    """One featurizer dict from chunks [(first input index, dict)]."""
    def offsets(key):
        pieces, base = [np.zeros(1, dtype=np.int64)], 0
        for _, p in parts:
            pieces.append(p[key][1:] + base)
            base += int(p[key][-1])
        return np.concatenate(pieces)
    out = {"featurizer": parts[0][1]["featurizer"], "node_offsets": offsets("node_offsets"),
           "edge_offsets": offsets("edge_offsets")}
    for key in ("atom_features", "edge_source", "edge_target", "bond_features"):
        out[key] = np.concatenate([p[key] for _, p in parts])
    out["source_index"] = np.concatenate([p["source_index"] + start for start, p in parts])
    out["invalid"] = [dict(m, index=m["index"] + start) for start, p in parts for m in p["invalid"]]
    return out
