"""Where runebook keeps its per-user cache (built grammar, compiled packs), and how
cached files are tied to the code that made them and to the user who wrote them.

Cached files are untrusted when read (docs/security.md): the compiled-pack and fast-path
caches hold marshalled data and code, and marshal can build any code object, so whoever
can write a cache file could make the next `play` run anything. Three rules keep that out:

  * the cache folder is private: 0700 and owned by the user, or it is not used at all
    (no fallback to a shared temporary folder, whose names others can predict);
  * every entry is written with a keyed digest (HMAC-SHA256 over its name and bytes)
    under a per-user secret kept 0600 in that folder, and an entry whose digest does
    not match is treated as missing: recompiled, never loaded;
  * files are created with O_EXCL and 0600, and opened with O_NOFOLLOW.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sys
from functools import lru_cache
from pathlib import Path
from typing import Optional

SECRET_FILE = "secret.key"
SECRET_BYTES = 32
DIGEST_BYTES = 32  # HMAC-SHA256
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)


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


# ------------------------------------------------------------------ the folder
_NOTED: set = set()


def _note_once(text: str) -> None:
    """Say once per process why there is no cache: play still works, only slower."""
    if not _NOTED:
        _NOTED.add(text)
        print(f"runebook: note: {text}; running without a cache", file=sys.stderr)


def _cache_root() -> Path:
    """$RUNEBOOK_CACHE, else $XDG_CACHE_HOME/runebook, else ~/.cache/runebook."""
    explicit = os.environ.get("RUNEBOOK_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "runebook"


def private_folder(path: Path) -> Optional[str]:
    """Make `path` a folder only this user can use; None when it is one, else why not.

    A folder of ours that others may read (made by an older version, or by a umask) is
    tightened to 0700; one that is a symlink or belongs to someone else is refused."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError as err:
        return f"cannot create the cache folder {path} ({err.strerror})"
    import stat
    if not stat.S_ISDIR(info.st_mode):
        return f"the cache folder {path} is not a folder (a symlink?)"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"the cache folder {path} belongs to another user"
    if hasattr(os, "getuid") and info.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError:
            return f"the cache folder {path} is open to other users and cannot be made private"
    return None


def cache_dir(sub: str = "") -> Optional[Path]:
    """The private cache folder (or its subfolder `sub`), or None when there can be none."""
    root = _cache_root()
    path = root / sub if sub else root
    for folder in (root, path) if sub else (root,):
        problem = private_folder(folder)
        if problem is not None:
            _note_once(problem)
            return None
    return path


# ------------------------------------------------------------------ the secret
def _read_private(path: Path) -> Optional[bytes]:
    """A file's bytes if it is a regular file of ours that no one else may read or write."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
    except OSError:
        return None
    try:
        import stat
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def _create_private(path: Path, data: bytes) -> bool:
    """Write a new file only this user can read: O_EXCL (never through someone's symlink)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY, 0o600)
    except OSError:
        return False
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return True


def cache_secret(folder: Path) -> Optional[bytes]:
    """The per-user key that signs cache entries, made on first use (None: unusable)."""
    path = folder / SECRET_FILE
    key = _read_private(path)
    if key is None and not path.exists():
        _create_private(path, secrets.token_bytes(SECRET_BYTES))
        key = _read_private(path)  # whoever won a race to create it, read what is there
    if key is None or len(key) != SECRET_BYTES:
        _note_once(f"the cache key {path} is not a private {SECRET_BYTES}-byte file")
        return None
    return key


# ------------------------------------------------------------------ signed entries
def _mac(key: bytes, name: str, payload: bytes) -> bytes:
    # The entry's name is signed too: a valid entry moved to another name is refused.
    return hmac.new(key, name.encode() + b"\0" + payload, hashlib.sha256).digest()


def _entry_name(name: str) -> bool:
    """An entry is a plain file name inside its folder: a name made from content (a pack's
    name is part of the key) never leads elsewhere, whatever the schema let through."""
    return bool(name) and name[0] != "." and "/" not in name and "\\" not in name and "\0" not in name


def read_signed(sub: str, name: str) -> Optional[bytes]:
    """The payload of cache entry `sub/name` if this user's key signed it, else None."""
    if not _entry_name(name):
        return None
    root = cache_dir()
    folder = cache_dir(sub) if root is not None else None
    key = cache_secret(root) if folder is not None else None
    if key is None:
        return None
    blob = _read_private(folder / name)
    if blob is None or len(blob) < DIGEST_BYTES:
        return None
    digest, payload = blob[:DIGEST_BYTES], blob[DIGEST_BYTES:]
    return payload if hmac.compare_digest(digest, _mac(key, name, payload)) else None


def write_signed(sub: str, name: str, payload: bytes) -> None:
    """Store a cache entry, signed; quietly nothing when there is no private cache."""
    if not _entry_name(name):
        return
    root = cache_dir()
    folder = cache_dir(sub) if root is not None else None
    key = cache_secret(root) if folder is not None else None
    if key is None:
        return
    tmp = folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    if _create_private(tmp, _mac(key, name, payload) + payload):
        try:
            os.replace(tmp, folder / name)
        except OSError:
            tmp.unlink(missing_ok=True)
