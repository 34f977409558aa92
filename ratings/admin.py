"""Read-only admin views of the ratings projections (they are written by services only)."""

from django.contrib import admin

from .models import ChipAccount, ChipLedgerEntry, GameSkillChange, LeaderboardRow, RatingEntry, SkillRating


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(RatingEntry)
class RatingEntryAdmin(ReadOnlyAdmin):
    list_display = ["game", "player", "seat", "points", "reason", "ruleset", "goat", "at"]
    list_filter = ["reason", "ruleset"]
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
class SkillRatingAdmin(ReadOnlyAdmin):
    list_display = ["username", "ruleset", "ordinal", "mu", "sigma", "games"]
    list_filter = ["ruleset"]
    search_fields = ["username"]


@admin.register(GameSkillChange)
class GameSkillChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "player", "ruleset", "rank", "mu_before", "mu_after"]
    raw_id_fields = ["game", "player"]


@admin.register(LeaderboardRow)
class LeaderboardRowAdmin(ReadOnlyAdmin):
    list_display = ["board", "username", "rating", "games", "goats"]
    search_fields = ["board", "username"]
