"""Replay audit in the Django admin (issue 6): the replay (goat.games.table) shows the engine's state, permissions,
read-only events, exports, who looked at hidden information, and verification (action, button,
command, nightly task)."""

from __future__ import annotations

import csv
import io
import json
import logging
import re

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils.html import escape
from factories import make_players, play, start_game

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services, words
from goat.games.admin import SCORESHEET_CSV_COLUMNS
from goat.games.audit import audit_record_hidden_view
from goat.games.models import Game, GameEvent, GameStatus, HiddenInfoView

pytestmark = pytest.mark.django_db



# --- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def players(db):
    return make_players("ann", "ben")


@pytest.fixture
def finished_game(players) -> Game:
    game = play(start_game(players, options={"limit": 40}), players, seed=3)
    assert game.status == GameStatus.FINISHED
    return game


@pytest.fixture
def running_game(players) -> Game:
    game = play(start_game(players), players, seed=5, max_moves=6)
    assert game.status == GameStatus.RUNNING
    return game


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser(username="root", password="x" * 12)


@pytest.fixture
def admin_client(superuser) -> Client:
    client = Client()
    client.force_login(superuser)
    return client


@pytest.fixture
def plain_staff(django_user_model):
    """Staff who may view games and events but not audit them."""
    user = django_user_model.objects.create_user(username="helper", password="x" * 12, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_game", "view_gameevent"]))
    return user


@pytest.fixture
def auditor(django_user_model):
    user = django_user_model.objects.create_user(username="judge", password="x" * 12, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="audit_game", content_type__app_label="goat"))
    return user


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def replay_url(game, step=None) -> str:
    return f"/admin/goat/game/{game.pk}/replay/" + ("" if step is None else f"?step={step}")


def audit_urls(game) -> list[str]:
    base = f"/admin/goat/game/{game.pk}/"
    return [base + "replay/?step=3", base + "export/events.json", base + "export/scoresheet.csv"]


def replay_table(html: str) -> dict:
    """The tiles drawn (goat.games.table) on the line, in each hand (by seat, with its player) and in the
    bazaar; a tile's markup holds no <div>, so each container ends at the first </div>."""
    def names(part: str) -> list[str]:
        return re.findall(r'class="tile[^"]*" role="img" aria-label="([0-6]-[0-6])"', part)

    line = re.search(r'<div id="replay-line"[^>]*>(.*?)</div>', html, re.S)
    bazaar = re.search(r'<div id="replay-bazaar"[^>]*>(.*?)</div>', html, re.S)
    hands = re.findall(r'<div class="tiles hand" data-seat="(\d+)" data-player="([^"]*)">(.*?)</div>', html, re.S)
    return {"line": names(line.group(1)) if line else [],
            "hands": {int(seat): names(part) for seat, _, part in hands},
            "owners": {int(seat): player for seat, player, _ in hands},
            "bazaar": names(bazaar.group(1)) if bazaar else [],
            "highlighted": re.findall(r'class="tile[^"]* just" role="img" aria-label="([0-6]-[0-6])"', html)}


# --- the replay -------------------------------------------------------------------------------


