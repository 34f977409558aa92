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

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models.base import ModelState
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
    at_text = format_at(at)
    actor_id = actor.pk if actor is not None else None
    rows = []
    prev = game.last_hash or GENESIS_HASH
    seq = game.version
    for event in events:
        seq += 1
        kind, seat, data = event["type"], event.get("seat"), event["data"]
        digest = chain_hash(prev, {"seq": seq, "type": kind, "at": at_text, "seat": seat, "data": data})
        rows.append(dict(game_id=game.pk, seq=seq, type=kind, seat=seat, data=data, actor_id=actor_id, at=at,
                         prev_hash=prev, hash=digest))
        prev = digest
    if connection.vendor == "postgresql":
        rows = _insert_pg(rows, game, actor) if rows else []
    else:
        rows = GameEvent.objects.bulk_create([
            GameEvent(game=game, actor=actor, **{k: v for k, v in row.items() if k not in ("game_id", "actor_id")})
            for row in rows])
    game.version = seq
    game.last_hash = prev
    return rows


# On PostgreSQL the store talks SQL directly: one INSERT of the whole batch from arrays (a constant
# statement text, whatever the batch size) and one SELECT for a stream, each row made into a
# GameEvent without going through Model.__init__ and the ORM's per-row converters (the cost that
# bench/eventstore_vs_peer.py's profile found; docs/performance.md). Same fields, order and semantics
# as the ORM path, which SQLite keeps.
_COLUMNS = ("position", "game_id", "seq", "type", "seat", "data", "actor_id", "at", "prev_hash", "hash")
_TABLE = GameEvent._meta.db_table
_INSERT_PG = (
    f"INSERT INTO {_TABLE} (game_id, seq, type, seat, data, actor_id, at, prev_hash, hash) "
    "SELECT * FROM unnest(%s::bigint[], %s::integer[], %s::varchar[], %s::smallint[], %s::jsonb[], "
    "%s::bigint[], %s::timestamptz[], %s::varchar[], %s::varchar[]) ORDER BY 2 RETURNING position"
)
_SELECT_PG = f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE} WHERE game_id = %s AND seq > %s"


def _loaded(fields: dict[str, Any]) -> GameEvent:
    """A GameEvent as the ORM would load it (``_state.adding`` False), built without ``__init__``."""
    event = GameEvent.__new__(GameEvent)
    state = ModelState()
    state.adding = False
    state.db = DEFAULT_DB_ALIAS
    event.__dict__.update(fields)
    event._state = state
    return event


def _insert_pg(rows: list[dict[str, Any]], game: Game, actor) -> list[GameEvent]:
    names = ("game_id", "seq", "type", "seat", "data", "actor_id", "at", "prev_hash", "hash")
    columns = [[row[name] for row in rows] for name in names]
    columns[4] = [json.dumps(data, ensure_ascii=False, separators=(",", ":")) for data in columns[4]]
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_PG, columns)
        positions = sorted(position for (position,) in cursor.fetchall())
    stored = []
    for row, position in zip(rows, positions):  # rows are in seq order, and so were the positions drawn
        event = _loaded({"position": position, **row})
        event._state.fields_cache["game"] = game
        if actor is not None:
            event._state.fields_cache["actor"] = actor
        stored.append(event)
    return stored


def events_load(*, game_id: int, after: int = 0, upto: int | None = None) -> list[GameEvent]:
    """The stream of ``game_id`` in ``seq`` order (after ``after``, up to ``upto`` inclusive)."""
    if connection.vendor != "postgresql":
        qs = GameEvent.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")
        if upto is not None:
            qs = qs.filter(seq__lte=upto)
        return list(qs)
    sql, params = _SELECT_PG, [game_id, after]
    if upto is not None:
        sql += " AND seq <= %s"
        params.append(upto)
    loads, loaded = json.loads, _loaded
    events = []
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY seq", params)
        for position, gid, seq, kind, seat, data, actor_id, at, prev_hash, digest in cursor.fetchall():
            events.append(loaded({"position": position, "game_id": gid, "seq": seq, "type": kind, "seat": seat,
                                  "data": loads(data) if data.__class__ is str else data, "actor_id": actor_id,
                                  "at": at, "prev_hash": prev_hash, "hash": digest}))
    return events


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
    """The current engine state: the snapshot when it is current, else rebuilt from events.

    A command's service leaves the state it computed on the game object (``engine_state``): reused here.
    """
    cached = getattr(game, "engine_state", None)
    if cached is not None and cached.version == game.version:
        return cached
    state = snapshot_load(game.snapshot) if game.snapshot_version == game.version else None
    if state is None or state.version != game.version:
        state = state_rebuild(game)
    return state
