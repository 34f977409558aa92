"""The public pages that gather several apps (docs/site.md). Thin: a selector, a template."""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from goat.games import access as games_access
from goat.games import analysis
from goat.games import selectors as games
from goat.games import table as tables
from goat.players import services as players
from goat.web.api.throttling import throttle_wait
from goat.web.db.replica import public_read
from goat.web.errors import ServiceError
from goat.web.site_paging import page_of, pager_links
from tournaments import selectors as tournaments

from . import rules, selectors

PLAYER_GAMES_PAGE = 20
#: the player page lists this many of the player's latest tournaments (the API pages through all of them)
PLAYER_TOURNAMENTS_SHOWN = 20


@public_read
def home_page(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html", selectors.home())


@public_read
def player_page(request: HttpRequest, username: str) -> HttpResponse:
    try:
        user = players.player_get(username=username)
    except ServiceError:
        raise Http404(_("No player with this username.")) from None
    listed = games.player_games(player=user)
    # a private table's game: once it has ended, unless the reader is its player or staff
    if request.user.pk != user.pk and not games_access.sees_private_games(request.user):
        listed = games.games_public(listed)
    page = page_of(request, listed, size=PLAYER_GAMES_PAGE)
    return render(request, "pages/player.html", {
        **selectors.player(user=user), "page": page, "computer": players.player_is_computer(player=user),
        "bot": players.player_is_bot(player=user),
        "games": selectors.player_game_rows(user=user, games_page=page.object_list), **pager_links(request, page),
        "analysis_losses": analysis.player_average_loss(player=user),
        "tournaments": [tournaments.player_tournament_row(r)
                        for r in tournaments.player_tournaments(player=user)[:PLAYER_TOURNAMENTS_SHOWN]],
    })


def _game_or_404(game_id: int, user):
    """The game ``user`` may see (a private table's game while it runs: its players and staff only)."""
    try:
        return games.game_get(game_id=game_id, viewer=user)
    except ServiceError:
        raise Http404(_("No game with that id.")) from None


def _step(request: HttpRequest, last: int) -> int:
    """``?step=``: a whole number from 0 to the game's last event (default: the last); else 404."""
    raw = request.GET.get("step")
    if raw is None:
        return last
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) <= last):
        raise Http404(_("No such step in this game."))
    return int(raw)


@public_read
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game: live while it runs (goat/web/static/site/live.js swaps in ``?part=main`` on each update of
    the game stream); once ended, the step-through replay (``?step=``) and the fairness panel."""
    game = _game_or_404(game_id, request.user)
    context = selectors.game(game=game, user=request.user)
    if game.ended:
        context["replay"] = tables.replay_model(game=game, step=_step(request, game.version), user=request.user)
        context["fairness"] = selectors.fairness(game=game, view=context["view"])
        context["analysis"] = analysis.analysis_page(game=game)
        context["replay"]["judgement"] = analysis.judgement_at(context["analysis"], context["replay"]["step"])
    part = request.GET.get("part") == "main"
    return render(request, "pages/_game_main.html" if part else "pages/game.html", context)


@public_read
def game_events_download(request: HttpRequest, game_id: int) -> HttpResponse:
    """An ended game's whole event log as the JSON file ``python -m goat.engine verify`` reads (the
    API's /events/ shows the same events once the game has ended: nothing is hidden any more)."""
    game = _game_or_404(game_id, request.user)
    if not game.ended:
        raise Http404(_("The event log is published when the game has ended."))
    response = HttpResponse(json.dumps(games.event_log(game=game), ensure_ascii=False, indent=1),
                            content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
    return response


def rules_index_page(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/rules_index.html", {"rulesets": rules.rules_index()})


def rules_page(request: HttpRequest, ruleset: str) -> HttpResponse:
    """A ruleset's rules for players (pages/rules.py), in the visitor's language."""
    page = rules.rules_page(ruleset)
    if page is None:
        raise Http404(_("No such ruleset."))
    return render(request, "pages/rules.html", {**page, "rulesets": rules.rules_index()})


@require_POST
def game_analysis_request(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game page's "analyse it" button: the API's request (the same service, counted against the
    same ``analysis`` rate), then back to the game."""
    if not request.user.is_authenticated:
        raise Http404(_("Sign in to ask for an analysis."))
    if throttle_wait(request, "analysis") is not None:
        response = HttpResponse(_("Too many analysis requests: try again later."), status=429,
                                content_type="text/plain; charset=utf-8")
        return response
    try:
        analysis.analysis_request(game_id=game_id)
    except ServiceError:
        raise Http404(_("This game cannot be analysed.")) from None
    return redirect("page-game", game_id=game_id)
