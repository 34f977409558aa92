"""An analysed game's replay in a real browser (issue 38): headless Chromium steps through the replay
of a finished game the expert has analysed, and every step that plays a tile shows its judgement
(the loss, the label, the better move) under the caption; the summary sits under the scoresheet."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_stepping_through_an_analysed_replay_shows_each_moves_judgement(live_server, open_browser,
                                                                      browser_csp_violations, django_user_model,
                                                                      settings):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from goat.games import analysis
    from goat.games import services as games
    from goat.games.computer import stand_ins_play
    from goat.games.models import GameAnalysis

    settings.GOAT_ANALYSIS_SAMPLES = 6
    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben"))
    game = games.game_create(player=ann, ruleset="domino-3rounds", seats=2, options={"move_time": 0}).game
    games.game_join(game_id=game.pk, player=ben)
    stand_ins_play(everyone=True, game_ids=[game.pk], until_done=True, seed=3)
    analysis.analysis_request(game_id=game.pk)
    analysis.analysis_run(analysis_id=GameAnalysis.objects.get(game=game).pk)  # unless the request's task ran it
    assert GameAnalysis.objects.get(game=game).status == "done"
    moves = {m["version"]: m for m in GameAnalysis.objects.get(game=game).result["moves"]}

    driver = open_browser()
    driver.get(f"{live_server.url}/games/{game.pk}/?step=0")
    summary = driver.find_element(By.ID, "analysis-summary")
    assert [row.get_attribute("data-seat") for row in summary.find_elements(By.CSS_SELECTOR, "tbody tr")] == ["0", "1"]
    seen = better = 0
    last = max(moves)
    step = 0
    for _ in range(last):
        driver.find_element(By.ID, "replay-next").click()
        step += 1
        WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d, expected=step: d.find_element(By.ID, "replay-step").text == str(expected))
        judgements = driver.find_elements(By.ID, "replay-judgement")
        if step in moves:
            move = moves[step]
            text = judgements[0].text
            if move["forced"]:
                assert text == ("Forced: the only legal move." if len(move["legal"]) == 1 else
                                "Forced: the legal moves are one move (the same tile, leaving the same ends).")
            else:
                low, high = move["loss_interval"]
                assert f"expected loss, in points: {move['loss']} (95% interval: {low} to {high})" in text
                if move["best"] != move["played"]:
                    assert f"better: {move['best']['tile']} on the {move['best']['end']} end" in text
                    better += 1
            seen += 1
        else:
            assert judgements == []
        if step >= last:
            break
    assert seen == len(moves) and better == sum(m["best"] != m["played"] for m in moves.values())
    assert browser_csp_violations(driver) == []
