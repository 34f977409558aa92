"""The game streams' shared read (goat/games/streams.py ``_update_read``): the streams of one process
that heard the same version of a game wait on ONE database read, and each still gets exactly what
GET shows its own viewer (a seat its own hand, a spectator none, an auditor everything); a stream
that heard a newer version never takes an older read; a stream that goes away leaves the read to
the others."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import re
import threading

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.utils.encoders import JSONEncoder

from goat import engine
from goat.engine.tiles import tile_str, tiles_str
from goat.games import eventstore, selectors, services, streams
from goat.games.models import Game
from goat.games.viewer import Viewer, viewer_seat
from goat.live import fanout, streaming
from goat.web.errors import ServiceError
from played_games import played_game

pytestmark = pytest.mark.django_db(transaction=True)

VOLATILE = ("server_time", "remaining_ms")


def _viewers(django_user_model):
    alice = django_user_model.objects.create_user("alice", password="x" * 12)
    bob = django_user_model.objects.create_user("bob", password="x" * 12)
    carol = django_user_model.objects.create_user("carol", password="x" * 12)  # a spectator
    dave = django_user_model.objects.create_user("dave", password="x" * 12)  # an auditor
    dave.user_permissions.add(Permission.objects.get(codename="audit_game", content_type__app_label="goat"))
    dave = django_user_model.objects.get(pk=dave.pk)
    return alice, bob, carol, dave


def _started(game, *users) -> None:
    """What each user's stream does when it starts (its checks, which load the user's permissions:
    the shared read's redaction for them then runs no query on the event loop)."""
    for user in users:
        streams._game_check(game.pk, user, None)


def _as_get_shows(game, user, after):
    view = selectors.game_view_for(game=game, viewer=Viewer.of(game, user))
    return ({k: v for k, v in view.items() if k not in VOLATILE},
            selectors.events_for(game=game, viewer=Viewer.of(game, user), after=after))


def _counting_reads(monkeypatch, gate: asyncio.Event, held: asyncio.Queue):
    """Count the shared reads; each, once it has read, puts its ``after`` in ``held`` and waits for
    ``gate``: the scenario sets the order of the concurrent steps by these, not by time."""
    reads: list[tuple[int, int | None]] = []
    real = streams._shared_read_async

    async def counted(game_id, after):
        reads.append((game_id, after))
        shared = await real(game_id, after)
        held.put_nowait(after)
        await gate.wait()
        return shared

    monkeypatch.setattr(streams, "_shared_read_async", counted)
    return reads


def _move(game_id: int, users, seed: int) -> int:
    game = Game.objects.get(pk=game_id)
    state = eventstore.state_load(game)
    tile, end = random.Random(seed).choice(engine.legal_moves(state))
    services.game_play_tile(game_id=game_id, player=users[state.turn], tile=tile_str(tile), end=end)
    return Game.objects.get(pk=game_id).version


def test_one_read_serves_every_viewer_and_each_sees_only_what_get_shows_them(django_user_model, monkeypatch):
    alice, bob, carol, dave = _viewers(django_user_model)
    game = played_game([alice, bob], 6, seed=3)
    _started(game, alice, bob, carol, dave)

    async def scenario():
        gate, held = asyncio.Event(), asyncio.Queue()
        reads = _counting_reads(monkeypatch, gate, held)
        waiting = [asyncio.ensure_future(streams._update_read(game.pk, u, 0, game.version))
                   for u in (alice, bob, carol, dave, alice)]
        await held.get()  # the one read has read (every stream joined it before it started)
        gate.set()
        return reads, await asyncio.gather(*waiting)

    reads, got = asyncio.run(scenario())
    assert reads == [(game.pk, 0)]  # five streams, one read
    for user, (view, events, ended) in zip((alice, bob, carol, dave, alice), got, strict=True):
        assert ({k: v for k, v in view.items() if k not in VOLATILE}, events) == _as_get_shows(game, user, 0)
        assert not ended
    hands = [view["hand"] for view, _, _ in got]
    assert hands[0] and hands[1] and not set(hands[0]) & set(hands[1])  # each seat its own hand
    assert hands[2] == [] and hands[3] == []  # neither a spectator nor an auditor holds a seat
    dealt = [[e for e in events if e["type"] == "round_dealt"][0]["data"] for _, events, _ in got]
    seat = {alice.pk: viewer_seat(game, alice), bob.pk: viewer_seat(game, bob)}
    assert isinstance(dealt[0]["hands"][1 - seat[alice.pk]], int)  # alice is not shown bob's deal
    assert isinstance(dealt[1]["hands"][1 - seat[bob.pk]], int)
    assert all(isinstance(h, int) for h in dealt[2]["hands"])  # the spectator sees counts only
    assert all(isinstance(h, list) for h in dealt[3]["hands"])  # the auditor sees every hand


