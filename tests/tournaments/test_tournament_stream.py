"""The tournament stream (docs/api.md "Live play"): anonymous, ``state`` then ``update`` on every
change the tournament's services publish, closed after the update that finishes the tournament;
resume by Last-Event-ID; refusals before the stream."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, Client

from goat.games.computer import stand_ins_play
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

NDJSON = "application/x-ndjson"


async def _next(lines, timeout: float = 15) -> dict:
    """The next message of an NDJSON stream (keep-alives skipped)."""
    while True:
        chunk = await asyncio.wait_for(lines.__anext__(), timeout)
        if chunk.strip():
            return json.loads(chunk)


def test_anyone_follows_a_tournament_from_its_state_to_the_update_that_finishes_it(bots, make_tournament):
    players = bots(4)
    tournament = make_tournament(name="Streamed swiss", table_size=2, rounds=1)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)

    async def scenario():
        response = await AsyncClient().get(f"/api/tournaments/{tournament.pk}/stream/", headers={"Accept": NDJSON})
        assert response.status_code == 200 and response["Content-Type"].startswith(NDJSON)
        lines = response.streaming_content.__aiter__()
        state = await _next(lines)
        assert state["kind"] == "state" and state["status"] == "scheduled" and state["tables"] == []
        assert state["standings"]["count"] == 4 and len(state["standings"]["results"]) == 4
        assert set(state) >= {"id", "name", "played_rounds", "tables", "prizes", "players"}  # as GET shows it

        await sync_to_async(services.tournaments_start_due)()
        started = await _next(lines)
        assert started["kind"] == "update" and started["status"] == "running"
        assert len(started["tables"]) == 2 and {t["status"] for t in started["tables"]} == {"running"}

        await sync_to_async(stand_ins_play)(until_done=True, seed=5)
        seen = [started]
        while seen[-1]["status"] != "finished":
            message = await _next(lines)
            assert message["kind"] == "update"
            seen.append(message)
        finished = seen[-1]
        assert {t["status"] for t in finished["tables"]} <= {"finished", "interrupted"}
        assert [s["rank"] for s in finished["standings"]["results"]] == [1, 2, 3, 4]
        with pytest.raises(StopAsyncIteration):  # closed after the update that finishes it
            await _next(lines)
        return finished

    finished = asyncio.run(scenario())
    assert finished["standings"]["results"][0]["player"] == Client().get(
        f"/tournaments/{tournament.pk}/").context["standings"][0]["player"]


def test_resuming_sends_nothing_seen_again_and_an_update_when_something_changed(bots, make_tournament):
    players = bots(2)
    tournament = make_tournament(name="Resumed", table_size=2, rounds=1)
    services.tournament_register(tournament_id=tournament.pk, player=players[0])

    async def first_id() -> str:
        response = await AsyncClient().get(f"/api/tournaments/{tournament.pk}/stream/")  # SSE
        lines = response.streaming_content.__aiter__()
        try:
            head = (await asyncio.wait_for(lines.__anext__(), 10)).decode()
        finally:
            await lines.aclose()  # the client goes away: its stream slot is released
        assert "event: state" in head
        return head.split("id: ", 1)[1].split("\n", 1)[0]

    seen = asyncio.run(first_id())

    async def resume(after: str, change) -> dict | None:
        response = await AsyncClient().get(f"/api/tournaments/{tournament.pk}/stream/", headers={"Accept": NDJSON,
                                                                                             "Last-Event-ID": after})
        lines = response.streaming_content.__aiter__()
        if change is not None:
            await sync_to_async(change)()
        try:
            return await _next(lines, timeout=3)
        except TimeoutError:
            return None
        finally:
            await lines.aclose()

    assert asyncio.run(resume(seen, None)) is None  # up to date: nothing until the next change
    services.tournament_register(tournament_id=tournament.pk, player=players[1])  # missed while away
    missed = asyncio.run(resume(seen, None))
    assert missed["kind"] == "update" and missed["standings"]["count"] == 2


def test_refusals_come_before_the_stream(make_tournament, bots, settings):
    assert Client().get("/api/tournaments/999999/stream/").status_code == 404
    assert Client().get("/api/tournaments/abc/stream/").status_code == 404
    bad_token = Client().get("/api/tournaments/999999/stream/", headers={"Authorization": "Token nope"})
    assert bad_token.status_code == 401
    tournament = make_tournament(name="Full")
    (viewer,) = bots(1, prefix="viewer")
    settings.GOAT_STREAMS_PER_TOKEN = 1

    async def two():
        client = AsyncClient()
        await client.aforce_login(viewer)  # the session's user: its own stream slots
        first = await client.get(f"/api/tournaments/{tournament.pk}/stream/", headers={"Accept": NDJSON})
        assert first.status_code == 200
        lines = first.streaming_content.__aiter__()
        try:
            await _next(lines)
            return await client.get(f"/api/tournaments/{tournament.pk}/stream/", headers={"Accept": NDJSON})
        finally:
            await lines.aclose()

    second = asyncio.run(two())
    assert second.status_code == 429 and second.json()["code"] == "too_many_streams"
