"""The expert's analysis of a finished game (docs/api.md "Computer analysis", docs/computer.md).

``analysis_request`` (POST) stores one ``GameAnalysis`` per game and engine version and queues ONE
task on the ``analysis`` queue (``goat.tasks.analyse_game``) when it is new; a request while it is
queued or running gets the same job, and one once it is done gets the analysis. ``analysis_read``
(GET) shows it. The task (``analysis_run``) claims the row with a lease, computes outside any
transaction, and writes the whole result and ``done`` in one transaction, only if its claim still
holds: a worker killed mid-analysis leaves the row ``running`` with a lease that runs out, after
which the redelivered task (acks_late) or the next request takes it up again; nothing half-written
is ever read.

Each tile played is judged from what its seat knew then: the seat's game view at that version and
the round's events redacted for it (the selectors' own ``game_view`` and ``redact``), never the
hands the end revealed. The expert values every legal move on the same sampled tables, in batches
until the played move's loss interval settles its label (or the budget is spent); the best is its
choice and the loss of the move played is the difference, in points (docs/computer.md).
"""

from __future__ import annotations

import logging
import math
import random
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from goat import engine
from goat.engine import computer, expert
from goat.engine.fold import Fold
from goat.engine.seat import is_forced
from goat.engine.tiles import PARSE, TEXT
from goat.games import eventstore, selectors
from goat.games.errors import GAME_NOT_ENDED, GameError
from goat.games.models import AnalysisStatus, Game, GameAnalysis, GameStatus

logger = logging.getLogger(__name__)

ANALYSE_TASK = "goat.tasks.analyse_game"
ANALYSIS_NOT_REQUESTED = gettext_lazy("Nobody has asked for an analysis of this game yet: POST to ask.")
GAME_CANCELLED = gettext_lazy("A cancelled game was never played to a result: there is nothing to analyse.")

#: loss thresholds of the labels, in points of the objective's win-chance scale (docs/computer.md
#: "Analysis"): a label is given when the loss interval's low end reaches its threshold
LABELS = ((15.0, "blunder"), (10.0, "mistake"), (5.0, "inaccuracy"))


def label_of(loss: float) -> str | None:
    """The label of a loss (the analysis gives it the low end of a move's loss interval)."""
    for threshold, name in LABELS:
        if loss >= threshold:
            return name
    return None