def test_a_stream_that_heard_a_newer_version_never_takes_an_older_read(django_user_model, monkeypatch):
    alice, bob, carol, _ = _viewers(django_user_model)
    game = played_game([alice, bob], 4, seed=5)
    _started(game, carol)
    seen = game.version

    async def scenario():
        gate, held = asyncio.Event(), asyncio.Queue()
        reads = _counting_reads(monkeypatch, gate, held)
        older = asyncio.ensure_future(streams._update_read(game.pk, carol, seen - 1, seen))
        await held.get()  # the older read has read version `seen` and is held at the gate
        newer_version = await asyncio.to_thread(_move, game.pk, [alice, bob], 1)
        newer = asyncio.ensure_future(streams._update_read(game.pk, carol, seen - 1, newer_version))
        await held.get()  # the newer stream's own read has read too
        gate.set()
        return reads, newer_version, await older, await newer

    reads, newer_version, (old_view, _, _), (new_view, new_events, _) = asyncio.run(scenario())
    assert len(reads) == 2  # the newer one started its own read
    assert old_view["version"] == seen
    assert new_view["version"] == newer_version > seen
    assert [e["seq"] for e in new_events] == list(range(seen, newer_version + 1))


def test_a_stream_that_goes_away_leaves_the_read_to_the_others(django_user_model, monkeypatch):
    alice, bob, carol, _ = _viewers(django_user_model)
    game = played_game([alice, bob], 2, seed=8)
    _started(game, alice, carol)

    async def scenario():
        gate, held = asyncio.Event(), asyncio.Queue()
        reads = _counting_reads(monkeypatch, gate, held)
        first = asyncio.ensure_future(streams._update_read(game.pk, alice, 0, game.version))
        second = asyncio.ensure_future(streams._update_read(game.pk, carol, 0, game.version))
        await held.get()  # both streams wait on the one read, which has read
        first.cancel()  # the stream that started the read is closed by its client
        with contextlib.suppress(asyncio.CancelledError):
            await first
        gate.set()
        view, _, _ = await second
        assert first.cancelled()
        return reads, view

    reads, view = asyncio.run(scenario())
    assert len(reads) == 1 and view["version"] == game.version and view["hand"] == []
    assert not streams._flights  # a finished read is not kept


def test_reads_run_off_the_event_loop(django_user_model, monkeypatch):
    alice, bob, _, _ = _viewers(django_user_model)
    game = played_game([alice, bob], 2, seed=9)
    _started(game, alice)
    threads: set[str] = set()
    real = streams._shared_read

    def recorded(game_id, after):
        threads.add(threading.current_thread().name)
        return real(game_id, after)

    monkeypatch.setattr(streams, "_shared_read", recorded)
    monkeypatch.setattr(streams, "_shared_read_async", streams.sync_to_async(recorded, thread_sensitive=False))

    async def scenario():
        await asyncio.gather(*(streams._update_read(game.pk, alice, 0, game.version + i) for i in range(20)))
        return threading.current_thread().name

    loop_thread = asyncio.run(scenario())
    assert threads and loop_thread not in threads


