"""The Django admin of challenges: a read-only list for support staff (who challenged whom, the
answers, the game it started). Challenges are never added or changed here."""

from __future__ import annotations

from django.contrib import admin

from .models import Challenge, ChallengeEntry


class ChallengeEntryInline(admin.TabularInline):
    model = ChallengeEntry
    fields = ("player", "named", "answer", "reason", "answered_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("id", "challenger", "ruleset", "seats", "rated", "status", "created_at", "expires_at", "game")
    list_filter = ("status", "ruleset", "rated")
    search_fields = ("challenger__username", "entries__player__username")
    readonly_fields = ("challenger", "ruleset", "seats", "options", "rated", "seating", "status", "created_at",
                       "expires_at", "closed_at", "game", "again_of")
    exclude = ("code",)  # the link's secret is the challenger's
    inlines = [ChallengeEntryInline]
    list_select_related = ("challenger",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
