"""Pretraining GNN encoders (Hu et al. 2020, "Strategies for Pre-training Graph Neural Networks";
protocol in shared/reference/helix.md section 1.4):

- attribute masking: per molecule int(0.15 n + 1) atoms (at least one) get every atom feature
  replaced by its table's mask row; a Linear(d, n_atom_types) head predicts the masked atoms'
  types from the encoder's node embeddings (cross entropy);
- context prediction: per molecule a random center atom; the substructure is its K-hop
  neighbourhood (K = the encoder's layers) and the context the atoms r1 < distance <= r2 from it
  (r1 = K - 1, r2 = r1 + 3); a separate context GNN of r2 - r1 layers embeds the context, whose
  anchor atoms (in both: r1 < distance <= K) are mean-pooled ("cbow"). The score is the dot product
  of the substructure's center embedding with the context embedding; negatives pair each
  substructure with another molecule's context (the batch cycled by one, neg_samples = 1); the
  loss is BCE(pos, 1) + neg_samples * BCE(neg, 0). Molecules without any context atom are left out;
- supervised multi-task pretraining: graph-level masked BCE over many assays (Hu et al. use
  ChEMBL; any labelled multi-task set works), after a node-level task.

Encoders are saved with their config and provenance in HDF5 (sampan.save) and loaded back into
GNNEncoder or into a GraphModel's encoder before fine-tuning.
"""
import json
import math
import os
import time

import numpy as np

import sampan
from sampan import nn
from sampan.nn import functional as F
from ..callbacks import Callback
from ..hapi.model import Model
from ..metric import Metric
from . import checkpoint as ckpt
from . import ranks
from .finetune import as_loader as finetune_loader
from .finetune import too_small, trainer, train_epoch  # noqa: F401 (train_epoch: sampan.helix.pretrain's before)
from .model_io import (ENCODER_KIND, check_encoder_fits, load_encoder, load_encoder_payload,  # noqa: F401
                       save_encoder)
from .progress import EpochProgress
from .models import GNNEncoder, GraphPool, as_numpy, as_tensor



