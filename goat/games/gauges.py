"""Gauges of the games app computed when ``/metrics`` is read (registered in GoatConfig.ready).

* ``goat_ticker_overdue_clocks``: running games past their deadline now (a range of the partial
  deadline index). A few for a moment is the ticker's one-second beat; a growing number is a ticker
  that does not keep up (or no beat, no worker).
* ``goat_projection_backlog_games`` / ``goat_projection_backlog_oldest_seconds``: ended games that a
  projection (ratings, chips, standings, ...) has not processed yet, and how long ago the earliest
  of them ended.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric

from goat.games import projections
from goat.games.models import Game


def games_gauges() -> Iterable[Metric]:
    now = timezone.now()
    overdue = Game.objects.filter(deadline__lte=now).count()
    yield GaugeMetricFamily("goat_ticker_overdue_clocks", "Running games past their deadline now.", value=overdue)
    count, oldest = projections.projections_backlog(now=now)
    yield GaugeMetricFamily("goat_projection_backlog_games",
                            "Ended games (last 7 days) that a projection has not processed yet.", value=count)
    yield GaugeMetricFamily("goat_projection_backlog_oldest_seconds",
                            "Seconds since the earliest ended game still waiting for a projection ended (0: none).",
                            value=(now - oldest).total_seconds() if oldest else 0.0)
