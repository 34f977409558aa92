"""The OpenAPI document of the challenges API (challenges.api.views): each view's operation, with
examples of the challenge and of the problems each operation answers."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema

from goat.games.api.examples import GAME_EXAMPLE
from goat.games.api.stream_schema import stream_operation
from goat.games.errors import GameError, RulesRefusal
from goat.games.signals import SEAT_REFUSALS
from goat.players.errors import PlayerError
from goat.web.api.problems import problem_example, problem_responses
from goat.web.api.schema import (
    COMMON_PROBLEMS,
    ID_SCHEMA,
    IDEMPOTENCY_KEY,
    IN_PROGRESS,
    KEY_REUSED,
    THROTTLED,
    UNAUTHENTICATED,
    raises,
)
from goat.web.errors import WebError

from .. import bots, selectors, services
from ..errors import ChallengeError
from .serializers import (
    BotSerializer,
    BotUpgradeSerializer,
    ChallengeAcceptSerializer,
    ChallengeCreateSerializer,
    ChallengeDeclineSerializer,
    ChallengeListQuerySerializer,
    ChallengeSerializer,
)

CHALLENGE_ID = OpenApiParameter("challenge_id", ID_SCHEMA, OpenApiParameter.PATH, description="The challenge's id.")

CHALLENGE_EXAMPLE = {
    "id": 17, "status": "open", "challenger": "masha", "challenger_bot": False,
    "opponents": [{"player": "petya", "answer": "pending", "named": True, "reason": None, "bot": False}],
    "ruleset": "goat-classic", "seats": 2,
    "options": GAME_EXAMPLE["options"],
    "rated": True, "seating": "random", "private": False, "created_at": "2026-12-06T10:00:00Z",
    "expires_at": "2026-12-06T11:00:00Z", "link": None, "code": None, "game": None, "again_of": None,
}
OPEN_EXAMPLE = {**CHALLENGE_EXAMPLE, "id": 18, "opponents": [], "private": True,
                "link": "https://goat.example/play/c/7dQ2mZ0Yb8wLr1sXk3PfA9tVh4uN6eJc/",
                "code": "7dQ2mZ0Yb8wLr1sXk3PfA9tVh4uN6eJc"}
STARTED_EXAMPLE = {**CHALLENGE_EXAMPLE, "status": "accepted", "game": 42,
                   "opponents": [{**CHALLENGE_EXAMPLE["opponents"][0], "answer": "accepted"}]}
DECLINED_EXAMPLE = {**CHALLENGE_EXAMPLE, "status": "declined",
                    "opponents": [{**CHALLENGE_EXAMPLE["opponents"][0], "answer": "declined", "reason": "later"}]}

NOT_FOUND = problem_example(404, "not_found", selectors.NOT_FOUND)
NOT_OPEN = problem_example(409, "challenge_not_open", services.NOT_OPEN)
EXPIRED = problem_example(409, "challenge_expired", services.EXPIRED)

challenges_create = extend_schema(
    operation_id="challenges_create",
    summary="Challenge players",
    description="Challenge the named players (`opponents`, up to 3) to a game, or make an open challenge "
                "(no opponents) whose seats anyone holding its `link` takes: the answer's `link` and `code` are "
                "yours to share. Seats beyond the named players are taken by the link's holders. The challenged "
                "hear of it on their feed (`challenge`) and the bot stream; it expires after "
                "`GOAT_CHALLENGE_MINUTES` (60 by default). `again_of`: play an ended game again with the same "
                "people (with `again_of` alone, a repeat by any player of that game answers 200 with the same "
                "challenge, accepted for them: the rematch through challenges; POST /api/games/{id}/rematch/ "
                "keeps working as before). Caps: 409 `too_many_challenges` beyond `GOAT_CHALLENGES_OPEN_OUT` "
                "open challenges of yours (10) or `GOAT_CHALLENGES_OPEN_IN` open challenges to answer of an "
                "opponent (20).",
    parameters=[IDEMPOTENCY_KEY],
    request=ChallengeCreateSerializer,
    responses={201: ChallengeSerializer, 200: ChallengeSerializer, **problem_responses(400, 401, 403, 409, 422, 429)},
    examples=[
        OpenApiExample("a friend", request_only=True, value={"opponents": ["petya"], "ruleset": "goat-classic",
                                                           "seats": 2, "rated": True}),
        OpenApiExample("an open table by link", request_only=True,
                       value={"opponents": [], "ruleset": "domino-3rounds", "seats": 3, "rated": False}),
        OpenApiExample("again, with the same people", request_only=True, value={"again_of": 42}),
        OpenApiExample("goat-pairs: a partner and the other pair", request_only=True,
                       value={"ruleset": "goat-pairs", "seats": 4, "partner": "olya", "opponents": ["petya", "kolya"]}),
        OpenApiExample("created", value=CHALLENGE_EXAMPLE, response_only=True, status_codes=["201"]),
        OpenApiExample("created, by link", value=OPEN_EXAMPLE, response_only=True, status_codes=["201"]),
        problem_example(422, "cannot_challenge_self", services.SELF, {"opponents": [str(services.SELF)]}),
        problem_example(422, "unknown_player", services.UNKNOWN_PLAYER.format(name="nobody"),
                        {"opponents": [services.UNKNOWN_PLAYER.format(name="nobody")]}),
        problem_example(422, "too_many_opponents", services.TOO_MANY_OPPONENTS.format(seats=2, room=1, count=2)),
        problem_example(422, "account_closed", services.CLOSED_ACCOUNT.format(name="vasya")),
        problem_example(422, "bot_declines_ruleset", "goatbot is a bot that does not play goat-gamesburg."),
        problem_example(409, "too_many_challenges", services.TOO_MANY_OUT.format(limit=10)),
        UNAUTHENTICATED, KEY_REUSED, IN_PROGRESS, THROTTLED,
    ],
    extensions=raises((PlayerError.COMPUTER_PLAYER, 403), (PlayerError.COMPUTER_PLAYER, 422), GameError.NOT_SEATED,
                      RulesRefusal.INVALID_OPTIONS, ChallengeError.UNKNOWN_PLAYER, ChallengeError.CANNOT_CHALLENGE_SELF,
                      ChallengeError.ACCOUNT_CLOSED, ChallengeError.TOO_MANY_OPPONENTS,
                      ChallengeError.BOT_DECLINES_RULESET, ChallengeError.TOO_MANY_CHALLENGES),
    tags=["challenges"],
)

challenges_list = extend_schema(
    operation_id="challenges_list",
    summary="My challenges",
    description="Your challenges, newest first: `direction=in` those that name you (or that you joined by "
                "link), `out` yours, neither both; `status` as every read shows it (an open challenge past its "
                "time is `expired`).",
    parameters=[ChallengeListQuerySerializer],
    responses={200: ChallengeSerializer(many=True), **problem_responses(400, 401, 404, 429)},
    examples=[OpenApiExample("challenges", value=CHALLENGE_EXAMPLE, response_only=True, status_codes=["200"]),
              UNAUTHENTICATED, THROTTLED],
    tags=["challenges"],
)

challenges_retrieve = extend_schema(
    operation_id="challenges_retrieve",
    summary="A challenge",
    description="The challenge, to its challenger, the players it names (or who joined by link) and staff; "
                "404 to anyone else.",
    parameters=[CHALLENGE_ID],
    responses={200: ChallengeSerializer, **problem_responses(401, 404, 429)},
    examples=[OpenApiExample("challenge", value=CHALLENGE_EXAMPLE, response_only=True, status_codes=["200"]),
              UNAUTHENTICATED, NOT_FOUND, THROTTLED],
    tags=["challenges"],
)

challenges_accept = extend_schema(
    operation_id="challenges_accept",
    summary="Accept a challenge",
    description="A named opponent accepts; anyone holding an open challenge's link takes a seat with "
                "`{\"code\"}` (wrong codes are throttled: 429). When every seat is accepted the game starts "
                "with exactly these players and `game` names it. A repeat of your own accept changes nothing.",
    parameters=[CHALLENGE_ID],
    request=ChallengeAcceptSerializer,
    responses={200: ChallengeSerializer, **problem_responses(401, 403, 404, 409, 422, 429)},
    examples=[
        OpenApiExample("by link", request_only=True, value={"code": OPEN_EXAMPLE["code"]}),
        OpenApiExample("the game started", value=STARTED_EXAMPLE, response_only=True, status_codes=["200"]),
        NOT_OPEN, EXPIRED,
        problem_example(409, "challenge_full", services.FULL),
        problem_example(403, "challenge_code_wrong", services.CODE_WRONG),
        problem_example(422, "cannot_challenge_self", services.SELF),
        UNAUTHENTICATED, NOT_FOUND, THROTTLED,
    ],
    extensions=raises(ChallengeError.CHALLENGE_CODE_WRONG, ChallengeError.CHALLENGE_EXPIRED,
                      ChallengeError.CHALLENGE_NOT_OPEN, ChallengeError.CHALLENGE_FULL,
                      ChallengeError.CANNOT_CHALLENGE_SELF, ChallengeError.BOT_DECLINES_RULESET, SEAT_REFUSALS),
    tags=["challenges"],
)

challenges_decline = extend_schema(
    operation_id="challenges_decline",
    summary="Decline a challenge",
    description="A named opponent declines, with a reason; the challenge is then `declined` for everyone. "
                "The answer tells nothing of the challenger's other challenges or games.",
    parameters=[CHALLENGE_ID],
    request=ChallengeDeclineSerializer,
    responses={200: ChallengeSerializer, **problem_responses(401, 403, 404, 409, 429)},
    examples=[
        OpenApiExample("later", request_only=True, value={"reason": "later"}),
        OpenApiExample("declined", value=DECLINED_EXAMPLE, response_only=True, status_codes=["200"]),
        problem_example(403, "permission_denied", services.NOT_NAMED),
        NOT_OPEN, EXPIRED, UNAUTHENTICATED, NOT_FOUND, THROTTLED,
    ],
    extensions=raises(ChallengeError.CHALLENGE_EXPIRED, ChallengeError.CHALLENGE_NOT_OPEN),
    tags=["challenges"],
)

challenges_cancel = extend_schema(
    operation_id="challenges_cancel",
    summary="Cancel your challenge",
    description="The challenger withdraws an open challenge: `cancelled`.",
    parameters=[CHALLENGE_ID],
    request=None,
    responses={200: ChallengeSerializer, **problem_responses(401, 403, 404, 409, 429)},
    examples=[
        OpenApiExample("cancelled", value={**CHALLENGE_EXAMPLE, "status": "cancelled"}, response_only=True,
                       status_codes=["200"]),
        problem_example(403, "permission_denied", services.NOT_CHALLENGER),
        NOT_OPEN, EXPIRED, UNAUTHENTICATED, NOT_FOUND, THROTTLED,
    ],
    extensions=raises(ChallengeError.CHALLENGE_EXPIRED, ChallengeError.CHALLENGE_NOT_OPEN),
    tags=["challenges"],
)

bot_upgrade = extend_schema(
    operation_id="bot_account_upgrade",
    summary="Turn your account into a bot's",
    description="Irreversible. Only for an account that has played no game (409 `account_has_games`). A bot plays "
                "through challenges only (it creates and joins no game of the lobby and registers for no tournament: "
                "403 `bot_account`), hears of them on `GET /api/bot/stream/events/`, and is marked `\"bot\": true` on "
                "its profile, its seats and every list. `rulesets`: those it accepts challenges for (empty: all; a "
                "challenge for another is 422 `bot_declines_ruleset`). A repeat answers 200 with the bot, its "
                "`rulesets` replaced when given.",
    request=BotUpgradeSerializer,
    responses={200: BotSerializer, **problem_responses(400, 401, 403, 409, 429)},
    examples=[
        OpenApiExample("rulesets", request_only=True, value={"rulesets": ["goat-classic", "domino-3rounds"]}),
        OpenApiExample("a bot", response_only=True, status_codes=["200"],
                       value={"username": "goatbot", "bot": True, "rulesets": ["goat-classic"],
                              "upgraded_at": "2026-12-06T10:00:00Z"}),
        problem_example(409, "account_has_games", bots.HAS_GAMES),
        UNAUTHENTICATED, THROTTLED,
    ],
    extensions=raises(PlayerError.COMPUTER_PLAYER, ChallengeError.ACCOUNT_HAS_GAMES),
    tags=["bots"],
)


def bot_stream_postprocessing_hook(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS entry: ``GET /api/bot/stream/events/`` (challenges/streams.py)."""
    operation = stream_operation(
        "bot_stream_events", "A bot's events",
        "For bot accounts (403 `not_a_bot` otherwise). NDJSON only, one message per line with its name in `kind`: "
        "first a `challenge` (`event: created`) for each open challenge waiting for the bot's answer and a "
        "`game_start` for each of its running games, then as they happen `challenge` `{event, by, challenge}`, "
        "`game_start` `{game}`, `game_finish` `{game, result}`. Follow each game on its own stream and move with "
        "`POST /api/games/{id}/moves/`, as anyone.",
        [], {400: COMMON_PROBLEMS[400], 401: COMMON_PROBLEMS[401],
             403: "`not_a_bot`: the account is not a bot's (POST /api/bot/account/upgrade/ first).",
             429: "`too_many_streams`: this token holds the limit of open streams (Retry-After says when to try "
                  "again)."},
        ["challenge", "game_start", "game_finish"], False,
        codes=(ChallengeError.NOT_A_BOT, WebError.TOO_MANY_STREAMS))
    del operation["get"]["responses"]["200"]["content"]["text/event-stream"]
    operation["get"]["tags"] = ["bots"]
    result.setdefault("paths", {})["/api/bot/stream/events/"] = operation
    return result
