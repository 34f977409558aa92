"""The event store: append and load a game's stream, the hash chain, and the engine snapshot.

One stream per game. ``(game, seq)`` is unique and gap-free; appends happen only while the game row
is locked (``goat.services``), so concurrent writers serialise and exactly one wins per version.
Each event's ``hash`` is ``sha256(prev_hash + canonical JSON of the event)``, chaining the stream.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from django.utils import timezone as dj_timezone

from goat import engine
from goat.engine.rules import evolve_all
from goat.engine.state import GameState

from .models import Game, GameEvent

#: bump when GameState's layout changes: older snapshots are then rebuilt from events
SNAPSHOT_FORMAT = b"goat-state-1:"
GENESIS_HASH = "0" * 64


def format_at(at: datetime) -> str:
    """Timestamps in events: UTC, microseconds, ``Z``."""
    return at.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def event_dict(event: GameEvent) -> dict[str, Any]:
    """The API/verifier shape of a stored event (unredacted)."""
    return {"seq": event.seq, "type": event.type, "at": format_at(event.at), "seat": event.seat,
            "data": event.data}


def canonical_json(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(prev_hash: str, event: dict[str, Any]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(event)).hexdigest()


def events_append(*, game: Game, events: Sequence[dict[str, Any]], actor=None, at: datetime | None = None
                  ) -> list[GameEvent]:
    """Append engine events to ``game``'s stream. The caller holds the game row lock.

    Sets ``game.version`` and ``game.last_hash`` (the caller saves the game in the same transaction).
    """
    at = at or dj_timezone.now()
    rows = []
    prev = game.last_hash or GENESIS_HASH
    seq = game.version
    for event in events:
        seq += 1
        stored = {"seq": seq, "type": event["type"], "at": format_at(at), "seat": event.get("seat"),
                  "data": event["data"]}
        digest = chain_hash(prev, stored)
        rows.append(GameEvent(game=game, seq=seq, type=event["type"], seat=event.get("seat"),
                              data=event["data"], actor=actor, at=at, prev_hash=prev, hash=digest))
        prev = digest
    GameEvent.objects.bulk_create(rows)
    game.version = seq
    game.last_hash = prev
    return rows


def events_load(*, game_id: int, after: int = 0, upto: int | None = None) -> list[GameEvent]:
    qs = GameEvent.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")
    if upto is not None:
        qs = qs.filter(seq__lte=upto)
    return list(qs)


def hash_chain_check(events: Iterable[GameEvent]) -> tuple[bool, int | None, str]:
    """Recompute the chain. Returns ``(ok, first bad seq, why)``."""
    prev = GENESIS_HASH
    expected_seq = 0
    for event in events:
        expected_seq += 1
        if event.seq != expected_seq:
            return False, expected_seq, f"seq {expected_seq} is missing"
        if event.prev_hash != prev:
            return False, event.seq, "prev_hash does not continue the chain"
        digest = chain_hash(prev, event_dict(event))
        if digest != event.hash:
            return False, event.seq, "the event's content does not match its hash"
        prev = digest
    return True, None, ""


# --- snapshot ----------------------------------------------------------------------------------


def snapshot_dump(state: GameState) -> bytes:
    return SNAPSHOT_FORMAT + pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def snapshot_load(blob: bytes | memoryview | None) -> GameState | None:
    """The cached state, or ``None`` if absent or of another format (then the caller rebuilds)."""
    if blob is None:
        return None
    blob = bytes(blob)
    if not blob.startswith(SNAPSHOT_FORMAT):
        return None
    try:
        state = pickle.loads(blob[len(SNAPSHOT_FORMAT):])
    except Exception:  # noqa: BLE001 - any unreadable cache is simply rebuilt
        return None
    return state if isinstance(state, GameState) else None


def state_rebuild(game: Game, *, upto: int | None = None) -> GameState:
    """The engine state from the stored events alone (trusted: they passed the rules when appended)."""
    state = evolve_all(event_dict(e) for e in events_load(game_id=game.pk, upto=upto))
    if state is None:
        raise LookupError(f"game {game.pk} has no events")
    if state.server_seed is None and game.server_seed:
        state = engine.with_server_seed(state, game.server_seed)
    return state


def state_load(game: Game) -> GameState:
    """The current engine state: the snapshot when it is current, else rebuilt from events."""
    state = snapshot_load(game.snapshot) if game.snapshot_version == game.version else None
    if state is None or state.version != game.version:
        state = state_rebuild(game)
    return state
