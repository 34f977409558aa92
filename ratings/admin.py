"""Read-only admin views of the ratings projections (they are written by services only)."""

from django.contrib import admin
from django.utils.translation import gettext, gettext_lazy

from goat.games import words
from goat.games.admin import RulesetWords
from goat.web.admin_site import coded_filter

from .leaderboards import ALL_RULESETS
from .models import ChipAccount, ChipLedgerEntry, GameSkillChange, LeaderboardRow, RatingEntry, SkillRating


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def rounded(value) -> str:
    """A skill value as people read it: two decimals (the stored float keeps its full precision)."""
    return "" if value is None else f"{value:.2f}"


RULESET_FILTER = coded_filter("ruleset", words.RULESETS, gettext_lazy("ruleset"))


@admin.register(RatingEntry)
class RatingEntryAdmin(RulesetWords, ReadOnlyAdmin):
    list_display = ["game", "player", "seat_number", "points", "reason", "ruleset_words", "goat", "at"]

    @admin.display(description=gettext_lazy("seat"), ordering="seat")
    def seat_number(self, entry) -> str:
        """The seat as people count it, from 1 (goat.games.words.seat)."""
        return words.seat(entry.seat)
    list_filter = ["reason", RULESET_FILTER]
    search_fields = ["player__username"]
    raw_id_fields = ["game", "player"]


@admin.register(ChipAccount)
class ChipAccountAdmin(ReadOnlyAdmin):
    list_display = ["player", "balance"]
    search_fields = ["player__username"]


@admin.register(ChipLedgerEntry)
class ChipLedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "kind", "amount", "at"]
    list_filter = ["kind"]
    search_fields = ["player__username"]
    raw_id_fields = ["game", "player"]


@admin.register(SkillRating)
class SkillRatingAdmin(RulesetWords, ReadOnlyAdmin):
    list_display = ["username", "ruleset_words", "ordinal_shown", "mu_shown", "sigma_shown", "games"]

    @admin.display(description=SkillRating._meta.get_field("ordinal").verbose_name, ordering="ordinal")
    def ordinal_shown(self, row) -> str:
        return rounded(row.ordinal)

    @admin.display(description=SkillRating._meta.get_field("mu").verbose_name, ordering="mu")
    def mu_shown(self, row) -> str:
        return rounded(row.mu)

    @admin.display(description=SkillRating._meta.get_field("sigma").verbose_name, ordering="sigma")
    def sigma_shown(self, row) -> str:
        return rounded(row.sigma)
    list_filter = [RULESET_FILTER]
    search_fields = ["username"]


@admin.register(GameSkillChange)
class GameSkillChangeAdmin(RulesetWords, ReadOnlyAdmin):
    list_display = ["game", "player", "ruleset_words", "rank", "mu_before_shown", "mu_after_shown"]

    @admin.display(description=GameSkillChange._meta.get_field("mu_before").verbose_name, ordering="mu_before")
    def mu_before_shown(self, row) -> str:
        return rounded(row.mu_before)

    @admin.display(description=GameSkillChange._meta.get_field("mu_after").verbose_name, ordering="mu_after")
    def mu_after_shown(self, row) -> str:
        return rounded(row.mu_after)
    raw_id_fields = ["game", "player"]


@admin.register(LeaderboardRow)
class LeaderboardRowAdmin(ReadOnlyAdmin):
    list_display = ["board_words", "username", "rating", "games", "goats"]

    @admin.display(description=gettext_lazy("board"), ordering="board")
    def board_words(self, row) -> str:
        """The board in words: its period and ruleset by name ("week 2026-W49 · Goat, classic"); the
        key itself (``ratings:week:2026-W49:goat-classic``) stays in the search."""
        kind, *period, ruleset = row.board.split(":")[1:] or [""]
        if kind == "month" and period:
            when = gettext("month %(period)s") % {"period": period[0]}
        elif kind == "week" and period:
            when = gettext("week %(period)s") % {"period": period[0]}
        else:
            when = words.word(kind)
        return f"{when} · {gettext('all rulesets') if ruleset == ALL_RULESETS else words.ruleset(ruleset)}"
    search_fields = ["board", "username"]
