"""The server's record signing keys (docs/records.md "Keys", docs/operations.md "Record signing keys").

A keyring is a JSON file (``settings.GOAT_SIGNING_KEYRING``): ``{"keys": [...]}``, each key its
``id``, ``algorithm``, ``public_key`` (base64 of 32 raw bytes), ``valid_from`` and ``valid_until``,
and the current key (``valid_until`` null) also its ``private_key`` (base64 of the 32-byte Ed25519
seed). It is created once, with one fresh key, the way the secret key is (an atomic hard link, mode
0600, so processes that start together share one); :func:`rotate` retires the current key (its
``valid_until`` set, its private half dropped) and adds a new one, replacing the file atomically.
Retired keys stay published, so the records they signed still verify. Each process reads the file
again when it changes (its size, mtime or inode), so a rotation reaches every worker on its next record.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from goat.engine import records


@dataclass(frozen=True)
class Keyring:
    keys: tuple[dict[str, Any], ...]

    @property
    def current(self) -> dict[str, Any]:
        return next(k for k in self.keys if k["valid_until"] is None)

    def published(self) -> list[dict[str, Any]]:
        """The ``/api/keys/`` answer: every key's public half, oldest first."""
        fields = ("id", "public_key", "algorithm", "valid_from", "valid_until")
        return [{f: k[f] for f in fields} for k in sorted(self.keys, key=lambda k: k["valid_from"])]


def _new_key(now: datetime) -> dict[str, Any]:
    private = secrets.token_bytes(32)
    public = records.public_bytes(private)
    return {"id": records.key_id(public), "algorithm": records.ALGORITHM,
            "public_key": base64.b64encode(public).decode("ascii"),
            "private_key": base64.b64encode(private).decode("ascii"),
            "valid_from": records.format_time(now), "valid_until": None}


def _path() -> Path:
    return Path(settings.GOAT_SIGNING_KEYRING)


def _write_new(path: Path, content: dict[str, Any], *, replace: bool) -> None:
    """Write ``content`` to ``path`` (mode 0600): atomically replacing it, or only if it is absent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(content, handle, indent=2)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    if replace:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another process created it first: theirs is the keyring
    finally:
        tmp.unlink()


def _read(path: Path) -> Keyring:
    data = json.loads(path.read_text(encoding="utf-8"))
    keys = tuple(data["keys"])
    current = [k for k in keys if k["valid_until"] is None]
    if len(current) != 1 or not current[0].get("private_key"):
        raise ValueError(f"the keyring {path} must have exactly one current key (valid_until null) "
                         "with its private key")
    return Keyring(keys)


_lock = threading.Lock()
_cached: tuple[tuple[str, int, int, int], Keyring] | None = None


def keyring() -> Keyring:
    """The keyring, created with a first key when its file does not exist yet."""
    global _cached
    path = _path()
    if not path.exists():
        _write_new(path, {"keys": [_new_key(datetime.now(UTC))]}, replace=False)
    stat = path.stat()
    stamp = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _lock:
        if _cached is None or _cached[0] != stamp:
            _cached = (stamp, _read(path))
        return _cached[1]


def rotate(*, now: datetime | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Retire the current key at ``now`` and make a new one current from then: (retired, new)."""
    now = now or datetime.now(UTC)
    old = keyring()
    current = old.current
    retired = {k: v for k, v in current.items() if k != "private_key"} | {"valid_until": records.format_time(now)}
    new = _new_key(now)
    keys = [k for k in old.keys if k["id"] != current["id"]] + [retired, new]
    _write_new(_path(), {"keys": keys}, replace=True)
    return retired, new


def sign(body: str, *, now: datetime | None = None) -> str:
    """``body`` (a record's text) signed with the current key (docs/records.md "Signature block")."""
    key = keyring().current
    return records.sign_record(body, private_key=base64.b64decode(key["private_key"]),
                               signed_at=now or datetime.now(UTC))
