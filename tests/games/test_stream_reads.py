"""The game streams' shared read (goat/games/streams.py ``_update_read``): the streams of one process
that heard the same version of a game wait on ONE database read, and each still gets exactly what
GET shows its own viewer (a seat its own hand, a spectator none, an auditor everything); a stream
that heard a newer version never takes an older read; a stream that goes away leaves the read to
the others."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from django.test import RequestFactory

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, selectors, services, streams
from goat.games.models import Game
from goat.live import streaming
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
    view = selectors.game_view_for(game=game, user=user)
    return ({k: v for k, v in view.items() if k not in VOLATILE},
            selectors.events_for(game=game, user=user, after=after))


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
    seat = {alice.pk: selectors.viewer_seat(game, alice), bob.pk: selectors.viewer_seat(game, bob)}
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
