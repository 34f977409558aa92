"""The ``challenge`` feed event (docs/api.md "Challenges"): published on commit to every player a
challenge names (its challenger, its named opponents, who came by its link) on their feed channel
(goat.games.notify), the bot stream included; and derived from the rows when a feed catches up."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from goat.games import notify as feeds

from .models import Challenge


def challenge_told(challenge: Challenge, event: str, player=None) -> None:
    """Tell everyone ``challenge`` names that ``event`` happened (``created``, ``accepted`` with the
    ``player`` who did, ``declined`` likewise, ``cancelled``, ``expired``, ``started``), once the
    transaction commits: ``{"event", "by", "challenge": <the challenge as its opponents see it>}``."""
    from .selectors import challenge_view

    view = challenge_view(challenge, None)
    data: dict[str, Any] = {"event": event, "by": player.get_username() if player is not None else None,
                            "challenge": view}
    ids = [challenge.challenger_id, *challenge.entries.values_list("player_id", flat=True)]
    transaction.on_commit(lambda: feeds.feed_publish(ids, "challenge", data))


def challenges_catch_up(sender, *, user, since: datetime, **kwargs) -> list[dict[str, Any]]:
    """``goat.games.signals.feed_catch_up``: the challenges naming ``user`` made or closed since
    ``since``, each as its last event."""
    from .selectors import challenge_view

    messages = []
    found = (Challenge.objects.filter(Q(challenger=user) | Q(entries__player=user))
             .filter(Q(created_at__gte=since) | Q(closed_at__gte=since)).distinct().order_by("-id")[:100])
    for challenge in found:
        view = challenge_view(challenge, None)
        event = {"open": "created", "accepted": "started"}.get(view["status"], view["status"])
        messages.append(feeds.feed_message("challenge", {"event": event, "by": None, "challenge": view}))
    return messages
