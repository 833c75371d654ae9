"""Where runebook keeps its per-user cache (built grammar, compiled packs), and how
cached files are tied to the code that made them."""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def code_digest(*files: Path) -> str:
    """A short digest of the state of source files: a cache keyed on it is never read by
    changed code. Like Python's own check of its .pyc files, it reads each file's size and
    modification time rather than its bytes, so a warm start reads no source code."""
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:12]


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
