"""The OpenAPI schema states what the server enforces (docs/reliability.md §9, "The contract under
schemathesis"): the statuses every operation can answer, the limits of query parameters and bodies,
the links from a created game to joining and moving, and the two streams."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import resolve

from goat.engine.rulesets import OPTION_KEYS, RULESETS

pytestmark = pytest.mark.django_db

OPEN = {"players_create", "auth_token_create", "health"}  # answer without a login
#: public reads (docs/api.md "Anonymous reads"): anyone may call them, a token is optional
PUBLIC_READS = {
    "games_list", "games_retrieve", "games_events", "games_scoresheet", "games_replay", "games_verify",
    "games_stream", "players_retrieve", "players_ratings_list", "leaderboards_ratings", "leaderboards_skill",
    "tournaments_list", "tournaments_retrieve", "tournaments_standings", "tournaments_stream",
    "tournaments_crosstable", "tournaments_results_csv", "players_tournaments_list", "games_analysis_read",
    "games_record", "keys_list",
}


@pytest.fixture
def schema(api_client) -> dict[str, Any]:
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def parameter(operation, name: str, where: str = "query") -> dict:
    return next(p for p in operation.get("parameters", []) if p["name"] == name and p["in"] == where)


def by_id(schema, operation_id: str) -> dict:
    return next(op for _path, _method, op in operations(schema) if op["operationId"] == operation_id)


def test_every_operation_documents_the_problems_it_can_answer(schema):
    seen = 0
    for path, _method, operation in operations(schema):
        responses = operation["responses"]
        name = operation["operationId"]
        if path.startswith("/api/"):
            assert "400" in responses, name
        if name not in OPEN:
            assert "401" in responses and "WWW-Authenticate" in responses["401"].get("headers", {}), name
        if name != "health":  # the one operation without a throttle
            assert "Retry-After" in responses["429"]["headers"], name
        if "{" in path:
            assert "404" in responses, name
        if "requestBody" in operation:
            assert {"413", "415"} <= set(responses), name
        for status, response in responses.items():
            if status.startswith(("4", "5")) and name != "health":  # health's 503 is its own JSON body
                assert "application/problem+json" in response["content"], (name, status)
        seen += 1
    assert seen >= 29


def test_query_parameters_state_their_limits(schema):
    games = by_id(schema, "games_list")
    assert parameter(games, "tournament")["schema"] == {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    assert parameter(games, "open")["schema"] == {"type": "boolean"}
    assert parameter(games, "player")["schema"]["maxLength"] == 150
    for _path, _method, operation in operations(schema):
        for name in ("page", "page_size"):
            found = [p for p in operation.get("parameters", []) if p["name"] == name]
            for p in found:
                assert p["schema"] == {"type": "integer", "minimum": 1} and p["allowEmptyValue"] is True
    events = by_id(schema, "games_events")
    assert parameter(events, "after")["schema"]["minimum"] == 0
    assert parameter(events, "game_id", "path")["schema"] == {"type": "integer", "minimum": 1,
                                                              "maximum": 10**18 - 1}


def test_bodies_state_their_limits(schema):
    components = schema["components"]["schemas"]
    create = components["GameCreateRequest"]
    assert create["additionalProperties"] is False
    ruleset = create["properties"]["ruleset"]
    if "allOf" in ruleset:  # drf-spectacular names the enum as a component
        ruleset = components[ruleset["allOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert ruleset["enum"] == list(RULESETS)
    options = create["properties"]["options"]
    assert options["additionalProperties"] is False and set(options["properties"]) == set(OPTION_KEYS)
    assert options["properties"]["hand_size"] == {"type": "integer", "minimum": 1, "maximum": 14}
    assert components["TournamentCreateRequest"]["properties"]["options"]["properties"]["ante"]["enum"] == [0]
    assert components["MoveRequest"]["properties"]["tile"]["pattern"]
    assert components["SignupRequest"]["properties"]["password"]["minLength"] == 8
    key = parameter(by_id(schema, "games_create"), "Idempotency-Key", "header")["schema"]
    assert (key["minLength"], key["maxLength"]) == (1, 255)


def test_links_chain_create_join_and_move(schema):
    ids = {op["operationId"]: (path, op) for path, _method, op in operations(schema)}
    create_links = by_id(schema, "games_create")["responses"]["201"]["links"]
    assert create_links["join"] == {"operationId": "games_join", "description": create_links["join"]["description"],
                                    "parameters": {"game_id": "$response.body#/id"}}
    assert create_links["move"]["parameters"] == {"game_id": "$response.body#/id",
                                                  "header.If-Match": "$response.header.ETag"}
    assert "move" in by_id(schema, "games_join")["responses"]["200"]["links"]
    assert by_id(schema, "games_move")["responses"]["201"]["links"]["move"]["parameters"]["game_id"] == \
        "$response.body#/game/id"
    for _path, _method, operation in operations(schema):
        for response in operation["responses"].values():
            for link in response.get("links", {}).values():
                target_path, target = ids[link["operationId"]]
                names = {f"{p['in']}.{p['name']}" for p in target.get("parameters", [])}
                for name in link["parameters"]:
                    assert (name if "." in name else f"path.{name}") in names or f"query.{name}" in names, \
                        (operation["operationId"], link)


def test_the_streams_are_in_the_schema(schema):
    for path, kinds in (("/api/games/{game_id}/stream/", {"state", "update"}),
                        ("/api/stream/", {"hello", "game_started", "your_turn", "game_ended"})):
        operation = schema["paths"][path]["get"]
        content = operation["responses"]["200"]["content"]
        assert set(content) == {"text/event-stream", "application/x-ndjson"}
        assert kinds <= set(content["text/event-stream"]["schema"]["properties"]["event"]["enum"])
        assert {"400", "401", "429"} <= set(operation["responses"])
        assert resolve(path.replace("{game_id}", "1"))


def test_the_links_work_against_the_service(token_client_pair):
    """Follow the links as a client does: create, then join (the other player), then move with If-Match
    from the ETag the join answered."""
    ann, ben = token_client_pair
    created = ann.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json")
    game_id = created.json()["id"]
    joined = ben.post(f"/api/games/{game_id}/join/", {}, format="json")
    assert joined.status_code == 200
    view = ann.get(f"/api/games/{game_id}/").json()
    mover = ann if view["turn"] == 0 else ben
    legal = mover.get(f"/api/games/{game_id}/").json()["legal_moves"][0]
    moved = mover.post(f"/api/games/{game_id}/moves/", legal, format="json", HTTP_IF_MATCH=joined["ETag"])
    assert moved.status_code == 201, moved.content


@pytest.fixture
def token_client_pair(django_user_model):
    from apitest import token_client

    return [token_client(django_user_model.objects.create_user(username=name, password="x" * 12))
            for name in ("ann", "ben")]


def _resolved(components, node: dict) -> dict:
    """``node``, or the component it names (drf-spectacular puts enums and nested serializers there)."""
    ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
    return components[ref.rsplit("/", 1)[1]] if ref else node


def test_the_computer_players_fields_are_described(schema):
    components = schema["components"]["schemas"]
    create = components["GameCreateRequest"]["properties"]
    assert (create["computer_players"]["type"], create["computer_players"]["minimum"],
            create["computer_players"]["maximum"]) == ("integer", 0, 3)
    assert _resolved(components, create["computer_level"])["enum"] == ["random", "strong", "expert"]
    view = components["GameView"]["properties"]
    assert view["rated"]["type"] == "boolean" and "rated" in components["GameView"]["required"]
    level = view["computer_level"]
    assert level["nullable"] is True
    assert _resolved(components, level["oneOf"][0])["enum"] == ["random", "strong", "expert"]
    assert components["SeatView"]["properties"]["computer"]["type"] == "boolean"
    assert components["SummarySeat"]["properties"]["computer"]["type"] == "boolean"
    assert components["GameSummary"]["properties"]["rated"]["type"] == "boolean"
    responses = by_id(schema, "games_move")["responses"]["403"]["content"]["application/problem+json"]
    assert "computer_seat" in str(responses["examples"])


def test_the_schema_says_which_operations_anyone_may_call(schema):
    """Per operation: ``{}`` among the security requirements exactly for the public reads (and the open
    operations); their 401 is a bad token only; every write needs a token or the session."""
    public = set()
    for _path, method, operation in operations(schema):
        name, security = operation["operationId"], operation.get("security", [])
        if {} in security:
            public.add(name)
            assert method == "get" or name in OPEN, name
        if name in PUBLIC_READS:
            assert {"tokenAuth": []} in security and {"cookieAuth": []} in security, name
            unauthorized = operation["responses"]["401"]
            assert unauthorized["description"].startswith("`authentication_failed`"), name
            examples = unauthorized["content"]["application/problem+json"].get("examples", {})
            assert all(e["value"]["code"] == "authentication_failed" for e in examples.values()), name
            assert "Public: no token needed" in operation["description"], name
    assert public - OPEN == PUBLIC_READS, "a new public read? list it in PUBLIC_READS (and docs/api.md)"


def test_the_analysis_endpoints_are_described(schema):
    read, request = by_id(schema, "games_analysis_read"), by_id(schema, "games_analysis_request")
    assert {"200", "202", "404", "409"} <= set(read["responses"])
    assert {"200", "202", "401", "409", "429"} <= set(request["responses"])
    components = schema["components"]["schemas"]
    move = components["AnalysisMove"]["properties"]
    assert {"version", "seat", "player", "played", "legal", "best", "loss", "label", "forced"} <= set(move)
    player = components["AnalysisPlayer"]["properties"]
    assert {"seat", "player", "decisions", "average_loss", "inaccuracies", "mistakes", "blunders"} <= set(player)


CHALLENGE_OPERATIONS = {"challenges_create", "challenges_list", "challenges_retrieve", "challenges_accept",
                        "challenges_decline", "challenges_cancel"}


def test_the_challenges_are_in_the_schema(schema):
    ids = {op["operationId"]: (path, method, op) for path, method, op in operations(schema)}
    assert CHALLENGE_OPERATIONS <= set(ids)
    assert ids["challenges_create"][:2] == ("/api/challenges/", "post")
    assert ids["challenges_accept"][:2] == ("/api/challenges/{challenge_id}/accept/", "post")
    components = schema["components"]["schemas"]
    challenge = components["Challenge"]["properties"]
    assert {"id", "status", "challenger", "opponents", "ruleset", "seats", "options", "rated", "expires_at", "link",
            "game"} <= set(challenge)
    assert components["ChallengeStatusEnum"]["enum"] == ["open", "accepted", "declined", "cancelled", "expired"]
    assert set(components["ChallengeCreateRequest"]["properties"]) >= {"opponents", "ruleset", "seats", "options",
                                                                        "rated"}
    assert components["ChallengeCreateRequest"]["additionalProperties"] is False
    assert {"generic", "later", "ruleset", "rated", "casual"} <= set(components["DeclineReasonEnum"]["enum"])
    for name in ("challenges_accept", "challenges_cancel", "challenges_decline"):
        problems = ids[name][2]["responses"]["409"]["content"]["application/problem+json"]["examples"]
        assert {"challenge_not_open", "challenge_expired"} <= {e["value"]["code"] for e in problems.values()}, name
    created = ids["challenges_create"][2]["responses"]
    codes = {e["value"]["code"] for status in ("409", "422") for e in
             created[status]["content"]["application/problem+json"]["examples"].values()}
    assert {"cannot_challenge_self", "unknown_player", "too_many_challenges", "bot_declines_ruleset"} <= codes


def test_the_challenge_operations_answer_as_the_schema_says(schema, token_client_pair):
    """A generated client's view: each challenge operation's answer has the schema's fields and status."""
    ann, ben = token_client_pair
    fields = set(schema["components"]["schemas"]["Challenge"]["properties"])
    created = ann.post("/api/challenges/", {"opponents": ["ben"], "ruleset": "goat-classic"}, format="json")
    assert created.status_code == 201 and set(created.json()) == fields
    challenge_id = created.json()["id"]
    listed = ben.get("/api/challenges/?direction=in")
    assert listed.status_code == 200 and set(listed.json()["results"][0]) == fields
    assert set(ben.get(f"/api/challenges/{challenge_id}/").json()) == fields
    declined = ben.post(f"/api/challenges/{challenge_id}/decline/", {"reason": "later"}, format="json")
    assert declined.status_code == 200 and set(declined.json()) == fields
    again = ann.post("/api/challenges/", {"opponents": ["ben"], "ruleset": "goat-classic"}, format="json").json()
    assert set(ann.post(f"/api/challenges/{again['id']}/cancel/").json()) == fields
    third = ann.post("/api/challenges/", {"opponents": ["ben"], "ruleset": "goat-classic"}, format="json").json()
    accepted = ben.post(f"/api/challenges/{third['id']}/accept/", {}, format="json")
    assert accepted.status_code == 200 and set(accepted.json()) == fields and accepted.json()["game"]


def test_the_bot_operations_are_in_the_schema(schema):
    upgrade = by_id(schema, "bot_account_upgrade")
    assert {"200", "401", "409", "429"} <= set(upgrade["responses"])
    assert schema["components"]["schemas"]["BotUpgradeRequest"]["additionalProperties"] is False
    stream = schema["paths"]["/api/bot/stream/events/"]["get"]
    assert stream["operationId"] == "bot_stream_events"
    assert set(stream["responses"]["200"]["content"]) == {"application/x-ndjson"}
    kinds = stream["responses"]["200"]["content"]["application/x-ndjson"]["schema"]["properties"]["kind"]["enum"]
    assert kinds == ["challenge", "game_start", "game_finish"]
    assert "403" in stream["responses"]
    feed = schema["paths"]["/api/stream/"]["get"]["responses"]["200"]["content"]["application/x-ndjson"]["schema"]
    assert "challenge" in feed["properties"]["kind"]["enum"]
    for component in ("SeatView", "SummarySeat"):
        assert "bot" in schema["components"]["schemas"][component]["properties"], component
    assert "bot" in schema["components"]["schemas"]["PublicProfile"]["properties"]
