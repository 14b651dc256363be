"""DeePMD-kit training data: systems in the deepmd/npy, raw and deepmd/hdf5 formats.

Units (DeePMD / LAMMPS ``metal``): coordinates and cells in Å, energies in eV, forces in eV/Å,
virials in eV.

deepmd/hdf5 (DeePMD-kit's and dpdata's): one HDF5 file holds systems as groups, each the deepmd/npy
folder's content as datasets: ``type.raw`` (int atom types), ``type_map.raw`` (byte strings),
``nopbc`` (present: open boundaries), ``set.NNN/{coord,box,energy,force,virial}.npy`` (rows of
frames). ``file.h5#/group`` addresses one group; a file or group holds every system below it.
"""
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .. import _C

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"  # the first 8 bytes of every HDF5 file
HDF5_SUFFIXES = (".h5", ".hdf5")
FORMATS = ("deepmd/npy", "deepmd/hdf5")
SET_SIZE = 5000  # frames per set.NNN, DeePMD-kit's and dpdata's default


@dataclass(frozen=True)
class _Field:
    """One per-frame array: its System attribute, its DeePMD file stem, and its shape per frame
    (``(natoms,) + tail`` when per_atom, else ``tail``)."""
    attr: str
    stem: str
    per_atom: bool
    tail: tuple

    def shape(self, natoms):
        return ((natoms,) if self.per_atom else ()) + self.tail

    def per_frame(self, natoms):
        return int(np.prod(self.shape(natoms)))

    def what(self, natoms):
        return " x ".join([f"{natoms} atoms"] * self.per_atom + [str(d) for d in self.tail]) or "one value"


# The frame arrays, in the order a set is read (coord first: it fixes the set's frame count).
FIELDS = (_Field("coord", "coord", True, (3,)), _Field("box", "box", False, (3, 3)),
          _Field("energy", "energy", False, ()), _Field("force", "force", True, (3,)),
          _Field("virial", "virial", False, (3, 3)))


@dataclass
class System:
    """One DeePMD system, all sets concatenated (arrays are NumPy float64; types int64).

    coord [nframes, natoms, 3] Å (as stored: often unwrapped); box [nframes, 3, 3] Å with cell
    vectors as rows, or None without periodic boundaries; energy [nframes] eV; force
    [nframes, natoms, 3] eV/Å; virial [nframes, 3, 3] eV. Labels that the system lacks are None.
    """

    path: str
    type_map: List[str]
    atom_types: np.ndarray
    periodic: bool
    coord: np.ndarray
    box: Optional[np.ndarray]
    energy: Optional[np.ndarray]
    force: Optional[np.ndarray]
    virial: Optional[np.ndarray]

    @property
    def nframes(self) -> int:
        return int(self.coord.shape[0])

    @property
    def natoms(self) -> int:
        return int(self.atom_types.shape[0])

    def __repr__(self):
        labels = [n for n in ("energy", "force", "virial") if getattr(self, n) is not None]
        return (f"System({self.path!r}, {self.nframes} frames, {self.natoms} atoms, "
                f"type_map={self.type_map}, periodic={self.periodic}, labels={labels})")


# ---------------------------------------------------------------------------------------------
# Reading


def _numpy(t):
    return None if t is None else np.array(t.numpy(), copy=True)


def _split_hdf5_address(path):
    """(file, group) of ``file.h5#/group`` (group '/' without '#'), or None for a folder."""
    path = str(path)
    file, sep, group = path.partition("#")
    if sep:
        return file, "/" + group.strip("/")
    if path.lower().endswith(HDF5_SUFFIXES) and not os.path.isdir(path):
        return path, "/"
    if os.path.isfile(path):
        with open(path, "rb") as f:
            if f.read(len(HDF5_SIGNATURE)) == HDF5_SIGNATURE:
                return path, "/"
        raise OSError(f"DeePMD system {path}: a file but not HDF5 (deepmd/hdf5); a deepmd/npy or raw system is a folder")
    return None


def _h5py():
    try:
        import h5py
    except ImportError as e:
        raise ImportError("reading or writing deepmd/hdf5 needs h5py (pip install h5py)") from e
    return h5py


def _system_groups(root):
    """The groups at or below `root` that are systems (hold type.raw), in name order."""
    h5py = _h5py()
    if "type.raw" in root:
        return [root]
    found = []
    root.visititems(lambda name, obj: found.append(obj) if isinstance(obj, h5py.Group) and "type.raw" in obj else None)
    return sorted(found, key=lambda g: g.name)


def _frames(dataset, where, per_frame, what):
    """A dataset as [frames, per_frame] float64: rows of frames, like the C++ .npy reader accepts."""
    data = np.asarray(dataset[()], dtype=np.float64)
    if data.ndim == 0:
        raise ValueError(f"{where}: expected {what} per frame, got a 0-d dataset")
    if data.ndim == 1 and per_frame != 1:
        if data.shape[0] != per_frame:
            raise ValueError(f"{where}: 1-d dataset of {data.shape[0]} values; expected {what} = {per_frame} "
                             f"values per frame")
        data = data[None]
    trailing = int(np.prod(data.shape[1:]))
    if trailing != per_frame:
        raise ValueError(f"{where}: shape {data.shape} has {trailing} values per frame; expected {what} = {per_frame}")
    bad = np.argwhere(~np.isfinite(data.reshape(len(data), per_frame)))
    if len(bad):
        raise ValueError(f"{where}: frame {bad[0][0]}, value {bad[0][1]} is not finite")
    return data.reshape(len(data), per_frame)


