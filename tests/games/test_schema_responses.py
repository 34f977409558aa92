"""Every response of an ended game validates against its OpenAPI component (issue 34 item 7): the game
view (anonymous and seated), the replay (at the end and at steps along the way), the scoresheet, the
verification and the events, for a played game of each ruleset and for a game with a computer player.

The components come from the schema the server generates (drf-spectacular, OpenAPI 3.0) and are
checked with openapi-schema-validator's OAS 3.0 validator (``nullable``, ``required``, types and
enums as a generated client reads them): a field the schema marks required and a response leaves
out fails here."""

from __future__ import annotations

from typing import Any

import pytest
from factories import FAST, finished_game, make_players
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource

from apitest import token_client
from computer_play import play_out, queue_catch
from goat.engine.rulesets import PRESETS
from goat.games import services

pytestmark = pytest.mark.django_db

#: each endpoint of an ended game: the path after /api/games/{id}/ and its operation id in the schema
ENDPOINTS = {"": "games_retrieve", "replay/": "games_replay", "scoresheet/": "games_scoresheet",
             "verify/": "games_verify", "events/": "games_events"}


@pytest.fixture
def openapi(api_client) -> dict[str, Any]:
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def _operation(schema: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for item in schema["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return operation
    raise AssertionError(f"no operation {operation_id} in the schema")


def _nullable_refs(node: Any) -> Any:
    """``node`` with drf-spectacular's nullable reference, ``{"allOf": [{"$ref": X}], "nullable": true}``
    (a nested serializer with ``allow_null``), written as "X or null": how generated clients read it.
    OAS 3.0.3 lets ``nullable`` act only beside a ``type``, so a strict validator would refuse null there."""
    if isinstance(node, list):
        return [_nullable_refs(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _nullable_refs(value) for key, value in node.items()}
    if node.get("nullable") is True and "type" not in node and len(node.get("allOf", ())) == 1:
        rest = {k: v for k, v in node.items() if k not in ("allOf", "nullable")}
        return {**rest, "oneOf": [node["allOf"][0], {"enum": [None]}]}
    return node


def _validator(schema: dict[str, Any], operation_id: str) -> OAS30Validator:
    """The validator of the 200 response of ``operation_id``, its ``$ref``s resolved in the schema."""
    body = _operation(schema, operation_id)["responses"]["200"]["content"]["application/json"]["schema"]
    assert "$ref" in body, f"{operation_id}: the 200 response is not a named component"
    registry = Registry().with_resource("urn:goat-api", Resource.opaque(_nullable_refs(schema)))
    return OAS30Validator({**body, "$ref": "urn:goat-api" + body["$ref"]}, registry=registry)


def _check(schema: dict[str, Any], client, game_id: int, path: str, **query) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}/{path}", query)
    assert response.status_code == 200, (path, response.content)
    body = response.json()
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in _validator(schema, ENDPOINTS[path]).iter_errors(body)]
    assert not errors, (path, query, errors)
    return body


def _check_every_response(schema: dict[str, Any], game_id: int, *, api_client, seated) -> None:
    for path in ENDPOINTS:
        _check(schema, api_client, game_id, path)
    _check(schema, seated, game_id, "")  # a seated player's view (their hand, their seat)
    version = _check(schema, api_client, game_id, "events/")["version"]
    # the table along the way: before and after each deal, mid-round, at the end
    for at in sorted({1, 2, 3, version // 3, version // 2, version - 2, version - 1, version} - {0}):
        _check(schema, api_client, game_id, "replay/", at=at)


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_every_response_of_a_played_game_matches_its_schema(ruleset, openapi, api_client):
    players = make_players("masha", "alex", "olya", "serg")[:4 if ruleset == "goat-pairs" else 3]
    options = {"move_time": 0, "ante": 0} if PRESETS[ruleset]["scoring"] == "rounds" else {**FAST, "ante": 0}
    game = finished_game(players, ruleset=ruleset, options=options, seed=3)
    assert game.ended
    _check_every_response(openapi, game.pk, api_client=api_client, seated=token_client(players[1]))


@pytest.mark.django_db(transaction=True)  # each move's commit queues the computers' next moves
def test_every_response_of_a_game_with_a_computer_matches_its_schema(openapi, api_client, monkeypatch):
    sent = queue_catch(monkeypatch)
    (human,) = make_players("hana")
    game = services.game_create(player=human, ruleset="goat-classic", seats=3, options=FAST,
                                computer_players=2, computer_level="random").game
    game = play_out(game.pk, human, sent, seed=5)
    assert game.ended
    replay = _check(openapi, api_client, game.pk, "replay/")
    assert [s["computer"] for s in replay["seats"]] == [False, True, True]
    _check_every_response(openapi, game.pk, api_client=api_client, seated=token_client(human))
