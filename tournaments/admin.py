"""Tournaments in the admin, for tournament judges and organisers.

Tournaments are created through the API (staff) and run by the beat and the advance task; the admin
shows registrations, tables (with links to each game's replay audit), byes, standings and prizes,
and edits none of them, so the projections stay derivable from the games. The organiser's actions
(start now, cancel with a reason, withdraw a player) go through the same services as the API, each
after a confirmation page: as changelist actions (start, cancel) and from a tournament's page (all three).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy

from goat.engine.errors import InvalidOptions
from goat.games import words
from goat.games.admin import GameAdmin, RulesetWords
from goat.games.models import Game
from goat.web.admin_site import coded_filter
from goat.web.errors import ServiceError

from . import access, schedules, services
from .checks import TournamentCreateSerializer
from .models import Bye, Prize, Registration, Standing, Table, Tournament, TournamentSchedule, TournamentStatus


class GameTournamentFilter(admin.SimpleListFilter):
    """The game list's tournament filter (``TournamentGameAdmin``)."""

    title = gettext_lazy("tournament")
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


@admin.display(description=gettext_lazy("tournament"))
def game_tournament(game):
    table = getattr(game, "tournament_table", None)
    if table is None:
        return "-"
    url = reverse("admin:tournaments_tournament_change", args=[table.tournament_id])
    return format_html('<a href="{}">{}</a>', url, table.tournament)


admin.site.unregister(Game)


@admin.register(Game)
class TournamentGameAdmin(GameAdmin):
    """The games admin with each game's tournament: a filter and a column (the relation it reads is
    fetched with the page, one query)."""

    list_display = (*GameAdmin.list_display, game_tournament)
    list_filter = [*GameAdmin.list_filter, GameTournamentFilter]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("tournament_table__tournament")


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

    @admin.display(description=gettext_lazy("game"))
    def game_link(self, table):
        url = reverse("admin:goat_game_change", args=[table.game_id])
        return format_html('<a href="{}">{}</a>', url, gettext("game %(game)s") % {"game": table.game_id})

    @admin.display(description=gettext_lazy("status"))
    def game_status(self, table):
        return table.game.get_status_display()


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


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             label=gettext_lazy("Reason"),
                             help_text=gettext_lazy("Shown on the tournament's pages."))


class WithdrawForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Registration.objects.none(), label=gettext_lazy("Player"),
                                    help_text=gettext_lazy("Their running game is resigned; the entry fee is not "
                                                           "refunded."))

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["player"]
        field.queryset = (Registration.objects.filter(tournament=tournament, withdrawn_at__isnull=True)  # type: ignore[attr-defined]
                          .select_related("player").order_by("player__username"))
        field.label_from_instance = lambda r: r.player.get_username()  # type: ignore[attr-defined]