def _read_hdf5_group(group, address):
    """A System from one deepmd/hdf5 group; errors name `address` (file#group) and the dataset."""
    if not isinstance(group["type.raw"], _h5py().Dataset):
        raise ValueError(f"{address}/type.raw: expected a dataset, got a group")
    types = np.asarray(group["type.raw"][()]).reshape(-1)
    if types.size == 0:
        raise ValueError(f"{address}/type.raw: no atom types (empty dataset)")
    if not np.issubdtype(types.dtype, np.integer) or types.min() < 0:
        raise ValueError(f"{address}/type.raw: expected non-negative integer types, got dtype {types.dtype} "
                         f"with minimum {types.min()}")
    types = types.astype(np.int64)
    type_map = []
    if "type_map.raw" in group:
        type_map = [n.decode() if isinstance(n, bytes) else str(n) for n in np.asarray(group["type_map.raw"][()]).reshape(-1)]
        if types.max() >= len(type_map):
            atom = int(np.argmax(types >= len(type_map)))
            raise ValueError(f"{address}/type.raw: atom {atom} has type {types[atom]} but type_map.raw names only "
                             f"{len(type_map)} types")
    periodic = "nopbc" not in group
    natoms = len(types)
    sets = sorted(name for name in group if name.startswith("set."))
    if not sets:
        raise OSError(f"DeePMD system {address}: no set.* groups")
    columns = {f.attr: [] for f in FIELDS}
    for s, set_name in enumerate(sets):
        set_frames = None
        for field in FIELDS:
            if field.attr == "box" and not periodic:
                continue
            where = f"{address}/{set_name}/{field.stem}.npy"
            required = field.attr == "coord" or (field.attr == "box" and periodic)
            if field.stem + ".npy" not in group[set_name]:
                if required:
                    extra = " for a periodic system; add a 'nopbc' dataset otherwise" if field.attr == "box" else ""
                    raise OSError(f"DeePMD system {address}: missing {where} (required{extra})")
                if columns[field.attr]:
                    raise OSError(f"DeePMD system {address}: {where} is missing but earlier sets have {field.stem}")
                continue
            if s > 0 and not columns[field.attr]:
                raise OSError(f"DeePMD system {address}: {where} exists but earlier sets have no {field.stem}")
            rows = _frames(group[set_name][field.stem + ".npy"], where, field.per_frame(natoms), field.what(natoms))
            if set_frames is None:
                set_frames = len(rows)
            elif len(rows) != set_frames:
                raise ValueError(f"{where}: {len(rows)} frames, but coord.npy in the same set has {set_frames}")
            columns[field.attr].append(rows)
    arrays = {}
    for field in FIELDS:
        rows = columns[field.attr]
        arrays[field.attr] = None if not rows else np.concatenate(rows).reshape(-1, *field.shape(natoms))
    if len(arrays["coord"]) == 0:
        raise ValueError(f"DeePMD system {address}: no frames")
    if periodic:
        volume = np.linalg.det(arrays["box"])
        if (np.abs(volume) <= 1e-12).any():
            f = int(np.argmax(np.abs(volume) <= 1e-12))
            raise ValueError(f"{address}: frame {f}: box is singular (volume {volume[f]} Å^3); a periodic system "
                             f"needs three independent cell vectors (or add a 'nopbc' dataset)")
    return System(path=address, type_map=type_map, atom_types=types, periodic=periodic, **arrays)


def load_systems(path) -> List[System]:
    """Every system at `path`: a folder (one system), a deepmd/hdf5 file, or ``file.h5#/group``
    (every system in the file or below the group, in group-name order)."""
    hdf5 = _split_hdf5_address(path)
    if hdf5 is None:
        return [load_system(path)]
    file, group = hdf5
    h5py = _h5py()
    if not os.path.isfile(file):
        raise OSError(f"DeePMD system {path}: no such file {file}")
    try:
        f = h5py.File(file, "r")
    except OSError as e:
        raise OSError(f"DeePMD system {path}: {file} is not a readable HDF5 file ({e})") from e
    with f:
        if group not in f:
            raise OSError(f"DeePMD system {path}: {file} has no group {group}")
        groups = _system_groups(f[group])
        if not groups:
            raise OSError(f"DeePMD system {path}: no system (a group with type.raw) at or below {group}")
        return [_read_hdf5_group(g, file if g.name == "/" else f"{file}#{g.name}") for g in groups]


