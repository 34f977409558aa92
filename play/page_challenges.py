"""The play page's part about challenges (docs/play.md "Challenges", play/_challenges.html): the
challenges it lists when it is drawn, and the words its script (static/play/challenges.js) shows. The
page of a challenge's link is a view of the play page (``views.challenge_link``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext as _

from challenges import selectors as challenge_selectors
from challenges.models import ChallengeStatus
from goat.engine.status import PLAYED
from goat.games.models import Game, Seat


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
