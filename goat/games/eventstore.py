"""The event store: append and load a game's stream, the hash chain, and the engine snapshot.

One stream per game, its head the game row (``version``, ``last_hash``). ``(game, seq)`` is unique and
gap-free: an append moves the head only from the version its caller read (else ``StreamConflict``),
and the services take the game row lock before they decide, so concurrent writers serialise and
exactly one wins per version.
Each event's ``hash`` is ``sha256(prev_hash + canonical JSON of the event)``, chaining the stream.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Field
from django.db.models.base import ModelState
from django.utils import timezone as dj_timezone

from goat import engine
from goat.engine.rules import evolve_all
from goat.engine.state import GameState
from goat.games.models import Game, GameEvent
from goat.web.errors import ServiceError
from goat.web.rows import fixed_cursor

#: bump when GameState's layout changes: older snapshots are then rebuilt from events
SNAPSHOT_FORMAT = b"goat-state-2:"
GENESIS_HASH = "0" * 64


def format_at(at: datetime) -> str:
    """Timestamps in events: UTC, microseconds, ``Z``."""
    return at.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def event_dict(event: GameEvent) -> dict[str, Any]:
    """The API/verifier shape of a stored event (unredacted)."""
    return {"seq": event.seq, "type": event.type, "at": format_at(event.at), "seat": event.seat,
            "data": event.data}


def canonical_json(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(prev_hash: str, event: dict[str, Any]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(event)).hexdigest()


class StreamConflict(ServiceError):
    """The stream head moved since the caller read it: another writer appended first (the API's 412
    ``version_mismatch``; under the services' row lock it cannot happen)."""

    def __init__(self, game_id: int, expected_version: int):
        super().__init__("version_mismatch", f"The game is no longer at version {expected_version}; reload it and "
                                             "try again.", status=412)
        self.game_id, self.expected_version = game_id, expected_version


def events_append(*, game: Game, events: Sequence[dict[str, Any]], actor=None, at: datetime | None = None,
                  update_fields: Sequence[str] = ()) -> list[GameEvent]:
    """Append engine events to ``game``'s stream and move the stream head, atomically.

    The head is the game row: ``version`` and ``last_hash`` (and ``update_fields``, the read-model
    columns a command changed, taken from ``game``) are written only if the row is still at the
    version ``game`` was read at; otherwise nothing is written and :class:`StreamConflict` is
    raised. On PostgreSQL that is ONE statement (``UPDATE`` of the head ``WHERE version = expected``,
    which takes the row lock, and the ``INSERT`` of the batch, in one CTE): one round trip whether or
    not the caller already holds the row lock (``goat.services`` does, to decide on current state).
    ``(game, seq)`` being unique is the last line of defence. Sets ``game.version``/``game.last_hash``.
    """
    at = at or dj_timezone.now()
    at_text = format_at(at)
    actor_id = actor.pk if actor is not None else None
    rows = []
    read_hash = game.last_hash
    prev = read_hash or GENESIS_HASH
    expected = seq = game.version
    for event in events:
        seq += 1
        kind, seat, data = event["type"], event.get("seat"), event["data"]
        digest = chain_hash(prev, {"seq": seq, "type": kind, "at": at_text, "seat": seat, "data": data})
        rows.append(dict(game_id=game.pk, seq=seq, type=kind, seat=seat, data=data, actor_id=actor_id, at=at,
                         prev_hash=prev, hash=digest))
        prev = digest
    game.version, game.last_hash = seq, prev
    fields = ["version", "last_hash", *(f for f in update_fields if f not in ("version", "last_hash"))]
    try:
        if connection.vendor == "postgresql":
            return _append_pg(rows, game, actor, expected, fields)
        return _append_orm(rows, game, actor, expected, fields)
    except BaseException:
        game.version, game.last_hash = expected, read_hash  # nothing was written
        raise


def _append_orm(rows: list[dict[str, Any]], game: Game, actor, expected: int, fields: list[str]
                ) -> list[GameEvent]:
    with transaction.atomic():
        values = {f: Game._meta.get_field(f).pre_save(game, add=False) for f in fields}
        if not Game.objects.filter(pk=game.pk, version=expected).update(**values):
            raise StreamConflict(game.pk, expected)
        return GameEvent.objects.bulk_create([
            GameEvent(game=game, actor=actor, **{k: v for k, v in row.items() if k not in ("game_id", "actor_id")})
            for row in rows])


# On PostgreSQL the store talks SQL directly: the append is one statement (the head's UPDATE and the
# batch's INSERT from one JSON array, in one CTE, a constant text whatever the batch size), a
# stream's load one SELECT, each row made into a GameEvent without going through Model.__init__ and
# the ORM's per-row converters (the costs bench/eventstore_vs_peer.py's profiles found;
# docs/performance.md). Same fields, order and semantics as the ORM path, which SQLite keeps.
_TABLE = GameEvent._meta.db_table
_INSERT_PG = (
    f"INSERT INTO {_TABLE} (game_id, seq, type, seat, data, actor_id, at, prev_hash, hash) "
    "SELECT %s, r.seq, r.type, r.seat, r.data, %s, %s, r.prev_hash, r.hash FROM json_to_recordset(%s::json) "
    "AS r(seq integer, type varchar, seat smallint, data jsonb, prev_hash varchar, hash varchar) "
    "WHERE EXISTS (SELECT FROM head) ORDER BY r.seq RETURNING position"
)
_BATCH_KEYS = ("seq", "type", "seat", "data", "prev_hash", "hash")
#: a stream's columns but ``game_id``, which the caller gave; ``data`` as its JSON text (see events_load)
_SELECT_PG = (f"SELECT position, seq, type, seat, data::text, actor_id, at, prev_hash, hash FROM {_TABLE} "
              "WHERE game_id = %s AND seq > %s")


@functools.lru_cache(maxsize=32)
def _head_update_text(fields: tuple[str, ...]) -> tuple[str, tuple[Field, ...]]:
    """The ``UPDATE`` text of the head's ``fields`` (one per command's field list) and those fields."""
    model_fields = tuple(Game._meta.get_field(name) for name in fields)
    sets = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in model_fields)
    return f"UPDATE {Game._meta.db_table} SET {sets} WHERE id = %s AND version = %s RETURNING id", model_fields


