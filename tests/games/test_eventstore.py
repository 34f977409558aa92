"""The event store: rebuild equals snapshot at every version, append-only, and the hash chain."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services, verification
from goat.games.models import AppendOnlyError, Game, GameEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(django_user_model):
    return [django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben", "cat")]


def play_through(users, *, ruleset="goat-classic", seed=7, moves=None):
    """A game played through the services with random legal moves; returns it and the snapshot after each command."""
    rng = random.Random(seed)
    game = services.game_create(player=users[0], ruleset=ruleset, seats=len(users)).game
    for user in users[1:]:
        services.game_join(game_id=game.pk, player=user)
    snapshots = {}
    count = 0
    while True:
        game = Game.objects.get(pk=game.pk)
        state = eventstore.snapshot_load(game.snapshot)
        assert state is not None and state.version == game.version == game.snapshot_version
        snapshots[state.version] = state
        if state.ended or (moves is not None and count >= moves):
            return game, snapshots
        tile, end = rng.choice(engine.legal_moves(state))
        services.game_play_tile(game_id=game.pk, player=users[state.turn], tile=tile_str(tile), end=end)
        count += 1


def test_rebuilding_from_events_gives_the_state_at_every_version(trio):
    game, snapshots = play_through(trio, ruleset="domino-3rounds")
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    assert game.ended and len(events) == game.version

    # Every version: the checked engine fold over the stored events equals the store's rebuild.
    state = None
    for event in events:
        state = engine.apply(state, event)
        if event["seq"] == 1:
            state = engine.with_server_seed(state, game.server_seed)
        rebuilt = eventstore.state_rebuild(game, upto=event["seq"])
        assert rebuilt == state, event["seq"]
        # ... and where a command left a snapshot, it equals both.
        if event["seq"] in snapshots:
            assert snapshots[event["seq"]] == rebuilt, event["seq"]
    assert set(snapshots) <= {e["seq"] for e in events}
    assert eventstore.state_load(game) == eventstore.state_rebuild(game)


def test_a_stale_or_foreign_snapshot_is_rebuilt(trio):
    game, _ = play_through(trio[:2], moves=3)
    good = eventstore.state_load(game)

    game.snapshot = b"something else"
    assert eventstore.state_load(game) == good
    game.snapshot_version = game.version - 1
    assert eventstore.state_load(game) == good


def test_events_cannot_be_changed_or_deleted_through_the_orm(trio):
    game, _ = play_through(trio[:2], moves=1)
    event = GameEvent.objects.filter(game=game).first()

    event.data = {"tampered": True}
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        GameEvent.objects.filter(game=game).update(type="x")
    with pytest.raises(AppendOnlyError):
        GameEvent.objects.filter(game=game).delete()
    assert GameEvent.objects.get(pk=event.pk).data != {"tampered": True}


@pytest.mark.database  # the trigger exists on PostgreSQL only
def test_the_database_refuses_raw_update_and_delete_on_postgresql(trio):
    from django.db import DatabaseError

    game, _ = play_through(trio[:2], moves=1)
    for sql in ("UPDATE goat_gameevent SET type = 'x' WHERE game_id = %s",
                "DELETE FROM goat_gameevent WHERE game_id = %s"):
        with pytest.raises(DatabaseError, match="append-only"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, [game.pk])
    assert GameEvent.objects.filter(game=game).count() == game.version


def _tamper(game: Game, seq: int, data_json: str) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The test's transaction still holds deferred foreign-key checks of the inserts: run them first.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE goat_gameevent DISABLE TRIGGER goat_gameevent_append_only")
        cursor.execute("UPDATE goat_gameevent SET data = %s WHERE game_id = %s AND seq = %s",
                       [data_json, game.pk, seq])
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE goat_gameevent ENABLE TRIGGER goat_gameevent_append_only")


def test_the_hash_chain_detects_an_altered_event(trio):
    game, _ = play_through(trio[:2], ruleset="domino-3rounds")
    events = eventstore.events_load(game_id=game.pk)
    assert eventstore.hash_chain_check(events) == (True, None, "")
    assert verification.game_verify(game=game).ok

    played = next(e for e in events if e.type == "tile_played")
    other = "6-6" if played.data["tile"] != "6-6" else "0-0"
    _tamper(game, played.seq, f'{{"tile": "{other}", "end": "{played.data["end"]}"}}')

    ok, seq, why = eventstore.hash_chain_check(eventstore.events_load(game_id=game.pk))
    assert not ok and seq == played.seq and "hash" in why
    report = verification.game_verify(game=game)
    assert report.hash_chain is False and report.seq == played.seq


def test_appends_continue_the_chain_and_are_gap_free(trio):
    game, _ = play_through(trio, moves=20)
    events = eventstore.events_load(game_id=game.pk)

    assert [e.seq for e in events] == list(range(1, game.version + 1))
    assert events[0].prev_hash == eventstore.GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in zip(events, events[1:], strict=False))
    assert game.last_hash == events[-1].hash
    positions = [e.position for e in events]
    assert positions == sorted(positions)


def test_an_append_from_a_stale_head_writes_nothing(trio):
    game, _ = play_through(trio, moves=3)
    stale = Game.objects.get(pk=game.pk)
    services.game_play_tile(game_id=game.pk, player=trio[eventstore.state_load(stale).turn],
                            tile=tile_str(engine.legal_moves(eventstore.state_load(stale))[0][0]),
                            end=engine.legal_moves(eventstore.state_load(stale))[0][1])
    before = list(GameEvent.objects.filter(game=game).values_list("seq", "hash"))
    head = Game.objects.get(pk=game.pk)

    with pytest.raises(eventstore.StreamConflict) as raised:
        eventstore.events_append(game=stale, events=[{"type": "resigned", "seat": 0, "data": {}}],
                                 update_fields=["status"])

    assert raised.value.code == "version_mismatch" and raised.value.status == 412
    assert (stale.version, stale.last_hash) == (game.version, game.last_hash)  # the caller's view is untouched
    assert list(GameEvent.objects.filter(game=game).values_list("seq", "hash")) == before
    after = Game.objects.get(pk=game.pk)
    assert (after.version, after.last_hash, after.status) == (head.version, head.last_hash, head.status)


def test_an_append_moves_the_head_and_the_named_columns_in_one_write(trio):
    game, _ = play_through(trio, moves=2)
    game = Game.objects.get(pk=game.pk)
    version = game.version
    game.round = 99  # a read-model column named in update_fields ...
    game.seats = 7   # ... and one that is not

    stored = eventstore.events_append(game=game, events=[{"type": "resigned", "seat": 1, "data": {"x": 1}}],
                                      update_fields=["round"])

    row = Game.objects.get(pk=game.pk)
    assert [e.seq for e in stored] == [version + 1]
    assert (row.version, row.last_hash, row.round, row.seats) == (version + 1, stored[0].hash, 99, 3)


def test_a_loaded_stream_equals_what_the_orm_loads(trio):
    """``events_load`` builds plain values (``StoredEvent``) from one fixed SELECT, and ``events_append``
    returns values it built itself: field for field and type for type what the ORM loads."""
    game, _ = play_through(trio, moves=12)
    fields = [f.attname for f in GameEvent._meta.concrete_fields]

    loaded = eventstore.events_load(game_id=str(game.pk))  # ids from a URL arrive as text
    orm = list(GameEvent.objects.filter(game_id=game.pk).order_by("seq"))

    assert [[getattr(e, f) for f in fields] for e in loaded] == [[getattr(e, f) for f in fields] for e in orm]
    assert all(type(getattr(a, f)) is type(getattr(b, f)) for a, b in zip(loaded, orm, strict=True) for f in fields)
    assert all(e.at.utcoffset().total_seconds() == 0 for e in loaded)
    # the same tzinfo object, not only UTC
    assert all(a.at.tzinfo is b.at.tzinfo for a, b in zip(loaded, orm, strict=True))
    assert all(type(e) is eventstore.StoredEvent and e.pk == e.position for e in loaded)

    def values(events):
        return [[getattr(e, f) for f in fields] for e in events]

    assert values(eventstore.events_load(game_id=game.pk, after=3, upto=5)) == values(orm[3:5])
    assert values(eventstore.events_load(game_id=game.pk, after="3", upto="5")) == values(orm[3:5])  # URL text

    user = trio[eventstore.state_load(game).turn]
    tile, end = engine.legal_moves(eventstore.state_load(game))[0]
    _game, appended = services.game_play_tile(game_id=game.pk, player=user, tile=tile_str(tile), end=end)
    again = {e.seq: e for e in GameEvent.objects.filter(game_id=game.pk, seq__gt=game.version)}
    assert [[getattr(e, f) for f in fields] for e in appended] == \
        [[getattr(again[e.seq], f) for f in fields] for e in appended]


#: ``data`` documents that a decode of the stream's joined JSON texts could get wrong: separators and
#: brackets inside strings, escapes, non-ASCII, numbers jsonb rewrites, nesting, empty containers,
#: and documents that are not objects (a bare JSON null the append cannot store: the column is NOT NULL)
AWKWARD_DATA = [
    {"s": '","]},[{', "q": 'say "hi"\\n', "u": "é—🂡", "esc": "\t\u00e9\u2028"},
    {"n": [0, -1, 2 ** 70, 1.5, 1e20, 0.1, 1.0, -0.0], "b": [True, False, None]},
    {"deep": {"a": [{"b": [[], {}, [[{"c": None}]]]}]}, "": ""},
    {},
    [],
    [1, "two", {"three": 3}],
    "a bare string, with a comma",
    42,
]


def test_every_kind_of_data_document_loads_as_the_orm_loads_it(trio):
    """``events_load`` decodes a stream's ``data`` documents together, not one by one; each event
    must still get exactly its own document, equal to and of the same types as the ORM's."""
    game, _ = play_through(trio, moves=2)
    game = Game.objects.get(pk=game.pk)
    eventstore.events_append(game=game, events=[{"type": "note", "seat": None, "data": d} for d in AWKWARD_DATA])
    fields = [f.attname for f in GameEvent._meta.concrete_fields]

    loaded = eventstore.events_load(game_id=game.pk)
    orm = list(GameEvent.objects.filter(game_id=game.pk).order_by("seq"))

    def typed(value):  # the value with the type of every element, so that 1 == 1.0 == True cannot pass
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v) for v in value]
        return (type(value), value)

    assert [e.data for e in loaded[-len(AWKWARD_DATA):]] == AWKWARD_DATA
    assert [typed(e.data) for e in loaded] == [typed(e.data) for e in orm]
    assert [[getattr(e, f) for f in fields] for e in loaded] == [[getattr(e, f) for f in fields] for e in orm]


