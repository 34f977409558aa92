"""The Django admin of the games app: the replay audit for support staff and tournament judges.

* ``GameAdmin`` — list with filters (ruleset, status, created, verification flag; an app above this
  one extends it by a subclass it registers in its place: the tournaments app adds its tournament
  filter and column) and search by player; the detail page shows the result, the
  scoresheet, the seats and the event log (50 per page), all read-only, with buttons for the replay,
  verification and exports. Games are never added, changed or deleted here.
* Custom views (``get_urls``), each requiring the ``goat.audit_game`` permission: the replay
  ``<id>/replay/?step=N`` (the table after event N, drawn by goat.games.table as on the site), ``<id>/verify/`` (POST),
  ``<id>/export/events.json`` (the log that ``python -m goat.engine verify`` reads) and
  ``<id>/export/scoresheet.csv``.
* ``GameEventAdmin`` and ``HiddenInfoViewAdmin`` are read-only lists.

Hidden information of a RUNNING game (hands, bazaar) is shown only to those who see it unredacted
(``Viewer.sees_everything``, goat.games.viewer: an auditor who holds no seat at the game), and that is recorded
(goat.games.audit).
"""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy, ngettext

from goat.games import access, audit, selectors, words
from goat.games.models import Game, GameEvent, GameStatus, HiddenInfoView, Seat
from goat.games.table import game_scoresheet, replay_model
from goat.games.viewer import Viewer
from goat.games.words import word
from goat.web.admin_site import coded_column, coded_filter
from goat.web.api.query import ascii_whole_number
from goat.web.csvfiles import csv_writer

EVENTS_PER_PAGE = 50


def _require_audit(request) -> None:
    access.audit_required(request.user)


SEATED = gettext_lazy(
    "You hold a seat at this running game: its hidden information stays hidden from you until it ends.")


def _require_unredacted(request, game: Game) -> None:
    """A running game's hidden information only for those who see it unredacted (Viewer.sees_everything:
    an auditor without a seat at it; superusers included)."""
    if game.status == GameStatus.RUNNING and not Viewer.of(game, request.user).sees_everything(game):
        raise PermissionDenied(SEATED)


def _events_for_log(game: Game, *, reveal: bool) -> list[dict]:
    """The stored events, redacted as a spectator sees them while the game runs unless ``reveal``."""
    events = selectors.event_log(game=game)
    if game.status == GameStatus.RUNNING and not reveal:
        return [selectors.redact(e, None) for e in events]
    return events


class RulesetWords:
    """A ModelAdmin mixin: the row's ``ruleset`` shows by its name (goat.games.words) on its page and as
    ``ruleset_words`` in a list."""

    ruleset_words = coded_column("ruleset", words.RULESETS, gettext_lazy("ruleset"))

    def get_readonly_fields(self, request, obj=None):
        return [*super().get_readonly_fields(request, obj), "ruleset_words"]  # type: ignore[misc]

    def get_fields(self, request, obj=None):
        fields = [name for name in super().get_fields(request, obj) if name != "ruleset_words"]  # type: ignore[misc]
        return ["ruleset_words" if name == "ruleset" else name for name in fields]


# --- filters ----------------------------------------------------------------------------------


class VerificationFilter(admin.SimpleListFilter):
    title = gettext_lazy("verification")
    parameter_name = "verified"

    def lookups(self, request, model_admin):
        return [("ok", gettext_lazy("passed")), ("failed", gettext_lazy("failed")),
                ("never", gettext_lazy("never verified"))]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "ok":
            return queryset.filter(verification_ok=True)
        if value == "failed":
            return queryset.filter(verification_ok=False)
        if value == "never":
            return queryset.filter(verification_ok__isnull=True)
        return queryset


# --- inlines and admins -------------------------------------------------------------------------


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = ("seat", "player", "computer_flag", "client_seed")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    @admin.display(description=gettext_lazy("computer"), boolean=True)
    def computer_flag(self, seat):
        return seat.computer


