"""Training an se_e2_a model from a DeePMD-kit input.json (``sampan deepmd train``).

Follows DeePMD-kit's energy training (docs: train/training.md, model/train-energy.md):

- data statistics: davg/dstd of the environment matrix per centre type over the first
  ``data_stat_nbatch`` frames of every training system, over all neighbour slots including empty
  ones (column 0 its own mean and std; columns 1-3 mean 0 and one shared std; std < 1e-2 -> 1e-2);
  bias_atom_e by least squares of frame energies on the type counts;
- learning rate lr(t) = start_lr * r^floor(t / decay_steps), r = (stop_lr/start_lr)^(decay_steps/numb_steps);
- loss L = p_e (E-E*)^2 / N + p_f <(F-F*)^2> + p_v <(W-W*)^2> / N averaged over the batch, with
  p(t) = p_limit + (p_start - p_limit) lr(t)/start_lr;
- lcurve.out columns as DeePMD-kit: step rmse_val rmse_trn rmse_e_val rmse_e_trn rmse_f_val
  rmse_f_trn [rmse_v_val rmse_v_trn] lr; rmse = sqrt(L), rmse_e per atom (eV), rmse_f in eV/Å;
  training errors on the step's batch before its update, validation on numb_btch frames.

Checkpoints (HDF5, sampan.save) hold parameters, optimizer, scheduler, data-order RNG and
statistics, so a restart continues with the same numbers.
"""
import json
import math
import os
import time

import numpy as np

import sampan as sp

from .data import load_system
from .model import DeepPot, frame_input, model_config

CHECKPOINT = "model.ckpt.h5"


def _systems(spec, base):
    if isinstance(spec, str):
        spec = [spec]
    out = []
    for s in spec:
        path = s if os.path.isabs(s) else os.path.join(base, s)
        out.append(load_system(path))
    return out


def _check_types(systems, type_map):
    for s in systems:
        if s.type_map and list(s.type_map) != list(type_map)[: len(s.type_map)]:
            raise ValueError(f"{s.path}: type_map.raw {s.type_map} does not match the model's type_map {type_map}")
        if s.atom_types.max() >= len(type_map):
            raise ValueError(f"{s.path}: atom type {int(s.atom_types.max())} but the model has {len(type_map)} types")


def compute_statistics(model, systems, nbatch):
    """davg, dstd [ntypes, nnei*4] and bias_atom_e [ntypes] from the training data (see module doc)."""
    cfg = model.config
    ntypes, nnei = len(cfg["sel"]), sum(cfg["sel"])
    zeros = sp.zeros([ntypes, nnei * 4], dtype=sp.float64)
    ones = sp.ones([ntypes, nnei * 4], dtype=sp.float64)
    sums = np.zeros((ntypes, 4))  # sum r, sum r^2, sum a, sum a^2
    counts = np.zeros(ntypes)
    for system in systems:
        for f in range(min(nbatch, system.nframes)):
            ext = frame_input(model, system, f)
            em = sp.ops.deepmd.prod_env_mat_a(ext.coord, ext.types, ext.nlist, zeros, ones, cfg["rcut"],
                                              cfg["rcut_smth"])[0].numpy().reshape(ext.nloc, nnei, 4)
            for t in range(ntypes):
                rows = em[system.atom_types == t]
                if rows.size == 0:
                    continue
                sums[t] += [rows[..., 0].sum(), (rows[..., 0] ** 2).sum(), rows[..., 1:].sum(), (rows[..., 1:] ** 2).sum()]
                counts[t] += rows.shape[0] * nnei
    davg = np.zeros((ntypes, nnei, 4))
    dstd = np.ones((ntypes, nnei, 4)) / cfg["rcut"]  # no data: 1/rcut (DeePMD-kit's default)
    for t in range(ntypes):
        n = counts[t]
        if n == 0:
            continue
        mean_r = sums[t, 0] / n
        std_r = math.sqrt(max(sums[t, 1] / n - mean_r ** 2, 0.0))
        std_a = math.sqrt(max(sums[t, 3] / (3 * n) - (sums[t, 2] / (3 * n)) ** 2, 0.0))
        davg[t, :, 0] = mean_r
        dstd[t, :, 0] = max(std_r, 1e-2)
        dstd[t, :, 1:] = max(std_a, 1e-2)
    # energy bias: least squares of E on the type counts (minimum norm when compositions repeat)
    rows, energies = [], []
    for system in systems:
        if system.energy is None:
            continue
        count = np.bincount(system.atom_types, minlength=ntypes)[:ntypes].astype(float)
        rows.extend([count] * system.nframes)
        energies.extend(system.energy)
    bias = np.linalg.lstsq(np.array(rows), np.array(energies), rcond=None)[0] if rows else np.zeros(ntypes)
    return davg.reshape(ntypes, nnei * 4), dstd.reshape(ntypes, nnei * 4), bias


