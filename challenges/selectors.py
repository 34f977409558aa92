"""What a caller may see of challenges (docs/api.md "Challenges"): the challenge view, a player's
list (in, out), and whether a challenge is visible to them."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy

from goat.games.access import sees_private_games
from goat.players.models import BotAccount
from goat.web.errors import ServiceError, WebError

from .models import Challenge, ChallengeEntry, ChallengeStatus

NOT_FOUND = gettext_lazy("No challenge with that id.")

__all__ = ["challenge_get", "challenge_link", "challenge_not_found", "challenge_status", "challenge_view",
           "challenge_visible", "challenges_of"]


def challenge_not_found() -> ServiceError:
    """404 ``not_found``: no challenge the caller may see (one they may not is not told apart)."""
    return WebError.NOT_FOUND(NOT_FOUND)


def challenge_status(challenge: Challenge, now=None) -> str:
    """The challenge's status as every read shows it: an open one past ``expires_at`` is ``expired``
    (whether or not the beat has written it yet)."""
    if challenge.status == ChallengeStatus.OPEN and challenge.expires_at <= (now or timezone.now()):
        return ChallengeStatus.EXPIRED
    return challenge.status


def challenge_visible(challenge: Challenge, user) -> bool:
    """Whether ``user`` may see ``challenge``: its challenger, a player it names (or who came by its
    link), staff."""
    if user.pk == challenge.challenger_id or sees_private_games(user):
        return True
    return ChallengeEntry.objects.filter(challenge=challenge, player=user).exists()


def _entries() -> Prefetch:
    bots = BotAccount.objects.filter(user_id=OuterRef("player_id"))
    return Prefetch("entries", queryset=ChallengeEntry.objects.select_related("player")
                    .annotate(player_bot=Exists(bots)).order_by("id"))


def challenges_listed() -> QuerySet[Challenge]:
    bots = BotAccount.objects.filter(user_id=OuterRef("challenger_id"))
    return (Challenge.objects.select_related("challenger").annotate(challenger_bot=Exists(bots))
            .prefetch_related(_entries()).order_by("-id"))


def challenges_of(*, user, direction: str | None = None, status: str | None = None) -> QuerySet[Challenge]:
    """``user``'s challenges, newest first: ``out`` the ones they made, ``in`` the ones that name them
    (or that they joined by the link), neither: both. ``status`` as every read shows it (an open one
    past its time is ``expired``)."""
    mine_in = Exists(ChallengeEntry.objects.filter(challenge=OuterRef("pk"), player=user))
    queryset = challenges_listed()
    if direction == "out":
        queryset = queryset.filter(challenger=user)
    elif direction == "in":
        queryset = queryset.filter(mine_in)
    else:
        queryset = queryset.filter(Q(challenger=user) | mine_in)
    now = timezone.now()
    if status == ChallengeStatus.OPEN:
        queryset = queryset.filter(status=ChallengeStatus.OPEN, expires_at__gt=now)
    elif status == ChallengeStatus.EXPIRED:
        queryset = queryset.filter(Q(status=ChallengeStatus.EXPIRED) | Q(status=ChallengeStatus.OPEN,
                                                                           expires_at__lte=now))
    elif status:
        queryset = queryset.filter(status=status)
    return queryset


def challenge_get(*, challenge_id: int, user) -> Challenge:
    """The challenge ``user`` may see (its challenger, a player it names, staff), else 404."""
    challenge = challenges_listed().filter(pk=challenge_id).first()
    if challenge is None or not challenge_visible(challenge, user):
        raise challenge_not_found()
    return challenge


def challenge_link(challenge: Challenge) -> str | None:
    """The play page's path of the challenge's link (``/play/c/<code>/``), None without seats by link."""
    return reverse("play-challenge-link", args=[challenge.code]) if challenge.code else None


def _bot(obj, attribute: str, user_id: int) -> bool:
    found = getattr(obj, attribute, None)
    if found is None:
        return BotAccount.objects.filter(user_id=user_id).exists()
    return bool(found)


def challenge_view(challenge: Challenge, user) -> dict[str, Any]:
    """The challenge as ``user`` sees it (None: as its opponents do). ``link`` and ``code`` are the
    challenger's alone, while the challenge is open; ``game`` is set once it started."""
    status = challenge_status(challenge)
    secret = user is not None and user.pk == challenge.challenger_id and status == ChallengeStatus.OPEN
    entries = challenge.entries.all()
    return {
        "id": challenge.pk,
        "status": status,
        "challenger": challenge.challenger.get_username(),
        "challenger_bot": _bot(challenge, "challenger_bot", challenge.challenger_id),
        "opponents": [{"player": entry.player.get_username(), "answer": entry.answer, "named": entry.named,
                       "reason": entry.reason or None, "bot": _bot(entry, "player_bot", entry.player_id)}
                      for entry in entries],
        "ruleset": challenge.ruleset,
        "seats": challenge.seats,
        "options": challenge.options,
        "rated": challenge.rated,
        "seating": challenge.seating,
        "private": challenge.private,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "link": challenge_link(challenge) if secret else None,
        "code": challenge.code if secret else None,
        "game": challenge.game_id,
        "again_of": challenge.again_of_id,
    }
