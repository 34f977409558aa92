"""The expert's analysis of a finished game (issue 38, docs/api.md "Computer analysis"): POST/GET
/api/games/{id}/analysis/, the refusals, one job per game and engine version, judging each move from
its seat's view then, the lease that lets a killed job be taken up again, and the throttle."""

from __future__ import annotations

import random
from datetime import timedelta

import factories
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apitest import assert_problem, token_client
from computer_play import redealt
from goat.engine import expert
from goat.engine.fold import Fold
from goat.engine.seat import is_forced
from goat.engine.tiles import PARSE
from goat.games import analysis, eventstore, services
from goat.games.models import AnalysisStatus, GameAnalysis

pytestmark = pytest.mark.django_db

SHORT = {"move_time": 0}


@pytest.fixture(autouse=True)
def few_samples(settings):
    settings.GOAT_ANALYSIS_SAMPLES = 6


@pytest.fixture
def eager_celery(settings):
    """Queued tasks run in-process on commit (the analysis task itself)."""
    with factories.eager_tasks(settings):
        yield


@pytest.fixture
def queued(monkeypatch):
    return factories.analysis_queue_catch(monkeypatch)


@pytest.fixture
def players():
    return factories.make_players("masha", "ivan")


@pytest.fixture
def ended(players):
    return factories.finished_game(players, ruleset="domino-3rounds", options=SHORT, seed=4)


def url(game) -> str:
    return f"/api/games/{game.pk}/analysis/"


def post(client, game):
    with factories.committed():
        return client.post(url(game))


def test_an_analysis_is_queued_once_then_read_by_anyone(players, ended, eager_celery):
    client = token_client(players[0])
    anonymous = APIClient()
    assert_problem(anonymous.get(url(ended)), 404, "analysis_not_requested")
    assert_problem(anonymous.post(url(ended)), 401, "not_authenticated")

    first = post(client, ended)
    assert first.status_code == 202 and first.json() == {"status": "queued"}
    done = anonymous.get(url(ended))
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "done" and body["engine"] == expert.ENGINE_VERSION and body["samples"] == 6
    # a repeat is the analysis itself, with no second job or row
    again = post(token_client(players[1]), ended)
    assert again.status_code == 200 and again.json() == body
    assert GameAnalysis.objects.filter(game=ended).count() == 1

    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=ended.pk)]
    plays = [e for e in events if e["type"] == "tile_played"]
    moves = body["moves"]
    assert [m["version"] for m in moves] == [e["seq"] for e in plays]
    names = {0: "masha", 1: "ivan"}
    for move, event in zip(moves, plays, strict=True):
        assert move["seat"] == event["seat"] and move["player"] == names[event["seat"]]
        assert move["played"] == {"tile": event["data"]["tile"], "end": event["data"]["end"]}
        assert move["played"] in move["legal"] and move["best"] in move["legal"]
        legal = [(PARSE[m["tile"]], m["end"]) for m in move["legal"]]
        assert move["forced"] == is_forced(legal, *_ends(events, event))
        low, high = move["loss_interval"]
        assert move["loss"] >= 0 and (move["loss"] == 0) == (move["best"] == move["played"])
        assert 0 <= low <= move["loss"] <= high
        assert move["label"] == analysis.label_of(low)
        if move["forced"]:
            assert move["loss"] == 0 and move["label"] is None and move["loss_interval"] == [0, 0]
    assert any(not m["forced"] for m in moves)
    for row in body["players"]:
        mine = [m for m in moves if m["seat"] == row["seat"] and not m["forced"]]
        assert row["player"] == names[row["seat"]] and row["decisions"] == len(mine)
        assert row["average_loss"] == pytest.approx(sum(m["loss"] for m in mine) / len(mine), abs=0.01)
        assert row["blunders"] == sum(m["label"] == "blunder" for m in mine)
        assert row["mistakes"] == sum(m["label"] == "mistake" for m in mine)
        assert row["inaccuracies"] == sum(m["label"] == "inaccuracy" for m in mine)
        assert row["accuracy"] == pytest.approx(sum(analysis.move_accuracy(m["loss"]) for m in mine) / len(mine),
                                                abs=0.05)
        assert 0 <= row["accuracy"] <= 100


def test_a_request_while_one_is_queued_or_running_gets_the_same_job(players, ended, queued):
    client = token_client(players[0])
    assert post(client, ended).json() == {"status": "queued"}
    assert post(token_client(players[1]), ended).json() == {"status": "queued"}
    assert len(queued) == 1
    GameAnalysis.objects.update(status=AnalysisStatus.RUNNING, claim="x",
                                claimed_until=timezone.now() + timedelta(minutes=1))
    assert post(client, ended).json() == {"status": "running"}
    assert APIClient().get(url(ended)).status_code == 202
    assert len(queued) == 1


