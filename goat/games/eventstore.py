"""The event store: load a game (head, snapshot, the caller's seat), append to its stream, the hash
chain, and the engine snapshot. The one module that speaks SQL by hand.

One stream per game, its head the game row (``version``, ``last_hash``). ``(game, seq)`` is unique and
gap-free. Concurrency is optimistic: a command loads the head without a lock, decides, and appends
naming the version it decided on; the statement that writes the events moves the head only if it is
still at that version (else ``StreamConflict``), so of concurrent writers exactly one wins per version.
Each event's ``hash`` is ``sha256(prev_hash + canonical JSON of the event)``, chaining the stream.
What the store returns are plain values: ``LoadedGame``, ``StoredEvent``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection, router, transaction
from django.db.models import Field
from django.utils import timezone as dj_timezone

from goat import engine
from goat.engine.errors import StateFormatError
from goat.engine.rules import evolve_all
from goat.engine.state import GameState
from goat.games.models import Game, GameEvent, Seat
from goat.web.db.fixed_sql import convert as _convert
from goat.web.db.fixed_sql import converters as _converters
from goat.web.db.fixed_sql import fetch as _fetch
from goat.web.errors import ServiceError

GENESIS_HASH = "0" * 64


def format_at(at: datetime) -> str:
    """Timestamps in events: UTC, microseconds, ``Z``."""
    return at.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def event_dict(event: StoredEvent | GameEvent) -> dict[str, Any]:
    """The API/verifier shape of a stored event (unredacted)."""
    return {"seq": event.seq, "type": event.type, "at": format_at(event.at), "seat": event.seat,
            "data": event.data}


def canonical_json(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(prev_hash: str, event: dict[str, Any]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(event)).hexdigest()


class StreamConflict(ServiceError):
    """The stream head moved since the caller read it: another writer appended first (the API's 412
    ``version_mismatch`` when the client named the version; else the services decide again)."""

    def __init__(self, game_id: int, expected_version: int):
        super().__init__("version_mismatch", f"The game is no longer at version {expected_version}; reload it and "
                                             "try again.", status=412)
        self.game_id, self.expected_version = game_id, expected_version


@dataclass(slots=True)
class StoredEvent:
    """One event of a stream as the store wrote or read it: plain values (``GameEvent``'s columns)."""

    position: int
    game_id: int
    seq: int
    type: str
    seat: int | None
    data: Any
    actor_id: int | None
    at: datetime
    prev_hash: str
    hash: str

    @property
    def pk(self) -> int:
        return self.position


@dataclass(slots=True)
class LoadedGame:
    """A game as a command or a read finds it: the head row (``game``: version, read model), the engine
    ``state`` at ``game.version`` and the ``seat`` of the player it was loaded for (None: not seated,
    or loaded for nobody); ``players``: the player id holding each seat (None: free), when the load
    read them. After a command on a running game, ``update``: what the command's update shows the
    streams (``selectors.stream_content``), which its answer reuses."""

    game: Game
    state: GameState
    seat: int | None = None
    players: tuple[int | None, ...] | None = None
    update: tuple[dict[str, Any], dict[int, dict[str, Any]]] | None = None


# --- SQL ----------------------------------------------------------------------------------------
#
# The store's statements are fixed texts sent through one function, ``_fetch`` (goat.web.db.fixed_sql.fetch):
# on PostgreSQL over goat.web.db.fixed_sql.fixed_cursor (server-side binding, prepared once per connection,
# rows in binary where asked: numbers and ``at`` through psycopg's C loaders), elsewhere over
# Django's cursor. That is the whole PostgreSQL/SQLite difference of a load; the append differs only
# in how the batch is written with its head, one recorder class per database (``PostgresRecorder``: one
# CTE; ``StatementsRecorder``: two statements in a transaction), chosen by ``recorder()``. Rows become
# values with each column's own converters (the backend's, then the field's: what the ORM's compiler
# applies), so no queryset is
# compiled on a command's path (compiling one cost more CPU than the query: docs/performance.md).


_TABLE = GameEvent._meta.db_table
_GAME_TABLE = Game._meta.db_table
#: a stream's columns but ``game_id``, which the caller gave; ``data`` as its JSON text (see events_load)
_SELECT = (f"SELECT position, seq, type, seat, CAST(data AS text), actor_id, at, prev_hash, hash FROM {_TABLE} "
           "WHERE game_id = %s AND seq > %s AND seq <= %s ORDER BY seq")
_INSERT_PG = (
    f"INSERT INTO {_TABLE} (game_id, seq, type, seat, data, actor_id, at, prev_hash, hash) "
    "SELECT %s, r.seq, r.type, r.seat, r.data, %s, %s, r.prev_hash, r.hash FROM json_to_recordset(%s::json) "
    "AS r(seq integer, type varchar, seat smallint, data jsonb, prev_hash varchar, hash varchar) "
    "WHERE EXISTS (SELECT FROM head) ORDER BY r.seq RETURNING position"
)
_BATCH_KEYS = ("seq", "type", "seat", "data", "prev_hash", "hash")
_MAX_SEQ = 2**31 - 1


@functools.lru_cache(maxsize=4)
def _at_converters(vendor: str) -> list:
    return _converters(GameEvent, ["at"])


@functools.lru_cache(maxsize=4)
def _game_query(vendor: str) -> tuple[str, tuple[str, ...], list]:
    """The head of one game, a player's seat at it and who holds each seat, in one SELECT (no lock:
    appends check the version). Each seat's player is an index lookup on the seat table's
    ``(game, seat)`` key."""
    quote = connection.ops.quote_name
    fields = Game._meta.concrete_fields
    names = tuple(f.attname for f in fields)
    columns = ", ".join(f"g.{quote(f.column)}" for f in fields)
    seats = quote(Seat._meta.db_table)
    holders = "".join(f", (SELECT s.player_id FROM {seats} s WHERE s.game_id = g.id AND s.seat = {seat})"
                      for seat in range(engine.MAX_SEATS))
    sql = (f"SELECT {columns}, (SELECT s.seat FROM {seats} s WHERE s.game_id = g.id AND s.player_id = %s)"
           f"{holders} FROM {quote(_GAME_TABLE)} g WHERE g.id = %s")
    return sql, names, _converters(Game, names)


def game_head(*, game_id: int, player_id: int | None = None
              ) -> tuple[Game, int | None, tuple[int | None, ...]] | None:
    """The game row (the stream head and read model), ``player_id``'s seat at it and the player id
    holding each of its seats (None: free); None if no such game."""
    sql, names, converters = _game_query(connection.vendor)
    rows = _fetch(sql, [player_id, game_id])
    if not rows:
        return None
    row = rows[0]
    width = len(names)
    game = Game.from_db(connection.alias, names, _convert(list(row[:width]), converters))
    return game, row[width], tuple(row[width + 1:width + 1 + game.seats])


def game_load(*, game_id: int, player=None) -> LoadedGame | None:
    """The game, its engine state at its version, ``player``'s seat and who holds each seat, from the
    head and snapshot."""
    found = game_head(game_id=game_id, player_id=getattr(player, "pk", None))
    if found is None:
        return None
    game, seat, players = found
    return LoadedGame(game=game, state=state_load(game), seat=seat, players=players)


@functools.lru_cache(maxsize=32)
def _head_update_text(vendor: str, fields: tuple[str, ...]) -> tuple[str, tuple[Field, ...]]:
    """The ``UPDATE`` text of the head's ``fields`` (one per command's field list) and those fields."""
    model_fields = tuple(Game._meta.get_field(name) for name in fields)
    sets = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in model_fields)
    return f"UPDATE {_GAME_TABLE} SET {sets} WHERE id = %s AND version = %s RETURNING id", model_fields


