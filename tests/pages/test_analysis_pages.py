"""The analysis on the pages (issue 38): the game page's summary under the scoresheet and each replay
step's judgement with the better move and its loss interval, the players' accuracy, in English and
Russian; the button that asks for it; the
player page's average loss per ruleset."""

from __future__ import annotations

import re

import factories
import pytest
from django.test import Client

from goat.games import analysis
from goat.games.models import GameAnalysis

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def few_samples(settings):
    settings.GOAT_ANALYSIS_SAMPLES = 6


@pytest.fixture
def queued(monkeypatch):
    return factories.analysis_queue_catch(monkeypatch)


@pytest.fixture
def analysed(players, finished_game, queued):
    masha, ivan = players("masha", "ivan")
    game = finished_game(masha, ivan, ruleset="domino-3rounds")
    analysis.analysis_request(game_id=game.pk)
    assert analysis.analysis_run(analysis_id=GameAnalysis.objects.get(game=game).pk) is True
    return game, masha


def test_an_unanalysed_game_offers_the_request_to_a_signed_in_player(players, finished_game, queued):
    masha, ivan = players("masha", "ivan")
    game = finished_game(masha, ivan, ruleset="domino-3rounds")
    anonymous = Client().get(f"/games/{game.pk}/").content.decode()
    assert 'id="analysis"' in anonymous and "Sign in to ask for an analysis" in anonymous
    assert 'id="analysis-request"' not in anonymous
    client = Client()
    client.force_login(masha)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="analysis-request"' in page
    with factories.committed():
        response = client.post(f"/games/{game.pk}/analysis/")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert GameAnalysis.objects.get(game=game).status == "queued" and len(queued) == 1
    assert "being computed" in client.get(f"/games/{game.pk}/").content.decode()
    assert Client().post(f"/games/{game.pk}/analysis/").status_code == 404  # signed in only


def test_the_summary_sits_under_the_scoresheet_and_each_step_shows_its_judgement(analysed):
    game, _ = analysed
    shown = GameAnalysis.objects.get(game=game).result
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert html.index('id="scoresheet"') < html.index('id="analysis-summary"') < html.index('id="replay"')
    for row in shown["players"]:
        assert re.search(rf'<tr data-seat="{row["seat"]}"><td class="name">{row["player"]}</td><td>'
                         rf'{row["decisions"]}</td><td class="average-loss">{row["average_loss"]}</td>', html)
        assert re.search(rf'<tr data-seat="{row["seat"]}">.*?<td class="accuracy">{row["accuracy"]}</td></tr>', html)
    better = next((m for m in shown["moves"] if m["best"] != m["played"]), None)
    forced = next(m for m in shown["moves"] if m["forced"])
    page = Client().get(f"/games/{game.pk}/", {"step": forced["version"]}).content.decode()
    assert "Forced: the only legal move." in page or "Forced: the legal moves are one move" in page
    if better is not None:
        page = Client().get(f"/games/{game.pk}/", {"step": better["version"]}).content.decode()
        low, high = better["loss_interval"]
        assert f'expected loss, in points: {better["loss"]}' in page
        assert f'<span class="loss-interval">(95% interval: {low} to {high})</span>' in page
        assert f'better: {better["best"]["tile"]} on the {better["best"]["end"]} end' in page
        russian = Client(HTTP_ACCEPT_LANGUAGE="ru").get(f"/games/{game.pk}/",
                                                        {"step": better["version"]}).content.decode()
        assert "ожидаемая потеря" in russian and "лучше:" in russian and "95-процентный интервал: от" in russian
    summary_ru = Client(HTTP_ACCEPT_LANGUAGE="ru").get(f"/games/{game.pk}/").content.decode()
    assert "Точность" in summary_ru and "до 6 случайных раскладов на решение" in summary_ru
    # a step that is not a tile played has no judgement
    assert 'id="replay-judgement"' not in Client().get(f"/games/{game.pk}/", {"step": 1}).content.decode()
    assert "Компьютерный анализ" in Client(HTTP_ACCEPT_LANGUAGE="ru").get(f"/games/{game.pk}/").content.decode()


def test_the_player_page_shows_the_average_loss_per_ruleset(analysed):
    game, masha = analysed
    row = next(r for r in GameAnalysis.objects.get(game=game).result["players"] if r["player"] == "masha")
    html = Client().get("/players/masha/").content.decode()
    table = re.search(r'<table id="analysis-losses".*?</table>', html, re.S).group(0)
    assert "<td>Domino, three rounds</td>" in table and "domino-3rounds" not in table
    assert f'<td class="average-loss">{row["average_loss"]}</td>' in table
    assert analysis.player_average_loss(player=masha) == [
        {"ruleset": "domino-3rounds", "games": 1, "decisions": row["decisions"], "average_loss": row["average_loss"]}]
