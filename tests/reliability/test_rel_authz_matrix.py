"""Authorization matrix: every endpoint x {anonymous, seated player, other player, staff, staff
player, auditor player}.

One row per (method, path); the expected status for each caller. "staff" is a staff account with
the ``goat.audit_game`` permission that holds no seat (staff without it: tests/games/test_admin_audit.py).
"staff_player" is a staff account without that permission and "auditor_player" one with it, each
holding seat 0 of a running game of its own: a seat takes the auditor's unredacted view away
(docs/api.md), so both are refused replay and verify of that game like any player.
Objects: ``{running}`` a running game where the caller has seat 0 (for "other", "staff" and
"anonymous": the one where "player" has it), ``{deal}`` its first ``round_dealt`` event, ``{waiting}``
a waiting game created by the other player, ``{finished}`` a game the player resigned,
``{tournament}`` a scheduled swiss. Reads of public things need no login (docs/api.md "Anonymous reads"):
anonymous reads them as a spectator without a seat, which the last test checks field by field. Write
endpoints are called with a body that would succeed, so a 2xx proves the right was granted and a
401/403 that it was refused before anything happened.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game, GameEvent
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "player", "other", "staff", "staff_player", "auditor_player")
SEATED = ("player", "staff_player", "auditor_player")
START = (timezone.now() + timedelta(days=3)).isoformat()
TOURNAMENT_BODY = {"name": "Matrix cup", "ruleset": "goat-classic", "format": "swiss", "rounds": 1,
                   "table_size": 2, "starts_at": START, "max_players": 8}

def expect(anonymous, player, other, staff, staff_player, auditor_player) -> dict[str, int]:
    return dict(anonymous=anonymous, player=player, other=other, staff=staff, staff_player=staff_player,
                auditor_player=auditor_player)


#: (method, path, body, {role: status})
MATRIX = [
    ("get", "/api/schema/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/docs/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/health/", None, expect(200, 200, 200, 200, 200, 200)),
    ("post", "/api/players/", {"username": "{role}-new", "password": "a fine long password"},
     expect(201, 201, 201, 201, 201, 201)),
    ("post", "/api/auth/token/", {"username": "mx-player", "password": "pw-pw-pw-pw-"},
     expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/players/me/", None, expect(401, 200, 200, 200, 200, 200)),
    ("get", "/api/players/me/games/", None, expect(401, 200, 200, 200, 200, 200)),
    # public reads (docs/api.md "Anonymous reads"): anonymous is a spectator without a seat
    ("get", "/api/players/mx-other/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/players/mx-other/ratings/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/games/", None, expect(200, 200, 200, 200, 200, 200)),
    ("post", "/api/games/", {"ruleset": "goat-classic", "seats": 2}, expect(401, 201, 201, 201, 201, 201)),
    ("get", "/api/games/{running}/", None, expect(200, 200, 200, 200, 200, 200)),
    ("post", "/api/games/{waiting}/join/", {}, expect(401, 200, 409, 200, 200, 200)),
    ("post", "/api/games/{running}/moves/", {"tile": "{lead}"}, expect(401, 201, 403, 403, 201, 201)),
    ("post", "/api/games/{running}/resign/", None, expect(401, 200, 403, 403, 200, 200)),
    ("get", "/api/games/{running}/events/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/games/{running}/scoresheet/", None, expect(200, 200, 200, 200, 200, 200)),
    # the full state of a running game: only an auditor without a seat at it
    ("get", "/api/games/{running}/replay/", None, expect(409, 409, 409, 200, 409, 409)),
    ("get", "/api/games/{running}/verify/", None, expect(409, 409, 409, 200, 409, 409)),
    ("get", "/api/games/{finished}/replay/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/games/{finished}/verify/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/leaderboards/ratings/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/leaderboards/skill/?ruleset=goat-classic", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/api/tournaments/", None, expect(200, 200, 200, 200, 200, 200)),
    ("post", "/api/tournaments/", TOURNAMENT_BODY, expect(401, 403, 403, 201, 201, 201)),
    ("get", "/api/tournaments/{tournament}/", None, expect(200, 200, 200, 200, 200, 200)),
    ("post", "/api/tournaments/{tournament}/registration/", None, expect(401, 201, 201, 201, 201, 201)),
    ("delete", "/api/tournaments/{tournament}/registration/", None, expect(401, 404, 404, 404, 404, 404)),
    ("get", "/api/tournaments/{tournament}/standings/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/leaderboards/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/tournaments/", None, expect(200, 200, 200, 200, 200, 200)),
    ("get", "/tournaments/{tournament}/", None, expect(200, 200, 200, 200, 200, 200)),
    # admin: anonymous is sent to the login page; players are not staff (the login page again); staff
    # without the audit permission get 403
    ("get", "/admin/goat/game/{finished}/replay/", None, expect(302, 302, 302, 200, 403, 200)),
    ("get", "/admin/goat/game/{finished}/verify/", None, expect(302, 302, 302, 405, 403, 405)),
    ("post", "/admin/goat/game/{finished}/verify/", {}, expect(302, 302, 302, 302, 403, 302)),
    ("get", "/admin/goat/game/{finished}/export/events.json", None, expect(302, 302, 302, 200, 403, 200)),
    ("get", "/admin/goat/game/{finished}/export/scoresheet.csv", None, expect(302, 302, 302, 200, 403, 200)),
    ("get", "/admin/goat/gameevent/", None, expect(302, 302, 302, 200, 403, 200)),
    # a running game's hidden information in the admin: an auditor, but not one seated at it
    ("get", "/admin/goat/game/{running}/replay/", None, expect(302, 302, 302, 200, 403, 403)),
    ("get", "/admin/goat/game/{running}/export/events.json", None, expect(302, 302, 302, 200, 403, 403)),
    ("get", "/admin/goat/gameevent/{deal}/change/", None, expect(302, 302, 302, 200, 403, 403)),
]


def running_game_led_by(player, mate) -> Game:
    """A running two-seat game where ``player`` holds seat 0 and is the one to lead."""
    for _ in range(30):
        game = services.game_create(player=player, ruleset="goat-classic", seats=2).game
        services.game_join(game_id=game.pk, player=mate)
        if Game.objects.get(pk=game.pk).turn == 0:
            return game
    raise AssertionError("seat 0 never led in 30 deals")


def seat_ids(game: Game) -> dict:
    game = Game.objects.get(pk=game.pk)
    must_lead = eventstore.state_load(game).table.must_lead
    deal = GameEvent.objects.filter(game=game, type="round_dealt").order_by("seq").first()
    return {"running": game.pk, "lead": tile_str(must_lead) if must_lead else "0-0", "deal": deal.pk}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The accounts, games and tournament every case reads, made once for the module in a transaction
    that is rolled back after its last test (as Django's ``setUpTestData``); each case's own writes
    roll back to them."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield make_world()
        transaction.set_rollback(True)


def make_world() -> dict:
    def make(name, **extra):
        return get_user_model().objects.create_user(username=name, password="pw-pw-pw-pw-", **extra)

    audit_perms = [Permission.objects.get(codename="audit_game"),
                   *Permission.objects.filter(codename__in=["view_game", "view_gameevent"])]
    player, other, mate = make("mx-player"), make("mx-other"), make("mx-mate")
    staff = make("mx-staff", is_staff=True)
    staff.user_permissions.add(*audit_perms)
    staff_player = make("mx-staff-player", is_staff=True)
    auditor_player = make("mx-auditor-player", is_staff=True)
    auditor_player.user_permissions.add(*audit_perms)
    users = {"player": player, "other": other, "staff": staff, "staff_player": staff_player,
             "auditor_player": auditor_player}
    waiting = services.game_create(player=other, ruleset="goat-classic", seats=4).game
    finished = services.game_create(player=player, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=finished.pk, player=mate)
    services.game_resign(game_id=finished.pk, player=player)
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Matrix", ruleset="goat-classic", format="swiss", table_size=2, rounds=1,
        starts_at=timezone.now() + timedelta(days=1), max_players=16)
    common = {"waiting": waiting.pk, "finished": finished.pk, "tournament": tournament.pk}
    seated = {role: {**common, **seat_ids(running_game_led_by(users[role], mate))} for role in SEATED}
    ids = {role: seated.get(role, seated["player"]) for role in ROLES}
    return {"users": users, "ids": ids}


def client_as(role: str, world) -> APIClient:
    client = APIClient()
    if role in ("player", "other"):
        user = world["users"][role]
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        client.force_login(user)  # a session too: the admin and the pages see the same person
    elif role == "staff":
        client.force_login(world["users"]["staff"])
    elif role in ("staff_player", "auditor_player"):  # token for the API, session for the admin
        user = world["users"][role]
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        client.force_login(user)
    return client


def fill(value, role: str, ids: dict):
    if isinstance(value, str):
        return value.format(role=role, **ids)
    if isinstance(value, dict):
        return {k: fill(v, role, ids) for k, v in value.items()}
    return value


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("method,path,body,expected", MATRIX, ids=[f"{m.upper()} {p}" for m, p, _b, _e in MATRIX])
def test_authorization_matrix(world, method, path, body, expected, role):
    client = client_as(role, world)
    ids = world["ids"][role]
    url = fill(path, role, ids)
    kwargs = {"format": "json"} if body is not None else {}
    response = getattr(client, method)(url, fill(body, role, ids), **kwargs) if body is not None \
        else getattr(client, method)(url)
    assert response.status_code == expected[role], (role, method, url, response.content[:300])
    if url.startswith("/api/") and response.status_code >= 400:
        assert response["Content-Type"].startswith("application/problem+json")


def test_an_anonymous_reader_sees_exactly_what_a_spectator_without_a_seat_sees(world):
    """The same selectors, the same redaction: anonymous and "other" (no seat) get the same answers for a
    running game, and neither holds a tile of any hand."""
    ids = world["ids"]["other"]
    anonymous, other = client_as("anonymous", world), client_as("other", world)
    for path in ("/api/games/{running}/", "/api/games/{running}/events/", "/api/games/{running}/scoresheet/",
                 "/api/games/?status=running"):
        url = fill(path, "other", ids)
        seen = [client.get(url).json() for client in (anonymous, other)]
        for body in seen:
            for row in [body, *body.get("results", [])]:
                row.pop("server_time", None)
                row.pop("remaining_ms", None)
        assert seen[0] == seen[1], url
    view = anonymous.get(fill("/api/games/{running}/", "other", ids)).json()
    assert view["your_seat"] is None and view["hand"] == [] and view["legal_moves"] == []
    deal = next(e for e in anonymous.get(fill("/api/games/{running}/events/", "other", ids)).json()["events"]
                if e["type"] == "round_dealt")
    assert all(isinstance(hand, int) for hand in deal["data"]["hands"]) and isinstance(deal["data"]["bazaar"], int)
