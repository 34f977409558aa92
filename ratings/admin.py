"""Read-only admin views of the ratings projections (they are written by services only)."""

from django.contrib import admin
from django.utils.translation import gettext, gettext_lazy

from goat.web import words
from goat.web.admin_site import RulesetWords, coded_filter

from .leaderboards import ALL_RULESETS
from .models import ChipAccount, ChipLedgerEntry, GameSkillChange, LeaderboardRow, RatingEntry, SkillRating


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


RULESET_FILTER = coded_filter("ruleset", words.RULESETS, gettext_lazy("ruleset"))


@admin.register(RatingEntry)
class RatingEntryAdmin(RulesetWords, ReadOnlyAdmin):
    list_display = ["game", "player", "seat", "points", "reason", "ruleset_words", "goat", "at"]
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
    list_display = ["username", "ruleset_words", "ordinal", "mu", "sigma", "games"]
    list_filter = [RULESET_FILTER]
    search_fields = ["username"]


@admin.register(GameSkillChange)
class GameSkillChangeAdmin(RulesetWords, ReadOnlyAdmin):
    list_display = ["game", "player", "ruleset_words", "rank", "mu_before", "mu_after"]
    raw_id_fields = ["game", "player"]


@admin.register(LeaderboardRow)
class LeaderboardRowAdmin(ReadOnlyAdmin):
    list_display = ["board_words", "username", "rating", "games", "goats"]

    @admin.display(description=gettext_lazy("board"), ordering="board")
    def board_words(self, row) -> str:
        """The board's key with its ruleset by name ("ratings:week:2026-W49 · Goat, classic")."""
        period, _, ruleset = row.board.rpartition(":")
        return f"{period} · {gettext('all rulesets') if ruleset == ALL_RULESETS else words.ruleset(ruleset)}"
    search_fields = ["board", "username"]
