"""Filters of the game list (docs/api.md "Games and moves": ``?status=&player=&ruleset=&tournament=``).

``status``, ``player`` and ``ruleset`` are the games app's own; apps above it add theirs with
``game_filter_register`` (the tournaments app adds ``tournament``), so this app never imports them.
"""

from __future__ import annotations

import django_filters

from goat.engine.rulesets import RULESETS
from goat.games import selectors
from goat.games.models import Game, GameStatus
from goat.web.api.query import StrictBooleanFilter


class GameFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices,
                                         help_text="waiting, running, finished, interrupted or cancelled.")
    player = django_filters.CharFilter(method="filter_player", max_length=150,
                                       help_text="Only games with a seat taken by this username.")
    ruleset = django_filters.ChoiceFilter(choices=[(r, r) for r in RULESETS], help_text="A ruleset name.")
    open = StrictBooleanFilter(method="filter_open",
                               help_text="true: only waiting games with a free seat you can take; false: every game.")

    class Meta:
        model = Game
        fields = ["status", "player", "ruleset", "open"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(seat_set__player__username=value).distinct()

    def filter_open(self, queryset, name, value):
        if not value:
            return queryset
        return selectors.games_open(queryset, user=getattr(self.request, "user", None))


class MyGamesFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices, help_text="Only games of this status.")

    class Meta:
        model = Game
        fields = ["status"]


def game_filter_register(name: str, filter_: django_filters.Filter) -> None:
    """Add a query parameter to the game list (and so to its OpenAPI schema). Called from another
    app's ``AppConfig.ready``; registering the same name again replaces the filter."""
    GameFilter.base_filters[name] = filter_
