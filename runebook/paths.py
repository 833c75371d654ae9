"""Where runebook keeps its per-user cache (built grammar, compiled packs)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """$RUNEBOOK_CACHE, else $XDG_CACHE_HOME/runebook, else ~/.cache/runebook."""
    explicit = os.environ.get("RUNEBOOK_CACHE")
    if explicit:
        path = Path(explicit)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "runebook"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return Path(os.environ.get("TMPDIR", "/tmp")) / "runebook-cache"
    return path