@admin.register(Game)
class GameAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "ruleset_words", "status", "seats", "players", "version", "round", "created_at", "ended_at",
                    "verification_flag")
    list_filter = [coded_filter("ruleset", words.RULESETS, gettext_lazy("ruleset")), "status",
                   ("created_at", admin.DateFieldListFilter), VerificationFilter]
    search_fields = ("seat_set__player__username",)
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    inlines = [SeatInline]
    actions = ["verify_selected"]
    change_form_template = "admin/goat/game/change_form.html"
    fields = ("ruleset_words", "status", "seats", "version", "round", "turn", "deadline", "options_shown",
              "result_shown", "rated_flag", "computer_level", "server_seed_commitment", "seed_shown", "created_by",
              "created_at", "ended_at", "verified_at", "verification_flag", "verification_detail")
    readonly_fields = fields

    ruleset_words = coded_column("ruleset", words.RULESETS, gettext_lazy("ruleset"))

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("seat_set__player")

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) or access.may_audit(request.user)

    def has_audit_permission(self, request):
        return access.may_audit(request.user)

    @admin.display(description=gettext_lazy("options"))
    def options_shown(self, game):
        """The game's options in words (goat.games.words.options_words), not as JSON."""
        return words.options_words(game.options)

    @admin.display(description=gettext_lazy("players"))
    def players(self, game):
        computer = gettext("computer")
        return ", ".join(s.player.get_username() + (f" ({computer})" if game.computer_seat(s.seat) else "")
                         for s in game.seat_set.all())

    @admin.display(description=gettext_lazy("rated"), boolean=True)
    def rated_flag(self, game):
        return game.rated

    @admin.display(description=gettext_lazy("verified"), boolean=True, ordering="verification_ok")
    def verification_flag(self, game):
        return game.verification_ok

    @admin.display(description=gettext_lazy("result"))
    def result_shown(self, game):
        if not game.result:
            return "—"
        names = {s.seat: s.player.get_username() for s in game.seat_set.all()}
        r = game.result

        def who(seats):
            named = [names.get(s, gettext("seat %(seat)s") % {"seat": words.seat(s)}) for s in seats]
            return ", ".join(named) or gettext("nobody")

        goats, winners = r.get("goats", []), r.get("winners", [])
        return format_html(gettext("{reason} — {goats}; {winners}; rating points {rating}; chips {chips}"),
                           reason=word(r.get("reason")),
                           goats=ngettext("goat: %(players)s", "goats: %(players)s", len(goats)) % {
                               "players": who(goats)},
                           winners=ngettext("winner: %(players)s", "winners: %(players)s", len(winners)) % {
                               "players": who(winners)},
                           rating=r.get("rating_points"), chips=r.get("chips"))

    @admin.display(description=gettext_lazy("server seed"))
    def seed_shown(self, game):
        return game.server_seed if game.ended else gettext("(secret until the game ends)")

    # -- actions ------------------------------------------------------------------------------

    @admin.action(description=gettext_lazy("Verify selected games"), permissions=["audit"])
    def verify_selected(self, request, queryset):
        failed = 0
        for game in queryset.order_by("pk"):
            if game.version == 0:
                continue
            outcome = audit.game_verify_record(game=game)
            if not outcome.ok:
                failed += 1
                failure = gettext("game %(game)s: FAILED — %(detail)s")
                self.message_user(request, failure % {"game": game.pk, "detail": game.verification_detail},
                                  messages.ERROR)
        total = queryset.count()
        level = messages.ERROR if failed else messages.SUCCESS
        summary = gettext("%(total)s game(s) verified, %(failed)s failed.")
        self.message_user(request, summary % {"total": total, "failed": failed}, level)

    # -- detail page ----------------------------------------------------------------------------

    def change_view(self, request, object_id, form_url="", extra_context=None):
        game = self.get_object(request, object_id)
        extra_context = dict(extra_context or {})
        if game is not None:
            extra_context.update(self._audit_context(request, game))
        return super().change_view(request, object_id, form_url, extra_context)

    def _audit_context(self, request, game: Game) -> dict:
        can_audit = access.may_audit(request.user)
        can_reveal = game.status == GameStatus.RUNNING and Viewer.of(game, request.user).sees_everything(game)
        reveal = can_reveal and request.GET.get("hidden") == "1"
        if reveal:
            audit.audit_record_hidden_view(user=request.user, game=game, what="admin_event_log")
        events = _events_for_log(game, reveal=reveal)
        page = Paginator(events, EVENTS_PER_PAGE).get_page(request.GET.get("events"))
        for event in page.object_list:
            event["data_json"] = json.dumps(event["data"], ensure_ascii=False)
            event["at_time"] = parse_datetime(event["at"]) if isinstance(event.get("at"), str) else event.get("at")
        info = self.opts.app_label, self.opts.model_name
        return {
            "can_audit": can_audit,
            "can_reveal": can_reveal,
            "can_replay": can_audit and (game.status != GameStatus.RUNNING or can_reveal),
            "game": game,
            "scoresheet": game_scoresheet(game),
            "events_page": page,
            "events_redacted": game.status == GameStatus.RUNNING and not reveal,
            "events_revealed": reveal,
            "replay_url": reverse("admin:{}_{}_replay".format(*info), args=[game.pk]),
            "verify_url": reverse("admin:{}_{}_verify".format(*info), args=[game.pk]),
            "export_events_url": reverse("admin:{}_{}_export_events".format(*info), args=[game.pk]),
            "export_scoresheet_url": reverse("admin:{}_{}_export_scoresheet".format(*info), args=[game.pk]),
        }

    # -- custom views ---------------------------------------------------------------------------

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        wrap = self.admin_site.admin_view
        return [
            path("<int:object_id>/replay/", wrap(self.replay_view), name="{}_{}_replay".format(*info)),
            path("<int:object_id>/verify/", wrap(self.verify_view), name="{}_{}_verify".format(*info)),
            path("<int:object_id>/export/events.json", wrap(self.export_events_view),
                 name="{}_{}_export_events".format(*info)),
            path("<int:object_id>/export/scoresheet.csv", wrap(self.export_scoresheet_view),
                 name="{}_{}_export_scoresheet".format(*info)),
        ] + super().get_urls()

    def _audited_game(self, request, object_id) -> Game:
        _require_audit(request)
        game = Game.objects.filter(pk=object_id).first()
        if game is None:
            raise Http404("no such game")
        return game

    def replay_view(self, request, object_id):
        game = self._audited_game(request, object_id)
        step = min(ascii_whole_number(request.GET.get("step")) or 0, game.version)
        _require_unredacted(request, game)
        if game.status == GameStatus.RUNNING:
            audit.audit_record_hidden_view(user=request.user, game=game, what="admin_replay")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Replay of game %(game)s") % {"game": game.pk},
            "game": game,
            "change_url": reverse("admin:goat_game_change", args=[game.pk]),
            "replay": (replay := replay_model(game=game, step=step, user=request.user)),
            "event_json": json.dumps(replay["event"]["data"], ensure_ascii=False) if replay["event"] else "",
        }
        return TemplateResponse(request, "admin/goat/game/replay.html", context)

    def verify_view(self, request, object_id):
        game = self._audited_game(request, object_id)
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        outcome = audit.game_verify_record(game=game)
        summary = (f"hash_chain: {'ok' if outcome.hash_chain else 'FAILED'}, "
                   f"deals: {'ok' if outcome.deals else 'FAILED'}, "
                   f"replay: {'ok' if outcome.replay else 'FAILED'}")
        if outcome.ok:
            verified = gettext("Game %(game)s verified — %(summary)s.")
            self.message_user(request, verified % {"game": game.pk, "summary": summary}, messages.SUCCESS)
        else:
            first = gettext("First discrepancy at seq %(seq)s.")
            where = " " + first % {"seq": outcome.seq} if outcome.seq is not None else ""
            failed = gettext("Game %(game)s FAILED verification — %(summary)s.")
            self.message_user(request, failed % {"game": game.pk, "summary": summary} + f"{where} {outcome.detail}",
                              messages.ERROR)
        return HttpResponseRedirect(reverse("admin:goat_game_change", args=[game.pk]))

    def export_events_view(self, request, object_id):
        game = self._audited_game(request, object_id)
        _require_unredacted(request, game)
        if game.status == GameStatus.RUNNING:
            audit.audit_record_hidden_view(user=request.user, game=game, what="admin_export_events")
        events = selectors.event_log(game=game)
        response = HttpResponse(json.dumps(events, ensure_ascii=False, indent=1), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
        return response

    def export_scoresheet_view(self, request, object_id):
        game = self._audited_game(request, object_id)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}-scoresheet.csv"'
        writer = csv_writer(response)
        writer.writerow(SCORESHEET_CSV_COLUMNS)
        sheet = selectors.scoresheet(game=game, state=selectors.game_state(game=game)) if game.version else None
        players = [t["player"] for t in sheet["totals"]] if sheet else []
        for r in (sheet["rounds"] if sheet else []):
            winners = r.get("winners")
            for seat, p in enumerate(r["players"]):
                writer.writerow([r["round"], r["end"], players[seat], r["round_points"][seat], p["remembered"],
                                 p["score"], p["points"], r["fish_pot"],
                                 "" if winners is None else ("yes" if seat in winners else "no")])
        return response


