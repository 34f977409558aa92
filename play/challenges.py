"""The play page's challenges (docs/play.md "Challenges"): the link of an open challenge,
``/play/c/<code>/``. Whoever opens it and signs in takes a seat by pressing "Accept" (a form POST to
this page: ``challenges.services.challenge_accept`` with the code); once every seat is taken the game
starts and the page goes to its table. Every lookup of a code counts on the player's wrong-code
rate, as the API's accept does, so codes cannot be guessed through this page either."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from challenges import selectors as challenge_selectors
from challenges import services as challenges
from challenges.models import ChallengeStatus
from goat.engine.status import PLAYED
from goat.games.models import Game, Seat
from goat.web.errors import ServiceError


@require_http_methods(["GET", "POST"])
@ensure_csrf_cookie
def challenge_link(request: HttpRequest, code: str) -> HttpResponse:
    from . import views  # the play page's frame (views imports this module for the page's challenges)

    if not request.user.is_authenticated:
        return views.page(request, notice=_("Sign in, or sign up, to take your seat at this table."))
    try:
        challenge = challenges.challenge_by_code(code=code, player=request.user)
    except ServiceError as exc:
        response = views.page(request, status=exc.status, notice=exc.detail)
        for name, value in exc.headers.items():
            response[name] = value
        return response
    if challenge is None:
        raise Http404("No challenge with that code.")
    error = ""
    if request.method == "POST":
        try:
            challenge = challenges.challenge_accept(challenge_id=challenge.pk, player=request.user, code=code)
        except ServiceError as exc:
            error = exc.detail
        else:
            challenge.refresh_from_db()
    if challenge.game_id is not None and (challenge.challenger_id == request.user.pk
                                          or challenge.entries.filter(player=request.user).exists()):
        return redirect("page-play-table", challenge.game_id)
    view = challenge_selectors.challenge_view(challenge_selectors.challenges_listed().get(pk=challenge.pk),
                                              request.user)
    joined = request.user.pk == challenge.challenger_id or any(o["player"] == request.user.get_username()
                                                               for o in view["opponents"])
    return render(request, "play/challenge_link.html", {
        "challenge": view, "joined": joined, "error": error, "open": view["status"] == ChallengeStatus.OPEN,
        "free": challenge.seats - 1 - len(view["opponents"]),
    }, status=409 if error else 200)


def challenge_context(request: HttpRequest, game_id: int | None = None) -> dict[str, object]:
    """The play page's challenges (play/_challenges.html): the open ones waiting for the player's
    answer, their own open ones, the name ``?challenge=`` prefills (a player page's "Challenge"), and
    on the table of a game the player sits at, whether "play again with the same people" is shown
    now (the game has ended; the script shows it when the game ends on the page)."""
    user = request.user
    seated = game_id is not None and Seat.objects.filter(game_id=game_id, player=user).exists()
    ended = seated and Game.objects.filter(pk=game_id, status__in=PLAYED).exists()
    mine = challenge_selectors.challenges_of(user=user, status=ChallengeStatus.OPEN)
    incoming = [challenge_selectors.challenge_view(c, user) for c in mine.filter(entries__player=user,
                                                                                  entries__answer="pending")[:20]]
    outgoing = [challenge_selectors.challenge_view(c, user) for c in mine.filter(challenger=user)[:20]]
    return {"incoming": incoming, "outgoing": outgoing, "challenge_to": request.GET.get("challenge", "")[:150],
            "again_game": game_id if seated else None, "again_ready": ended}


def challenge_strings() -> dict[str, str]:
    """The words challenges.js shows, in the page's language."""
    return {
        "challenge_sent": _("Challenge sent."), "challenge_from": _("%(player)s challenges you."),
        "challenge_declined": _("%(player)s declined your challenge."), "accept": _("Accept"),
        "decline": _("Decline"), "cancel": _("Cancel"), "link": _("link"), "anyone": _("anyone with the link"),
        "from_player": _("from %(player)s"), "ch_rated": _("rated"), "ch_unrated": _("unrated"), "bot": _("bot"),
        "none_incoming": _("No challenge waits for your answer."), "none_outgoing": _("You have no open challenge."),
        "again_waiting": _("Your seat is kept: the game starts when everyone of the last table has said yes."),
    }