def test_an_empty_stream_or_range_loads_as_an_empty_list(trio):
    game, _ = play_through(trio, moves=1)

    assert eventstore.events_load(game_id=game.pk, after=game.version) == []
    assert eventstore.events_load(game_id=game.pk, after=2, upto=2) == []
    assert eventstore.events_load(game_id=game.pk + 10_000) == []


def test_a_load_keeps_the_microseconds_of_at(trio):
    game, _ = play_through(trio, moves=1)
    game = Game.objects.get(pk=game.pk)
    at = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    for when in (at, at.replace(microsecond=0)):
        eventstore.events_append(game=game, events=[{"type": "note", "seat": None, "data": {}}], at=when)

    first, second = eventstore.events_load(game_id=game.pk)[-2:]

    assert (first.at, second.at) == (at, at.replace(microsecond=0))
    assert first.at.tzinfo is second.at.tzinfo is GameEvent.objects.get(pk=first.pk).at.tzinfo


def test_a_load_in_a_transaction_marked_for_rollback_is_refused_as_by_the_orm(trio):
    """On PostgreSQL ``events_load`` does not go through Django's cursor, which refuses queries in an
    atomic block that must roll back; the load must refuse them too, with the same error."""
    game, _ = play_through(trio, moves=1)
    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError):
            list(GameEvent.objects.filter(game_id=game.pk))
        with pytest.raises(TransactionManagementError):
            eventstore.events_load(game_id=game.pk)