def load_system(path) -> System:
    """Reads one DeePMD system: a folder (``set.*/coord.npy ...`` or ``coord.raw ...``), or a deepmd/hdf5
    file or ``file.h5#/group`` that holds exactly one system (load_systems reads several).

    Errors (OSError / ValueError) name the file (and group or dataset), the frame or line, and the mismatch.
    """
    if _split_hdf5_address(path) is not None:
        systems = load_systems(path)
        if len(systems) > 1:
            raise ValueError(f"DeePMD system {path}: holds {len(systems)} systems ({', '.join(s.path for s in systems)}); "
                             f"address one as file.h5#/group, or read them all with load_systems")
        return systems[0]
    d = _C.deepmd_load_system(str(path))
    return System(path=d["path"], type_map=list(d["type_map"]), atom_types=_numpy(d["atom_types"]),
                  periodic=bool(d["periodic"]), coord=_numpy(d["coord"]), box=_numpy(d["box"]),
                  energy=_numpy(d["energy"]), force=_numpy(d["force"]), virial=_numpy(d["virial"]))


# ---------------------------------------------------------------------------------------------
# Writing


def _check_writable(system):
    n, nf = system.natoms, system.nframes
    if system.periodic and system.box is None:
        raise ValueError(f"save_system: {system.path}: periodic but box is None")
    for field in FIELDS:
        value = getattr(system, field.attr)
        if value is None or (field.attr == "box" and not system.periodic):
            continue
        expected = (nf, *field.shape(n))
        if np.shape(value) != expected:
            raise ValueError(f"save_system: {system.path}: {field.attr} has shape {np.shape(value)}, expected {expected}")


def _frame_rows(system):
    """{file stem: [nframes, per_frame] float64} of the arrays the system has."""
    rows = {}
    for field in FIELDS:
        value = getattr(system, field.attr)
        if value is not None and not (field.attr == "box" and not system.periodic):
            rows[field.stem] = np.asarray(value, dtype=np.float64).reshape(system.nframes, -1)
    return rows


def _set_slices(nframes, set_size):
    return [(f"set.{i:03d}", slice(start, start + set_size)) for i, start in enumerate(range(0, nframes, set_size))]


def _write_npy_folder(system, folder, set_size):
    os.makedirs(folder)
    np.savetxt(os.path.join(folder, "type.raw"), system.atom_types, fmt="%d")
    if system.type_map:
        with open(os.path.join(folder, "type_map.raw"), "w") as f:
            f.write("".join(name + "\n" for name in system.type_map))
    if not system.periodic:
        open(os.path.join(folder, "nopbc"), "w").close()
    rows = _frame_rows(system)
    for set_name, frames in _set_slices(system.nframes, set_size):
        os.makedirs(os.path.join(folder, set_name))
        for stem, value in rows.items():
            np.save(os.path.join(folder, set_name, stem + ".npy"), value[frames])


def _write_hdf5_group(system, group, set_size):
    group.create_dataset("type.raw", data=np.asarray(system.atom_types, dtype=np.int64))
    if system.type_map:
        group.create_dataset("type_map.raw", data=np.array(system.type_map, dtype="S"))
    if not system.periodic:
        group.create_dataset("nopbc", data=True)
    rows = _frame_rows(system)
    for set_name, frames in _set_slices(system.nframes, set_size):
        sub = group.create_group(set_name)
        for stem, value in rows.items():
            sub.create_dataset(stem + ".npy", data=value[frames])


def _save_npy(system, path, set_size):
    path = os.path.abspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise OSError(f"save_system: {path} exists and is not a folder")
    parent = os.path.dirname(path)
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=parent)
    try:
        _write_npy_folder(system, os.path.join(staging, "system"), set_size)
        # A folder cannot replace a non-empty folder in one rename: move the old one aside first.
        old = os.path.join(staging, "old")
        if os.path.exists(path):
            os.replace(path, old)
        os.replace(os.path.join(staging, "system"), path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _save_hdf5(system, path, set_size):
    h5py = _h5py()
    file, group = _split_hdf5_address(path) if "#" in str(path) else (str(path), "/")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(file)}.", suffix=".tmp", dir=os.path.dirname(os.path.abspath(file)))
    os.close(fd)
    try:
        # Another group of an existing file is kept: the copy is edited, then renamed over the file.
        if group != "/" and os.path.exists(file):
            shutil.copyfile(file, tmp)
        with h5py.File(tmp, "r+" if group != "/" and os.path.exists(file) else "w") as f:
            if group != "/" and group in f:
                del f[group]
            _write_hdf5_group(system, f if group == "/" else f.require_group(group), set_size)
        os.replace(tmp, file)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def save_system(system: System, path, fmt: str = "deepmd/npy", set_size: int = SET_SIZE):
    """Writes a System: ``deepmd/npy`` (a folder) or ``deepmd/hdf5`` (``file.h5``, or ``file.h5#/group`` to
    add or replace one group of a file). float64 arrays, at most `set_size` frames per set.NNN. The
    target is written under a temporary name in the same folder, then renamed over `path`."""
    if fmt not in FORMATS:
        raise ValueError(f"save_system: fmt {fmt!r}; expected one of {list(FORMATS)}")
    if int(set_size) < 1:
        raise ValueError(f"save_system: set_size must be >= 1, got {set_size}")
    _check_writable(system)
    (_save_npy if fmt == "deepmd/npy" else _save_hdf5)(system, path, int(set_size))