class _Sub:
    """A batch-shaped container (the fields GraphModel and the encoders read)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _device_of(batch):
    """Where a batch's arrays are ('cpu' for NumPy fields): the tasks pick atoms on the host and
    put what they make there, next to the model (sp.Model moves batches to it)."""
    return str(batch.x.device) if isinstance(batch.x, sampan.Tensor) else "cpu"


# ---- attribute masking ---------------------------------------------------------------------

def mask_atoms(batch, atom_dims, rate=0.15, rng=None):
    """(masked x, masked atom indices, their true atom types) for Hu et al.'s attribute masking:
    int(rate * n + 1) distinct atoms per molecule of n atoms, every feature set to its mask row
    (= the vocabulary size of that column)."""
    rng = rng if rng is not None else np.random.default_rng()
    x = as_numpy(batch.x)
    graph_of = as_numpy(batch.batch)
    order = np.argsort(graph_of, kind="stable")
    counts = np.bincount(graph_of, minlength=batch.num_graphs)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    chosen = []
    for g in range(batch.num_graphs):
        n = int(counts[g])
        if n == 0:
            continue
        k = min(n, int(rate * n + 1))
        chosen.append(order[starts[g] + rng.choice(n, k, replace=False)])
    masked = np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    targets = x[masked, 0].copy()
    x_masked = x.copy()
    x_masked[masked, :] = np.asarray(atom_dims, np.int64)
    device = _device_of(batch)
    return (sampan.tensor(x_masked, device=device), sampan.tensor(masked.astype(np.int64), device=device),
            sampan.tensor(targets.astype(np.int64), device=device))


class AttributeMasking(nn.Module):
    """Encoder + Linear(d, atom types) head; forward(batch) returns (loss, accuracy) on the
    masked atoms."""

    def __init__(self, encoder, rate=0.15, seed=0):
        super().__init__()
        if encoder.jk == "concat":
            raise ValueError("attribute masking predicts from node embeddings of width emb_dim: use jk other than 'concat'")
        self.encoder = encoder
        self.head = nn.Linear(encoder.out_dim, encoder.atom_dims[0])
        self.rate = rate
        self.rng = np.random.default_rng(seed)

    def forward(self, batch):
        x, masked, targets = mask_atoms(batch, self.encoder.atom_dims, self.rate, self.rng)
        h = self.encoder(x, batch.edge_index, batch.edge_attr)
        logits = self.head(sampan.index_select(h, 0, masked))
        loss = F.cross_entropy(logits, targets)
        accuracy = float((as_numpy(logits.detach()).argmax(1) == as_numpy(targets)).mean())
        return loss, accuracy


# ---- context prediction --------------------------------------------------------------------

def hop_distances(num_nodes, edge_index, sources):
    """Breadth-first distances (in bonds) from each atom of `sources` over the whole batch graph:
    returns int array [len(sources), num_nodes], -1 where unreachable (another molecule)."""
    src, dst = edge_index
    order = np.argsort(src, kind="stable")
    neighbors = dst[order]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=num_nodes))])
    out = np.full((len(sources), num_nodes), -1, np.int64)
    for row, s in enumerate(sources):
        dist = out[row]
        dist[s] = 0
        frontier, d = np.array([s]), 0
        while frontier.size:
            d += 1
            nxt = np.concatenate([neighbors[offsets[v]:offsets[v + 1]] for v in frontier])
            nxt = np.unique(nxt[dist[nxt] < 0])
            dist[nxt] = d
            frontier = nxt
    return out


def induced_subgraph(x, edge_index, edge_attr, keep):
    """The subgraph on the atoms where `keep` is True: (x, edge_index, edge_attr, old->new index
    with -1 for dropped atoms); an edge stays when both its ends stay."""
    new_index = np.full(len(keep), -1, np.int64)
    new_index[keep] = np.arange(int(keep.sum()))
    edges = keep[edge_index[0]] & keep[edge_index[1]]
    return x[keep], new_index[edge_index[:, edges]], edge_attr[edges], new_index


def context_pairs(batch, k, r1, r2, rng):
    """Substructure and context graphs of one random center per molecule (see module docstring).
    Returns (substructure batch, center indices in it, context batch, anchor atom indices in the
    context batch and the molecule (0..M-1) of each anchor), over the M molecules that have a
    context; None if none has."""
    x, edge_index, edge_attr = as_numpy(batch.x), as_numpy(batch.edge_index), as_numpy(batch.edge_attr)
    graph_of = as_numpy(batch.batch)
    centers = []
    for g in range(batch.num_graphs):
        atoms = np.flatnonzero(graph_of == g)
        if atoms.size:
            centers.append(int(rng.choice(atoms)))
    dist = hop_distances(len(x), edge_index, centers)
    has_context = ((dist > r1) & (dist <= r2)).any(1)
    if not has_context.any():
        return None
    dist = dist[has_context]
    centers = np.asarray(centers)[has_context]
    molecule = np.full(len(x), -1, np.int64)  # atom -> index among the kept molecules
    for m, row in enumerate(dist):
        molecule[row >= 0] = m
    # Each atom belongs to one molecule, so per atom the distance from its own center:
    own = np.full(len(x), -1, np.int64)
    rows = molecule >= 0
    own[rows] = dist[molecule[rows], np.flatnonzero(rows)]
    substructure = (own >= 0) & (own <= k)
    context = (own > r1) & (own <= r2)
    sx, se, sa, s_index = induced_subgraph(x, edge_index, edge_attr, substructure)
    cx, ce, ca, c_index = induced_subgraph(x, edge_index, edge_attr, context)
    anchors = context & (own <= k)
    device = _device_of(batch)

    def on(a):
        return sampan.tensor(a, device=device)

    sub = _Sub(x=on(sx), edge_index=on(se), edge_attr=on(sa))
    ctx = _Sub(x=on(cx), edge_index=on(ce), edge_attr=on(ca))
    anchor_atoms = np.flatnonzero(anchors)
    return (sub, on(s_index[centers]), ctx, on(c_index[anchor_atoms]), on(molecule[anchor_atoms]), len(centers))


class ContextPrediction(nn.Module):
    """Encoder (on substructures) + a context GNN of r2 - r1 layers; forward(batch) returns
    (loss, accuracy of the sign of the scores on positives and negatives)."""

    def __init__(self, encoder, context_size=3, neg_samples=1, seed=0):
        super().__init__()
        self.encoder = encoder
        self.k = encoder.num_layers
        self.r1 = self.k - 1
        self.r2 = self.r1 + context_size
        c = encoder.config
        featurizer = c["featurizer"] if isinstance(c["featurizer"], str) else (tuple(c["featurizer"][0]), tuple(c["featurizer"][1]))
        self.context_encoder = GNNEncoder(featurizer, self.r2 - self.r1, c["emb_dim"], c["conv"], "last", c["dropout"],
                                          c.get("gat_heads", 2))
        self.neg_samples = neg_samples
        self.rng = np.random.default_rng(seed)

    def forward(self, batch):
        pairs = context_pairs(batch, self.k, self.r1, self.r2, self.rng)
        if pairs is None:
            return None, float("nan")
        sub, centers, ctx, anchors, anchor_molecule, m = pairs
        center_emb = sampan.index_select(self.encoder(sub.x, sub.edge_index, sub.edge_attr), 0, centers)
        context_nodes = self.context_encoder(ctx.x, ctx.edge_index, ctx.edge_attr)
        context_emb = sampan.segment_mean(sampan.index_select(context_nodes, 0, anchors), anchor_molecule, m)
        positive = (center_emb * context_emb).sum([1])
        loss = F.binary_cross_entropy_with_logits(positive, sampan.ones_like(positive))
        correct = float((as_numpy(positive.detach()) > 0).sum())
        for shift in range(1, self.neg_samples + 1):
            # Another molecule's context: the batch cycled by `shift` (Hu et al.'s negative sampling).
            order = sampan.tensor((np.arange(m) + shift) % m, device=str(context_emb.device))
            negative = (center_emb * sampan.index_select(context_emb, 0, order)).sum([1])
            loss = loss + F.binary_cross_entropy_with_logits(negative, sampan.zeros_like(negative))
            correct += float((as_numpy(negative.detach()) < 0).sum())
        return loss, correct / (m * (1 + self.neg_samples))


# ---- drivers -------------------------------------------------------------------------------

def _task_loss(loss, accuracy, batch):
    """sp.Model's loss of a task model: its forward's loss (None: no step on this batch)."""
    return loss


class _TaskStats(Metric):
    """The task model's accuracy per step (mean over the epoch's steps) and the molecules of
    those steps."""

    def reset(self):
        self.accuracies, self.molecules = [], 0

    def compute(self, loss, accuracy, batch):
        return accuracy, batch.num_graphs

    def update(self, accuracy, molecules):
        self.accuracies.append(accuracy)
        self.molecules += int(molecules)

    def accumulate(self):
        return float(np.mean(self.accuracies)) if self.accuracies else float("nan")

    def name(self):
        return "accuracy"


class _PretrainRecord(Callback):
    """pretrain's history (mean loss and accuracy of each epoch's steps; under data parallelism
    the mean of the ranks' means), molecules and seconds, its checkpoint and on_epoch."""

    def __init__(self, stats, size, root, task_model, on_epoch, checkpoint, every, settings):
        super().__init__()
        self.stats, self.size, self.root, self.task_model = stats, size, root, task_model
        self.on_epoch, self.checkpoint, self.every, self.settings = on_epoch, checkpoint, max(int(every), 1), settings
        self.history, self.molecules, self.seconds_before = {"loss": [], "accuracy": []}, 0, 0.0
        self.losses, self.start, self._resumed = [], time.perf_counter(), False

    def seconds(self):
        return self.seconds_before + time.perf_counter() - self.start

    def on_train_begin(self, logs=None):
        if not self._resumed:
            self.history, self.molecules, self.seconds_before = {"loss": [], "accuracy": []}, 0, 0.0
        self._resumed = False
        self.start = time.perf_counter()

    def on_epoch_begin(self, epoch, logs=None):
        self.losses = []

    def on_train_batch_end(self, step, logs=None):
        if logs and "loss" in logs:
            self.losses.append(logs["loss"])

    def on_epoch_end(self, epoch, logs=None):
        from .. import distributed as dist
        mean_loss = float(np.mean(self.losses)) if self.losses else float("nan")
        mean_accuracy, epoch_molecules = self.stats.accumulate(), self.stats.molecules
        if self.size > 1:  # every rank took as many steps: the mean of the ranks' means is the epoch's mean
            totals = dist.all_reduce(sampan.tensor([mean_loss, mean_accuracy, float(epoch_molecules)],
                                                   dtype=sampan.float64), "sum")
            mean_loss, mean_accuracy = float(totals[0].item()) / self.size, float(totals[1].item()) / self.size
            epoch_molecules = int(totals[2].item())
        self.history["loss"].append(mean_loss)
        self.history["accuracy"].append(mean_accuracy)
        self.molecules += epoch_molecules
        epoch += 1
        if self.checkpoint is not None and (epoch % self.every == 0 or epoch == self.params["epochs"]):
            fields = dict(self.settings, ranks=self.size, molecules=self.molecules, seconds=self.seconds())
            if hasattr(self.task_model, "rng"):
                mine = ckpt.numpy_rng_state(self.task_model.rng)
                if self.size > 1:
                    fields["rank_streams"] = dist.all_gather_str(json.dumps({"task_rng": mine}))
                else:
                    fields["task_rng"] = mine
            ckpt.save_training(self.checkpoint, self.model, fields)
        if self.on_epoch is not None and self.root:
            self.on_epoch(epoch, {"loss": self.history["loss"][-1], "accuracy": self.history["accuracy"][-1]})

    def state_dict(self):
        return {"history": self.history, "molecules": self.molecules, "seconds": self.seconds()}

    def load_state_dict(self, state):
        self.history = ckpt.history_lists(state["history"], ("loss", "accuracy"))
        self.molecules, self.seconds_before = int(state["molecules"]), float(state["seconds"])
        self._resumed = True