def move_accuracy(loss: float) -> float:
    """A decision's accuracy, 0 to 100, from its loss in points (lichess's curve of the drop in win %:
    100 for no loss, about 80 for 5, 62 for 10, 33 for 25)."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def _ended_game(game_id: int) -> Game:
    game = selectors.game_get(game_id=game_id)
    if game.status == GameStatus.CANCELLED:
        raise GameError.GAME_CANCELLED(GAME_CANCELLED)
    if not game.ended:
        raise GameError.GAME_NOT_ENDED(GAME_NOT_ENDED)
    return game


#: the statuses a job never leaves
FINAL = (AnalysisStatus.DONE, AnalysisStatus.FAILED)


def _body(analysis: GameAnalysis) -> dict[str, Any]:
    if analysis.status == AnalysisStatus.DONE:
        return {"status": "done", "engine": analysis.engine, "samples": analysis.samples, **analysis.result}
    if analysis.status == AnalysisStatus.FAILED:
        return {"status": "failed", "engine": analysis.engine, "code": analysis.error}
    return {"status": analysis.status}


def _lease_over(analysis: GameAnalysis, now) -> bool:
    """Whether the job of a row not done may be queued again: its lease ran out, or it has waited
    queued longer than a lease (its message was lost)."""
    lease = timedelta(seconds=settings.GOAT_ANALYSIS_LEASE_SECONDS)
    if analysis.status == AnalysisStatus.RUNNING:
        return analysis.claimed_until is not None and analysis.claimed_until <= now
    return analysis.requested_at <= now - lease and (analysis.claimed_until is None
                                                      or analysis.claimed_until <= now)


def analysis_request(*, game_id: int) -> tuple[int, dict[str, Any]]:
    """POST: ``(200, analysis)`` when done, else ``(202, {"status"})`` with the job queued once."""
    game = _ended_game(game_id)
    engine_version = expert.ENGINE_VERSION
    with transaction.atomic():
        analysis, created = GameAnalysis.objects.get_or_create(
            game=game, engine=engine_version, defaults={"samples": settings.GOAT_ANALYSIS_SAMPLES})
        if analysis.status in FINAL:
            return 200, _body(analysis)
        now = timezone.now()
        if created or _lease_over(analysis, now):
            if not created:  # a lost message or a dead job: queued again (the lease keeps one at work)
                GameAnalysis.objects.filter(pk=analysis.pk).update(requested_at=now)
            transaction.on_commit(_queue(analysis.pk))
    return 202, _body(analysis)


def analysis_read(*, game_id: int) -> tuple[int, dict[str, Any]]:
    """GET: ``(200, analysis)``, ``(202, {"status"})``, or 404 ``analysis_not_requested``."""
    game = _ended_game(game_id)
    analysis = GameAnalysis.objects.filter(game=game, engine=expert.ENGINE_VERSION).first()
    if analysis is None:
        raise GameError.ANALYSIS_NOT_REQUESTED(ANALYSIS_NOT_REQUESTED)
    return (200 if analysis.status in FINAL else 202), _body(analysis)


def _queue(analysis_id: int):
    def send() -> None:
        from kombu.exceptions import OperationalError as BrokerError

        from goat.celery import app

        try:
            app.tasks[ANALYSE_TASK].apply_async((analysis_id,), queue="analysis")
        except BrokerError:  # the next request (once the lease is over) queues it again
            logger.exception("analysis %s was not queued", analysis_id)

    return send


def _claim(analysis_id: int) -> tuple[GameAnalysis, str] | float | None:
    """Take the job: ``(row, claim)``; the seconds until another job's lease runs out while it holds;
    ``None`` when the job is done (or gone)."""
    now = timezone.now()
    claim = secrets.token_hex(8)
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)
    # the claim and its count in one statement: a run that dies right after taking the job is counted
    taken = (GameAnalysis.objects.filter(free, pk=analysis_id).exclude(status__in=FINAL)
             .update(status=AnalysisStatus.RUNNING, claim=claim, claimed_until=_lease_end(now),
                     attempts=F("attempts") + 1))
    analysis = GameAnalysis.objects.select_related("game").filter(pk=analysis_id).first()
    if analysis is None or analysis.status in FINAL:
        return None
    if not taken:
        return max(1.0, (analysis.claimed_until - now).total_seconds()) if analysis.claimed_until else 1.0
    return analysis, claim


def _lease_end(now):
    return now + timedelta(seconds=settings.GOAT_ANALYSIS_LEASE_SECONDS)


def analysis_run(*, analysis_id: int) -> bool | float:
    """The task's work: analyse and store, once. ``True`` when this run wrote the analysis, ``False``
    when there was nothing to do, or the seconds to wait while another run's lease holds."""
    claimed = _claim(analysis_id)
    if claimed is None:
        return False
    if isinstance(claimed, float):
        return claimed
    analysis, claim = claimed
    renewed = [timezone.now()]

    def still_mine() -> None:
        """Renew the lease every tenth of it while the analysis runs (a live job keeps its claim)."""
        now = timezone.now()
        if (now - renewed[0]).total_seconds() >= settings.GOAT_ANALYSIS_LEASE_SECONDS / 10:
            GameAnalysis.objects.filter(pk=analysis_id, claim=claim).update(claimed_until=_lease_end(now))
            renewed[0] = now

    result: dict[str, Any] | None = None
    error = ""
    try:
        result = game_analyse(analysis.game, samples=analysis.samples, progress=still_mine)
    except engine.RulesError as refused:
        # the engine refuses the log (NoDeal: a seat's knowledge admits no deal): the same log and
        # samples refuse it again, so the job ends failed with the code instead of running on
        error = refused.code
    with transaction.atomic():
        row = GameAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
        if row is None or row.status in FINAL or row.claim != claim:
            return False  # another run took it over after our lease ran out, and writes it
        row.result, row.error, row.finished_at = result, error, timezone.now()
        row.status = AnalysisStatus.FAILED if error else AnalysisStatus.DONE
        row.claimed_until = None
        row.save(update_fields=["result", "error", "status", "finished_at", "claimed_until"])
    if error:
        logger.warning("game %s not analysed: %s", analysis.game_id, error)
    else:
        logger.info("game %s analysed (%s moves)", analysis.game_id, len(result["moves"]) if result else 0)
    return True