class _FrameCache:
    """Extended systems of frames, built once (they depend on coordinates only)."""

    def __init__(self, model):
        self.model, self.cache = model, {}

    def get(self, s, system, f):
        key = (s, f)
        if key not in self.cache:
            self.cache[key] = frame_input(self.model, system, f)
        return self.cache[key]


def _frame_loss(model, ext, system, f, pref, create_graph):
    """Weighted loss and the raw squared errors of one frame."""
    out = model.evaluate(ext, True, create_graph)
    natoms = system.natoms
    terms = {}
    loss = None
    if system.energy is not None:
        de = out["energy"] - float(system.energy[f])
        l2_e = de * de
        loss = l2_e * (pref["e"] / natoms)
        terms["e"] = l2_e.item()
    if system.force is not None:
        df = out["force"] - sp.tensor(system.force[f])
        l2_f = (df * df).mean()
        loss = l2_f * pref["f"] if loss is None else loss + l2_f * pref["f"]
        terms["f"] = l2_f.item()
    if system.virial is not None and pref["v"] > 0:
        dv = out["virial"] - sp.tensor(system.virial[f].ravel())
        l2_v = (dv * dv).mean()
        loss = loss + l2_v * (pref["v"] / natoms)
        terms["v"] = l2_v.item()
    return loss, terms