def _legacy_callbacks(saved):
    """The callbacks' states of a checkpoint written before pretrain ran on sp.Model."""
    return {"_PretrainRecord:0": {"history": saved["history"], "molecules": saved["molecules"],
                                  "seconds": saved["seconds"]}}


def pretrain(task_model, loader, epochs=1, lr=1e-3, progress=False, max_batches=None, on_epoch=None,
             checkpoint=None, checkpoint_every=1, data_parallel=None, device=None):
    """Trains a self-supervised task model (AttributeMasking or ContextPrediction) with Adam on
    sp.Model; returns the history of mean loss and accuracy per epoch and the wall time.

    checkpoint: a file path; every `checkpoint_every` epochs (and after the last) the task
    model, the optimizer, the history and the random streams (sampan's, the task's masking or
    center choice, the loader's shuffling) are written there, and a run that finds the file
    continues from it with the result of an uninterrupted run.

    data_parallel: None (the default) means exactly when this process is one of several MPI ranks
    (sampan.distributed). Then every rank holds the task model (rank 0's initial weights), takes
    every world_size-th batch of the shuffled order its loader (same seed on every rank) draws, and
    averages the gradients over the ranks before each step; each rank masks atoms (or picks
    centers) and draws dropout from its own random stream. The history is the mean over ranks;
    progress and on_epoch run on rank 0 only; rank 0 writes the checkpoint, with every rank's
    random streams, and a resumed run needs the same number of ranks.

    device: where to train ('cpu', 'cuda'; None: where the model is): the task model is moved there
    before the optimizer takes its parameters; each batch follows it (sp.Model), the atoms are
    picked on the host."""
    from .. import distributed as dist
    if device is not None:
        task_model.to(device)
    if data_parallel is None:
        data_parallel = dist.world_size() > 1
    rank, size = (dist.rank(), dist.world_size()) if data_parallel else (0, 1)
    if size > 1:
        ranks.check_shareable(loader, max_batches, size, "data-parallel pretraining")
    stats = _TaskStats()
    trained = Model(task_model, split_batch=lambda batch: ([batch], [batch]))
    optimizer = sampan.optim.Adam(task_model.parameters(), lr=lr)
    # under data parallelism rank 0's initial weights and buffers on every rank, its buffers again
    # before each forward
    trained.prepare(optimizer, _task_loss, metrics=stats, data_parallel=size > 1)
    if size > 1:
        _own_random_streams(task_model, rank)
    settings = dict(epochs=int(epochs), lr=float(lr), task=type(task_model).__name__)
    if checkpoint is not None and os.path.exists(checkpoint):
        saved = ckpt.load_checkpoint(checkpoint, "pretraining")
        ckpt.check_matches(saved, checkpoint, **settings)
        if int(saved.get("ranks", 1)) != size:
            raise ValueError(f"{checkpoint}: the checkpoint was written by a run on {int(saved.get('ranks', 1))} "
                             f"rank(s) but this run has {size}; resume it with as many ranks")
        trained.load_checkpoint_state(ckpt.upgraded(saved, _legacy_callbacks))
        if hasattr(task_model, "rng"):
            state = json.loads(saved["rank_streams"][rank])["task_rng"] if size > 1 else saved["task_rng"]
            ckpt.set_numpy_rng_state(task_model.rng, state)
    record = _PretrainRecord(stats, size, rank == 0, task_model, on_epoch, checkpoint, checkpoint_every, settings)
    bar = EpochProgress(progress and rank == 0, type(task_model).__name__)
    batches = ranks.RankShard(loader, rank, size, max_batches) if size > 1 else finetune_loader(loader)
    trained.fit(batches, epochs=epochs, verbose=0, callbacks=[record, bar],
                max_batches=max_batches if size == 1 else None, skip_batch=too_small)
    seconds = record.seconds()
    return {"history": record.history, "seconds": seconds,
            "molecules_per_second": record.molecules / max(seconds, 1e-9)}


