"""The fair-play scan, the admin queue and its permission (docs/fairplay.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from factories import analysis_queue_catch, finished_game, make_players, start_game

from goat.engine import expert
from goat.fairplay import services, stats
from goat.fairplay.models import FairPlayReport, FairPlayReview, ReportKind, ReportStatus
from goat.games.models import AnalysisStatus, Game, GameAnalysis
from goat.web.errors import ServiceError

pytestmark = pytest.mark.django_db

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay")


def crafted_analysis(game: Game, cheat: str, seed: int) -> None:
    """An analysis of ``game`` whose moves by ``cheat`` are all the best, the others' half of them."""
    players = [s.player.username for s in game.seat_set.order_by("seat")]
    moves = []
    for i in range(24):
        seat = i % len(players)
        player = players[seat]
        best = player == cheat or (i + seed) % 2 == 0
        played = {"tile": "1-2", "end": "left"}
        moves.append({"version": 5 + i, "seat": seat, "player": player, "played": played,
                      "legal": [played, {"tile": "2-3", "end": "left"}, {"tile": "3-4", "end": "left"}],
                      "best": played if best else {"tile": "2-3", "end": "left"},
                      "loss": 0.0 if best else 3.0 + (i % 3), "label": None, "forced": False})
    GameAnalysis.objects.create(game=game, engine=expert.ENGINE_VERSION, samples=1, status=AnalysisStatus.DONE,
                                result={"moves": moves, "players": []})


@pytest.fixture
def world(monkeypatch):
    """Six players, ten ended rated games of three (eight analysed, ``fay`` playing the best every time),
    and a running game of ``fay``'s."""
    monkeypatch.setattr(stats, "ASSIST_MIN_DECISIONS", 20)
    # fay against all five others (the deals are random, so the bands are): a band of three cannot be sure of her
    monkeypatch.setattr(stats, "BAND_MIN_PLAYERS", 5)
    monkeypatch.setattr(stats, "BAND_MIN_DECISIONS", 5)
    users = {u.username: u for u in make_players(*NAMES)}
    games = []
    for i in range(10):
        seated = [users["fay"], users[NAMES[i % 5]], users[NAMES[(i + 2) % 5]]]
        # short games: the crafted analyses, not the moves, are the evidence; the results make the bands
        games.append(finished_game(seated, ruleset="goat-gamesburg", options={"limit": 31}, seed=i))
        if i < 8:
            crafted_analysis(games[-1], "fay", i)
    running = start_game([users["fay"], users["ann"], users["ben"]], ruleset="goat-gamesburg")
    return users, games, running


def reviewer(django_user_model, name="judge"):
    user = django_user_model.objects.create_user(username=name, password="x" * 12, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="review_fair_play"))
    client = Client()
    client.force_login(user)
    return user, client


def test_the_scan_reports_the_assisted_player_and_asks_for_the_missing_analyses(
        world, monkeypatch, django_capture_on_commit_callbacks):
    users, games, running = world
    queued = analysis_queue_catch(monkeypatch)

    with django_capture_on_commit_callbacks(execute=True):
        summary = services.scan()

    report = FairPlayReport.objects.get(kind=ReportKind.ASSISTANCE)
    assert report.subject == "fay" and list(report.players.all()) == [users["fay"]]
    assert report.status == ReportStatus.OPEN and report.confidence > 0.99
    assert report.statistics["best_share"] == 1.0 and report.statistics["decisions"] == 64
    assert report.statistics["grade"] > report.statistics["population_grade"]
    assert {row["game"] for row in report.evidence["games"]} <= {g.pk for g in games[:8]}
    assert running.pk not in {row["game"] for row in report.evidence["games"] + report.evidence["moves"]}
    assert summary["games"] == 10 and summary["analysed"] == 8 and summary["assistance"] == 1
    # the two games without an analysis are asked for, on the analysis queue, once each
    assert summary["requested"] == 2 and len(queued) == 2
    assert set(GameAnalysis.objects.filter(status=AnalysisStatus.QUEUED).values_list("game_id", flat=True)) == {
        games[8].pk, games[9].pk}
    # a second scan updates the open report instead of adding one
    services.scan()
    assert FairPlayReport.objects.count() == 1


