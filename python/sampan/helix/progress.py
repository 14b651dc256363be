"""The progress bar of helix's training loops (tqdm where installed): one bar over the epochs."""
from ..callbacks import Callback


def progress_bar(iterable, enabled, description):
    """`iterable` wrapped in a tqdm bar when enabled and tqdm is installed, else as it is."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=description, leave=False)


class EpochProgress(Callback):
    """An sp.Model callback: a tqdm bar over the epochs that fit runs (not over the steps, as
    sp.callbacks.ProgressBar), left off the screen when done; ``postfix(logs)`` -> dict of the
    texts shown after each epoch. Does nothing when not enabled or without tqdm."""

    def __init__(self, enabled, description, postfix=None):
        super().__init__()
        self.enabled, self.description, self.postfix = enabled, description, postfix
        self._bar = None

    def on_train_begin(self, logs=None):
        epochs = self.params.get("epochs") or 0
        remaining = range(self.model.epoch + 1, epochs + 1)
        bar = progress_bar(remaining, self.enabled, self.description)
        self._bar = bar if bar is not remaining else None

    def on_epoch_end(self, epoch, logs=None):
        if self._bar is None:
            return
        self._bar.update(1)
        if self.postfix is not None:
            self._bar.set_postfix(**self.postfix(logs or {}))

    def on_train_end(self, logs=None):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