def _own_random_streams(task_model, rank):
    """Gives this rank its own masking (or center) stream and dropout stream, derived from the
    shared ones, so that ranks do not draw the same pattern for their different molecules."""
    if hasattr(task_model, "rng"):
        task_model.rng = np.random.default_rng([rank, *task_model.rng.integers(0, 2**32, size=4).tolist()])
    ranks.own_dropout_stream(rank)


class _SupervisedModel(nn.Module):
    def __init__(self, encoder, num_tasks, pool):
        super().__init__()
        self.encoder = encoder
        self.pool = GraphPool(pool, encoder.out_dim)
        self.head = nn.Linear(encoder.out_dim, num_tasks)

    def forward(self, batch):
        h = self.encoder(batch.x, batch.edge_index, batch.edge_attr)
        return self.head(self.pool(h, as_tensor(batch.batch), batch.num_graphs))


def pretrain_supervised(encoder, num_tasks, loader, epochs=1, lr=1e-3, pool="mean", progress=False, max_batches=None,
                        device=None):
    """Graph-level multi-task pretraining (masked BCE over the present labels) of `encoder` under
    a linear head, on sp.Model; the encoder is trained in place (on `device`, as in pretrain).
    Returns the loss history (the mean over each epoch's steps)."""
    model = _SupervisedModel(encoder, num_tasks, pool)
    if device is not None:
        model.to(device)
    trained = trainer(model, sampan.optim.Adam(model.parameters(), lr=lr), classification=True)
    logs = trained.fit(finetune_loader(loader), epochs=epochs, verbose=0, max_batches=max_batches,
                       skip_batch=too_small, callbacks=[EpochProgress(progress, "supervised")])
    return {"history": {"loss": [0.0 if math.isnan(e["loss"]) else e["loss"] for e in logs]}}
