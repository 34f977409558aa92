"""The live side of tournaments: the tournaments' channel and "tournament T changed" for their
streams (tournaments.streams), the feed's catch-up of tournament tables, and the advance job queued
after a commit."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction

from goat.games import notify
from goat.live import fanout

from ..models import Table

logger = logging.getLogger(__name__)


def tournament_channel(tournament_id: int) -> str:
    """The live channel of a tournament's streams (tournaments.streams)."""
    return f"tournament:{tournament_id}"


def tournament_changed(*, tournament_id: int) -> None:
    """Tell the tournament's live streams that it changed (a table started or ended, the standings
    moved, a round, the start or the finish, an organiser's action), once the transaction that
    changed it commits (at once outside one). Every service that changes a tournament calls this;
    each stream then reads the tournament again and sends it if it differs from what it last sent."""
    transaction.on_commit(lambda: fanout.publish(tournament_channel(tournament_id), {"changed": True}))


def tournament_tables_owed(*, user, since: datetime, limit: int = 200, **_signal) -> list[dict[str, Any]]:
    """The ``tournament_table`` feed messages of the tables ``user`` was seated at since ``since``
    (a feed that missed them catches up: a receiver of goat.games.signals.feed_catch_up)."""
    tables = (Table.objects.filter(seatings__player=user, created_at__gte=since).order_by("-id")
              .values("tournament_id", "game_id")[:limit])
    return [notify.feed_message("tournament_table", {"tournament": t["tournament_id"], "game": t["game_id"]})
            for t in tables]


#: looked up by name in the Celery app's registry: the tasks module imports this one, not the other way round
ADVANCE_TASK = "tournaments.tasks.tournament_advance"


def queue_advance(tournament_id: int) -> None:
    from kombu.exceptions import OperationalError as BrokerError

    from goat.celery import app

    try:
        app.tasks[ADVANCE_TASK].delay(tournament_id)
    except BrokerError:  # the periodic tournaments_arena_tick advances every running tournament
        logger.exception("tournaments: could not queue tournament_advance for tournament %s", tournament_id)
