"""Public server-rendered pages (no login): /leaderboards/, /tournaments/, /tournaments/{id}/.

Plain Django templates with a small stylesheet (tournaments/static/tournaments/site.css), readable on
a phone; a running tournament's page refreshes itself every few seconds (meta refresh, no JS).
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from goat.engine import RULESETS
from ratings import selectors as boards

from . import selectors
from .models import TournamentStatus

PAGE_SIZE = 50
PERIODS = ("all", "month", "week")
REFRESH_SECONDS = 10


def _page(request: HttpRequest, items):
    return Paginator(items, PAGE_SIZE).get_page(request.GET.get("page"))


def _query(request: HttpRequest, **changes) -> str:
    params = request.GET.copy()
    for key, value in changes.items():
        params[key] = value
    return params.urlencode()


def leaderboards_page(request: HttpRequest) -> HttpResponse:
    board = request.GET.get("board") if request.GET.get("board") in ("ratings", "skill") else "ratings"
    period = request.GET.get("period") if request.GET.get("period") in PERIODS else "all"
    ruleset = request.GET.get("ruleset") if request.GET.get("ruleset") in RULESETS else ""
    if board == "skill":
        ruleset = ruleset or "goat-classic"
        rows = boards.skill_board(ruleset=ruleset)
    else:
        rows = boards.rating_board(period=period, ruleset=ruleset or None)
    page = _page(request, rows)
    offset = (page.number - 1) * PAGE_SIZE
    return render(request, "tournaments/leaderboards.html", {
        "board": board, "period": period, "ruleset": ruleset, "periods": PERIODS, "rulesets": list(RULESETS),
        "page": page, "rows": boards.ranked(list(page.object_list), offset),
        "prev_query": _query(request, page=page.number - 1) if page.has_previous() else None,
        "next_query": _query(request, page=page.number + 1) if page.has_next() else None,
    })


def tournament_list_page(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status") if request.GET.get("status") in TournamentStatus.values else ""
    page = _page(request, selectors.tournament_list(status=status or None))
    return render(request, "tournaments/tournament_list.html", {
        "status": status, "statuses": TournamentStatus.values, "page": page,
        "prev_query": _query(request, page=page.number - 1) if page.has_previous() else None,
        "next_query": _query(request, page=page.number + 1) if page.has_next() else None,
    })


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise Http404("No tournament with that id.")
    detail = selectors.tournament_detail(tournament)
    standings = _page(request, [selectors.standing_row(s)
                                for s in selectors.tournament_standings(tournament=tournament)])
    tables = detail["tables"]
    rounds = [{**r, "tables": [t for t in tables if t["round"] == r["number"]]} for r in detail["played_rounds"]]
    for table in tables:
        table["seats"] = [{"player": p, "points": table["points"][i] if i < len(table["points"]) else 0,
                           "to_move": table["turn"] == i and table["status"] == "running",
                           "goat": bool(table["result"]) and i in table["result"].get("goats", [])}
                          for i, p in enumerate(table["players"])]
    return render(request, "tournaments/tournament_detail.html", {
        "t": detail, "standings": standings, "rounds": list(reversed(rounds)),
        "arena_tables": list(reversed([t for t in tables if t["round"] is None])),
        "refresh": REFRESH_SECONDS if tournament.status != TournamentStatus.FINISHED else None,
        "prev_query": _query(request, page=standings.number - 1) if standings.has_previous() else None,
        "next_query": _query(request, page=standings.number + 1) if standings.has_next() else None,
    })
