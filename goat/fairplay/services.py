"""The fair-play scan and the staff's reviews (docs/fairplay.md).

``scan`` reads the rated games that ended in the last ``GOAT_FAIRPLAY_DAYS`` (played games only:
nothing of a running game is ever read, so no report can show a hidden tile), their analyses and
full event logs, runs goat.fairplay.stats and keeps one open report per flagged player or pair. It
asks the analysis queue (goat.games.analysis, the same job a player's POST asks for) for the games
the reports need that are not analysed yet: those of the players who could be assessed (enough games
in the window) and of the flagged pairs, at most ``GOAT_FAIRPLAY_ANALYSE_LIMIT`` a scan, newest
first. ``review`` marks a report reviewed and writes the audit log row in one transaction.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from goat.engine import expert
from goat.engine.status import PLAYED
from goat.fairplay import stats
from goat.fairplay.models import FairPlayReport, FairPlayReview, Outcome, ReportKind, ReportStatus
from goat.games import analysis, eventstore
from goat.games.models import AnalysisStatus, Game, GameAnalysis
from goat.web.errors import ServiceError

logger = logging.getLogger(__name__)

REPORT_REVIEWED = gettext_lazy("This report has been reviewed already.")
INVALID_OUTCOME = gettext_lazy("Choose one of the outcomes.")
#: a pair's evidence and an assisted player's: at most this many moves and games
EVIDENCE = 20


def _games(since) -> list[Game]:
    return list(Game.objects.filter(status__in=PLAYED, computers=0, ended_at__gte=since)
                .prefetch_related("seat_set__player").order_by("-ended_at", "-id"))


def _players(game: Game) -> list[str]:
    return [s.player.username for s in sorted(game.seat_set.all(), key=lambda s: s.seat)]


def _bands(usernames: set[str], ruleset: str) -> dict[str, int | None]:
    from ratings.models import SkillRating

    rows = SkillRating.objects.filter(ruleset=ruleset, username__in=usernames).values_list("username", "ordinal")
    found = {name: stats.band_of(ordinal) for name, ordinal in rows}
    return {name: found.get(name) for name in usernames}


def scan(*, now=None) -> dict[str, int]:
    """One scan: ``{"games", "analysed", "requested", "assistance", "collusion"}`` (reports open after it)."""
    now = now or timezone.now()
    games = _games(now - timedelta(days=settings.GOAT_FAIRPLAY_DAYS))
    by_id = {g.pk: g for g in games}
    done = {a.game_id: a.result for a in GameAnalysis.objects.filter(
        game_id__in=list(by_id), engine=expert.ENGINE_VERSION, status=AnalysisStatus.DONE)}
    # games the engine could not judge are never asked for again
    failed = set(GameAnalysis.objects.filter(game_id__in=list(by_id), engine=expert.ENGINE_VERSION,
                                             status=AnalysisStatus.FAILED).values_list("game_id", flat=True))
    seatings = {g.pk: _players(g) for g in games}
    wanted: list[int] = []
    by_ruleset: dict[str, list[Game]] = defaultdict(list)
    for g in games:
        by_ruleset[g.ruleset].append(g)
    for ruleset, ruleset_games in by_ruleset.items():
        analysed = [(g.pk, done[g.pk]) for g in ruleset_games if g.pk in done]
        qualities = stats.qualities(analysed)
        bands = _bands(set(qualities), ruleset)
        findings = stats.assistance(qualities, {p: (ruleset, bands[p]) for p in qualities})
        for finding in findings:
            if finding.flagged:
                _report_assistance(finding, ruleset, by_id, done)
        # the games that could bring a player to the minimum: every game of those with enough of them
        counts: dict[str, int] = defaultdict(int)
        for g in ruleset_games:
            for name in seatings[g.pk]:
                counts[name] += 1
        per_game = max(1.0, sum(q.decisions for q in qualities.values()) / max(1, sum(
            len(seatings[g]) for g, _ in analysed)))
        hopeful = {name for name, n in counts.items() if n * per_game >= stats.ASSIST_MIN_DECISIONS}
        wanted += [g.pk for g in ruleset_games if g.pk not in done and hopeful & set(seatings[g.pk])]
        rows = []
        for g in ruleset_games:
            events = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=g.pk)]
            rows += stats.helps(g.pk, events)
        ruleset_seatings = {g.pk: seatings[g.pk] for g in ruleset_games}
        for finding in stats.collusion(rows, ruleset_seatings, evidence=EVIDENCE):
            if finding.flagged:
                _report_collusion(finding, ruleset, by_id, done)
                wanted += [gid for gid in _together(finding, ruleset_seatings) if gid not in done]
    requested = 0
    for gid in dict.fromkeys(gid for gid in wanted if gid not in failed):
        if requested >= settings.GOAT_FAIRPLAY_ANALYSE_LIMIT:
            break
        analysis.analysis_request(game_id=gid)
        requested += 1
    open_reports = FairPlayReport.objects.filter(status=ReportStatus.OPEN)
    summary = {"games": len(games), "analysed": len(done), "requested": requested,
               "assistance": open_reports.filter(kind=ReportKind.ASSISTANCE).count(),
               "collusion": open_reports.filter(kind=ReportKind.COLLUSION).count()}
    logger.info("fair-play scan: %s", summary)
    return summary


def _together(finding: stats.CollusionFinding, seatings: dict[int, list[str]]) -> list[int]:
    a, b = finding.pair
    return [gid for gid, players in seatings.items() if a in players and b in players]


def _report_assistance(finding: stats.AssistanceFinding, ruleset: str, games: dict[int, Game],
                       done: dict[int, Any]) -> None:
    moves, per_game = [], []
    for gid, result in done.items():
        if games[gid].ruleset != ruleset or finding.player not in _players(games[gid]):
            continue
        mine = [m for m in result["moves"] if m["player"] == finding.player and not m["forced"]]
        if not mine:
            continue
        best = [m for m in mine if m["best"] == m["played"]]
        per_game.append({"game": gid, "decisions": len(mine), "best": len(best),
                         "average_loss": round(sum(m["loss"] for m in mine) / len(mine), 2)})
        moves += [{"game": gid, "seq": m["version"], "tile": m["played"]["tile"], "end": m["played"]["end"],
                   "legal": len(m["legal"]), "loss": m["loss"]} for m in best if len(m["legal"]) >= 3]
    per_game.sort(key=lambda row: (-row["best"] / row["decisions"], row["game"]))
    moves.sort(key=lambda row: (-row["legal"], row["game"], row["seq"]))
    statistics = {
        "band": finding.group[1], "decisions": finding.decisions, "games": finding.games,
        "average_loss": finding.average_loss, "best_share": finding.best_share,
        "population_average_loss": finding.population_loss, "population_best_share": finding.population_best_share,
        "population_players": finding.population_players, "z_best": finding.z_best, "z_loss": finding.z_loss,
        "grade": finding.grade, "population_grade": finding.population_grade,
        "threshold": stats.ASSIST_Z, "minimum_decisions": stats.ASSIST_MIN_DECISIONS,
    }
    _upsert(ReportKind.ASSISTANCE, finding.player, [finding.player], ruleset=ruleset, score=finding.score,
            confidence=finding.confidence, decisions=finding.decisions, statistics=statistics,
            evidence={"games": per_game[:EVIDENCE], "moves": moves[:EVIDENCE]})


def _report_collusion(finding: stats.CollusionFinding, ruleset: str, games: dict[int, Game],
                      done: dict[int, Any]) -> None:
    a, b = finding.pair
    together = [gid for gid, g in games.items() if g.ruleset == ruleset and {a, b} <= set(_players(g))]
    gains = {a: 0, b: 0}
    for gid in together:
        players = _players(games[gid])
        result = games[gid].result or {}
        for name in (a, b):
            gains[name] += (result.get("rating_points") or [0] * len(players))[players.index(name)]
    losses = {(m["version"], gid): m["loss"] for gid in together if gid in done for m in done[gid]["moves"]}
    moves = [{"game": h.game, "seq": h.seq, "player": h.player, "for": h.other, "chance": round(h.chance, 2),
              "loss": losses.get((h.seq, h.game))} for h in finding.evidence]
    statistics = {
        "games_together": finding.games_together, "expected_together": finding.expected_together,
        "seating_z": finding.seating_z, "decisions": finding.decisions, "helped": finding.helped,
        "expected_helped": finding.expected_helped, "help_z": finding.help_z, "rating_points_together": gains,
        "threshold": stats.COLLUSION_Z, "seating_threshold": stats.SEATING_Z,
        "minimum_decisions": stats.COLLUSION_MIN_DECISIONS,
    }
    _upsert(ReportKind.COLLUSION, f"{a} + {b}", [a, b], ruleset=ruleset, score=finding.help_z,
            confidence=finding.confidence, decisions=finding.decisions, statistics=statistics,
            evidence={"games": [{"game": gid} for gid in sorted(together, reverse=True)[:EVIDENCE]],
                      "moves": moves})


def _upsert(kind: str, subject: str, usernames: list[str], **fields: Any) -> None:
    """The open report of ``kind`` and ``subject`` updated, or created; nothing when the subject's last
    report was reviewed within the scan's window (a review stands until the window has moved past it)."""
    from django.contrib.auth import get_user_model

    window = timezone.now() - timedelta(days=settings.GOAT_FAIRPLAY_DAYS)
    if FairPlayReport.objects.filter(kind=kind, subject=subject, status=ReportStatus.REVIEWED,
                                     updated_at__gte=window).exists():
        return
    fields["awaiting_analysis"] = 0
    for _attempt in range(2):
        try:
            with transaction.atomic():
                report, created = FairPlayReport.objects.select_for_update().update_or_create(
                    kind=kind, subject=subject, status=ReportStatus.OPEN, defaults=fields)
                if created:
                    report.players.set(get_user_model().objects.filter(username__in=usernames))
            return
        except IntegrityError:  # another scan created it first: update theirs
            continue