def _indexed_columns(table: str) -> dict[str, list[str]]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
    return {name: info["columns"] for name, info in found.items() if info["index"] or info["unique"]}


def test_the_tables_a_move_writes_carry_no_index_another_covers():
    """A move rewrites the game row and inserts events: every index on them costs a write per move
    (migration 0004). The indexes that stay cover what the dropped ones served."""
    game = _indexed_columns(Game._meta.db_table)
    events = _indexed_columns(GameEvent._meta.db_table)
    assert game["game_deadline_idx"] == ["deadline"]  # the ticker's (partial: running clocks only)
    assert ["status"] not in game.values() and ["status", "deadline"] not in game.values()
    assert ["game_id", "seq"] in events.values()  # loads by game, in seq order
    assert ["game_id"] not in events.values()
    # no index on a column of three values, none for LIKE (migrations 0004, 0011); failed audits stay indexed
    assert ["ruleset"] not in game.values()
    assert not [name for name in game if name.endswith("_like")]
    audits = [name for name, columns in game.items() if columns == ["verification_ok"]]
    assert audits == ["game_verification_failed_idx"]


def test_rebuild_games_restores_a_damaged_read_model_from_the_events(trio):
    from django.core.management import call_command

    game, _ = play_through(trio[:2], moves=5)
    good = Game.objects.values("status", "version", "round", "turn", "deadline", "result", "last_hash").get(pk=game.pk)
    Game.objects.filter(pk=game.pk).update(status="finished", turn=None, round=9, snapshot=None, snapshot_version=0)

    call_command("rebuild_games", str(game.pk))

    game = Game.objects.get(pk=game.pk)
    assert Game.objects.values(*good).get(pk=game.pk) == good
    assert eventstore.snapshot_load(game.snapshot) == eventstore.state_rebuild(game)
