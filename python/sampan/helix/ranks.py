"""What helix's training loops (pretrain, finetune) share when they run data-parallel under
mpirun: each rank's share of a helix DataLoader's batches, each rank's own dropout stream, and
rank 0's BatchNorm statistics before every evaluation.

sp.Model (hapi) averages the gradients and keeps the replicas' weights identical; these pieces
make the data each rank sees, and what the ranks evaluate, fit that."""
import sampan
from .. import distributed as dist
from ..callbacks import Callback


class RankShard:
    """This rank's batches of each epoch of a helix DataLoader (its shard method), as a loader for
    sp.Model; its shuffling state is the loader's."""

    def __init__(self, loader, rank, size, max_batches):
        self.loader, self.rank, self.size, self.max_batches = loader, rank, size, max_batches

    def __iter__(self):
        return self.loader.shard(self.rank, self.size, self.max_batches)

    def __len__(self):
        n = len(self.loader) if self.max_batches is None else min(len(self.loader), int(self.max_batches))
        return n // self.size

    def state_dict(self):
        return self.loader.state_dict() if hasattr(self.loader, "state_dict") else None

    def load_state_dict(self, state):
        if hasattr(self.loader, "load_state_dict"):
            self.loader.load_state_dict(state)


def check_shareable(loader, max_batches, size, what):
    """Raises unless `loader` is a helix DataLoader with at least `size` batches per epoch (of the
    first max_batches), so that every rank gets one."""
    if getattr(loader, "shard", None) is None:
        raise TypeError(f"{what} needs a sampan.helix.data.DataLoader (its shard method splits each epoch's "
                        f"batches between the ranks), got {type(loader).__name__}")
    per_epoch = len(loader) if max_batches is None else min(len(loader), int(max_batches))
    if per_epoch < size:
        raise ValueError(f"{what}: {per_epoch} batch(es) of {loader.batch_size} molecules per epoch cannot be "
                         f"shared by {size} ranks; use smaller batches or more molecules")


def own_dropout_stream(rank):
    """Moves this rank's sampan random stream (dropout) to one derived from the shared state and
    the rank, so that ranks do not draw the same dropout masks for their different molecules."""
    seed, offset = sampan.default_generator.get_state()
    sampan.default_generator.set_state(((int(seed) + 0x9E3779B97F4A7C15 * rank) % 2**64, int(offset)))


class SameBuffers(Callback):
    """Before every evaluation, rank 0's buffers (BatchNorm running statistics) on every rank.
    DataParallel copies them before each training forward, but each rank's last training step
    then moves its own copy with its own batch; without this the ranks would evaluate (and pick
    their best epoch) with slightly different statistics."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def on_eval_begin(self, logs=None):
        for buffer in self.network.buffers():
            dist.broadcast(buffer, 0)
