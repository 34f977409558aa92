"""The fan-out channel (goat/live/fanout.py) and what the services publish on it.

The local substitute is exercised across processes (a publisher in a child process, as the Celery
worker is); the Redis backend where the suite has one (the PostgreSQL + Redis pass of .ci/run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from rest_framework.test import APIClient

from goat.games import notify, services
from goat.games.models import Game
from goat.live import fanout

REPO = Path(__file__).resolve().parents[2]
BACKENDS = ["local"] + (["redis"] if settings.CELERY_BROKER_URL.startswith("redis://") else [])


@pytest.fixture(params=BACKENDS)
def backend(request, settings, tmp_path, monkeypatch):
    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_LIVE_URL = "local" if request.param == "local" else settings.CELERY_BROKER_URL
    settings.GOAT_LIVE_PREFIX = f"goat:test-{tmp_path.name}-{uuid.uuid4().hex[:8]}:live:"  # unique across runs
    monkeypatch.setattr(fanout, "_redis_client", None)
    monkeypatch.setattr(fanout, "_closing", False)
    return request.param


def _publish_from_another_process(channel: str, message: dict, batch: list | None = None) -> None:
    """``fanout.publish(channel, message)`` in a child process; with ``batch``, ``fanout.publish_all(batch)``."""
    code = (
        "import django, json, sys, time; django.setup(); from goat.live import fanout; "
        "batch = json.loads(sys.argv[3]); "
        "fanout.publish_all([tuple(p) for p in batch]) if batch "
        "else fanout.publish(sys.argv[1], json.loads(sys.argv[2]))"
    )
    env = {
        "DJANGO_SETTINGS_MODULE": "goat.settings", "GOAT_DATA_DIR": str(settings.GOAT_DATA_DIR),
        "GOAT_LIVE_URL": settings.GOAT_LIVE_URL, "GOAT_LIVE_PREFIX": settings.GOAT_LIVE_PREFIX,
        "DATABASE_URL": "sqlite:///" + str(Path(settings.GOAT_DATA_DIR) / "unused.sqlite3"),
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run([sys.executable, "-c", code, channel, json.dumps(message), json.dumps(batch)], cwd=REPO, env=env,
                   check=True, capture_output=True, timeout=60)


def test_a_message_published_in_another_process_reaches_every_listener_of_its_channel_only(backend):
    async def scenario():
        async with fanout.listen("game:1") as a, fanout.listen("game:1") as b, fanout.listen("game:2") as other:
            await asyncio.to_thread(_publish_from_another_process, "game:1", {"version": 7})
            got = [await a.get(10), await b.get(10)]
            assert got == [{"version": 7}, {"version": 7}]
            assert await other.get(0.3) is None
            assert fanout.listeners_count() == 3
        assert fanout.listeners_count() == 0

    asyncio.run(scenario())


def test_a_batch_published_at_once_reaches_the_listeners_of_each_of_its_channels_in_order(backend):
    async def scenario():
        async with (fanout.listen("game:3") as game, fanout.listen("player:8") as player,
                    fanout.listen("player:9") as other):
            batch = [("game:3", {"version": 4}), ("player:8", {"kind": "your_turn"}), ("player:8", {"kind": "x"})]
            await asyncio.to_thread(_publish_from_another_process, "", {}, batch)
            assert await game.get(10) == {"version": 4}
            assert [await player.get(10), await player.get(10)] == [{"kind": "your_turn"}, {"kind": "x"}]
            assert await other.get(0.3) is None and await game.get(0.1) is None

    asyncio.run(scenario())


async def _ended_and_new_ones_refused(listeners, channel: str) -> None:
    """Each of ``listeners`` hears that the process stops, and a new listener of ``channel`` is refused."""
    for listener in listeners:
        with pytest.raises(fanout.Closed):
            await listener.get(5)
    with pytest.raises(fanout.Closed):
        async with fanout.listen(channel):
            pass


def test_a_listener_times_out_quietly_and_ends_when_the_process_stops(backend):
    async def scenario():
        async with fanout.listen("player:5") as listener:
            started = time.monotonic()
            assert await listener.get(0.2) is None
            assert time.monotonic() - started >= 0.2
            fanout.close_listeners()
            await _ended_and_new_ones_refused([listener], "player:5")

    asyncio.run(scenario())


def test_a_share_of_the_listeners_ends_and_the_rest_stay_open_until_every_one_is_ended(backend):
    """A recycling web worker ends its streams a share at a time (goat/serve/server.py); a listener of
    several channels counts once, and one already told to end is not counted again."""
    async def scenario():
        async with contextlib.AsyncExitStack() as stack:
            listeners = [await stack.enter_async_context(fanout.listen(f"player:{i}", notify.LOBBY_CHANNEL))
                         for i in range(5)]
            assert fanout.close_listeners(0.3) == 3  # ceil(5 x 0.3) = 2 ended
            ended = [listener for listener in listeners if listener.ending]
            assert len(ended) == 2
            for listener in ended:
                with pytest.raises(fanout.Closed):
                    await listener.get(5)
            still = [listener for listener in listeners if not listener.ending]
            assert [await listener.get(0.05) for listener in still] == [None, None, None]
            assert fanout.close_listeners(0.3) == 2  # ceil(3 x 0.3) = 1 more
            async with fanout.listen("player:9"):  # not refused: the worker still serves
                pass
            assert fanout.close_listeners(0.0) == 2
            assert fanout.close_listeners() == 0  # the rest, and new ones refused
            await _ended_and_new_ones_refused(still, "player:9")

    asyncio.run(scenario())


def _streams_ended_by_a_recycling_worker(spread: float, told_to_stop_after: float | None = None):
    """Seconds from the start of a worker's ``_streams_spread(spread)`` (then its closing of the rest)
    at which each of 40 open streams ended, and how often it told gunicorn it is alive meanwhile."""
    from uvicorn.config import Config

    from goat.serve import server

    async def scenario():
        ended: list[float] = []

        async def stream(i: int) -> None:
            async with fanout.listen(f"player:{i}", notify.LOBBY_CHANNEL) as listener:
                with contextlib.suppress(fanout.Closed):
                    await listener.get(30)
                ended.append(time.monotonic())

        tasks = [asyncio.create_task(stream(i)) for i in range(40)]
        await asyncio.sleep(0.05)
        worker = server._Server(Config(app=None))
        beats = []

        async def notify_alive():
            beats.append(time.monotonic())

        worker.config.callback_notify = notify_alive
        if told_to_stop_after is not None:
            asyncio.get_running_loop().call_later(told_to_stop_after, setattr, worker, "should_exit", True)
        started = time.monotonic()
        await worker._streams_spread(spread)
        fanout.close_listeners()
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        return sorted(t - started for t in ended), len(beats)

    return asyncio.run(scenario())


def test_a_recycling_worker_ends_its_streams_spread_over_the_window(backend):
    ended, beats = _streams_ended_by_a_recycling_worker(1.0)
    assert len(ended) == 40
    # shares of ceil(open x 0.25 s / time left): about a quarter at first, the last ones near the window's end
    assert sum(t < 0.2 for t in ended) <= 12
    assert ended[-1] >= 0.6
    assert beats >= 3


def test_a_recycling_worker_told_to_stop_ends_the_rest_of_its_streams_at_once(backend):
    ended, _ = _streams_ended_by_a_recycling_worker(5.0, told_to_stop_after=0.4)
    assert len(ended) == 40
    assert sum(t < 0.35 for t in ended) < 10  # spread so far
    assert ended[-1] < 1.5  # the rest within a step of the signal, not over the 5 s window


def test_the_stream_slots_of_a_token_are_limited_and_freed(backend):
    claims = [fanout.stream_claim("tok", 3) for _ in range(3)]
    assert all(claims) and len(set(claims)) == 3
    assert fanout.stream_claim("tok", 3) is None
    assert fanout.stream_claim("another", 3) is not None
    fanout.stream_release("tok", claims[0])
    again = fanout.stream_claim("tok", 3)
    assert again is not None
    fanout.stream_refresh("tok", again)
    assert fanout.stream_claim("tok", 3) is None


def test_a_claim_not_refreshed_expires(backend, monkeypatch):
    assert fanout.stream_claim("old", 1) is not None
    assert fanout.stream_claim("old", 1) is None
    now = time.time()
    monkeypatch.setattr(fanout.time, "time", lambda: now + fanout.CLAIM_TTL_SECONDS + 1)
    assert fanout.stream_claim("old", 1) is not None  # a process killed with its streams leaks no slot


def test_a_process_refreshes_the_claims_of_its_listening_streams_in_one_batch(backend, monkeypatch):
    monkeypatch.setattr(fanout, "REFRESH_SECONDS", 0.1)
    held = [fanout.stream_claim("busy", 3), fanout.stream_claim("busy", 3)]
    never_started = fanout.stream_claim("busy", 3)  # claimed, but its stream never listened
    assert all(held) and never_started is not None
    batches: list[tuple[float, list]] = []
    real = fanout.streams_refresh

    def recorded(items):
        batches.append((time.time(), sorted(items)))
        real(items)

    monkeypatch.setattr(fanout, "streams_refresh", recorded)

    async def scenario():
        async with fanout.listen("player:9", hold=("busy", held[0])), fanout.listen("game:9", hold=("busy", held[1])):
            await asyncio.sleep(0.35)

    asyncio.run(scenario())
    # one batch a round, holding both of this test's streams (another test's stream still open in this
    # process may ride in the same batch: the batch is per process, not per token)
    mine = [[item for item in items if item[1] == "busy"] for _, items in batches]
    assert mine and all(items == sorted((c, "busy") for c in held) for items in mine)
    last = batches[-1][0]
    monkeypatch.setattr(fanout.time, "time", lambda: last + fanout.CLAIM_TTL_SECONDS - 0.01)
    assert fanout.stream_claim("busy", 3) is not None  # the unrefreshed claim expired, the held ones did not
    assert fanout.stream_claim("busy", 3) is None


def test_a_refresh_does_not_bring_back_a_released_claim(backend):
    claim = fanout.stream_claim("gone", 1)
    fanout.stream_release("gone", claim)
    fanout.streams_refresh([(claim, "gone")])  # a batch taken just before the release
    assert fanout.stream_claim("gone", 1) is not None


@pytest.fixture
def published(monkeypatch):
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(fanout, "publish_all", sent.extend)
    return sent


@pytest.mark.django_db(transaction=True)
def test_commands_publish_after_commit_and_a_rollback_publishes_nothing(published, django_user_model):
    alice = django_user_model.objects.create_user("alice", password="x")
    bob = django_user_model.objects.create_user("bob", password="x")
    game = services.game_create(player=alice, ruleset="goat-classic", seats=2).game
    assert [(channel, message.get("kind")) for channel, message in published] == [
        (notify.game_channel(game.pk), None), (notify.LOBBY_CHANNEL, "lobby"),
        (notify.seat_channel(game.pk, alice.pk), None)]
    # the update's content: the seats are known to the command that took one
    assert published[0][1]["version"] == 2 and published[0][1]["from"] == 0
    assert published[0][1]["seated"] == [alice.pk] and published[2][1]["own"]["seat"] == 0
    published.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        services.game_join(game_id=game.pk, player=bob)
        assert published == []  # not before the commit
        raise RuntimeError("rolled back")
    assert published == []
    game = services.game_join(game_id=game.pk, player=bob).game
    kinds = {(channel, message.get("kind")) for channel, message in published}
    assert (notify.game_channel(game.pk), None) in kinds
    assert (notify.player_channel(alice.pk), "game_started") in kinds
    assert (notify.player_channel(bob.pk), "game_started") in kinds
    turn_player = [alice, bob][game.turn]
    assert (notify.player_channel(turn_player.pk), "your_turn") in kinds
    published.clear()
    services.game_resign(game_id=game.pk, player=alice)
    ended = [m for c, m in published if m.get("kind") == "game_ended"]
    assert len(ended) == 2 and ended[0]["data"]["result"]["reason"] == "resigned"
    published.clear()
    offered, created = services.game_rematch(game_id=game.pk, player=bob)
    rematch = offered.game
    assert created and offered.seat == 0  # the offerer sits at seat 0
    assert (notify.player_channel(alice.pk), {"kind": "rematch_offered",
                                               "data": {"game": rematch.pk, "from": "bob", "rematch_of": game.pk}}
            ) in published
    offered = [channel for channel, message in published if message.get("kind") == "rematch_offered"]
    assert offered == [notify.player_channel(alice.pk)]  # the others of the old game, not the offerer
    again, created = services.game_rematch(game_id=game.pk, player=alice)
    assert (again.game.pk, again.seat, created) == (rematch.pk, None, False)  # alice has not joined it yet


@pytest.mark.django_db(transaction=True)
def test_a_tournament_table_is_told_on_each_players_feed(published, django_user_model):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import services as tournaments

    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    players = [django_user_model.objects.create_user(f"p{i}", password="x") for i in range(2)]
    tournament = tournaments.tournament_create(created_by=staff, name="cup", ruleset="goat-classic", format="swiss",
                                               table_size=2, starts_at=timezone.now() + timedelta(minutes=1),
                                               max_players=8, rounds=1)
    for player in players:
        tournaments.tournament_register(tournament_id=tournament.pk, player=player)
    published.clear()
    assert tournaments.tournaments_start_due(now=timezone.now() + timedelta(minutes=2)) == [tournament.pk]
    tables = [(c, m["data"]) for c, m in published if m.get("kind") == "tournament_table"]
    assert sorted(c for c, _ in tables) == sorted(notify.player_channel(p.pk) for p in players)
    assert all(data["tournament"] == tournament.pk for _, data in tables)


@pytest.mark.django_db(transaction=True)
def test_the_lobby_changes_reach_every_players_feed_and_moves_do_not(published, django_user_model):
    alice, bob = (django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob"))
    game = services.game_create(player=alice, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=bob)
    lobby = [m["data"] for c, m in published if c == notify.LOBBY_CHANNEL]
    assert [(m["game"], m["status"]) for m in lobby] == [(game.pk, "waiting"), (game.pk, "running")]
    # a game still waiting comes with its summary; one that left the lobby without
    assert [s["player"] for s in lobby[0]["summary"]["seats"]] == ["alice"] and "summary" not in lobby[1]
    published.clear()
    services.game_resign(game_id=game.pk, player=alice)  # a running game is no longer the lobby's
    assert not [c for c, _ in published if c == notify.LOBBY_CHANNEL]
    other = services.game_create(player=bob, ruleset="goat-classic", seats=3).game
    listed = APIClient().get("/api/games/", {"status": "waiting"}).json()["results"]
    services.game_leave(game_id=other.pk, player=bob)  # the last player out cancels it
    lobby = [m["data"] for c, m in published if c == notify.LOBBY_CHANNEL]
    assert [(m["game"], m["status"]) for m in lobby] == [(other.pk, "waiting"), (other.pk, "cancelled")]
    assert listed == [lobby[0]["summary"]]  # the row as the open games' list shows it


@pytest.mark.django_db(transaction=True)
def test_a_waiting_games_summary_is_the_committed_row_with_its_seats_read_once(published, django_user_model,
                                                                               django_assert_num_queries):
    """The lobby's summary of a game that stays waiting is built from the row its command committed,
    with one query for the seats and their players, and equals the open games' list entry."""
    alice, bob = (django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob"))
    game = services.game_create(player=alice, ruleset="goat-classic", seats=3).game
    with django_assert_num_queries(1):
        summary = notify.lobby_summary(game)
    assert summary == APIClient().get("/api/games/", {"status": "waiting"}).json()["results"][0]
    published.clear()
    services.game_join(game_id=game.pk, player=bob)
    (told,) = [m["data"] for c, m in published if c == notify.LOBBY_CHANNEL]
    assert [s["player"] for s in told["summary"]["seats"]] == ["alice", "bob"]
    assert told["summary"]["version"] == Game.objects.get(pk=game.pk).version


async def _next_message(body):
    """The next message of an NDJSON stream body (keep-alives skipped)."""
    while True:
        line = await asyncio.wait_for(body.__anext__(), 30)
        if line.strip():  # not a keep-alive
            return json.loads(line)


@pytest.mark.django_db(transaction=True)
def test_a_players_feed_streams_the_lobby_as_games_open_fill_and_start(backend, django_user_model):
    """The feed of a player who is at no table hears each change of a waiting game: another player's
    new game, a seat taken, the start (through the live backend, as a web process hears it)."""
    from goat.games import streams

    alice, bob, carol = (django_user_model.objects.create_user(n, password="x") for n in ("alice", "bob", "carol"))

    async def scenario():
        claim = fanout.stream_claim("user:carol", 8)
        body = streams._feed_body(carol, "application/x-ndjson", "user:carol", claim, lobby=True)
        try:
            assert (await _next_message(body))["kind"] == "hello"
            game = (await asyncio.to_thread(services.game_create, player=alice, ruleset="goat-classic", seats=2)).game
            message = await _next_message(body)
            assert (message["kind"], message["game"], message["status"]) == ("lobby", game.pk, "waiting")
            assert [s["player"] for s in message["summary"]["seats"]] == ["alice"]
            await asyncio.to_thread(services.game_join, game_id=game.pk, player=bob)
            assert await _next_message(body) == {"kind": "lobby", "game": game.pk, "status": "running"}
        finally:
            await body.aclose()

    asyncio.run(scenario())


@pytest.mark.django_db(transaction=True)
def test_a_feed_that_did_not_ask_for_the_lobby_hears_only_its_own_events(backend, django_user_model):
    """Without ``?lobby=1`` (a player at a table) the feed is the player's own: another player's new game
    is not sent to it, its own game's start is."""
    from goat.games import streams

    alice, bob, carol = (django_user_model.objects.create_user(n, password="x") for n in ("alice", "bob", "carol"))

    async def scenario():
        claim = fanout.stream_claim("user:carol", 8)
        body = streams._feed_body(carol, "application/x-ndjson", "user:carol", claim)
        try:
            assert (await _next_message(body))["kind"] == "hello"
            await asyncio.to_thread(services.game_create, player=alice, ruleset="goat-classic", seats=2)  # lobby only
            mine = (await asyncio.to_thread(services.game_create, player=carol, ruleset="goat-classic", seats=2)).game
            await asyncio.to_thread(services.game_join, game_id=mine.pk, player=bob)
            # published after the two lobby events: the first message heard is carol's own
            assert await _next_message(body) == {"kind": "game_started", "game": mine.pk}
        finally:
            await body.aclose()

    asyncio.run(scenario())


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["yes", "2", "", "TRUE"])
def test_a_feed_asked_for_the_lobby_with_anything_but_1_0_true_false_is_refused(value, django_user_model):
    from django.test import AsyncClient
    from rest_framework.authtoken.models import Token

    user = django_user_model.objects.create_user("carol", password="x")
    key = Token.objects.create(user=user).key

    async def get():
        return await AsyncClient().get("/api/stream/", {"lobby": value}, headers={"Authorization": f"Token {key}"})

    answer = asyncio.run(get())
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid" and "lobby" in answer.json()["errors"]


def test_the_claims_refresher_of_an_exiting_process_stops_quietly(monkeypatch, caplog):
    """At exit the loop's executor takes no more work: the refresher ends without a warning (it logged
    one into closed streams at every test run's end)."""

    async def scenario():
        loop = asyncio.get_running_loop()
        await loop.shutdown_default_executor()
        hub = fanout._Hub(loop)
        await asyncio.wait_for(hub._refresh_claims(), 5)

    monkeypatch.setattr(fanout, "REFRESH_SECONDS", 0)
    monkeypatch.setitem(fanout._held, "user:exiting", "claim")
    with caplog.at_level("WARNING", logger=fanout.logger.name):
        asyncio.run(scenario())
    assert not [r for r in caplog.records if "not refreshed" in r.getMessage()]
