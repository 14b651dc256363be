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

The loop is sp.Model's (sampan.hapi): the network it trains is `EnergyLoss` (the DeepPot and the
loss of a batch of frames, forces by double backward), its batches come from `FrameBatches` (a
system drawn in proportion to its frames, then frames of it, with the prefactors of the step's
learning rate, which the stream sets from sp.Model's step count), and `LcurveWriter` (a callback)
validates and writes lcurve.out rows before a step's update, steps the schedule and writes the
checkpoints. Under mpirun sp.Model trains data-parallel (rank 0's weights everywhere, gradients
averaged before each step).

Checkpoints (HDF5, sampan.save; "format" sampan-deepmd-checkpoint, which `sampan deepmd freeze`
reads) hold sp.Model's checkpoint state (optimizer, step, every rank's data-order RNG in the
loader's state, the lcurve callback's validation cursor) with the parameters as a list
("params"), the statistics, the schedule and the model config, so a restart continues with the
same numbers. Checkpoints written before the port to sp.Model (no "kind") are converted on load.
"""
import copy
import json
import math
import os
import time

import numpy as np

import sampan as sp

from ..callbacks import Callback
from ..hapi.model import Model
from ..nn.module import Module
from .._device import device_argument
from .input_keys import checked_input
from .model import DeepPot, frame_input, model_config
from .neighbor_stat import auto_factor, auto_sel, neighbor_stat
from .systems import read_systems

CHECKPOINT = "model.ckpt.h5"
CHECKPOINT_FORMAT = "sampan-deepmd-checkpoint"
CHECKPOINT_KIND = "sampan.deepmd.TrainingCheckpoint"


def resolve_auto_sel(config, systems, log=print):
    """The input with a "sel": "auto[:FACTOR]" replaced by DeePMD-kit's rule applied to the
    neighbour statistics of the training systems (neighbor_stat.py); other inputs unchanged."""
    desc = config["model"]["descriptor"]
    factor = auto_factor(desc.get("sel"))
    if factor is None:
        return config
    ntypes = len(config["model"]["type_map"])
    stat = neighbor_stat(systems, float(desc["rcut"]), ntypes)
    sel = auto_sel(stat.max_nbor_size, factor)
    log(f"sel {desc['sel']!r}: max neighbours {stat.max_nbor_size} within {desc['rcut']} A "
        f"(min distance {stat.min_nbor_dist:.4f} A) -> sel {sel}")
    config = copy.deepcopy(config)
    config["model"]["descriptor"]["sel"] = sel
    return config


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
        df = out["force"] - sp.tensor(system.force[f], device=out["force"].device)
        l2_f = (df * df).mean()
        loss = l2_f * pref["f"] if loss is None else loss + l2_f * pref["f"]
        terms["f"] = l2_f.item()
    if system.virial is not None and pref["v"] > 0:
        dv = out["virial"] - sp.tensor(system.virial[f].ravel(), device=out["virial"].device)
        l2_v = (dv * dv).mean()
        loss = loss + l2_v * (pref["v"] / natoms)
        terms["v"] = l2_v.item()
    return loss, terms


class EnergyLoss(Module):
    """The network that sp.Model trains: a DeepPot with DeePMD's energy loss. Called on a batch
    (system index, frame indices, prefactors) it returns the loss averaged over the frames (a
    scalar tensor with the tape of the forces' double backward); the raw squared errors of the
    frames are kept in ``last`` (system, terms) for the lcurve. Its parameters are the DeepPot's
    own tensors (not copies), so the optimizer, data parallelism and state_dict act on them."""

    def __init__(self, pot, params, systems, cache):
        super().__init__()
        for name, p in zip(pot.parameter_names(), params):
            self._parameters[name] = p  # the C++ model's tensors themselves: the tape ends on them
        self.pot, self.systems, self.cache = pot, systems, cache
        self.last = None

    def forward(self, batch):
        s, frames, pref = batch
        system = self.systems[s]
        total, terms = None, []
        for f in frames:
            loss, t = _frame_loss(self.pot, self.cache.get(s, system, f), system, f, pref, True)
            total = loss if total is None else total + loss
            terms.append(t)
        self.last = (system, terms)
        return total * (1.0 / len(frames))


def _whole_batch(batch):
    return [batch], []


def _loss_is_output(loss):
    return loss


class FrameBatches:
    """The training batches of sp.Model's fit: ``count`` of them, each (system, frames,
    prefactors). Before drawing one the schedule is set to sp.Model's step (the step the batch
    trains), whose learning rate gives the prefactors. The data-order RNG is this rank's; its
    state (state_dict) holds every rank's stream (a collective under data parallelism)."""

    def __init__(self, trainer, rng):
        self.trainer, self.rng, self.count = trainer, rng, 0

    def draw(self):
        t = self.trainer
        t.scheduler.step(t.fitter.step)
        pref = t.prefactors(t.scheduler.get_last_lr()[0])
        sizes = np.array([s.nframes for s in t.train_systems], dtype=float)
        s = int(self.rng.choice(len(t.train_systems), p=sizes / sizes.sum()))
        frames = self.rng.integers(0, t.train_systems[s].nframes, size=t.batch_size[s])
        return s, [int(f) for f in frames], pref

    def __iter__(self):
        for _ in range(self.count):
            yield self.draw()

    def __len__(self):
        return self.count

    def state_dict(self):
        own = json.dumps(self.rng.bit_generator.state)
        if self.trainer.ranks > 1:
            from .. import distributed as dist
            return {"rngs": dist.all_gather_str(own)}
        return {"rngs": [own]}

    def load_state_dict(self, state):
        rngs = list(state["rngs"])
        self.rng.bit_generator.state = json.loads(rngs[self.trainer.rank if len(rngs) > 1 else 0])