#: ``round_winner``: yes/no in a domino-3rounds round (docs/rules.md §8), empty for a goat round
SCORESHEET_CSV_COLUMNS = ["round", "end", "player", "round_points", "remembered", "score", "points", "fish_pot",
                          "round_winner"]


@admin.register(GameEvent)
class GameEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Events are append-only: listed and shown, never added, changed or deleted."""

    list_display = ("position", "game", "seq", "type_words", "seat", "actor", "at")
    list_filter = (coded_filter("type", words.EVENTS, gettext_lazy("type")),)
    search_fields = ("=game__id",)
    list_select_related = ("game", "actor")
    fields = ("position", "game", "seq", "type_words", "seat", "data_shown", "actor", "at", "prev_hash", "hash")
    readonly_fields = fields
    type_words = coded_column("type", words.EVENTS, gettext_lazy("type"))

    @admin.display(description=gettext_lazy("data"))
    def data_shown(self, event):
        """The event's stored data as it is (machine text, marked as code)."""
        return format_html("<code>{}</code>", json.dumps(event.data, ensure_ascii=False))

    def get_actions(self, request):
        return {}

    def change_view(self, request, object_id, form_url="", extra_context=None):
        event = self.get_object(request, object_id)
        if (event is not None and event.type in ("round_dealt", "tile_drawn")
                and event.game.status == GameStatus.RUNNING and self.has_view_permission(request, event)):
            _require_unredacted(request, event.game)  # a deal or a draw shows hidden tiles
            audit.audit_record_hidden_view(user=request.user, game=event.game, what="admin_event_detail")
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(HiddenInfoView)
class HiddenInfoViewAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Who looked at a running game's hidden information (recorded by goat.games.audit)."""

    list_display = ("at", "user", "game", "what_words")
    list_filter = ("user", ("at", admin.DateFieldListFilter), coded_filter("what", words.LOOKS, gettext_lazy("what")))
    list_select_related = ("user", "game")
    date_hierarchy = "at"
    fields = ("at", "user", "game", "what_words")
    readonly_fields = fields
    what_words = coded_column("what", words.LOOKS, gettext_lazy("what"))

    def get_actions(self, request):
        return {}