def test_another_engine_version_is_another_analysis(players, ended, queued, monkeypatch):
    client = token_client(players[0])
    post(client, ended)
    current = expert.ENGINE_VERSION
    monkeypatch.setattr(expert, "ENGINE_VERSION", "expert-next")
    assert post(client, ended).status_code == 202
    assert sorted(GameAnalysis.objects.values_list("engine", flat=True)) == sorted([current, "expert-next"])
    assert len(queued) == 2


def test_running_waiting_cancelled_and_unknown_games_are_refused(players):
    client = token_client(players[0])
    running = factories.start_game(players, ruleset="domino-3rounds", options=SHORT)
    assert_problem(client.post(url(running)), 409, "game_not_ended")
    assert_problem(APIClient().get(url(running)), 409, "game_not_ended")
    with factories.committed():
        waiting = services.game_create(player=players[0], ruleset="domino-3rounds", seats=2).game
        services.game_leave(game_id=waiting.pk, player=players[0])
    assert_problem(client.post(url(waiting)), 409, "game_cancelled")
    assert_problem(client.get("/api/games/999999/analysis/"), 404, "not_found")
    assert not GameAnalysis.objects.exists()


def test_a_killed_job_is_taken_up_once_its_lease_runs_out_and_nothing_half_written_is_shown(players, ended, queued):
    post(token_client(players[0]), ended)
    job = GameAnalysis.objects.get()
    # a worker took it and died: its lease still holds, so a redelivered task waits for it
    GameAnalysis.objects.update(status=AnalysisStatus.RUNNING, claim="dead",
                                claimed_until=timezone.now() + timedelta(seconds=30))
    wait = analysis.analysis_run(analysis_id=job.pk)
    assert isinstance(wait, float) and 1 <= wait <= 31
    assert APIClient().get(url(ended)).json() == {"status": "running"}
    # the lease runs out: the next run takes it over and writes the whole analysis at once
    GameAnalysis.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert analysis.analysis_run(analysis_id=job.pk) is True
    job.refresh_from_db()
    assert job.status == AnalysisStatus.DONE and job.attempts == 1 and job.result["moves"]
    assert analysis.analysis_run(analysis_id=job.pk) is False  # done: nothing more


def test_a_run_that_dies_right_after_taking_the_job_has_counted_its_attempt(players, ended, queued, monkeypatch):
    """The claim and its count are one statement: a worker killed just after taking the job (here: its
    next query fails) leaves the job running and its attempt counted; the run that takes it up is the
    second."""
    post(token_client(players[0]), ended)
    job = GameAnalysis.objects.get()

    def killed(*_args, **_kwargs):
        raise SystemExit("killed")

    with monkeypatch.context() as patched:
        patched.setattr(type(GameAnalysis.objects), "select_related", killed)
        with pytest.raises(SystemExit):
            analysis.analysis_run(analysis_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.result) == (AnalysisStatus.RUNNING, 1, None)
    GameAnalysis.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))  # its lease runs out
    assert analysis.analysis_run(analysis_id=job.pk) is True
    job.refresh_from_db()
    assert job.status == AnalysisStatus.DONE and job.attempts == 2


def test_a_run_that_lost_its_claim_writes_nothing(players, ended, queued, monkeypatch):
    post(token_client(players[0]), ended)
    job = GameAnalysis.objects.get()
    real = analysis.game_analyse

    def overtaken(game, **kwargs):
        result = real(game, **kwargs)
        GameAnalysis.objects.update(claim="another")  # its lease ran out and another run took the job
        return result

    monkeypatch.setattr(analysis, "game_analyse", overtaken)
    assert analysis.analysis_run(analysis_id=job.pk) is False
    job.refresh_from_db()
    assert job.status == AnalysisStatus.RUNNING and job.result is None


def test_a_game_the_engine_cannot_judge_ends_failed_with_its_code_and_is_not_run_again(players, ended, queued,
                                                                                        monkeypatch):
    """A seat's knowledge that admits no deal (NoDeal) fails the job at once with its code: nothing
    hangs running until a lease ends, the API answers 200 ``failed``, and neither a redelivered task
    nor a new request runs it again."""
    from goat.engine.sampling import NoDeal

    client = token_client(players[0])
    post(client, ended)
    job = GameAnalysis.objects.get()

    def no_deal(*_args, **_kwargs):
        raise NoDeal(detail="no deal of the unseen tiles meets what the seats showed they lack")

    monkeypatch.setattr(expert, "judge", no_deal)
    assert analysis.analysis_run(analysis_id=job.pk) is True
    job.refresh_from_db()
    assert (job.status, job.error, job.result, job.claimed_until) == (
        AnalysisStatus.FAILED, "no_consistent_deal", None, None)
    body = {"status": "failed", "engine": expert.ENGINE_VERSION, "code": "no_consistent_deal"}
    read = APIClient().get(url(ended))
    assert read.status_code == 200 and read.json() == body
    again = post(client, ended)
    assert again.status_code == 200 and again.json() == body and len(queued) == 1
    assert analysis.analysis_run(analysis_id=job.pk) is False  # a redelivered message: final, nothing to do
    job.refresh_from_db()
    assert job.attempts == 1
    page = APIClient().get(f"/games/{ended.pk}/")
    assert page.status_code == 200 and "no_consistent_deal" in page.content.decode()


