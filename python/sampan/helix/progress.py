"""The progress bar of helix's training loops (tqdm where installed)."""


def progress_bar(iterable, enabled, description):
    """`iterable` wrapped in a tqdm bar when enabled and tqdm is installed, else as it is."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=description, leave=False)