def game_analyse(game: Game, *, samples: int, progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """``{"moves", "players"}`` of an ended game: every tile played judged from its seat's view then."""
    events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    return events_analyse(game, events, samples=samples, progress=progress)


def events_analyse(game: Game, events: list[dict[str, Any]], *, samples: int,
                   progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """:func:`game_analyse` of the game's whole event log ``events`` (``game``: the row the views read)."""
    fold = Fold(check=False)
    round_events: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    players: list[str | None] = []
    for event in events:
        if event["type"] == "tile_played":
            state = fold.state
            assert state is not None
            players = list(state.players)
            moves.append(judge(game, state, event, round_events, samples))
            if progress is not None:
                progress()
        fold.push(event)
        if event["type"] == "round_dealt":
            round_events = []
        round_events.append(event)
    return {"moves": moves, "players": summary(moves, players)}


def judge(game: Game, state, event: dict[str, Any], round_events: list[dict[str, Any]], samples: int
          ) -> dict[str, Any]:
    """One tile played: the legal moves, the expert's best, the loss of the move played and its 95%
    interval (sampled until the label is settled, at most ``samples`` tables)."""
    seat = event["seat"]
    legal = engine.legal_moves(state, seat)
    played = {"tile": event["data"]["tile"], "end": event["data"]["end"]}
    entry: dict[str, Any] = {
        "version": event["seq"], "seat": seat, "player": state.players[seat], "played": played,
        "legal": [{"tile": TEXT[tile], "end": end} for tile, end in legal],
    }
    if is_forced(legal, state.table.left, state.table.right):  # one move, or only equivalent ones
        return {**entry, "best": played, "loss": 0.0, "loss_interval": [0.0, 0.0], "label": None, "forced": True}
    view = selectors.game_view(game=game, state=state, seat=seat)
    seen = [selectors.redact(e, seat) for e in round_events]
    seat_view = computer.seat_view(view, seen)
    # the same samples for a game and version whoever asks: the analysis is reproducible
    rng = random.Random(f"{game.pk}:{event['seq']}")
    move = (PARSE[played["tile"]], played["end"])
    found = expert.judge(seat_view, move, rng, samples, [threshold for threshold, _ in LABELS])
    loss = round(found.loss, 1)
    low, high = round(found.low, 1), round(found.high, 1)
    best = played if loss == 0.0 else {"tile": TEXT[found.best[0]], "end": found.best[1]}
    return {**entry, "best": best, "loss": loss, "loss_interval": [low, high], "label": label_of(low),
            "forced": False}


def summary(moves: list[dict[str, Any]], players: list[str | None]) -> list[dict[str, Any]]:
    """Per seat: decisions (forced moves are none), average loss, each label's count and the accuracy
    (the mean of the decisions' :func:`move_accuracy`; ``None`` without a decision)."""
    rows = []
    for seat, player in enumerate(players):
        mine = [m for m in moves if m["seat"] == seat and not m["forced"]]
        labels = [m["label"] for m in mine]
        rows.append({
            "seat": seat, "player": player, "decisions": len(mine),
            "average_loss": round(sum(m["loss"] for m in mine) / len(mine), 2) if mine else 0.0,
            "inaccuracies": labels.count("inaccuracy"), "mistakes": labels.count("mistake"),
            "blunders": labels.count("blunder"),
            "accuracy": round(sum(move_accuracy(m["loss"]) for m in mine) / len(mine), 1) if mine else None,
        })
    return rows


def player_average_loss(*, player) -> list[dict[str, Any]]:
    """The player's average loss per ruleset over their analysed games: ``{"ruleset", "games",
    "decisions", "average_loss"}`` (each decision weighs the same)."""
    rows = (GameAnalysis.objects.filter(status=AnalysisStatus.DONE, engine=expert.ENGINE_VERSION,
                                        game__seat_set__player=player)
            .select_related("game").order_by("-id")[:500])
    totals: dict[str, list[float]] = {}
    for analysis in rows:
        for line in analysis.result["players"]:
            if line["player"] == player.username and line["decisions"]:
                total = totals.setdefault(analysis.game.ruleset, [0, 0, 0.0])
                total[0] += 1
                total[1] += line["decisions"]
                total[2] += line["average_loss"] * line["decisions"]
    return [{"ruleset": ruleset, "games": int(games), "decisions": int(decisions),
             "average_loss": round(loss / decisions, 2)}
            for ruleset, (games, decisions, loss) in sorted(totals.items())]


def analysis_page(*, game: Game) -> dict[str, Any]:
    """What the game page shows of an ended game's analysis: the API's body when there is one, else
    ``{"status": None}`` (not requested)."""
    found = GameAnalysis.objects.filter(game=game, engine=expert.ENGINE_VERSION).first()
    return _body(found) if found is not None else {"status": None}


def judgement_at(shown: dict[str, Any], step: int) -> dict[str, Any] | None:
    """The analysed move of replay step ``step`` (the tile_played event with that seq), if any, with
    ``unsettled`` when its interval reaches a label's threshold that its low end does not (the budget
    ran out before the label was settled: the page says "not clearly worse", not "good")."""
    for move in shown.get("moves", ()):
        if move["version"] == step:
            high = move.get("loss_interval", [0.0, 0.0])[1]
            return {**move, "unsettled": move["label"] is None and high >= LABELS[-1][0]}
    return None