class LcurveWriter(Callback):
    """sp.Model callback of the deepmd loop: on a display step, validation (rank 0, before the
    update) and, once the batch ran, its lcurve row; after every update the schedule follows the
    step and the checkpoints are written every save_freq steps and at numb_steps. Its state is
    the validation cursor."""

    def __init__(self, trainer):
        super().__init__()
        self.trainer = trainer
        self.row = None

    def on_train_batch_begin(self, step, logs=None):
        t = self.trainer
        current = self.model.step
        self.row = None
        if t.leader and current % t.disp_freq == 0:
            lr = t.scheduler.get_last_lr()[0]
            pref = t.prefactors(lr)
            self.row = (current, lr, pref, t.validate(pref))

    def on_train_batch_end(self, step, logs=None):
        t = self.trainer
        if self.row is not None:
            current, lr, pref, val = self.row
            t.write_row(current, lr, pref, val)
            self.row = None
        t.scheduler.step(self.model.step)
        if self.model.step % t.save_freq == 0 or self.model.step == t.numb_steps:
            t._checkpoint()

    def state_dict(self):
        return {"valid_cursor": int(self.trainer.valid_cursor)}

    def load_state_dict(self, state):
        self.trainer.valid_cursor = int(state["valid_cursor"])


class Trainer:
    def __init__(self, config, base_dir=".", output_dir=".", log=print, source="input.json", text=None,
                 device="cpu"):
        config = checked_input(config, source, text)
        self.log = log
        # Where the model trains: its tensors move there before the optimizer takes them; frames are
        # extended (neighbour lists) on the host and copied in by DeepPot.evaluate.
        self.device = device_argument(device, "deepmd Trainer")
        self.output_dir = output_dir
        training = config["training"]
        self.seed = int(training.get("seed", config["model"]["descriptor"].get("seed", 1)) or 1)
        type_map = list(config["model"]["type_map"])
        data_key = "training.training_data" if "training_data" in training else "training"
        tdata = training.get("training_data", training)
        self.train_systems = read_systems(tdata["systems"], type_map, base_dir, f"{data_key}.systems")
        vdata = training.get("validation_data")
        self.valid_systems = (read_systems(vdata["systems"], type_map, base_dir, "training.validation_data.systems")
                              if vdata else [])
        config = resolve_auto_sel(config, self.train_systems, log)
        self.config = config
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
        self.model = DeepPot(cfg, int(config["model"]["descriptor"].get("seed", self.seed) or self.seed))
        if self.device != "cpu":
            self.model.to(self.device)
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
        # The schedule is a function of the step: the batch stream sets it before each batch
        # (not sp.Model's LRScheduler callback), so it is not part of sp.Model's state.
        self.scheduler = sp.optim.lr_scheduler.ExponentialDecay(
            self.optimizer, decay_steps=int(lr.get("decay_steps", 5000)), stop_lr=float(lr.get("stop_lr", 1e-8)),
            stop_steps=self.numb_steps, staircase=True)
        # Under mpirun: data-parallel (sp.Model). Every rank draws its own batches, the gradients
        # are averaged before each step; rank 0 validates, logs, writes lcurve.out and the checkpoints.
        from .. import distributed as dist
        self.rank, self.ranks = (dist.rank(), dist.world_size())
        self.leader = self.rank == 0
        self.rng = np.random.default_rng(self.seed if self.ranks == 1 else [self.seed, self.rank])
        self.cache = _FrameCache(self.model)
        self.network = EnergyLoss(self.model, self.params, self.train_systems, self.cache)
        self.batches = FrameBatches(self, self.rng)
        self.fitter = Model(self.network, split_batch=_whole_batch)
        self.fitter.prepare(self.optimizer, _loss_is_output)  # under mpirun: rank 0's weights everywhere
        self.valid_cursor = 0
        self.stat_nbatch = int(config["model"].get("data_stat_nbatch", 10))
        self.stop_at = None  # stop early (a prefix of the numb_steps schedule), e.g. 10k of 1M
        self._saved = []
        self._lcurve = None
        self._started = time.time()

    @property
    def step(self):
        """Optimizer steps taken (sp.Model's count)."""
        return self.fitter.step

    @step.setter
    def step(self, value):
        self.fitter.step = int(value)

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
        self.model.davg = sp.tensor(davg, device=self.device)
        self.model.dstd = sp.tensor(dstd, device=self.device)
        self.model.bias_atom_e = sp.tensor(np.asarray(bias, dtype=np.float64), device=self.device)
        if self.ranks > 1:  # the same data gives the same numbers; rank 0's, to be sure of every bit
            from .. import distributed as dist
            for t in (self.model.davg, self.model.dstd, self.model.bias_atom_e):
                dist.broadcast(t, 0)

    # -- schedule ------------------------------------------------------------------------------
    def prefactors(self, lr):
        ratio = lr / self.start_lr
        return {k: limit + (start - limit) * ratio for k, (start, limit) in self.pref.items()}

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

    def _vir_cols(self):
        return self.pref["v"][0] > 0 or self.pref["v"][1] > 0

    def write_row(self, step, lr, pref, val):
        """The lcurve.out row (and log line) of `step`: training errors of the batch the network
        ran last (before its update), validation `val` (None: the training errors)."""
        system, terms = self.network.last
        trn = self._errors(terms, pref, system.natoms)
        val = val or trn
        cols = [val["rmse"], trn["rmse"], val.get("e", 0.0), trn.get("e", 0.0), val.get("f", 0.0), trn.get("f", 0.0)]
        if self._vir_cols():
            cols += [val.get("v", 0.0), trn.get("v", 0.0)]
        self._lcurve.write(f"{step:7d}" + "".join(f"  {c:10.2e}" for c in cols) + f"  {lr:10.1e}\n")
        self._lcurve.flush()
        self.log(f"step {step}: rmse_f_val {val.get('f', 0.0):.4f} rmse_e_val {val.get('e', 0.0):.2e} "
                 f"lr {lr:.2e} ({time.time() - self._started:.1f} s)")

    # -- checkpoints ---------------------------------------------------------------------------
    def checkpoint_state(self):
        """The checkpoint's dict: sp.Model's checkpoint state (every rank must call it under
        data parallelism), the parameters as a list, statistics, schedule and model config."""
        state = self.fitter.checkpoint_state()
        network = state.pop("network")
        state.update({
            "format": CHECKPOINT_FORMAT, "kind": CHECKPOINT_KIND,
            "params": [network[name].detach().clone() for name in self.model.parameter_names()],
            "davg": self.model.davg, "dstd": self.model.dstd, "bias_atom_e": self.model.bias_atom_e,
            "scheduler": {k: v for k, v in self.scheduler.state_dict().items() if isinstance(v, (int, float, str))},
            "model_config": json.dumps(self.model.config),
        })
        return state

    def save_checkpoint(self, path, state=None):
        sp.save(self.checkpoint_state() if state is None else state, path)

    def load_checkpoint(self, path):
        state = sp.load(path)
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"{path}: not a sampan deepmd training checkpoint")
        if json.loads(state["model_config"]) != self.model.config:
            raise ValueError(f"{path}: the checkpoint's model config differs from input.json's")
        if state.get("kind") != CHECKPOINT_KIND:
            state = _upgraded(state, self.fitter.checkpoint_state())
        saved_ranks = int(state.get("world_size", 1))
        if saved_ranks != self.ranks:
            raise ValueError(f"{path}: the checkpoint was written by a run on {saved_ranks} rank(s) but this run "
                             f"has {self.ranks}; restart it with as many")
        self.model.davg, self.model.dstd = state["davg"].to(self.device), state["dstd"].to(self.device)
        self.model.bias_atom_e = state["bias_atom_e"].to(self.device)
        self.scheduler.load_state_dict(state["scheduler"])
        payload = dict(state, network=dict(zip(self.model.parameter_names(), state["params"])), epoch=0)
        self.fitter.load_checkpoint_state(payload)  # parameters, optimizer, step; loader and cursor at fit
        self.batches.load_state_dict(state["loader"])
        LcurveWriter(self).load_state_dict(state["callbacks"]["LcurveWriter:0"])

    def _checkpoint(self, keep=5):
        """The latest checkpoint (save_ckpt) plus numbered ones (save_ckpt-STEP), the last `keep` kept."""
        state = self.checkpoint_state()  # every rank: the random streams are gathered
        if not self.leader:
            return
        base = os.path.join(self.output_dir, self.save_ckpt)
        numbered = base[:-3] + f"-{self.step}.h5"
        self.save_checkpoint(numbered, state)
        self.save_checkpoint(base, state)
        self._saved.append(numbered)
        while len(self._saved) > keep:
            old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)

    # -- the loop ------------------------------------------------------------------------------
    def train(self, restart=None, init_stats=True):
        """Trains from step 0 (statistics first, with init_stats), from a checkpoint (restart), or
        on from where an earlier call stopped; up to numb_steps or stop_at (the row of numb_steps
        is written when the run gets there, not when stop_at stops it)."""
        lcurve_path = os.path.join(self.output_dir, self.disp_file)
        if restart:
            self.load_checkpoint(restart)
        elif init_stats:
            self.init_statistics()
        fresh = not restart or not os.path.exists(lcurve_path)
        if self.leader and not fresh:
            _drop_lcurve_rows_from(lcurve_path, self.step)
        self._lcurve = open(lcurve_path, "w" if fresh else "a") if self.leader else None
        if self.leader and fresh:
            header = "#  step      rmse_val    rmse_trn    rmse_e_val  rmse_e_trn    rmse_f_val  rmse_f_trn"
            if self._vir_cols():
                header += "    rmse_v_val  rmse_v_trn"
            self._lcurve.write(header + "         lr\n")
        step = self.step
        if step >= self.numb_steps:
            updates = 0
        elif self.stop_at is None:
            updates = self.numb_steps - step
        else:
            updates = max(min(self.numb_steps, self.stop_at) - step, 1)  # at least one step, as ever
        stopped = updates > 0 and self.stop_at is not None and step + updates >= self.stop_at
        self.batches.count = updates
        self._started = time.time()
        try:
            self.fitter.fit(self.batches, epochs=1, verbose=0, callbacks=[LcurveWriter(self)], train_metrics=False)
            if not stopped:  # the last row: the batch of step numb_steps, before no update
                batch = self.batches.draw()
                if self.leader and (self.step % self.disp_freq == 0 or self.step == self.numb_steps):
                    self.network.train()
                    self.network(batch)
                    lr = self.scheduler.get_last_lr()[0]
                    pref = self.prefactors(lr)
                    self.write_row(self.step, lr, pref, self.validate(pref))
        finally:
            if self._lcurve is not None:
                self._lcurve.close()
                self._lcurve = None
        return self.model