@admin.register(Tournament)
class TournamentAdmin(RulesetWords, admin.ModelAdmin):
    list_display = ("id", "name", "format", "ruleset_words", "status", "starts_at", "table_size", "max_players",
                    "entry_fee", "prize_pool")
    list_filter = ("status", "format", coded_filter("ruleset", words.RULESETS, gettext_lazy("ruleset")))
    search_fields = ("name",)
    date_hierarchy = "starts_at"
    inlines = [StandingInline, RegistrationInline, TableInline, ByeInline, PrizeInline]
    actions = ["start_now", "cancel"]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []  # a new tournament: the add form's fields
        return ["organiser_actions", "options_shown",
                *(f.name for f in self.model._meta.fields if f.name not in ("invite_code_digest", "options")),
                *super().get_readonly_fields(request, obj)]

    @admin.display(description=gettext_lazy("options"))
    def options_shown(self, tournament):
        """The options of the tournament's games in words (goat.games.words.options_words), not as JSON."""
        return words.options_words(tournament.options)

    @admin.display(description=gettext_lazy("organiser actions"))
    def organiser_actions(self, tournament):
        info = self.opts.app_label, self.opts.model_name
        links = []
        if tournament.status == TournamentStatus.SCHEDULED:
            links.append((gettext("start now"), "start"))
        if tournament.status in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING):
            links.append((gettext("cancel"), "cancel"))
        if tournament.status == TournamentStatus.RUNNING:
            links.append((gettext("withdraw a player"), "withdraw"))
        if not links:
            return "-"
        return format_html_join(" · ", '<a class="button" href="{}">{}</a>', (
            (reverse("admin:{}_{}_{}".format(*info, name), args=[tournament.pk]), label) for label, name in links))

    # -- the organiser's actions: services behind a confirmation page ---------------------------------

    def has_manage_permission(self, request) -> bool:
        return access.may_manage(request.user)

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        wrap = self.admin_site.admin_view
        return [
            path("<int:object_id>/start/", wrap(self.start_view), name="{}_{}_start".format(*info)),
            path("<int:object_id>/cancel/", wrap(self.cancel_view), name="{}_{}_cancel".format(*info)),
            path("<int:object_id>/withdraw/", wrap(self.withdraw_view), name="{}_{}_withdraw".format(*info)),
        ] + super().get_urls()

    def _confirm(self, request, tournaments, *, title, explanation, confirm_label, form=None, action=None,
                 back_url=None):
        context = {
            **self.admin_site.each_context(request), "opts": self.opts, "title": title, "explanation": explanation,
            "tournaments": tournaments, "form": form, "action": action, "confirm_label": confirm_label,
            "back_url": back_url or reverse("admin:tournaments_tournament_changelist"),
        }
        return TemplateResponse(request, "admin/tournaments/tournament/confirm_action.html", context)

    def _run(self, request, tournament, call, done: str) -> bool:
        try:
            call()
        except ServiceError as exc:
            self.message_user(request, f"{tournament}: {exc.detail} ({exc.code})", messages.ERROR)
            return False
        self.message_user(request, f"{tournament}: {done}", messages.SUCCESS)
        return True

    def _object(self, request, object_id) -> Tournament:
        if not self.has_manage_permission(request):
            raise PermissionDenied
        tournament = Tournament.objects.filter(pk=object_id).first()
        if tournament is None:
            raise Http404(gettext("No tournament with that id."))
        return tournament

    def _change_url(self, tournament) -> str:
        return reverse("admin:tournaments_tournament_change", args=[tournament.pk])

    START_EXPLANATION = gettext_lazy("Start now, as the scheduled start would: standings lines for every "
                                     "registered player, then round 1 (swiss) or the first tables (arena).")
    CANCEL_EXPLANATION = gettext_lazy("Cancel: every entry fee is refunded, games still running are cancelled (no "
                                      "rating points), games already ended keep their rating points, no prizes "
                                      "are paid.")

    def start_view(self, request, object_id):
        tournament = self._object(request, object_id)
        if request.method == "POST" and request.POST.get("confirm") == "yes":
            self._run(request, tournament, lambda: services.tournament_start_now(tournament_id=tournament.pk),
                      gettext("started."))
            return HttpResponseRedirect(self._change_url(tournament))
        return self._confirm(request, [tournament], title=gettext("Start %(name)s now?") % {"name": tournament.name},
                             explanation=self.START_EXPLANATION, confirm_label=gettext("Yes, start it now"),
                             back_url=self._change_url(tournament))

    def cancel_view(self, request, object_id):
        tournament = self._object(request, object_id)
        form = CancelForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and request.POST.get("confirm") == "yes" and form.is_valid():
            reason = form.cleaned_data["reason"]
            self._run(request, tournament,
                      lambda: services.tournament_cancel(tournament_id=tournament.pk, reason=reason),
                      gettext("cancelled."))
            return HttpResponseRedirect(self._change_url(tournament))
        return self._confirm(request, [tournament], title=gettext("Cancel %(name)s?") % {"name": tournament.name},
                             explanation=self.CANCEL_EXPLANATION, confirm_label=gettext("Yes, cancel it"), form=form,
                             back_url=self._change_url(tournament))

    def withdraw_view(self, request, object_id):
        tournament = self._object(request, object_id)
        form = WithdrawForm(request.POST if request.method == "POST" else None, tournament=tournament)
        if request.method == "POST" and request.POST.get("confirm") == "yes" and form.is_valid():
            player = form.cleaned_data["player"].player
            self._run(request, tournament, lambda: services.tournament_withdraw_running(
                tournament_id=tournament.pk, player=player, by=request.user),
                gettext("%(player)s withdrawn.") % {"player": player.get_username()})
            return HttpResponseRedirect(self._change_url(tournament))
        return self._confirm(request, [tournament],
                             title=gettext("Withdraw a player from %(name)s?") % {"name": tournament.name},
                             explanation=gettext("The player's running game is resigned (docs/rules.md D-12); they are "
                                                 "seated no more; their standings line stays, marked withdrawn."),
                             confirm_label=gettext("Yes, withdraw them"), form=form,
                             back_url=self._change_url(tournament))

    @admin.action(description=gettext_lazy("Start the selected tournaments now"), permissions=["manage"])
    def start_now(self, request, queryset):
        tournaments = list(queryset.order_by("pk"))
        if request.POST.get("confirm") != "yes":
            return self._confirm(request, tournaments, title=gettext("Start these tournaments now?"),
                                 explanation=self.START_EXPLANATION, confirm_label=gettext("Yes, start them now"),
                                 action="start_now")
        for t in tournaments:
            self._run(request, t, lambda t=t: services.tournament_start_now(tournament_id=t.pk), gettext("started."))
        return None

    @admin.action(description=gettext_lazy("Cancel the selected tournaments (with a reason)"), permissions=["manage"])
    def cancel(self, request, queryset):
        tournaments = list(queryset.order_by("pk"))
        form = CancelForm(request.POST if request.POST.get("confirm") == "yes" else None)
        if request.POST.get("confirm") != "yes" or not form.is_valid():
            return self._confirm(request, tournaments, title=gettext("Cancel these tournaments?"),
                                 explanation=self.CANCEL_EXPLANATION, confirm_label=gettext("Yes, cancel them"),
                                 form=form,
                                 action="cancel")
        reason = form.cleaned_data["reason"]
        for t in tournaments:
            self._run(request, t, lambda t=t: services.tournament_cancel(tournament_id=t.pk, reason=reason),
                      gettext("cancelled."))
        return None

    def has_add_permission(self, request):
        return super().has_add_permission(request)  # through TournamentAddForm: the API's checks and service

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:  # the admin's widgets on the add form's fields
            kwargs.update(form=TournamentAddForm, fields=list(TournamentAddForm.base_fields))
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [(None, {"fields": list(TournamentAddForm.base_fields)})]
        return super().get_fieldsets(request, obj)

    def save_model(self, request, obj, form, change):
        """A new tournament is created by the API's service (tournaments.services.tournament_create) from
        what the API's serializer accepted (TournamentAddForm.clean)."""
        if change:
            return super().save_model(request, obj, form, change)
        saved = services.tournament_create(created_by=request.user, **form.cleaned_data["validated"])
        for field in obj._meta.concrete_fields:  # the admin's messages and redirect read the saved row
            setattr(obj, field.attname, getattr(saved, field.attname))
        return None

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)

    def has_change_permission(self, request, obj=None):
        return request.method in ("GET", "HEAD") and super().has_view_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False