class Trainer:
    def __init__(self, config, base_dir=".", output_dir=".", log=print):
        self.config = config
        self.log = log
        self.output_dir = output_dir
        training = config["training"]
        self.seed = int(training.get("seed", config["model"]["descriptor"].get("seed", 1)) or 1)
        tdata = training.get("training_data", training)
        self.train_systems = _systems(tdata["systems"], base_dir)
        vdata = training.get("validation_data")
        self.valid_systems = _systems(vdata["systems"], base_dir) if vdata else []
        self.valid_batches = int(vdata.get("numb_btch", 1)) if vdata else 0
        batch = tdata.get("batch_size", "auto")
        self.batch_size = self._batch_size(batch)
        self.numb_steps = int(training["numb_steps"])
        self.disp_freq = int(training.get("disp_freq", 1000))
        self.save_freq = int(training.get("save_freq", 1000))
        self.save_ckpt = training.get("save_ckpt", CHECKPOINT)
        if not self.save_ckpt.endswith(".h5"):
            self.save_ckpt += ".h5"
        self.disp_file = training.get("disp_file", "lcurve.out")
        cfg = model_config(config)
        _check_types(self.train_systems + self.valid_systems, cfg["type_map"])
        self.model = DeepPot(cfg, int(config["model"]["descriptor"].get("seed", self.seed) or self.seed))
        lr = config.get("learning_rate", {})
        if lr.get("type", "exp") != "exp":
            raise ValueError(f"learning_rate.type: '{lr.get('type')}' is not supported (exp)")
        self.start_lr = float(lr.get("start_lr", 1e-3))
        loss = config.get("loss", {})
        if loss.get("type", "ener") != "ener":
            raise ValueError(f"loss.type: '{loss.get('type')}' is not supported (ener)")
        self.pref = {k: (float(loss.get(f"start_pref_{k}", d0)), float(loss.get(f"limit_pref_{k}", d1)))
                     for k, d0, d1 in (("e", 0.02, 1.0), ("f", 1000.0, 1.0), ("v", 0.0, 0.0))}
        self.params = self.model.parameters()
        for p in self.params:
            p.requires_grad_(True)
        self.optimizer = sp.optim.Adam(self.params, lr=self.start_lr)
        self.scheduler = sp.optim.lr_scheduler.ExponentialDecay(
            self.optimizer, decay_steps=int(lr.get("decay_steps", 5000)), stop_lr=float(lr.get("stop_lr", 1e-8)),
            stop_steps=self.numb_steps, staircase=True)
        # Under mpirun: data-parallel. Every rank draws its own batches, the gradients are averaged
        # before each step; rank 0 validates, logs, writes lcurve.out and the checkpoints.
        from .. import distributed as dist
        self.rank, self.ranks = (dist.rank(), dist.world_size())
        self.rng = np.random.default_rng(self.seed if self.ranks == 1 else [self.seed, self.rank])
        if self.ranks > 1:
            for p in self.params:  # rank 0's initial weights everywhere
                dist.broadcast(p, 0)
        self.step = 0
        self.cache = _FrameCache(self.model)
        self.valid_cursor = 0
        self.stat_nbatch = int(config["model"].get("data_stat_nbatch", 10))
        self.stop_at = None  # stop early (a prefix of the numb_steps schedule), e.g. 10k of 1M
        self._saved = []

    def _batch_size(self, batch):
        n = len(self.train_systems)
        if isinstance(batch, list):
            return [int(b) for b in batch]
        if isinstance(batch, str):  # "auto[:N]": batch * natoms >= N (32 by default), as DeePMD-kit
            target = int(batch.split(":")[1]) if ":" in batch else 32
            return [max(1, math.ceil(target / s.natoms)) for s in self.train_systems]
        return [int(batch)] * n

    # -- statistics ----------------------------------------------------------------------------
    def init_statistics(self):
        davg, dstd, bias = compute_statistics(self.model, self.train_systems, self.stat_nbatch)
        self.model.davg = sp.tensor(davg)
        self.model.dstd = sp.tensor(dstd)
        self.model.bias_atom_e = sp.tensor(np.asarray(bias, dtype=np.float64))
        if self.ranks > 1:  # the same data gives the same numbers; rank 0's, to be sure of every bit
            from .. import distributed as dist
            for t in (self.model.davg, self.model.dstd, self.model.bias_atom_e):
                dist.broadcast(t, 0)

    # -- schedule ------------------------------------------------------------------------------
    def prefactors(self, lr):
        ratio = lr / self.start_lr
        return {k: limit + (start - limit) * ratio for k, (start, limit) in self.pref.items()}

    def _pick_batch(self):
        sizes = np.array([s.nframes for s in self.train_systems], dtype=float)
        s = int(self.rng.choice(len(self.train_systems), p=sizes / sizes.sum()))
        frames = self.rng.integers(0, self.train_systems[s].nframes, size=self.batch_size[s])
        return s, [int(f) for f in frames]

    def _errors(self, terms_list, pref, natoms):
        keys = terms_list[0].keys()
        mean = {k: float(np.mean([t[k] for t in terms_list])) for k in keys}
        total = 0.0
        total += pref["e"] * mean.get("e", 0.0) / natoms
        total += pref["f"] * mean.get("f", 0.0)
        total += pref["v"] * mean.get("v", 0.0) / natoms
        out = {"rmse": math.sqrt(total)}
        if "e" in mean:
            out["e"] = math.sqrt(mean["e"]) / natoms
        if "f" in mean:
            out["f"] = math.sqrt(mean["f"])
        if "v" in mean:
            out["v"] = math.sqrt(mean["v"]) / natoms
        return out

    def validate(self, pref):
        if not self.valid_systems:
            return None
        terms, natoms = [], None
        flat = [(i, f) for i, s in enumerate(self.valid_systems) for f in range(s.nframes)]
        with sp.no_grad():
            for _ in range(self.valid_batches):
                i, f = flat[self.valid_cursor % len(flat)]
                self.valid_cursor += 1
                system = self.valid_systems[i]
                ext = self.cache.get(("v", i), system, f)
                with sp.enable_grad():
                    _, t = _frame_loss(self.model, ext, system, f, pref, False)
                terms.append(t)
                natoms = system.natoms
        return self._errors(terms, pref, natoms)

    # -- checkpoints ---------------------------------------------------------------------------
    def save_checkpoint(self, path, rank_rngs=None):
        state = {
            "format": "sampan-deepmd-checkpoint",
            "step": self.step,
            "params": [p.detach().clone() for p in self.params],
            "davg": self.model.davg, "dstd": self.model.dstd,
            "bias_atom_e": self.model.bias_atom_e,
            "optimizer": self.optimizer.state_dict(),
            "scheduler": {k: v for k, v in self.scheduler.state_dict().items() if isinstance(v, (int, float, str))},
            "rng": json.dumps(self.rng.bit_generator.state),
            "valid_cursor": self.valid_cursor,
            "model_config": json.dumps(self.model.config),
        }
        if rank_rngs is not None:  # data-parallel: every rank's batch stream
            state["ranks"] = len(rank_rngs)
            state["rank_rngs"] = list(rank_rngs)
        sp.save(state, path)

    def load_checkpoint(self, path):
        state = sp.load(path)
        if not isinstance(state, dict) or state.get("format") != "sampan-deepmd-checkpoint":
            raise ValueError(f"{path}: not a sampan deepmd training checkpoint")
        if json.loads(state["model_config"]) != self.model.config:
            raise ValueError(f"{path}: the checkpoint's model config differs from input.json's")
        with sp.no_grad():
            for p, saved in zip(self.params, state["params"]):
                sp.copy_(p, saved)
        self.model.davg, self.model.dstd = state["davg"], state["dstd"]
        self.model.bias_atom_e = state["bias_atom_e"]
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        saved_ranks = int(state.get("ranks", 1))
        if saved_ranks != self.ranks:
            raise ValueError(f"{path}: the checkpoint was written by a run on {saved_ranks} rank(s) but this run "
                             f"has {self.ranks}; restart it with as many")
        self.rng.bit_generator.state = json.loads(state["rank_rngs"][self.rank] if self.ranks > 1 else state["rng"])
        self.valid_cursor = int(state["valid_cursor"])
        self.step = int(state["step"])

    def _checkpoint(self, keep=5):
        """The latest checkpoint (save_ckpt) plus numbered ones (save_ckpt-STEP), the last `keep` kept."""
        rank_rngs = None
        if self.ranks > 1:
            from .. import distributed as dist
            rank_rngs = dist.all_gather_str(json.dumps(self.rng.bit_generator.state))
            if self.rank != 0:
                return
        base = os.path.join(self.output_dir, self.save_ckpt)
        numbered = base[:-3] + f"-{self.step}.h5"
        self.save_checkpoint(numbered, rank_rngs)
        self.save_checkpoint(base, rank_rngs)
        self._saved.append(numbered)
        while len(self._saved) > keep:
            old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)

    # -- the loop ------------------------------------------------------------------------------
    def train(self, restart=None, init_stats=True):
        lcurve_path = os.path.join(self.output_dir, self.disp_file)
        vir_cols = self.pref["v"][0] > 0 or self.pref["v"][1] > 0
        if restart:
            self.load_checkpoint(restart)
        elif init_stats:
            self.init_statistics()
        leader = self.rank == 0  # the one rank that validates, logs and writes
        fresh = not restart or not os.path.exists(lcurve_path)
        if leader and not fresh:
            _drop_lcurve_rows_from(lcurve_path, self.step)
        lcurve = open(lcurve_path, "w" if fresh else "a") if leader else None
        if leader and fresh:
            header = "#  step      rmse_val    rmse_trn    rmse_e_val  rmse_e_trn    rmse_f_val  rmse_f_trn"
            if vir_cols:
                header += "    rmse_v_val  rmse_v_trn"
            lcurve.write(header + "         lr\n")
        self.scheduler.step(self.step)
        started = time.time()
        try:
            while True:
                lr = self.scheduler.get_last_lr()[0]
                pref = self.prefactors(lr)
                s, frames = self._pick_batch()
                system = self.train_systems[s]
                total, terms = None, []
                for f in frames:
                    loss, t = _frame_loss(self.model, self.cache.get(s, system, f), system, f, pref, True)
                    total = loss if total is None else total + loss
                    terms.append(t)
                if leader and (self.step % self.disp_freq == 0 or self.step == self.numb_steps):
                    trn = self._errors(terms, pref, system.natoms)
                    val = self.validate(pref) or trn
                    cols = [val["rmse"], trn["rmse"], val.get("e", 0.0), trn.get("e", 0.0), val.get("f", 0.0), trn.get("f", 0.0)]
                    if vir_cols:
                        cols += [val.get("v", 0.0), trn.get("v", 0.0)]
                    lcurve.write(f"{self.step:7d}" + "".join(f"  {c:10.2e}" for c in cols) + f"  {lr:10.1e}\n")
                    lcurve.flush()
                    self.log(f"step {self.step}: rmse_f_val {val.get('f', 0.0):.4f} rmse_e_val {val.get('e', 0.0):.2e} "
                             f"lr {lr:.2e} ({time.time() - started:.1f} s)")
                if self.step >= self.numb_steps:
                    break
                self.optimizer.zero_grad()
                (total * (1.0 / len(frames))).backward()
                if self.ranks > 1:
                    from .. import distributed as dist
                    dist.average_gradients(self.params)
                self.optimizer.step()
                self.step += 1
                self.scheduler.step(self.step)
                if self.step % self.save_freq == 0 or self.step == self.numb_steps:
                    self._checkpoint()
                if self.stop_at is not None and self.step >= self.stop_at:
                    break
        finally:
            if lcurve is not None:
                lcurve.close()
        return self.model


def _drop_lcurve_rows_from(path, step):
    """Restarting in the folder of an interrupted run: rows logged after the checkpoint (step >=
    `step`) are logged again by the resumed run, so drop them first (temp file, then rename)."""
    with open(path) as f:
        lines = f.readlines()
    kept = [ln for ln in lines if ln.startswith("#") or not ln.split() or int(ln.split()[0]) < step]
    if len(kept) == len(lines):
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(kept)
    os.replace(tmp, path)


def train(input_path, restart=None, output_dir=None, log=print, stop_at=None):
    with open(input_path) as f:
        try:
            config = json.load(f)
        except json.JSONDecodeError as error:
            raise ValueError(f"{input_path}: not valid JSON: {error.msg} at line {error.lineno}, "
                             f"column {error.colno}") from None
    base = os.path.dirname(os.path.abspath(input_path))
    trainer = Trainer(config, base_dir=base, output_dir=output_dir or os.getcwd(), log=log)
    trainer.stop_at = stop_at
    trainer.train(restart=restart)
    return trainer
