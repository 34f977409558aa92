"""Tournaments in the admin, for tournament judges: read-only views of what the Celery jobs did.

Tournaments are created through the API (staff) and run by the beat and the advance task; the admin
shows registrations, tables (with links to each game's replay audit), byes, standings and prizes,
and changes nothing, so the projections stay derivable from the games.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from goat.games.admin import game_admin_extend

from .models import Bye, Prize, Registration, Standing, Table, Tournament


class GameTournamentFilter(admin.SimpleListFilter):
    """The game list's tournament filter (contributed to the games admin; see game_admin_extend)."""

    title = "tournament"
    parameter_name = "tournament"

    def lookups(self, request, model_admin):
        return [(str(t.pk), str(t)) for t in Tournament.objects.order_by("-pk")[:200]]

    def has_output(self):
        return True  # also filter by a tournament id given in the URL (e.g. linked from a tournament page)

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        if not value.isascii() or not value.isdigit() or len(value) > 18:  # not an id: no game matches
            return queryset.none()
        return queryset.filter(pk__in=Table.objects.filter(tournament_id=int(value)).values("game_id"))


@admin.display(description="tournament")
def game_tournament(game):
    table = getattr(game, "tournament_table", None)
    if table is None:
        return "-"
    url = reverse("admin:tournaments_tournament_change", args=[table.tournament_id])
    return format_html('<a href="{}">{}</a>', url, table.tournament)


game_admin_extend(list_filter=[GameTournamentFilter], list_display=[game_tournament],
                  select_related=["tournament_table__tournament"])


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RegistrationInline(ReadOnlyInline):
    model = Registration
    fields = readonly_fields = ("player", "registered_at", "fee_paid")


class TableInline(ReadOnlyInline):
    model = Table
    fields = readonly_fields = ("round", "number", "game_link", "game_status")

    @admin.display(description="game")
    def game_link(self, table):
        url = reverse("admin:goat_game_change", args=[table.game_id])
        return format_html('<a href="{}">game {}</a>', url, table.game_id)

    @admin.display(description="status")
    def game_status(self, table):
        return table.game.status


class ByeInline(ReadOnlyInline):
    model = Bye
    fields = readonly_fields = ("round", "player", "points")


class StandingInline(ReadOnlyInline):
    model = Standing
    fields = readonly_fields = ("rank", "username", "points", "games", "goats", "opponents_points", "game_points",
                                "byes", "withdrawn")
    ordering = ("rank",)


class PrizeInline(ReadOnlyInline):
    model = Prize
    fields = readonly_fields = ("place", "player", "amount")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "format", "ruleset", "status", "starts_at", "table_size", "max_players",
                    "entry_fee", "prize_pool")
    list_filter = ("status", "format", "ruleset")
    search_fields = ("name",)
    date_hierarchy = "starts_at"
    inlines = [StandingInline, RegistrationInline, TableInline, ByeInline, PrizeInline]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):
        return False  # created through the API, which validates the ruleset and options

    def has_change_permission(self, request, obj=None):
        return request.method in ("GET", "HEAD") and super().has_view_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False