def _head_update_pg(game: Game, expected: int, fields: list[str]) -> tuple[str, list[Any]]:
    """``UPDATE`` of the stream head to ``game``'s values of ``fields`` if still at ``expected``."""
    sql, model_fields = _head_update_text(tuple(fields))
    params = [field.get_db_prep_save(field.pre_save(game, add=False), connection) for field in model_fields]
    return sql, [*params, game.pk, expected]


class _LoadedState(ModelState):
    """The ``_state`` of an instance loaded from the database (what ``Model.from_db`` sets)."""

    adding = False
    db = DEFAULT_DB_ALIAS


def _loaded(fields: dict[str, Any]) -> GameEvent:
    """A GameEvent as the ORM would load it (``_state.adding`` False), built without ``__init__``."""
    event = GameEvent.__new__(GameEvent)
    fields["_state"] = _LoadedState()
    event.__dict__ = fields
    return event


def _append_pg(rows: list[dict[str, Any]], game: Game, actor, expected: int, fields: list[str]
               ) -> list[GameEvent]:
    head_sql, head_params = _head_update_pg(game, expected, fields)
    # server-side binding (Django's client-side binding quotes every parameter into the SQL text in
    # Python) and a constant text, prepared once per connection (goat.rows.fixed_cursor)
    with fixed_cursor() as cursor:
        if not rows:
            cursor.execute(head_sql, head_params, prepare=True)
            if cursor.fetchone() is None:
                raise StreamConflict(game.pk, expected)
            return []
        # the batch as one JSON parameter (psycopg dumped nine arrays element by element in Python)
        batch = json.dumps([{name: row[name] for name in _BATCH_KEYS} for row in rows], ensure_ascii=False,
                           separators=(",", ":"))
        first = rows[0]
        cursor.execute(f"WITH head AS ({head_sql}) {_INSERT_PG}",
                       [*head_params, first["game_id"], first["actor_id"], first["at"], batch], prepare=True)
        positions = sorted(position for (position,) in cursor.fetchall())
    if not positions:
        raise StreamConflict(game.pk, expected)
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
    game_id = int(game_id)
    sql, params = _SELECT_PG, [game_id, after]
    if upto is not None:
        sql += " AND seq <= %s"
        params.append(upto)
    # Why this path (bench/eventstore_vs_peer.py, full-stream load: ours/peer 0.76-0.80 before, 1.08-1.15
    # after, docs/performance.md): rows come in binary over a server-side-binding psycopg cursor, as in the
    # append (numbers and ``at`` decoded by psycopg's C binary loaders: the same UTC-aware datetimes
    # as Django's text loader, without parsing text; prepared once per connection), and
    # the stream's ``data`` documents are decoded by ONE json.loads of their texts joined into an
    # array (a json.loads call per row was ~1.1 us of the ~4 us a row cost). Not in Django's SQL log,
    # like the append; a broken transaction still raises as through Django's cursor.
    with fixed_cursor() as cursor:
        cursor.execute(sql + " ORDER BY seq", params, prepare=True, binary=True)
        rows = cursor.fetchall()
    datas = json.loads("[" + ",".join([row[4] for row in rows]) + "]")
    new, State = GameEvent.__new__, _LoadedState
    events = []
    append = events.append
    for (position, seq, kind, seat, _text, actor_id, at, prev_hash, digest), data in zip(rows, datas):
        event = new(GameEvent)  # as _loaded(), inline: a call per row costs ~17% of a load
        event.__dict__ = {"_state": State(), "position": position, "game_id": game_id, "seq": seq, "type": kind,
                          "seat": seat, "data": data, "actor_id": actor_id, "at": at, "prev_hash": prev_hash,
                          "hash": digest}
        append(event)
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
