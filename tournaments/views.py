"""Public tournament pages (no login): /tournaments/ and /tournaments/{id}/.

Plain Django templates on the site frame of goat.web (site/base.html, site/site.css), readable on a
phone and whole without JavaScript. A tournament that is not over follows the tournament stream
(tournaments/streams.py) with live.js, which swaps in the page's main part (``?part=main``).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from goat.engine.status import RUNNING
from goat.web.db.replica import public_read
from goat.web.site_paging import frame, page_of, pager_links

from . import selectors
from .models import TournamentFormat, TournamentStatus


@public_read
def tournament_list_page(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status") if request.GET.get("status") in TournamentStatus.values else ""
    page = page_of(request, selectors.tournament_list(status=status or None))
    return render(request, "tournaments/tournament_list.html", {
        "status": status, "statuses": TournamentStatus.values, "page": page, **pager_links(request, page),
    })


@public_read
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise Http404("No tournament with that id.")
    detail = selectors.tournament_detail(tournament)
    detail["prizes"] = [p for p in detail["prizes"] if p["amount"] > 0]  # a free tournament pays nothing to list
    standings = page_of(request, selectors.tournament_standings(tournament=tournament))
    standings.object_list = [selectors.standing_row(s) | {"line": s} for s in standings.object_list]
    tables = detail["tables"]
    rounds = [{**r, "tables": [t for t in tables if t["round"] == r["number"]]} for r in detail["played_rounds"]]
    for table in tables:
        table["seats"] = [{"player": p, "points": table["points"][i] if i < len(table["points"]) else 0,
                           "to_move": table["turn"] == i and table["status"] == RUNNING,
                           "goat": bool(table["result"]) and i in table["result"].get("goats", [])}
                          for i, p in enumerate(table["players"])]
    return render(request, "tournaments/tournament_detail.html", {
        "t": detail, "standings": standings, "rounds": list(reversed(rounds)),
        "crosstable": crosstable_view(tournament, standings.object_list, detail["played_rounds"]),
        "arena_tables": list(reversed([t for t in tables if t["round"] is None])),
        "frame": frame(request), "live": tournament.status in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING),
        **pager_links(request, standings),
    })


def crosstable_view(tournament, rows: list[dict], played_rounds: list[dict]) -> dict:
    """The crosstable include's context for the standings lines on this page: swiss, one cell per round
    (its game, or the bye); arena, one cell with every game in play order."""
    lines = selectors.tournament_crosstable(tournament=tournament, standings=[r["line"] for r in rows])
    if tournament.format != TournamentFormat.SWISS:
        return {"rounds": [], "rows": [{**line, "cells": [{"bye": False, "games": line["games"]}]} for line in lines]}
    numbers = [r["number"] for r in played_rounds]
    byes = {r["number"]: r["bye"] for r in played_rounds}
    return {"rounds": numbers, "rows": [
        {**line, "cells": [{"bye": byes.get(n) == line["player"],
                            "games": [g for g in line["games"] if g["round"] == n]} for n in numbers]}
        for line in lines]}