def _upgraded(saved, template):
    """A checkpoint written before the port to sp.Model as the current layout (`template`: this
    process's fresh checkpoint state, for the fields the old one lacks)."""
    ranks = int(saved.get("ranks", 1))
    rngs = list(saved["rank_rngs"]) if ranks > 1 else [saved["rng"]]
    state = dict(template)
    state.pop("network", None)
    state.update({k: saved[k] for k in ("format", "params", "davg", "dstd", "bias_atom_e", "optimizer", "scheduler",
                                        "model_config")})
    state.update(kind=CHECKPOINT_KIND, step=int(saved["step"]), epoch=0, world_size=ranks,
                 rng=[template["rng"][0]] * ranks, loader={"rngs": rngs},
                 callbacks={"LcurveWriter:0": {"valid_cursor": int(saved["valid_cursor"])}})
    return state


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


def train(input_path, restart=None, output_dir=None, log=print, stop_at=None, device="cpu"):
    with open(input_path) as f:
        text = f.read()
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{input_path}: not valid JSON: {error.msg} at line {error.lineno}, "
                         f"column {error.colno}") from None
    base = os.path.dirname(os.path.abspath(input_path))
    trainer = Trainer(config, base_dir=base, output_dir=output_dir or os.getcwd(), log=log, source=str(input_path),
                      text=text, device=device)
    trainer.stop_at = stop_at
    trainer.train(restart=restart)
    return trainer