def review(*, report_id: int, reviewer, outcome: str, note: str = "") -> FairPlayReport:
    """Mark a report reviewed with ``outcome``; the audit log keeps who, what and when. 409
    ``report_reviewed`` when someone reviewed it first."""
    if outcome not in Outcome.values:
        raise ServiceError("invalid", INVALID_OUTCOME, status=400, errors={"outcome": [str(INVALID_OUTCOME)]})
    with transaction.atomic():
        report = FairPlayReport.objects.select_for_update().get(pk=report_id)
        if report.status != ReportStatus.OPEN:
            raise ServiceError("report_reviewed", REPORT_REVIEWED, status=409)
        report.status, report.outcome = ReportStatus.REVIEWED, outcome
        report.save(update_fields=["status", "outcome", "updated_at"])
        FairPlayReview.objects.create(report=report, reviewer=reviewer, outcome=outcome, note=note)
    return report


def request_analysis(*, report: FairPlayReport) -> int:
    """Ask the analysis queue for the report's games that have no analysis yet: how many were asked."""
    ids = {row["game"] for row in report.evidence.get("games", [])} | {
        row["game"] for row in report.evidence.get("moves", [])}
    have = set(GameAnalysis.objects.filter(game_id__in=ids, engine=expert.ENGINE_VERSION)
               .values_list("game_id", flat=True))
    asked = 0
    for gid in sorted(ids - have):
        analysis.analysis_request(game_id=gid)
        asked += 1
    FairPlayReport.objects.filter(pk=report.pk).update(awaiting_analysis=asked)
    return asked