def test_the_queue_needs_its_own_permission(world, django_user_model, client):
    services.scan()
    report = FairPlayReport.objects.get()
    queue, page = "/admin/fairplay/fairplayreport/", f"/admin/fairplay/fairplayreport/{report.pk}/change/"

    assert client.get(queue).status_code == 302  # anonymous: to the login
    in_report = Client()
    in_report.force_login(world[0]["fay"])  # the player the report is about, not staff
    assert in_report.get(queue).status_code == 302 and in_report.get(page).status_code == 302
    staff = django_user_model.objects.create_user(username="helper", password="x" * 12, is_staff=True)
    staff_client = Client()
    staff_client.force_login(staff)  # staff without the permission
    assert staff_client.get(queue).status_code == 403 and staff_client.get(page).status_code == 403
    assert "fairplay" not in staff_client.get("/admin/").content.decode()
    _, judge = reviewer(django_user_model)
    assert judge.get(queue).status_code == 200 and "fay" in judge.get(queue).content.decode()


def test_a_reviewer_opens_the_evidence_and_marks_the_report_reviewed(world, django_user_model):
    services.scan()
    report = FairPlayReport.objects.get()
    user, judge = reviewer(django_user_model)
    page = f"/admin/fairplay/fairplayreport/{report.pk}/change/"

    html = judge.get(page).content.decode()
    move = report.evidence["moves"][0]
    assert f'href="/games/{move["game"]}/?step={move["seq"]}#replay"' in html
    assert judge.get(f'/games/{move["game"]}/?step={move["seq"]}').status_code == 200

    response = judge.post(page, {"outcome": "warned", "note": "взял ход программы", "reviews-TOTAL_FORMS": 0,
                                 "reviews-INITIAL_FORMS": 0})
    assert response.status_code == 302, response.content.decode()[:2000]
    report.refresh_from_db()
    assert (report.status, report.outcome) == (ReportStatus.REVIEWED, "warned")
    log = FairPlayReview.objects.get()
    assert (log.report, log.reviewer, log.outcome, log.note) == (report, user, "warned", "взял ход программы")
    # reviewed: no form any more, and the queue (open reports) is empty
    assert 'name="outcome"' not in judge.get(page).content.decode()
    assert "fay" not in judge.get("/admin/fairplay/fairplayreport/").content.decode().split('id="result_list"')[-1]
    # a later scan leaves the reviewed subject alone
    services.scan()
    assert FairPlayReport.objects.count() == 1


def test_a_report_is_reviewed_once(world, django_user_model):
    services.scan()
    report = FairPlayReport.objects.get()
    user, _ = reviewer(django_user_model)
    services.review(report_id=report.pk, reviewer=user, outcome="cleared")

    with pytest.raises(ServiceError) as refused:
        services.review(report_id=report.pk, reviewer=user, outcome="sanctioned")
    assert refused.value.code == "report_reviewed" and FairPlayReview.objects.count() == 1
    with pytest.raises(ServiceError):
        services.review(report_id=report.pk, reviewer=user, outcome="banana")


def test_the_queue_speaks_russian(world, django_user_model):
    services.scan()
    report = FairPlayReport.objects.get()
    _, judge = reviewer(django_user_model)
    judge.cookies.load({"django_language": "ru"})

    queue = judge.get("/admin/fairplay/fairplayreport/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    page = judge.get(f"/admin/fairplay/fairplayreport/{report.pk}/change/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()

    assert "Честная игра" in queue and "подсказки" in queue.lower()
    assert "исход" in page.lower() and "Журнал проверок" in page and "партия" in page.lower()
    assert "нарушений нет" in page and "ждёт проверки" in page
    assert "доля лучших ходов" in page and "best_share" not in page and "average_loss" not in page
    assert "средняя оценка ходов (0–3)" in page and "population_grade" not in page