#: the API's fields a new tournament takes in the admin (with ``options`` as JSON)
TOURNAMENT_ADD_FIELDS = ["name", "ruleset", "format", "rounds", "duration_minutes", "table_size", "starts_at",
                         "max_players", "entry_fee"]


class TournamentAddForm(forms.ModelForm):
    """A new tournament in the admin: the API's fields, checked by the API's own serializer
    (TournamentCreateSerializer), so the admin accepts exactly what ``POST /api/tournaments/`` accepts."""

    options_json = forms.JSONField(label=gettext_lazy("options"), required=False, initial=dict,
                                   help_text=gettext_lazy("JSON, as the API takes it: e.g. {\"limit\": 101}. "
                                                          "Empty: the ruleset's defaults."))

    class Meta:
        model = Tournament
        fields = TOURNAMENT_ADD_FIELDS
        widgets = {"ruleset": forms.Select(choices=[(name, label) for name, label in words.RULESETS.items()])}

    def _post_clean(self):
        """The model's own checks are the service's: nothing to do here."""

    def clean(self):
        cleaned = super().clean()
        data = {name: cleaned.get(name) for name in TOURNAMENT_ADD_FIELDS if cleaned.get(name) not in (None, "")}
        if data.get("format") != "swiss":
            data.pop("rounds", None)
        if "starts_at" in data:
            data["starts_at"] = data["starts_at"].isoformat()
        data["options"] = cleaned.get("options_json") or {}
        serializer = TournamentCreateSerializer(data=data)
        if not serializer.is_valid():
            named = {"options": "options_json"}
            raise forms.ValidationError({(field if (field := named.get(name, name)) in self.fields else None):
                                         [str(m) for m in messages] for name, messages in serializer.errors.items()})
        valid = serializer.validated_data
        try:  # the service's own check of the options, before it creates anything
            services.tournament_options(ruleset=valid["ruleset"], table_size=valid["table_size"],
                                        options=valid.get("options"))
        except (InvalidOptions, ServiceError) as exc:
            raise forms.ValidationError({"options_json": [getattr(exc, "detail", None) or str(exc)]}) from None
        cleaned["validated"] = valid
        return cleaned