def test_a_lost_message_is_queued_again_by_the_next_request_once_a_lease_has_passed(players, ended, queued):
    client = token_client(players[0])
    post(client, ended)
    GameAnalysis.objects.update(requested_at=timezone.now() - timedelta(hours=1))
    assert post(client, ended).json() == {"status": "queued"}
    assert len(queued) == 2


def test_each_move_is_judged_from_what_its_seat_knew_never_from_the_hidden_tiles(ended):
    """The same judgement when every tile the seat could not see (the others' hands, the bazaar, the
    deal's record of them) is dealt otherwise."""
    rng = random.Random(8)
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=ended.pk)]
    fold, round_events, judged = Fold(check=False), [], 0
    for event in events:
        if event["type"] == "tile_played" and judged < 8:
            state = fold.state
            seat = event["seat"]
            other = redealt(state, seat, rng)
            scrambled = [{**e, "data": {**e["data"], "hands": [h if s == seat else list(reversed(h))
                                                               for s, h in enumerate(e["data"]["hands"])]}}
                         if e["type"] == "round_dealt" else e for e in round_events]
            first = analysis.judge(ended, state, event, round_events, 8)
            assert analysis.judge(ended, other, event, scrambled, 8) == first
            judged += not first["forced"]
        fold.push(event)
        if event["type"] == "round_dealt":
            round_events = []
        round_events.append(event)
    assert judged >= 3


def test_the_labels_follow_the_documented_thresholds():
    assert [analysis.label_of(x) for x in (0, 4.9, 5, 9.9, 10, 14.9, 15, 40)] == [
        None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_the_accuracy_is_100_for_no_loss_and_falls_with_the_loss():
    assert analysis.move_accuracy(0) == pytest.approx(100, abs=1e-3)
    values = [analysis.move_accuracy(x) for x in (0, 2, 5, 10, 25, 100)]
    assert values == sorted(values, reverse=True) and values[-1] == 0
    assert analysis.summary([], ["masha"]) == [{"seat": 0, "player": "masha", "decisions": 0, "average_loss": 0.0,
                                                "inaccuracies": 0, "mistakes": 0, "blunders": 0, "accuracy": None}]


def _ends(events, event):
    """The line's open ends just before ``event`` (a tile_played), by replaying the log up to it."""
    fold = Fold(check=False)
    for earlier in events:
        if earlier is event:
            break
        fold.push(earlier)
    return fold.state.table.left, fold.state.table.right


def test_the_request_is_throttled_and_the_read_is_not(players, ended, queued, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "analysis", "2/min")
    client = token_client(players[0])
    assert post(client, ended).status_code == 202
    assert post(client, ended).status_code == 202
    refused = client.post(url(ended))
    assert_problem(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 1
    assert all(client.get(url(ended)).status_code == 202 for _ in range(4))


def test_a_pairs_game_is_analysed_by_the_pairs_expected_result_from_each_seats_view():
    """goat-pairs (docs/rules.md §12): every tile judged, from its seat's view (the partner's hand is
    redealt like the opponents' and the judgement stays), by the pair's objective (the playouts score
    rounds by the pair: a judged seat's view carries the ruleset)."""
    people = factories.make_players("masha", "alex", "olya", "kolyan")
    game = factories.finished_game(people, ruleset="goat-pairs", options={"limit": 30, "move_time": 0}, seed=5)
    rng = random.Random(9)
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    fold, round_events, judged = Fold(check=False), [], 0
    for event in events:
        if event["type"] == "tile_played" and judged < 4:
            state = fold.state
            other = redealt(state, event["seat"], rng)
            first = analysis.judge(game, state, event, round_events, 8)
            assert analysis.judge(game, other, event, round_events, 8) == first
            judged += not first["forced"]
        fold.push(event)
        if event["type"] == "round_dealt":
            round_events = []
        round_events.append(event)
    assert judged >= 2
    result = analysis.game_analyse(game, samples=4)
    assert len(result["moves"]) == sum(e["type"] == "tile_played" for e in events)
    assert sorted(p["player"] for p in result["players"]) == sorted(p.username for p in people)
