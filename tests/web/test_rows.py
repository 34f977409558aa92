"""The two per-move lookups sent as fixed SQL: the token (goat.web.api.auth) and the game's head with the
caller's seat (goat.games.eventstore.game_head, no lock).

They must answer exactly what the ORM answers. The token's fixed SQL is PostgreSQL's path (compared
there, in CI's PostgreSQL pass); the game head's one text runs on every database and is compared on each.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from goat.games import eventstore, services
from goat.games.models import Game
from goat.web.api.auth import TokenAuthentication
from goat.web.db.fixed_sql import RowModel
from goat.web.errors import ServiceError

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.database  # prepared statements and psycopg's own cursor are PostgreSQL's


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


def test_the_token_lookup_returns_what_the_orm_returns(duo):
    duo[1].last_login = timezone.now()  # a timestamp and booleans: SQLite's backend converts them
    duo[1].save()
    token = Token.objects.create(user=duo[1])
    user, found = TokenAuthentication().authenticate_credentials(token.key)
    orm = Token.objects.select_related("user").get(key=token.key)
    _assert_same(found, orm)
    _assert_same(user, orm.user)
    assert found.user is user  # the relation is cached, as select_related caches it


# --- the game head (no lock) -----------------------------------------------------------------


def _game(duo) -> Game:
    game = services.game_create(player=duo[0], ruleset="goat-classic", seats=2, options={"limit": 101}).game
    services.game_join(game_id=game.pk, player=duo[1])
    return game


@pytest.mark.parametrize("who", ["creator", "joiner", "stranger", "nobody"])
def test_the_loaded_game_row_is_what_the_orm_loads(duo, django_user_model, who):
    game = _game(duo)
    services.game_resign(game_id=game.pk, player=duo[1])  # a result, an end time: every column filled
    player = {"creator": duo[0], "joiner": duo[1], "nobody": None,
              "stranger": django_user_model.objects.create_user(username="cy", password="x" * 12)}[who]
    ours, seat, players = eventstore.game_head(game_id=game.pk, player_id=getattr(player, "pk", None))
    orm = Game.objects.get(pk=game.pk)
    _assert_same(ours, orm)
    assert seat == {"creator": 0, "joiner": 1, "stranger": None, "nobody": None}[who]
    held = dict(orm.seat_set.values_list("seat", "player_id"))
    assert players == tuple(held.get(s) for s in range(orm.seats)) == (duo[0].pk, duo[1].pk)
    assert ours.result is not None and ours.ended_at is not None and ours.snapshot == orm.snapshot
    loaded = services._load(game.pk, player)
    assert loaded.seat == seat and loaded.state == eventstore.state_rebuild(orm)


def test_a_missing_game_has_no_head(duo):
    assert eventstore.game_head(game_id=10**6, player_id=duo[0].pk) is None
    assert eventstore.game_load(game_id=10**6, player=duo[0]) is None


@pytest.mark.parametrize("game_id", [10**6, 2**63, 10**30, 0, -1, "x", None])
def test_loading_a_game_that_is_not_there_is_not_found(duo, game_id):
    with pytest.raises(ServiceError) as refused:
        services._load(game_id, duo[0])
    assert refused.value.code == "not_found" and refused.value.status == 404


def test_a_move_on_a_game_id_beyond_bigint_is_not_found(api_client, duo):
    token = Token.objects.create(user=duo[0])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.post(f"/api/games/{10**30}/moves/", {"tile": "1-1"}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_row_model_applies_the_fields_and_the_backends_converters():
    row = RowModel(Game, "g")
    assert row.names[0] == "id" and row.width == len(Game._meta.concrete_fields)
    converted = {row.names[i] for i, *_ in row.converters}
    assert {"options", "result"} <= converted  # the JSON fields' own converters, on every database
    if connection.vendor == "sqlite":  # and SQLite's for timestamps and booleans (PostgreSQL's driver types them)
        assert {"created_at", "deadline", "verification_ok"} <= converted


# --- the cursor for fixed SQL texts (prepared statements) -------------------------------------


def _prepared() -> list[str]:
    with connection.cursor() as cursor:  # Django's own cursor: its statements are never prepared
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        return [statement for (statement,) in cursor.fetchall()]


@on_postgresql
def test_the_fixed_texts_of_a_move_are_prepared_once_per_connection(api_client, duo):
    game = _game(duo)
    token = Token.objects.create(user=duo[0])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    for _ in range(3):
        assert api_client.get("/api/players/me/").status_code == 200
    for _ in range(6):  # psycopg prepares a text the fifth time it is sent (prepare_threshold)
        services._load(game.pk, duo[0])
    prepared = _prepared()
    lookups = [s for s in prepared if "authtoken_token" in s]
    heads = [s for s in prepared if "FROM \"goat_game\" g WHERE g.id" in s]
    assert len(lookups) == 1 and len(heads) == 1  # prepared once, then reused
    assert not [s for s in prepared if "FOR UPDATE" in s]  # a command takes no row lock
    assert "$1" in lookups[0] and "$2" in heads[0]  # the parameters travel apart from the text


@on_postgresql
def test_nothing_is_prepared_when_prepared_statements_are_off(duo):
    game = _game(duo)
    connection.ensure_connection()
    raw = connection.connection
    saved, raw.prepare_threshold = raw.prepare_threshold, None  # what DB_PREPARED_STATEMENTS=0 sets
    try:
        with connection.cursor() as cursor:
            cursor.execute("DEALLOCATE ALL")
        for _ in range(6):
            assert services._load(game.pk, duo[0]) is not None
        assert TokenAuthentication().authenticate_credentials(Token.objects.create(user=duo[1]).key)[0] == duo[1]
        assert _prepared() == []
    finally:
        raw.prepare_threshold = saved


@on_postgresql
def test_the_fixed_cursor_refuses_a_transaction_marked_for_rollback(duo):
    from django.db.transaction import TransactionManagementError

    from goat.web.db.fixed_sql import fixed_cursor

    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError), fixed_cursor() as cursor:
            cursor.execute("SELECT 1")
        transaction.set_rollback(False)


@on_postgresql
def test_the_fixed_cursor_raises_database_errors_as_djangos():
    from django.db import ProgrammingError

    from goat.web.db.fixed_sql import fixed_cursor

    with pytest.raises(ProgrammingError), transaction.atomic(), fixed_cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table_here", prepare=True)


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_dropped_is_replaced_before_the_token_lookup(duo):
    # As Django's cursor does with CONN_HEALTH_CHECKS: the first query of a request checks the
    # connection and reconnects if the server has gone away (a restart, an idle timeout).
    import psycopg

    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    token = Token.objects.create(user=duo[0])
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None), params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    connection.close_if_unusable_or_obsolete()  # what Django runs as a request ends (arms the check)
    user, _ = TokenAuthentication().authenticate_credentials(token.key)
    assert user == duo[0]


@pytest.mark.parametrize(("value", "threshold"), [("", "5"), ("1", "5"), ("0", "None")])
def test_prepared_statements_follow_the_environment(value, threshold):
    import os
    import subprocess
    import sys

    env = {**os.environ, "DATABASE_URL": "postgres://goat@127.0.0.1:9/goat", "DB_PREPARED_STATEMENTS": value,
           "DJANGO_SETTINGS_MODULE": "goat.settings"}
    code = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS']['prepare_threshold'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == threshold
