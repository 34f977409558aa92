"""The API with a Django session beside tokens (issue 27 item 4: the play page is a session client).

DRF's SessionAuthentication enforces CSRF on every unsafe request it authenticates: without the
X-CSRFToken header a session POST is a 403 problem and changes nothing. Idempotency keys, rate limits
and the stream slots are the account's, whichever way it authenticates.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import AsyncClient, Client
from rest_framework.authtoken.models import Token
from rest_framework.throttling import SimpleRateThrottle

from apitest import assert_problem, token_client
from goat.engine.tiles import tile_str
from goat.games import eventstore, selectors, services
from goat.games.models import Game, GameEvent
from goat.games.viewer import Viewer

PASSWORD = "correct horse battery staple"
NEW_GAME = {"ruleset": "goat-classic", "seats": 2, "options": {"move_time": 0}}


def session_client(user) -> tuple[Client, str]:
    """A browser signed in as ``user`` that checks CSRF as production does, and its CSRF token."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/play/").status_code == 200  # sets the csrftoken cookie
    return client, client.cookies["csrftoken"].value


@pytest.fixture
def masha(django_user_model):
    return django_user_model.objects.create_user(username="masha", password=PASSWORD)


@pytest.mark.django_db
def test_a_session_post_without_the_csrf_header_is_a_403_problem_and_changes_nothing(masha):
    client, token = session_client(masha)

    missing = client.post("/api/games/", NEW_GAME, content_type="application/json")
    wrong = client.post("/api/games/", NEW_GAME, content_type="application/json", HTTP_X_CSRFTOKEN="x" * 64)

    assert "CSRF" in assert_problem(missing, 403, "permission_denied")["detail"]
    assert "CSRF" in assert_problem(wrong, 403, "permission_denied")["detail"]
    assert Game.objects.count() == 0
    created = client.post("/api/games/", NEW_GAME, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert created.status_code == 201 and created.json()["your_seat"] == 0
    assert client.get("/api/players/me/games/").status_code == 200  # reads need no CSRF header


@pytest.mark.django_db
def test_a_token_needs_no_csrf_header_even_beside_a_session_cookie(masha):
    client = token_client(masha)
    client.force_login(masha)
    client.enforce_csrf_checks = True

    assert client.post("/api/games/", NEW_GAME, format="json").status_code == 201


@pytest.mark.django_db
def test_an_idempotency_key_is_the_accounts_whether_it_came_by_session_or_token(masha):
    client, token = session_client(masha)
    headers = {"HTTP_X_CSRFTOKEN": token, "HTTP_IDEMPOTENCY_KEY": "play-create-1"}

    first = client.post("/api/games/", NEW_GAME, content_type="application/json", **headers)
    again = client.post("/api/games/", NEW_GAME, content_type="application/json", **headers)
    by_token = token_client(masha).post("/api/games/", json.dumps(NEW_GAME), content_type="application/json",
                                        HTTP_IDEMPOTENCY_KEY="play-create-1")  # the same bytes
    other = client.post("/api/games/", {**NEW_GAME, "seats": 3}, content_type="application/json", **headers)

    assert first.status_code == again.status_code == by_token.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.content == first.content == by_token.content
    assert_problem(other, 422, "idempotency_key_reused")
    assert Game.objects.count() == 1


@pytest.mark.django_db
def test_a_session_move_takes_if_match_and_an_idempotency_key(masha, django_user_model):
    alex = django_user_model.objects.create_user(username="alex", password=PASSWORD)
    game = services.game_create(player=masha, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=alex)
    game.refresh_from_db()
    state = eventstore.state_load(game)
    player = (masha, alex)[state.turn]
    client, token = session_client(player)
    body = {"tile": tile_str(state.table.must_lead)}
    headers = {"HTTP_X_CSRFTOKEN": token, "HTTP_IF_MATCH": f'"{game.version}"', "HTTP_IDEMPOTENCY_KEY": "m-1"}

    first = client.post(f"/api/games/{game.pk}/moves/", body, content_type="application/json", **headers)
    events = GameEvent.objects.filter(game_id=game.pk).count()
    again = client.post(f"/api/games/{game.pk}/moves/", body, content_type="application/json", **headers)

    assert first.status_code == again.status_code == 201 and first.content == again.content
    assert GameEvent.objects.filter(game_id=game.pk).count() == events
    stale = client.post(f"/api/games/{game.pk}/moves/", body, content_type="application/json",
                        HTTP_X_CSRFTOKEN=token, HTTP_IF_MATCH=f'"{game.version}"')
    assert_problem(stale, 412, "version_mismatch")


@pytest.mark.django_db
def test_the_rate_limit_counts_the_account_across_session_and_token(masha, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "user", "3/min")
    client, _ = session_client(masha)

    statuses = [client.get("/api/players/me/").status_code for _ in range(2)]
    statuses.append(token_client(masha).get("/api/players/me/").status_code)
    over = client.get("/api/players/me/")

    assert statuses == [200, 200, 200]
    assert_problem(over, 429, "throttled")
    assert int(over["Retry-After"]) > 0


# --- the streams ---------------------------------------------------------------------------------


async def _first_message(response) -> str:
    """The first message of an open stream (the stream stays open: its slot stays taken)."""
    return (await anext(aiter(response.streaming_content))).decode()


@pytest.mark.django_db(transaction=True)
def test_the_streams_take_the_session_and_its_account_holds_the_stream_slots(masha, django_user_model, local_live):
    alex = django_user_model.objects.create_user(username="alex", password=PASSWORD)
    game = services.game_create(player=masha, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=alex)
    game.refresh_from_db()
    hand = selectors.game_view_for(game=game, viewer=Viewer.of(game, masha))["hand"]
    key = Token.objects.get_or_create(user=masha)[0].key

    async def scenario():
        browser = AsyncClient()
        await browser.aforce_login(masha)
        first = await browser.get(f"/api/games/{game.pk}/stream/")  # the account's one slot
        state = await _first_message(first)
        second = await browser.get("/api/stream/")
        by_token = await AsyncClient().get("/api/stream/", headers={"Authorization": f"Token {key}"})
        hello = await _first_message(by_token)
        return first, state, second, by_token, hello

    first, state, second, by_token, hello = asyncio.run(scenario())

    assert first.status_code == 200 and first["Content-Type"].startswith("text/event-stream")
    assert state.startswith("id: ") and "event: state" in state and '"your_seat":0' in state
    assert len(hand) == 7 and all(f'"{tile}"' in state for tile in hand)  # the seat's view, as GET shows it
    assert_problem(second, 429, "too_many_streams")
    assert by_token.status_code == 200 and "event: hello" in hello  # a token holds slots of its own