def _check_queries(game_id: int, user) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        streams._game_check(game_id, user, None)
    return [q["sql"] for q in queries.captured_queries]


def test_a_stream_start_loads_permissions_only_for_a_viewer_who_may_need_them(django_user_model):
    """A seated player's updates redact by their seat, so the start reads the game and the seat in one
    query, whether the game has started or is waiting (a player who leaves it later is asked then,
    off the event loop: the next test). A spectator or an auditor (the updates ask whether they may
    see everything) have their permissions loaded at the start."""
    alice, bob, carol, dave = _viewers(django_user_model)
    running = played_game([alice, bob], 6, seed=3)
    waiting = services.game_create(player=alice, ruleset="goat-classic", seats=2).game
    fresh = {u.pk: django_user_model.objects.get(pk=u.pk) for u in (alice, bob, carol, dave)}

    def loads_permissions(sql: list[str]) -> bool:
        return any("auth_permission" in q for q in sql)

    seated = _check_queries(running.pk, fresh[alice.pk])
    assert len(seated) == 1 and not loads_permissions(seated)
    assert loads_permissions(_check_queries(running.pk, fresh[carol.pk]))
    assert loads_permissions(_check_queries(running.pk, fresh[dave.pk]))
    waiting_seated = _check_queries(waiting.pk, fresh[alice.pk])
    assert len(waiting_seated) == 1 and not loads_permissions(waiting_seated)
    assert not _check_queries(running.pk, AnonymousUser())[1:]  # the game alone


def test_a_player_who_leaves_a_waiting_game_is_asked_whether_they_audit_off_the_event_loop(django_user_model):
    """Two players whose streams started while they held a seat at a waiting game (no permission
    loaded) leave it; it starts without them. Their updates are then read as for a viewer without a
    seat: the auditor's unredacted, the other's a spectator's, and the permission query runs in a
    worker thread (Django refuses a query on the event loop)."""
    alice, bob, carol, dave = _viewers(django_user_model)
    erin, frank = (django_user_model.objects.create_user(name, password="x" * 12) for name in ("erin", "frank"))
    joined = services.game_create(player=bob, ruleset="goat-classic", seats=4).game
    for user in (carol, dave):
        services.game_join(game_id=joined.pk, player=user)
    carol, dave = (django_user_model.objects.get(pk=u.pk) for u in (carol, dave))  # nothing cached
    _started(joined, carol, dave)
    after = Game.objects.get(pk=joined.pk).version
    for user in (carol, dave):
        services.game_leave(game_id=joined.pk, player=user)
    for user in (alice, erin, frank):
        services.game_join(game_id=joined.pk, player=user)
    started = Game.objects.get(pk=joined.pk)
    assert started.status == "running"

    async def scenario():
        return [await streams._update_read(joined.pk, user, after, started.version) for user in (carol, dave)]

    (carol_view, carol_events, _), (dave_view, dave_events, _) = asyncio.run(scenario())
    assert carol_view["your_seat"] is None and dave_view["your_seat"] is None
    assert (carol_events, dave_events) == tuple(
        selectors.events_for(game=started, viewer=Viewer.of(started, user), after=after) for user in (carol, dave))
    dealt = [[e for e in events if e["type"] == "round_dealt"][0]["data"] for events in (carol_events, dave_events)]
    assert all(isinstance(h, int) for h in dealt[0]["hands"])  # carol, a spectator now: counts only
    assert all(isinstance(h, list) for h in dealt[1]["hands"])  # dave audits: every hand


def test_an_anonymous_viewer_is_streamed_what_a_spectator_is(django_user_model):
    """The game stream is public (docs/api.md "Anonymous reads"): an anonymous viewer's reads are a
    spectator's, through the same selectors, with no tile of any hand."""
    alice, bob, carol, _dave = _viewers(django_user_model)
    game = played_game([alice, bob], 6, seed=3)
    anonymous = AnonymousUser()
    _started(game, carol, anonymous)

    async def scenario():
        return await asyncio.gather(*(streams._update_read(game.pk, u, 0, game.version) for u in (carol, anonymous)))

    (carol_view, carol_events, _), (view, events, ended) = asyncio.run(scenario())
    assert {k: v for k, v in view.items() if k not in VOLATILE} == {
        k: v for k, v in carol_view.items() if k not in VOLATILE}
    assert events == carol_events and not ended and view["hand"] == [] and view["your_seat"] is None
    assert all(isinstance(h, int) for e in events if e["type"] == "round_dealt" for h in e["data"]["hands"])