def events_append(*, game: Game, events: Sequence[dict[str, Any]], actor=None, at: datetime | None = None,
                  update_fields: Sequence[str] = (), using: StatementsRecorder | None = None) -> list[StoredEvent]:
    """Append engine events to ``game``'s stream and move the stream head, atomically and optimistically.

    The head is the game row: ``version`` and ``last_hash`` (and ``update_fields``, the read-model
    columns a command changed, taken from ``game``) are written only if the row is still at the
    version ``game`` was read at; otherwise nothing is written and :class:`StreamConflict` is
    raised. No lock is taken before: the ``UPDATE ... WHERE version = expected`` is the check, so of
    concurrent writers from one version exactly one lands. On PostgreSQL the head's UPDATE and the
    batch's INSERT are ONE statement (a CTE), atomic without a transaction of the caller's.
    ``(game, seq)`` being unique is the last line of defence. Sets ``game.version``/``game.last_hash``.
    ``using``: the recorder that writes (the database's own, ``recorder()``, unless a test names one).
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
        rows.append(StoredEvent(0, game.pk, seq, kind, seat, data, actor_id, at, prev, digest))
        prev = digest
    game.version, game.last_hash = seq, prev
    fields = ["version", "last_hash", *(f for f in update_fields if f not in ("version", "last_hash"))]
    head_sql, model_fields = _head_update_text(connection.vendor, tuple(fields))
    head_params = [*(field.get_db_prep_save(field.pre_save(game, add=False), connection) for field in model_fields),
                   game.pk, expected]
    try:
        positions = (using or recorder()).write(head_sql, head_params, rows, game.pk, actor_id, at)
        if positions is None:
            raise StreamConflict(game.pk, expected)
    except BaseException:
        game.version, game.last_hash = expected, read_hash  # nothing was written
        raise
    for row, position in zip(rows, positions, strict=True):  # rows are in seq order, and so were the positions drawn
        row.position = position
    return rows


class StatementsRecorder:
    """Writes a batch with its head move as two statements in one transaction: the head's
    ``UPDATE … WHERE version = expected`` and, if it moved, the rows' INSERT. Any database (the
    embedded SQLite; PostgreSQL's empty batches)."""

    def write(self, head_sql: str, head_params: list, rows: list[StoredEvent], game_id: int, actor_id, at
              ) -> list[int] | None:
        """Move the head and insert ``rows``; the positions drawn, or None if the head had moved."""
        with transaction.atomic():
            if not _fetch(head_sql, head_params):
                return None
            return self._insert(rows, game_id, actor_id, at)

    @staticmethod
    def _insert(rows: list[StoredEvent], game_id: int, actor_id, at) -> list[int]:
        if not rows:
            return []
        one = "(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        sql = (f"INSERT INTO {_TABLE} (game_id, seq, type, seat, data, actor_id, at, prev_hash, hash) VALUES "
               + ", ".join([one] * len(rows)) + " RETURNING position")
        at_db = GameEvent._meta.get_field("at").get_db_prep_save(at, connection)
        params = []
        for row in rows:
            params += [game_id, row.seq, row.type, row.seat, json.dumps(row.data, ensure_ascii=False), actor_id,
                       at_db, row.prev_hash, row.hash]
        return sorted(position for (position,) in _fetch(sql, params))


