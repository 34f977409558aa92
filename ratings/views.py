"""The public leaderboard page (no login): /leaderboards/ (ratings or skill, by period and ruleset)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from goat.engine import RULESETS
from goat.engine.rulesets import DEFAULT_RULESET
from goat.players import services as players
from goat.web.db.replica import public_read
from goat.web.site_paging import PAGE_SIZE, page_of, pager_links

from . import selectors as boards
from .leaderboards import PERIODS


@public_read
def leaderboards_page(request: HttpRequest) -> HttpResponse:
    board = request.GET.get("board") if request.GET.get("board") in ("ratings", "skill") else "ratings"
    period = request.GET.get("period") if request.GET.get("period") in PERIODS else "all"
    ruleset = request.GET.get("ruleset") if request.GET.get("ruleset") in RULESETS else ""
    if board == "skill":
        ruleset = ruleset or DEFAULT_RULESET
        rows = boards.skill_board(ruleset=ruleset)
    else:
        rows = boards.rating_board(period=period, ruleset=ruleset or None)
    page = page_of(request, rows)
    offset = (page.number - 1) * PAGE_SIZE
    listed = list(page.object_list)
    return render(request, "ratings/leaderboards.html", {
        "board": board, "period": period, "ruleset": ruleset, "periods": PERIODS, "rulesets": list(RULESETS),
        "page": page, "rows": boards.ranked(listed, offset),
        "bots": players.bots_among(usernames=[r.username for r in listed]),
        **pager_links(request, page),
    })
