"""A request's objects are freed by reference counting when its response closes (goat.serve.request_release):
what a request leaves to the garbage collector, counted with the collector off.

The requests go through Django's WSGI handler as the web server calls it (goat.serve.bridge: the
iterable read, then closed), not through the test client, which keeps the request on the response."""

from __future__ import annotations

import gc
import json
import weakref
from functools import partial

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db.models import Model
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.test.client import RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.views import APIView

from apitest import token_client
from goat.serve.request_release import ReleaseMiddleware

# transaction=True: the handler's close sends request_finished, which closes the database connection
pytestmark = pytest.mark.django_db(transaction=True)


def _left_to_collector(work) -> list:
    """The objects that become garbage in reference cycles while ``work()`` runs (and ``work``'s result)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        found = list(gc.garbage)
        gc.garbage.clear()
    finally:
        gc.set_debug(0)
        gc.enable()
    return found


def _served(handler, method: str, path: str, token: str, body=None, **headers) -> tuple[int, bytes]:
    factory = RequestFactory()
    if method == "GET":
        environ = factory.get(path, HTTP_AUTHORIZATION=f"Token {token}", **headers).environ
    else:
        environ = factory.post(path, data=json.dumps(body), content_type="application/json",
                               HTTP_AUTHORIZATION=f"Token {token}", **headers).environ
    status = []
    result = handler(environ, lambda line, _headers, exc_info=None: status.append(int(line.split()[0])))
    try:
        content = b"".join(result)
    finally:
        result.close()
    return status[0], content


@pytest.fixture
def started_game(django_user_model):
    """(game id, {seat: token}) of a started two-seat game."""
    users = [django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob")]
    clients = [token_client(user) for user in users]
    game_id = clients[0].post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()["id"]
    assert clients[1].post(f"/api/games/{game_id}/join/", {}, format="json").status_code in (200, 201)
    tokens = [Token.objects.get(user=user).key for user in users]
    return game_id, tokens


def _kept(into: list, work) -> None:
    into.append(work())


def _reached(garbage, *kinds) -> list[str]:
    return sorted({type(thing).__qualname__ for thing in garbage if isinstance(thing, kinds)})


def test_a_game_read_leaves_nothing_to_the_collector(started_game):
    game_id, tokens = started_game
    handler = WSGIHandler()
    _served(handler, "GET", f"/api/games/{game_id}/", tokens[0])  # the first request's one-time setup
    outcome = []
    garbage = _left_to_collector(lambda: outcome.append(_served(handler, "GET", f"/api/games/{game_id}/", tokens[0])))
    assert outcome[0][0] == 200
    assert garbage == [], _reached(garbage, object)


def test_a_move_leaves_no_request_view_response_or_row_to_the_collector(started_game):
    game_id, tokens = started_game
    handler = WSGIHandler()
    moved = 0
    for _ in range(4):
        for token in tokens:
            status, content = _served(handler, "GET", f"/api/games/{game_id}/", token)
            game = json.loads(content)
            if game["turn"] != game["your_seat"]:
                continue
            choice = game["legal_moves"][0]
            body = {"tile": choice["tile"], **({"end": choice["end"]} if choice["end"] else {})}
            outcome = []
            move = partial(_served, handler, "POST", f"/api/games/{game_id}/moves/", token, body,
                           HTTP_IF_MATCH=f'"{game["version"]}"')
            garbage = _left_to_collector(partial(_kept, outcome, move))
            assert outcome[0][0] == 201, outcome
            moved += 1
            # What stays is DRF's own: a serializer and its fields point at each other (field.parent)
            assert _reached(garbage, HttpRequest, Request, APIView, HttpResponseBase, Model) == []
            assert len(garbage) < 40
    assert moved >= 3


def test_a_streams_request_is_released_when_its_response_is_made():
    """A stream's body runs for minutes and needs none of the request's links: they go at once, and
    the request is freed as soon as the handler lets go of it (no closure or storage holds it)."""
    request = RequestFactory().get("/api/stream/")
    request.user = partial(str, request)  # holds the request, as the authentication middleware's closure
    request._messages = [request]

    middleware = ReleaseMiddleware(lambda _request: StreamingHttpResponse(iter([b"ping\n"])))
    gc.disable()
    try:
        response = middleware(request)
        assert not {"user", "_messages"} & set(vars(request))
        gone = weakref.ref(request)
        del request
        assert gone() is None  # by reference counting, with the collector off
    finally:
        gc.enable()
    assert b"".join(response) == b"ping\n"


def test_a_response_is_read_as_before_after_its_release(auth_client):
    """The test client closes the response (so the release has run): what a caller reads is intact."""
    response = auth_client.get("/api/games/")
    assert response.status_code == 200
    assert isinstance(response.json(), dict) and response.data is not None
    assert "renderer_context" not in vars(response)
