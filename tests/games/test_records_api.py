"""The signed record of a stored game and the published keys (docs/records.md, docs/api.md "Game records")."""

from __future__ import annotations

import dataclasses
import json
import os
import stat

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from factories import finished_game, make_players, start_game

from apitest import assert_problem, token_client
from goat.engine import records
from goat.games import eventstore
from goat.games.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return make_players("ann", "ben", "cat")


def ended(players) -> int:
    return finished_game(players, ruleset="goat-gamesburg").pk


@pytest.fixture(autouse=True)
def keyring(settings, tmp_path):
    settings.GOAT_SIGNING_KEYRING = str(tmp_path / "keys" / "signing_keys.json")
    return settings.GOAT_SIGNING_KEYRING


def test_an_ended_games_record_verifies_against_the_published_keys(players, api_client):
    gid = ended(players)

    response = api_client.get(f"/api/games/{gid}/record/")
    keys = api_client.get("/api/keys/").json()

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == f'inline; filename="goat-game-{gid}.txt"'
    report = records.verify_record(response.content.decode("utf-8"), keys)
    game = Game.objects.get(pk=gid)
    assert report["result"] == game.result
    assert report["headers"]["Game"] == gid and report["headers"]["Rated"] is True
    assert report["headers"]["Commitment"] == game.server_seed_commitment
    assert [report["headers"][f"Player{s}"] for s in range(3)] == ["ann", "ben", "cat"]
    assert report["key"] == keys[0]["id"]


def test_a_running_games_record_cannot_be_had(players, django_user_model):
    gid = start_game(players).pk
    auditor = django_user_model.objects.create_user(username="auditor", password="x" * 12, is_staff=True)
    auditor.user_permissions.add(Permission.objects.get(codename="audit_game"))

    assert_problem(token_client(players[0]).get(f"/api/games/{gid}/record/"), 409, "game_not_ended")
    # not even an auditor's: the seed that proves the deals is still secret; the problem is JSON whatever is asked
    assert_problem(token_client(auditor).get(f"/api/games/{gid}/record/", HTTP_ACCEPT="text/plain"),
                   409, "game_not_ended")
    assert_problem(token_client(players[0]).get("/api/games/999999/record/"), 404, "not_found")


def test_a_game_whose_stored_events_do_not_verify_has_no_record(players, api_client, monkeypatch):
    gid = ended(players)
    load = eventstore.events_load

    def altered(**kwargs):
        events = load(**kwargs)
        events[-1] = dataclasses.replace(events[-1], data={"server_seed": "0" * 64})  # opens no commitment
        return events

    monkeypatch.setattr(eventstore, "events_load", altered)
    assert_problem(api_client.get(f"/api/games/{gid}/record/"), 409, "game_not_recordable")


def test_the_keyring_is_created_once_private_and_never_published(api_client, keyring):
    first = api_client.get("/api/keys/").json()
    again = api_client.get("/api/keys/").json()

    assert first == again and len(first) == 1
    assert set(first[0]) == {"id", "public_key", "algorithm", "valid_from", "valid_until"}
    assert first[0]["algorithm"] == "ed25519" and first[0]["valid_until"] is None
    assert stat.S_IMODE(os.stat(keyring).st_mode) == 0o600
    with open(keyring, encoding="utf-8") as fh:
        assert "private_key" in json.load(fh)["keys"][0]


def test_rotation_keeps_old_records_verifiable(players, api_client, capsys, keyring):
    gid = ended(players)
    old_record = api_client.get(f"/api/games/{gid}/record/").content.decode()
    old_key = api_client.get("/api/keys/").json()[0]

    call_command("signing_keys", "--rotate")
    assert "retired " + old_key["id"] in capsys.readouterr().out
    keys = api_client.get("/api/keys/").json()
    new_record = api_client.get(f"/api/games/{gid}/record/").content.decode()

    assert [k["id"] for k in keys][0] == old_key["id"] and len(keys) == 2 and keys[0]["id"] != keys[1]["id"]
    assert keys[0]["valid_until"] == keys[1]["valid_from"] and keys[1]["valid_until"] is None
    assert records.verify_record(old_record, keys)["key"] == old_key["id"]
    assert records.verify_record(new_record, keys)["key"] == keys[1]["id"]
    with open(keyring, encoding="utf-8") as fh:
        stored = json.load(fh)["keys"]
    assert [("private_key" in k) for k in stored] == [False, True]  # a retired key cannot sign again


def test_the_game_page_links_the_record_and_the_keys(players, client):
    gid = ended(players)

    html = client.get(f"/games/{gid}/").content.decode()

    assert f'id="record-download" href="/api/games/{gid}/record/" download="goat-game-{gid}.txt"' in html
    assert 'href="/api/keys/" download="keys.json"' in html
    assert f"python -m goat.engine verify goat-game-{gid}.txt --keys keys.json" in html