class ScheduleForm(forms.ModelForm):
    """Durations as ISO 8601 text and the template as JSON, checked exactly as the API checks them."""

    every_iso = forms.CharField(label=gettext_lazy("every"), max_length=64,
                                help_text=gettext_lazy("ISO 8601 duration, at least PT5M (PT1H, P1D)."))
    announce_before_iso = forms.CharField(label=gettext_lazy("announce before"), max_length=64, initial="PT0S",
                                          help_text=gettext_lazy("ISO 8601 duration: created this long before "
                                                                 "each start."))

    class Meta:
        model = TournamentSchedule
        fields = ["template", "first_start", "active"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["every_iso"].initial = schedules.iso_text(self.instance.every)
            self.fields["announce_before_iso"].initial = schedules.iso_text(self.instance.announce_before)

    def clean(self):
        cleaned = super().clean()
        body = {"every": cleaned.get("every_iso"), "announce_before": cleaned.get("announce_before_iso")}
        if "template" in cleaned and cleaned.get("first_start"):
            body.update(template=cleaned["template"], first_start=cleaned["first_start"])
        try:  # the API's own check of a schedule's fields
            fields = schedules.schedule_fields(body)
        except ServiceError as exc:
            if "template" in (exc.errors or {}):
                raise forms.ValidationError({"template": [exc.detail]}) from None
            raise forms.ValidationError({f"{name}_iso": messages for name, messages in (exc.errors or {}).items()
                                         }) from None
        except InvalidOptions as exc:
            raise forms.ValidationError({"template": [getattr(exc, "detail", str(exc))]}) from None
        cleaned["every"], cleaned["announce_before"] = fields["every"], fields["announce_before"]
        if "template" in fields:
            cleaned["template"] = fields["template"]
        return cleaned


@admin.register(TournamentSchedule)
class TournamentScheduleAdmin(admin.ModelAdmin):
    """Recurring tournaments: staff create, change and stop them here or through the API (the same
    checks); the beat creates the occurrences (tournaments.schedules)."""

    form = ScheduleForm
    list_display = ("id", "__str__", "first_start", "every", "announce_before", "active", "created_by")
    list_filter = ("active",)
    readonly_fields = ("created_by", "created_at", "created_tournaments")

    @admin.display(description=gettext_lazy("tournaments created"))
    def created_tournaments(self, schedule):
        return schedule.tournaments.count() if schedule.pk else 0

    def save_model(self, request, obj, form, change):
        """Written by the same services as the API's (tournaments.schedules)."""
        fields = {name: form.cleaned_data[name] for name in ("template", "first_start", "every", "announce_before",
                                                             "active")}
        if change:
            saved = schedules.schedule_update(schedule_id=obj.pk, **fields)
        else:
            saved = schedules.schedule_create(created_by=request.user, **fields)
        for field in obj._meta.concrete_fields:  # the admin's messages and redirect read the saved row
            setattr(obj, field.attname, getattr(saved, field.attname))

    def has_delete_permission(self, request, obj=None):
        return False  # stop it instead (active): its tournaments refer to it