def test_an_anonymous_stream_is_counted_by_address_under_the_anonymous_rate(monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "2/min")

    def opened(**headers):
        request = RequestFactory().get("/api/games/1/stream/", REMOTE_ADDR="192.0.2.9", **headers)
        request.auser = _no_session_user
        try:
            return asyncio.run(streaming.stream_viewer(request))
        except ServiceError as refusal:
            return refusal

    first, second, third = opened(), opened(), opened()
    assert first[0].is_anonymous and first[1] == second[1] == "address:192.0.2.9"  # the slots of its address
    assert (third.status, third.code) == (429, "throttled") and int(third.headers["Retry-After"]) >= 1
    # a bad token is refused as on every public read, never taken for anonymous
    bad = opened(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert (bad.status, bad.code) == (401, "authentication_failed")


async def _no_session_user():
    return AnonymousUser()


# --- the update's content, carried by the messages (docs/architecture.md "Live delivery") -------------

_TILE = re.compile(r"(?<![\d.])(\d)-(\d)(?![\d])")


def _tiles(value) -> set[str]:
    return {f"{min(a, b)}-{max(a, b)}" for a, b in _TILE.findall(json.dumps(value))}


def _hidden_from(game_id: int, seat: int | None) -> tuple[set[str], int]:
    """The tiles ``seat`` (None: a spectator) may not see now, and the round being played (a waiting
    game: none, 0)."""
    state = eventstore.state_load(Game.objects.get(pk=game_id))
    if state.table is None:
        return set(), state.round_no
    hidden = {t for s in range(state.seats) if s != seat for t in _tiles(tiles_str(state.hand(s)))}
    return hidden | _tiles(tiles_str(state.table.bazaar)), state.round_no


class _DatabaseReads:
    """Counts the queries run outside the test's own steps (``own()``): the streams' reads, through
    Django's cursor or as the event store's fixed statements (on PostgreSQL psycopg's own cursor)."""

    def __init__(self, monkeypatch):
        self.count = 0
        self.mine = threading.local()
        real, real_fetch = CursorWrapper.execute, eventstore._fetch

        def execute(cursor, *args, **kwargs):
            if not getattr(self.mine, "on", False):
                self.count += 1
            return real(cursor, *args, **kwargs)

        def fetch(*args, **kwargs):
            if getattr(self.mine, "on", False):
                return real_fetch(*args, **kwargs)
            self.count += 1
            return self.own(real_fetch)(*args, **kwargs)  # counted once, whichever cursor runs it

        monkeypatch.setattr(CursorWrapper, "execute", execute)
        monkeypatch.setattr(eventstore, "_fetch", fetch)

    def own(self, step):
        def run(*args, **kwargs):
            self.mine.on = True
            try:
                return step(*args, **kwargs)
            finally:
                self.mine.on = False
        return run


def _watched(game, viewers, reads: _DatabaseReads, commands):
    """Open a game stream for each viewer, run each of ``commands`` (each commits one command), and
    return the database reads the streams made for them and, per command, each stream's update with
    what GET showed its viewer then."""

    def expected(user, after):
        seat_of = viewer_seat(game, user)
        current = Game.objects.get(pk=game.pk)
        view = selectors.game_view(game=current, state=eventstore.state_load(current), seat=seat_of)
        events = selectors.events_for(game=current, viewer=Viewer.at(current, user, seat_of), after=after)
        shown = json.loads(json.dumps({"version": current.version, "events": events, "game": view},
                                      cls=JSONEncoder))
        return shown, _hidden_from(game.pk, seat_of)

    async def written(body):
        while True:
            line = await asyncio.wait_for(body.__anext__(), 60)
            if line.strip():
                return json.loads(line)

    async def scenario():
        bodies = [streams._game_body(game.pk, user, None, streaming.NDJSON, f"k{i}", f"c{i}")
                  for i, user in enumerate(viewers)]
        for body in bodies:
            assert (await written(body))["kind"] == "state"
        before = reads.count
        steps = []
        for command in commands:
            after = await asyncio.to_thread(reads.own(lambda: Game.objects.get(pk=game.pk).version))
            await asyncio.to_thread(reads.own(command))
            got = [await written(body) for body in bodies]
            shown = [await asyncio.to_thread(reads.own(expected), user, after) for user in viewers]
            steps.append(list(zip(got, shown, strict=True)))
        for body in bodies:
            await body.aclose()
        return reads.count - before, steps

    return asyncio.run(scenario())


@pytest.fixture
def local_live(settings, tmp_path, monkeypatch):
    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_LIVE_URL = "local"
    monkeypatch.setattr(fanout, "_closing", False)


def _follow(django_user_model, monkeypatch, spectators: int, moves: int, auditor: bool):
    """Two seats, ``spectators`` spectators (the second anonymous) and (``auditor``) an auditor follow
    ``moves`` moves of a new game: the queries their streams ran, their shared reads, and the steps of
    ``_watched``."""
    alice, bob, carol, dave = (django_user_model.objects.get_or_create(username=name)[0]
                               for name in ("alice", "bob", "carol", "dave"))
    others = [django_user_model.objects.get_or_create(username=f"watcher{i}")[0] for i in range(spectators - 2)]
    game = played_game([alice, bob], 2, seed=3)
    viewers = [alice, bob, carol, AnonymousUser(), *others][:2 + spectators] + ([dave] if auditor else [])
    _started(game, *viewers)
    shared: list[int] = []
    real = streams._shared_read_async

    async def counted(game_id, after):
        shared.append(after)
        return await real(game_id, after)

    monkeypatch.setattr(streams, "_shared_read_async", counted)
    moved = [functools.partial(_move, game.pk, [alice, bob], seed) for seed in range(moves)]
    queries, steps = _watched(game, viewers, _DatabaseReads(monkeypatch), moved)
    monkeypatch.undo()
    return queries, len(shared), viewers, steps, _hidden_from(game.pk, None)[1]


def test_every_stream_writes_each_move_from_its_message_and_only_its_seat_sees_its_tiles(django_user_model,
                                                                                       settings, tmp_path):
    """The streams of the seats and the spectators run no query to write a move, at 3 viewers as at 10;
    an auditor's stream, which shows the running game unredacted, reads once per move. Each writes what
    GET shows its viewer, with no tile another seat holds or the bazaar hides."""
    settings.GOAT_DATA_DIR, settings.GOAT_LIVE_URL = tmp_path, "local"
    _viewers(django_user_model)
    moves = 6
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(fanout, "_closing", False)
        few = _follow(django_user_model, monkeypatch, 1, moves, auditor=False)
        many = _follow(django_user_model, monkeypatch, 8, moves, auditor=False)
        audited = _follow(django_user_model, monkeypatch, 8, moves, auditor=True)
    assert few[:2] == many[:2] == (0, 0)  # no query, no read, at 3 viewers as at 10
    assert audited[1] == moves  # the auditor's read of each move
    for _queries, _reads, viewers, steps, round_no in (few, many, audited):
        for step in steps:
            for viewer, (got, (shown, (hidden, now_round))) in zip(viewers, step, strict=True):
                assert now_round == round_no  # one round's hands and bazaar: a tile hidden now was never shown
                assert got["kind"] == "update"
                assert {k: v for k, v in got["game"].items() if k not in VOLATILE} == {
                    k: v for k, v in shown["game"].items() if k not in VOLATILE}
                assert (got["version"], got["events"]) == (shown["version"], shown["events"])
                if viewer.username != "dave":
                    assert not _tiles(got) & hidden, (viewer, _tiles(got) & hidden)
        hands = [step[i][0]["game"]["hand"] for step in steps for i in range(2)]
        assert all(hands)  # each seat's stream shows its own hand


def test_a_stream_that_missed_a_message_reads_the_versions_it_missed(django_user_model, monkeypatch, local_live):
    """A command's message lost (published while the stream was not heard) leaves a gap before the next
    message's ``from``: the stream reads what it missed and writes both commands' events as one update."""
    alice, bob, carol, _ = _viewers(django_user_model)
    game = played_game([alice, bob], 2, seed=3)
    _started(game, alice, carol)
    real, lost = fanout.publish_all, []
    monkeypatch.setattr(fanout, "publish_all", lambda messages: real(messages) if lost else lost.append(messages))
    reads = _DatabaseReads(monkeypatch)
    start = game.version

    async def scenario():
        bodies = [streams._game_body(game.pk, user, None, streaming.NDJSON, f"k{i}", f"c{i}")
                  for i, user in enumerate((alice, carol))]
        for body in bodies:
            assert json.loads(await asyncio.wait_for(body.__anext__(), 60))["kind"] == "state"
        before = reads.count
        for seed in range(2):  # the first one's message is lost
            await asyncio.to_thread(reads.own(_move), game.pk, [alice, bob], seed)
        got = [json.loads(await asyncio.wait_for(body.__anext__(), 60)) for body in bodies]
        for body in bodies:
            await body.aclose()
        return reads.count - before, got

    count, got = asyncio.run(scenario())
    assert lost and count > 0  # the gap was read
    now = Game.objects.get(pk=game.pk)
    for user, update in zip((alice, carol), got, strict=True):
        assert update["version"] == now.version
        shown = selectors.events_for(game=now, viewer=Viewer.of(now, user), after=start)
        assert update["events"] == json.loads(json.dumps(shown, cls=JSONEncoder))


def test_the_streams_of_a_waiting_game_write_its_joins_and_its_start_from_their_messages(django_user_model,
                                                                                       local_live, monkeypatch):
    """A join knows the seats once it commits, so it publishes its content as a move does: the streams
    of the seated, of the players about to join, of a spectator and of an anonymous viewer write each
    join, and the start (the last join deals), without a query, each what GET shows its viewer then:
    the joiner their seat, once dealt each seat its hand alone."""
    alice, bob, carol, _dave = _viewers(django_user_model)
    erin = django_user_model.objects.create_user("erin", password="x" * 12)  # a spectator (dave audits)
    game = services.game_create(player=alice, ruleset="goat-classic", seats=3).game
    viewers = [alice, bob, carol, erin, AnonymousUser()]
    _started(game, *viewers)
    joins = [functools.partial(services.game_join, game_id=game.pk, player=user) for user in (bob, carol)]
    queries, steps = _watched(game, viewers, _DatabaseReads(monkeypatch), joins)
    assert queries == 0
    for step in steps:
        for got, (shown, _hidden) in step:
            assert got["kind"] == "update"
            assert {k: v for k, v in got["game"].items() if k not in VOLATILE} == {
                k: v for k, v in shown["game"].items() if k not in VOLATILE}
            assert (got["version"], got["events"]) == (shown["version"], shown["events"])
    joined, started = ([got for got, _ in step] for step in steps)
    assert [view["game"]["your_seat"] for view in joined] == [0, 1, None, None, None]
    assert [view["game"]["status"] for view in started] == ["running"] * 5
    hands = [set(view["game"]["hand"]) for view in started]
    assert all(len(hand) == 7 for hand in hands[:3]) and not hands[0] & hands[1] and hands[3:] == [set(), set()]
    for got, (_shown, (hidden, _round)) in steps[1]:
        assert hidden and not _tiles(got) & hidden  # no tile another seat holds, or the bazaar hides
