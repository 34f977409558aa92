"""Authorization matrix: every endpoint x {anonymous, seated player, other player, staff}.

One row per (method, path); the expected status for each caller. "staff" is a staff account with
the ``goat.audit_game`` permission (staff without it: tests/goat/test_admin_audit.py). Objects:
``{running}`` a running game where "player" has seat 0, ``{waiting}`` a waiting game created by
the other player, ``{finished}`` a game the player resigned, ``{tournament}`` a scheduled swiss.
Write endpoints are called with a body that would succeed, so a 2xx proves the right was granted
and a 401/403 that it was refused before anything happened.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "player", "other", "staff")
START = (timezone.now() + timedelta(days=3)).isoformat()
TOURNAMENT_BODY = {"name": "Matrix cup", "ruleset": "goat-classic", "format": "swiss", "rounds": 1,
                   "table_size": 2, "starts_at": START, "max_players": 8}

#: (method, path, body, {role: status})
MATRIX = [
    ("get", "/api/schema/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    ("get", "/api/docs/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    ("get", "/health/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    ("post", "/api/players/", {"username": "{role}-new", "password": "a fine long password"},
     dict(anonymous=201, player=201, other=201, staff=201)),
    ("post", "/api/auth/token/", {"username": "mx-player", "password": "pw-pw-pw-pw-"},
     dict(anonymous=200, player=200, other=200, staff=200)),
    ("get", "/api/players/me/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/players/mx-other/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/players/mx-other/ratings/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/games/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("post", "/api/games/", {"ruleset": "goat-classic", "seats": 2},
     dict(anonymous=401, player=201, other=201, staff=201)),
    ("get", "/api/games/{running}/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("post", "/api/games/{waiting}/join/", {}, dict(anonymous=401, player=200, other=409, staff=200)),
    ("post", "/api/games/{running}/moves/", {"tile": "{lead}"},
     dict(anonymous=401, player=201, other=403, staff=403)),
    ("post", "/api/games/{running}/resign/", None, dict(anonymous=401, player=200, other=403, staff=403)),
    ("get", "/api/games/{running}/events/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/games/{running}/scoresheet/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/games/{running}/replay/", None, dict(anonymous=401, player=409, other=409, staff=200)),
    ("get", "/api/games/{running}/verify/", None, dict(anonymous=401, player=409, other=409, staff=200)),
    ("get", "/api/games/{finished}/replay/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/games/{finished}/verify/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/leaderboards/ratings/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/leaderboards/skill/?ruleset=goat-classic", None,
     dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/api/tournaments/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("post", "/api/tournaments/", TOURNAMENT_BODY, dict(anonymous=401, player=403, other=403, staff=201)),
    ("get", "/api/tournaments/{tournament}/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("post", "/api/tournaments/{tournament}/registration/", None,
     dict(anonymous=401, player=201, other=201, staff=201)),
    ("delete", "/api/tournaments/{tournament}/registration/", None,
     dict(anonymous=401, player=404, other=404, staff=404)),
    ("get", "/api/tournaments/{tournament}/standings/", None, dict(anonymous=401, player=200, other=200, staff=200)),
    ("get", "/leaderboards/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    ("get", "/tournaments/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    ("get", "/tournaments/{tournament}/", None, dict(anonymous=200, player=200, other=200, staff=200)),
    # admin: anonymous is sent to the login page; players are not staff (the login page again)
    ("get", "/admin/goat/game/{finished}/replay/", None, dict(anonymous=302, player=302, other=302, staff=200)),
    ("get", "/admin/goat/game/{finished}/verify/", None, dict(anonymous=302, player=302, other=302, staff=405)),
    ("post", "/admin/goat/game/{finished}/verify/", {}, dict(anonymous=302, player=302, other=302, staff=302)),
    ("get", "/admin/goat/game/{finished}/export/events.json", None,
     dict(anonymous=302, player=302, other=302, staff=200)),
    ("get", "/admin/goat/game/{finished}/export/scoresheet.csv", None,
     dict(anonymous=302, player=302, other=302, staff=200)),
    ("get", "/admin/goat/gameevent/", None, dict(anonymous=302, player=302, other=302, staff=200)),
]


@pytest.fixture
def world(django_user_model):
    player = django_user_model.objects.create_user(username="mx-player", password="pw-pw-pw-pw-")
    other = django_user_model.objects.create_user(username="mx-other", password="pw-pw-pw-pw-")
    mate = django_user_model.objects.create_user(username="mx-mate", password="pw-pw-pw-pw-")
    staff = django_user_model.objects.create_user(username="mx-staff", password="pw-pw-pw-pw-", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="audit_game"),
                               *Permission.objects.filter(codename__in=["view_game", "view_gameevent"]))
    running = services.game_create(player=player, ruleset="goat-classic", seats=2)
    services.game_join(game_id=running.pk, player=mate)
    for _ in range(30):  # deal until "player" (seat 0) is the one to lead
        if Game.objects.get(pk=running.pk).turn == 0:
            break
        running = services.game_create(player=player, ruleset="goat-classic", seats=2)
        services.game_join(game_id=running.pk, player=mate)
    assert Game.objects.get(pk=running.pk).turn == 0
    waiting = services.game_create(player=other, ruleset="goat-classic", seats=4)
    finished = services.game_create(player=player, ruleset="goat-classic", seats=2)
    services.game_join(game_id=finished.pk, player=mate)
    services.game_resign(game_id=finished.pk, player=player)
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Matrix", ruleset="goat-classic", format="swiss", table_size=2, rounds=1,
        starts_at=timezone.now() + timedelta(days=1), max_players=16)
    must_lead = eventstore.state_load(Game.objects.get(pk=running.pk)).table.must_lead
    return {"users": {"player": player, "other": other, "staff": staff},
            "ids": {"running": running.pk, "waiting": waiting.pk, "finished": finished.pk,
                    "tournament": tournament.pk, "lead": tile_str(must_lead) if must_lead else "0-0"}}


def client_as(role: str, world) -> APIClient:
    client = APIClient()
    if role in ("player", "other"):
        user = world["users"][role]
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        client.force_login(user)  # a session too: the admin and the pages see the same person
    elif role == "staff":
        client.force_login(world["users"]["staff"])
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
    url = fill(path, role, world["ids"])
    kwargs = {"format": "json"} if body is not None else {}
    response = getattr(client, method)(url, fill(body, role, world["ids"]), **kwargs) if body is not None \
        else getattr(client, method)(url)
    assert response.status_code == expected[role], (role, method, url, response.content[:300])
    if url.startswith("/api/") and response.status_code >= 400:
        assert response["Content-Type"].startswith("application/problem+json")
