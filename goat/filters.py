"""Filters of the game list (API.md "Games": ``?status=&player=&ruleset=&tournament=``)."""

from __future__ import annotations

import django_filters

from goat.engine.rulesets import RULESETS

from .models import Game, GameStatus


class GameFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices, help_text="waiting, running, finished or interrupted.")
    player = django_filters.CharFilter(method="filter_player", max_length=150,
                                       help_text="Only games with a seat taken by this username.")
    ruleset = django_filters.ChoiceFilter(choices=[(r, r) for r in RULESETS], help_text="A ruleset name.")
    tournament = django_filters.NumberFilter(
        method="filter_tournament", min_value=1, max_value=2**63 - 1,  # an id (1e222 overflowed: a 500)
        help_text="Only games of this tournament (its tables' games).",
    )

    class Meta:
        model = Game
        fields = ["status", "player", "ruleset", "tournament"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(seat_set__player__username=value).distinct()

    def filter_tournament(self, queryset, name, value):
        return queryset.filter(tournament_table__tournament_id=value)