def test_the_replay_at_each_step_shows_the_engine_state_after_that_event(admin_client, finished_game):
    game = finished_game
    steps = sorted({1, 2, 3, 4, 5, 6, game.version // 3, game.version // 2, game.version - 1, game.version}
                   | set(range(4, game.version, max(1, game.version // 12))))
    for k in steps:
        response = admin_client.get(replay_url(game, k))
        assert response.status_code == 200
        html = response.content.decode()
        state = eventstore.state_rebuild(game, upto=k)
        drawn = replay_table(html)
        table = state.table
        assert drawn["line"] == (table.line_str() if table else []), k
        expected_hands = {s: (state.hands_str()[s] if table else []) for s in range(state.seats)}
        assert drawn["hands"] == expected_hands, k
        assert drawn["owners"] == {s: state.players[s] or "" for s in range(state.seats)}, k
        assert drawn["bazaar"] == ([tile_str(t) for t in table.bazaar] if table else []), k
        assert f'data-step="{k}"' in html
        event = GameEvent.objects.get(game=game, seq=k)
        assert f"#{k} {words.event(event.type)}: " in html  # the caption names the event just applied


def test_replay_highlights_the_tile_just_played(admin_client, finished_game):
    event = GameEvent.objects.filter(game=finished_game, type="tile_played").order_by("seq")[3]
    html = admin_client.get(replay_url(finished_game, event.seq)).content.decode()
    highlighted = replay_table(html)["highlighted"]
    state = eventstore.state_rebuild(finished_game, upto=event.seq)
    line = state.table.line_str()
    expected = line[0] if event.data["end"] == "left" else line[-1]
    assert highlighted == [expected]
    assert sorted(expected.split("-")) == sorted(event.data["tile"].split("-"))


def test_replay_step_is_clamped_and_step_zero_is_empty(admin_client, finished_game):
    html = admin_client.get(replay_url(finished_game, 10**6)).content.decode()
    assert f'data-step="{finished_game.version}"' in html
    html = admin_client.get(replay_url(finished_game, -5)).content.decode()
    assert 'data-step="0"' in html and replay_table(html)["line"] == []
    html = admin_client.get(replay_url(finished_game) + "?step=abc").content.decode()
    assert 'data-step="0"' in html


def test_replay_has_navigation_slider_round_links_and_keyboard_script(admin_client, finished_game):
    html = admin_client.get(replay_url(finished_game, 5)).content.decode()
    assert 'id="nav-first" href="?step=0"' in html
    assert 'id="nav-prev" href="?step=4"' in html
    assert 'id="nav-next" href="?step=6"' in html
    assert f'id="nav-last" href="?step={finished_game.version}"' in html
    assert re.search(rf'<input type="range" id="step-slider" min="0" max="{finished_game.version}" value="5"', html)
    dealt = GameEvent.objects.filter(game=finished_game, type="round_dealt").values_list("seq", "data")
    for seq, data in dealt:
        if not data["void"]:
            assert f'href="?step={seq}" class="round-link"' in html
    scripts = re.findall(r'<script src="([^"]+)"', html.split('id="content-main"')[1])
    assert scripts == ["/static/goat/admin/replay.js"]  # one file of ours: no framework, no CDN, nothing inline
    assert "<script>" not in html and "<style>" not in html  # the Content-Security-Policy refuses inline code
    script = Client().get(scripts[0])
    source = b"".join(script.streaming_content).decode() if script.streaming else script.content.decode()
    for key in ("ArrowLeft", "ArrowRight", "Home", "End"):
        assert key in source


# --- permissions ------------------------------------------------------------------------------


def test_anonymous_is_sent_to_the_login_page(finished_game):
    for url in audit_urls(finished_game):
        response = Client().get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_staff_without_the_audit_permission_get_403(plain_staff, finished_game):
    client = logged_in(plain_staff)
    for url in audit_urls(finished_game):
        assert client.get(url).status_code == 403, url
    assert client.post(f"/admin/goat/game/{finished_game.pk}/verify/").status_code == 403
    # they may still see the game's page, without the audit buttons
    page = client.get(f"/admin/goat/game/{finished_game.pk}/change/")
    assert page.status_code == 200
    assert b"Verify this game" not in page.content


def test_staff_with_the_audit_permission_get_200(auditor, finished_game):
    client = logged_in(auditor)
    for url in audit_urls(finished_game):
        assert client.get(url).status_code == 200, url
    assert client.get(f"/admin/goat/game/{finished_game.pk}/change/").status_code == 200
    assert client.get("/admin/goat/game/").status_code == 200


# --- read-only events and games ---------------------------------------------------------------


def test_events_cannot_be_added_changed_or_deleted_in_the_admin(admin_client, finished_game):
    event = GameEvent.objects.filter(game=finished_game, type="tile_played").first()
    before = (event.data, event.hash)
    base = "/admin/goat/gameevent/"
    assert admin_client.get(f"{base}{event.pk}/change/").status_code == 200  # viewable
    assert admin_client.post(f"{base}{event.pk}/change/", {"data": '{"tile": "0-0", "end": "left"}'}).status_code == 403
    assert admin_client.post(f"{base}{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get(f"{base}add/").status_code == 403
    assert admin_client.post(f"{base}add/", {}).status_code == 403
    bulk = admin_client.post(base, {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"})
    assert bulk.status_code in (200, 302)
    event.refresh_from_db()
    assert (event.data, event.hash) == before
    assert GameEvent.objects.filter(game=finished_game).count() == finished_game.version
    assert b"delete_selected" not in admin_client.get(base).content


def test_games_cannot_be_deleted_or_changed_in_the_admin(admin_client, finished_game):
    base = f"/admin/goat/game/{finished_game.pk}/"
    assert admin_client.post(base + "delete/", {"post": "yes"}).status_code == 403
    assert admin_client.post(base + "change/", {"status": "waiting"}).status_code == 403
    assert b"delete_selected" not in admin_client.get("/admin/goat/game/").content
    assert Game.objects.filter(pk=finished_game.pk, status=GameStatus.FINISHED).exists()


def test_detail_page_shows_result_scoresheet_seats_and_paginated_event_log(admin_client, finished_game):
    page = admin_client.get(f"/admin/goat/game/{finished_game.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200
    assert finished_game.result["reason"] in html
    assert 'id="scoresheet"' in html and "remembered" in html
    rounds = eventstore.state_load(finished_game).rounds
    assert html.count('<tr class="') >= len(rounds)
    log = html.split('id="event-log"')[1].split("</table>")[0]
    assert log.count("<tr>") - 1 == min(50, finished_game.version)  # header row + one page
    if finished_game.version > 50:
        assert "page 1 of" in html
        page2 = admin_client.get(f"/admin/goat/game/{finished_game.pk}/change/?events=2").content.decode()
        assert "<td>51</td>" in page2.split('id="event-log"')[1]
    assert "ann" in html and "ben" in html  # seats inline


def test_list_filters_and_search_by_player(admin_client, finished_game, running_game, django_user_model):
    assert admin_client.get("/admin/goat/game/?status__exact=running").status_code == 200
    assert admin_client.get("/admin/goat/game/?ruleset=goat-classic").status_code == 200
    assert admin_client.get("/admin/goat/game/?verified=failed").status_code == 200
    html = admin_client.get("/admin/goat/game/?q=ann").content.decode()
    assert f"/admin/goat/game/{finished_game.pk}/change/" in html
    assert admin_client.get("/admin/goat/game/?q=nobody-here").content.decode().count("/change/") == 0


def test_scoresheet_marks_fish_rounds_with_the_carried_pot(admin_client, players):
    """Play games until one has a fish round, then the table shows the sign and the pot."""
    for seed in range(12):
        game = play(start_game(players[:2], options={"limit": 40}), players, seed=100 + seed)
        rounds = eventstore.state_load(game).rounds
        fish = [r for r in rounds if r.end == "fish"]
        if fish:
            break
        Seat = game.seat_set.model
        Seat.objects.filter(game=game).delete()  # let the same players sit again
    else:
        raise AssertionError("none of these seeded games had a fish round")
    html = admin_client.get(f"/admin/goat/game/{game.pk}/change/").content.decode()
    assert html.count('fish-round"') == len(fish)
    assert html.count('data-end="fish"') == len(fish) and "fish: " in html


# --- exports ----------------------------------------------------------------------------------


def test_export_json_is_the_log_the_offline_verifier_accepts(admin_client, finished_game):
    response = admin_client.get(f"/admin/goat/game/{finished_game.pk}/export/events.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="game-{finished_game.pk}.json"'
    events = json.loads(response.content)
    assert isinstance(events, list) and len(events) == finished_game.version
    assert engine.verify_log(events)["valid"] is True


def test_export_csv_has_one_row_per_round_per_player(admin_client, finished_game):
    response = admin_client.get(f"/admin/goat/game/{finished_game.pk}/export/scoresheet.csv")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="game-{finished_game.pk}-scoresheet.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == SCORESHEET_CSV_COLUMNS == ["round", "end", "player", "round_points", "remembered", "score",
                                                 "points", "fish_pot", "round_winner"]
    state = eventstore.state_load(finished_game)
    assert len(rows) - 1 == len(state.rounds) * state.seats
    last = state.rounds[-1]
    tail = rows[-state.seats:]
    for seat, row in enumerate(tail):
        assert row[0] == str(last.round) and row[1] == last.end and row[2] == state.players[seat]
        assert int(row[3]) == last.round_points[seat]
        assert int(row[4]) == last.players[seat].remembered
        assert int(row[5]) == last.players[seat].score
        assert int(row[6]) == last.players[seat].points_by(state.options.remembered_counts)
        assert int(row[7]) == last.fish_pot


# --- who looked ---------------------------------------------------------------------------------


def test_hidden_information_views_are_recorded_only_for_running_games(auditor, finished_game, running_game):
    client = logged_in(auditor)
    for game in (finished_game, running_game):
        assert client.get(replay_url(game, 3)).status_code == 200
        assert client.get(f"/admin/goat/game/{game.pk}/export/events.json").status_code == 200
        assert client.get(f"/admin/goat/game/{game.pk}/export/scoresheet.csv").status_code == 200
    assert not HiddenInfoView.objects.filter(game=finished_game).exists()
    seen = list(HiddenInfoView.objects.filter(game=running_game).order_by("id").values_list("user__username", "what"))
    assert seen == [("judge", "admin_replay"), ("judge", "admin_export_events")]


def test_running_game_event_log_is_redacted_until_revealed_and_the_reveal_is_recorded(auditor, running_game):
    client = logged_in(auditor)
    html = client.get(f"/admin/goat/game/{running_game.pk}/change/").content.decode()
    # the latest deal: a void first deal (redealt, docs/rules.md) leaves two round_dealt events
    hands = GameEvent.objects.filter(game=running_game, type="round_dealt").latest("seq").data["hands"]
    shown = escape(json.dumps(hands[0]))
    assert shown not in html
    assert not HiddenInfoView.objects.exists()
    html = client.get(f"/admin/goat/game/{running_game.pk}/change/?hidden=1").content.decode()
    assert shown in html
    assert list(HiddenInfoView.objects.values_list("what", flat=True)) == ["admin_event_log"]


def test_audit_record_hidden_view_service(auditor, players, finished_game, running_game):
    waiting = services.game_create(player=players[0], ruleset="goat-classic", seats=3).game
    assert audit_record_hidden_view(user=auditor, game=waiting, what="api_events") is None
    assert audit_record_hidden_view(user=auditor, game=finished_game, what="api_events") is None
    record = audit_record_hidden_view(user=auditor, game=running_game, what="api_view")
    assert record.pk and record.user == auditor and record.game == running_game and record.at


def test_hidden_info_views_are_listed_read_only(admin_client, auditor, running_game):
    record = audit_record_hidden_view(user=auditor, game=running_game, what="api_events")
    html = admin_client.get("/admin/goat/hiddeninfoview/").content.decode()
    assert "events through the API" in html and "judge" in html
    assert admin_client.get(f"/admin/goat/hiddeninfoview/?user__id__exact={auditor.pk}").status_code == 200
    assert admin_client.post(f"/admin/goat/hiddeninfoview/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/goat/hiddeninfoview/add/").status_code == 403


# --- verification -------------------------------------------------------------------------------


def test_verify_button_stores_the_outcome(admin_client, finished_game):
    response = admin_client.post(f"/admin/goat/game/{finished_game.pk}/verify/", follow=True)
    assert response.status_code == 200
    assert b"hash_chain: ok, deals: ok, replay: ok" in response.content
    finished_game.refresh_from_db()
    assert finished_game.verification_ok is True and finished_game.verified_at is not None
    assert admin_client.get(f"/admin/goat/game/{finished_game.pk}/verify/").status_code == 405


def test_verify_action_on_selected_games(admin_client, finished_game, running_game):
    response = admin_client.post("/admin/goat/game/", {"action": "verify_selected",
                                                       "_selected_action": [finished_game.pk, running_game.pk]},
                                 follow=True)
    assert response.status_code == 200
    assert b"2 game(s) verified, 0 failed." in response.content
    assert set(Game.objects.values_list("verification_ok", flat=True)) == {True}
    html = admin_client.get("/admin/goat/game/?verified=ok").content.decode()
    assert f"/admin/goat/game/{finished_game.pk}/change/" in html


def tamper_tile_played(game: Game) -> GameEvent:
    """Change a tile_played event behind the model's back (the trigger is disabled meanwhile)."""
    event = GameEvent.objects.filter(game=game, type="tile_played").order_by("seq")[2]
    other = "6-6" if event.data["tile"] != "6-6" else "0-0"
    data = json.dumps({**event.data, "tile": other})
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE goat_gameevent DISABLE TRIGGER goat_gameevent_append_only")
            cursor.execute("UPDATE goat_gameevent SET data = %s::jsonb WHERE position = %s", [data, event.pk])
            cursor.execute("ALTER TABLE goat_gameevent ENABLE TRIGGER goat_gameevent_append_only")
        else:
            cursor.execute("UPDATE goat_gameevent SET data = %s WHERE position = %s", [data, event.pk])
    return event


@pytest.mark.django_db(transaction=True)
def test_nightly_task_flags_a_game_whose_event_was_altered(players, caplog):
    from goat.games.audit_tasks import games_verify_recent

    good = play(start_game(players, options={"limit": 40}), players, seed=3)
    Seat = good.seat_set.model
    bad = play(start_game([players[1], players[0]], options={"limit": 40}), [players[1], players[0]], seed=4)
    assert bad.ended and good.ended and Seat.objects.count() == 4
    event = tamper_tile_played(bad)
    with caplog.at_level(logging.ERROR):
        outcome = games_verify_recent.delay().get()
    assert outcome == {"verified": 2, "failed": 1}
    bad.refresh_from_db()
    good.refresh_from_db()
    assert good.verification_ok is True
    assert bad.verification_ok is False
    assert f"seq {event.seq}" in bad.verification_detail
    assert any(f"game {bad.pk}" in r.getMessage() and f"seq {event.seq}" in r.getMessage()
               for r in caplog.records if r.levelno == logging.ERROR)


@pytest.mark.django_db(transaction=True)
def test_verify_games_command_prints_one_line_per_game(players, capsys):
    good = play(start_game(players, options={"limit": 40}), players, seed=3)
    running = play(start_game([players[1], players[0]]), [players[1], players[0]], seed=1, max_moves=3)
    call_command("verify_games", str(good.pk), str(running.pk))
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"game {good.pk}: ok") and out[1].startswith(f"game {running.pk}: ok")
    tamper_tile_played(good)
    with pytest.raises(SystemExit) as exited:
        call_command("verify_games", "--all")
    assert exited.value.code == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith(f"game {good.pk}: FAILED at seq")
    with pytest.raises(SystemExit):  # only the ended game: the running one has no ended_at
        call_command("verify_games", "--since-days", "1")
    assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == [f"game {good.pk}"]
    good.refresh_from_db()
    assert good.verification_ok is False


def test_nightly_task_is_scheduled_and_registered(settings):
    from celery.schedules import crontab

    from goat.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["games-verify-recent"]
    assert entry["task"] == "goat.audit_tasks.games_verify_recent"
    assert entry["schedule"] == crontab(hour=3, minute=0)
    import goat.games.tasks  # noqa: F401  (autodiscovery imports goat.games.tasks, which imports audit_tasks)

    assert "goat.audit_tasks.games_verify_recent" in app.tasks


@pytest.mark.parametrize("superuser_seated", [False, True])
def test_an_auditor_seated_at_a_running_game_sees_it_redacted_in_the_admin(django_user_model, superuser_seated):
    """docs/api.md: no unredacted view of a running game for one who holds a seat at it."""
    if superuser_seated:
        judge = django_user_model.objects.create_superuser(username="judge", password="x" * 12)
    else:
        judge = django_user_model.objects.create_user(username="judge", password="x" * 12, is_staff=True)
        judge.user_permissions.add(*Permission.objects.filter(codename__in=["audit_game", "view_game",
                                                                            "view_gameevent"]))
    other = django_user_model.objects.create_user(username="ben", password="x" * 12)
    game = play(start_game([judge, other]), [judge, other], seed=5, max_moves=6)
    assert game.status == GameStatus.RUNNING
    deal = GameEvent.objects.filter(game=game, type="round_dealt").latest("seq")
    client = logged_in(judge)

    html = client.get(f"/admin/goat/game/{game.pk}/change/?hidden=1").content.decode()

    assert escape(json.dumps(deal.data["hands"][1])) not in html  # the other hand stays hidden
    assert "You hold a seat at this game" in html
    assert client.get(replay_url(game, 3)).status_code == 403
    assert client.get(f"/admin/goat/game/{game.pk}/export/events.json").status_code == 403
    assert client.get(f"/admin/goat/gameevent/{deal.pk}/change/").status_code == 403
    assert not HiddenInfoView.objects.exists()


def test_export_csv_defuses_names_that_begin_like_a_formula(admin_client, django_user_model):
    """Issue 35: a spreadsheet opening the scoresheet must not run a name as a formula (names made before
    the username rule refused them, or by a door that skipped it)."""
    names = ["=cmd|' /C calc'!A0", "+plus", "-minus", "@at"]
    players = [django_user_model.objects.create_user(username=name, password="x" * 12) for name in names]
    game = play(start_game(players, options={"limit": 40}), players, seed=3)
    response = admin_client.get(f"/admin/goat/game/{game.pk}/export/scoresheet.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))[1:]
    assert {row[2] for row in rows} == {"'" + name for name in names}
    assert all(not cell.startswith(("=", "+", "@")) for row in rows for cell in row)
    assert any(row[3].lstrip("-").isdigit() for row in rows)  # numbers stay numbers
