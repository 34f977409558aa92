"""The two per-move lookups sent as fixed SQL (goat.rows): the token and the locked game row.

They must answer exactly what the ORM answers. The comparisons with the ORM run on PostgreSQL, where
the fixed SQL is used (CI's PostgreSQL pass); the API-level checks run on every database.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from rest_framework.authtoken.models import Token

from goat import services
from goat.auth import TokenAuthentication
from goat.errors import ServiceError
from goat.models import Game
from goat.rows import RowModel

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql",
                                   reason="the fixed SQL is PostgreSQL's path; the ORM's is tested everywhere")


@pytest.fixture
def duo(django_user_model):
    return [django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben")]


def _fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def _assert_same(ours, orm):
    assert type(ours) is type(orm)
    a, b = _fields(ours), _fields(orm)
    assert a == b
    assert {k: type(v) for k, v in a.items()} == {k: type(v) for k, v in b.items()}
    assert ours._state.adding is False and ours._state.db == orm._state.db


# --- token authentication ---------------------------------------------------------------------


def test_a_token_authenticates_its_user(api_client, duo):
    token = Token.objects.create(user=duo[1])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.get("/api/players/me/")
    assert response.status_code == 200 and response.json()["username"] == "ben"


def test_an_unknown_token_is_refused_as_drf_refuses_it(api_client, duo):
    api_client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = api_client.get("/api/players/me/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert "Invalid token." in response.json()["detail"]


def test_a_deleted_token_stops_working_on_the_next_request(api_client, duo):
    token = Token.objects.create(user=duo[0])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api_client.get("/api/players/me/").status_code == 200
    token.delete()
    assert api_client.get("/api/players/me/").status_code == 401


def test_an_inactive_users_token_is_refused(api_client, duo):
    token = Token.objects.create(user=duo[0])
    duo[0].is_active = False
    duo[0].save()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.get("/api/players/me/")
    assert response.status_code == 401
    assert "User inactive or deleted." in response.json()["detail"]


@on_postgresql
def test_the_token_lookup_returns_what_the_orm_returns(duo):
    token = Token.objects.create(user=duo[1])
    user, found = TokenAuthentication().authenticate_credentials(token.key)
    orm = Token.objects.select_related("user").get(key=token.key)
    _assert_same(found, orm)
    _assert_same(user, orm.user)
    assert found.user is user  # the relation is cached, as select_related caches it


# --- the locked game row ----------------------------------------------------------------------


def _game(duo) -> Game:
    game = services.game_create(player=duo[0], ruleset="goat-classic", seats=2, options={"limit": 101})
    services.game_join(game_id=game.pk, player=duo[1])
    return game


@on_postgresql
@pytest.mark.parametrize("who", ["creator", "joiner", "stranger", "nobody"])
def test_the_locked_game_row_is_what_the_orm_locks(duo, django_user_model, who):
    game = _game(duo)
    services.game_resign(game_id=game.pk, player=duo[1])  # a result, an end time: every column filled
    player = {"creator": duo[0], "joiner": duo[1], "nobody": None,
              "stranger": django_user_model.objects.create_user(username="cy", password="x" * 12)}[who]
    with transaction.atomic():
        ours = services._lock_pg(game.pk, player)
        orm = services._lock_orm(game.pk, player)
    _assert_same(ours, orm)
    if player is not None:
        assert ours._player_seat == orm._player_seat == {"creator": 0, "joiner": 1, "stranger": None}[who]
    assert ours.result is not None and ours.ended_at is not None and bytes(ours.snapshot) == bytes(orm.snapshot)


@on_postgresql
def test_a_missing_game_is_none_on_both_paths(duo):
    with transaction.atomic():
        assert services._lock_pg(10**6, duo[0]) is None
        assert services._lock_orm(10**6, duo[0]) is None


@pytest.mark.parametrize("game_id", [10**6, 2**63, 10**30, 0, -1, "x", None])
def test_locking_a_game_that_is_not_there_is_not_found(duo, game_id):
    with transaction.atomic(), pytest.raises(ServiceError) as refused:
        services._locked_game(game_id, duo[0])
    assert refused.value.code == "not_found" and refused.value.status == 404


def test_a_move_on_a_game_id_beyond_bigint_is_not_found(api_client, duo):
    token = Token.objects.create(user=duo[0])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.post(f"/api/games/{10**30}/moves/", {"tile": "1-1"}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_row_model_applies_the_fields_converters():
    row = RowModel(Game, "g")
    assert row.names[0] == "id" and row.width == len(Game._meta.concrete_fields)
    assert {row.names[i] for i, _ in row.converters} == {"options", "result"}  # the JSON fields