class PostgresRecorder(StatementsRecorder):
    """PostgreSQL's: the head's UPDATE and the batch's INSERT are ONE statement (a CTE), atomic without
    a transaction of the caller's; the batch travels as one JSON parameter (psycopg dumped nine arrays
    element by element in Python). An empty batch moves the head as any database does."""

    def write(self, head_sql: str, head_params: list, rows: list[StoredEvent], game_id: int, actor_id, at
              ) -> list[int] | None:
        if not rows:
            return super().write(head_sql, head_params, rows, game_id, actor_id, at)
        batch = json.dumps([{name: getattr(row, name) for name in _BATCH_KEYS} for row in rows],
                           ensure_ascii=False, separators=(",", ":"))
        found = _fetch(f"WITH head AS ({head_sql}) {_INSERT_PG}", [*head_params, game_id, actor_id, at, batch])
        return sorted(position for (position,) in found) or None


#: the recorder of each database, by the connection's vendor (one interface: ``write``)
RECORDERS: dict[str, StatementsRecorder] = {"postgresql": PostgresRecorder()}
_STATEMENTS = StatementsRecorder()


def recorder() -> StatementsRecorder:
    """The recorder of the database the default connection speaks to."""
    return RECORDERS.get(connection.vendor, _STATEMENTS)


def events_load(*, game_id: int, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
    """The stream of ``game_id`` in ``seq`` order (after ``after``, up to ``upto`` inclusive)."""
    game_id, after = int(game_id), int(after)
    upto = _MAX_SEQ if upto is None else int(upto)
    # Why this shape (bench/eventstore_vs_peer.py, docs/performance.md): on PostgreSQL the rows come in
    # binary over a prepared server-side-binding cursor (the same UTC-aware datetimes as Django's
    # text loader, without parsing text), and the stream's ``data`` documents are decoded by ONE
    # json.loads of their texts joined into an array (a call per row is a large share of a row's cost).
    # Not in Django's SQL log; a broken transaction still raises as through
    # Django's cursor.
    # a public read's stream comes from where its game row did (the standby: goat.web.db.replica)
    rows = _fetch(_SELECT, [game_id, after, upto], binary=True, using=router.db_for_read(GameEvent))
    datas = json.loads("[" + ",".join([row[4] for row in rows]) + "]")
    converters = _at_converters(connection.vendor)
    events = []
    append = events.append
    for (position, seq, kind, seat, _text, actor_id, at, prev_hash, digest), data in zip(rows, datas, strict=True):
        for _i, convert, col in converters:
            at = convert(at, col, connection)
        append(StoredEvent(position, game_id, seq, kind, seat, data, actor_id, at, prev_hash, digest))
    return events


def hash_chain_check(events: Iterable[StoredEvent | GameEvent]) -> tuple[bool, int | None, str]:
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


def snapshot_dump(state: GameState) -> str:
    """The snapshot of ``state``: the engine's versioned JSON form (``goat.engine.state_to_json``)."""
    return engine.state_to_json(state)


def snapshot_load(text: str | None) -> GameState | None:
    """The cached state, or ``None`` if absent, of another format version or unreadable: never trusted
    then, the caller rebuilds it from the events (and the next command writes it anew)."""
    if not text:
        return None
    try:
        return engine.state_from_json(text)
    except StateFormatError:
        return None


def state_rebuild(game: Game, *, upto: int | None = None) -> GameState:
    """The engine state from the stored events alone (trusted: they passed the rules when appended)."""
    state = evolve_all(event_dict(e) for e in events_load(game_id=game.pk, upto=upto))
    if state is None:
        raise LookupError(f"game {game.pk} has no events")
    if state.server_seed is None and game.server_seed:
        state = engine.with_server_seed(state, game.server_seed)
    return state


def state_load(game: Game) -> GameState:
    """The engine state at ``game.version``: the snapshot when it is at that version, else rebuilt from events."""
    state = snapshot_load(game.snapshot) if game.snapshot_version == game.version else None
    if state is None or state.version != game.version:
        state = state_rebuild(game)
    return state
