"""The "fair play" queue of the admin (docs/fairplay.md): the open reports, the most confident first,
each with its figures and evidence (every game and move a link to its replay on the site: the games
are ended, so the replay hides nothing), a form to mark it reviewed with an outcome (kept in the audit
log, ``FairPlayReview``), and an action that asks the analysis queue for the games a report needs.

Everything here needs the permission ``fairplay.review_fair_play`` ("Can review fair-play reports"):
being staff is not enough, and a superuser has it as every permission.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy, ngettext

from goat.fairplay import services
from goat.fairplay.models import REVIEW_PERMISSION, FairPlayReport, FairPlayReview, Outcome, ReportStatus
from goat.games import words
from goat.web.admin_site import coded_column
from goat.web.errors import ServiceError


class ReviewerOnly:
    """Every view of the model only with the review permission."""

    def has_module_permission(self, request) -> bool:
        return request.user.is_active and request.user.has_perm(REVIEW_PERMISSION)

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReviewForm(forms.ModelForm):
    outcome = forms.ChoiceField(label=gettext_lazy("outcome"), choices=Outcome.choices)
    note = forms.CharField(label=gettext_lazy("note"), required=False, widget=forms.Textarea(attrs={"rows": 3}))

    class Meta:
        model = FairPlayReport
        fields = ["outcome"]


def _replay(game: int, seq: int | None = None) -> str:
    url = reverse("page-game", args=[game])
    return f"{url}?step={seq}#replay" if seq is not None else url


#: the words of the figures and of the evidence's columns
LABELS = {
    "band": gettext_lazy("skill band"), "decisions": gettext_lazy("decisions"), "games": gettext_lazy("games"),
    "average_loss": gettext_lazy("average loss"), "best_share": gettext_lazy("share of best moves"),
    "population_average_loss": gettext_lazy("average loss of the band"),
    "population_best_share": gettext_lazy("share of best moves of the band"),
    "population_players": gettext_lazy("players of the band"), "z_best": gettext_lazy("z of the best moves"),
    "z_loss": gettext_lazy("z of the loss"), "threshold": gettext_lazy("threshold"),
    "grade": gettext_lazy("mean grade of the moves (0-3)"),
    "population_grade": gettext_lazy("mean grade of the band at decisions as hard"),
    "minimum_decisions": gettext_lazy("decisions needed"), "games_together": gettext_lazy("games together"),
    "expected_together": gettext_lazy("games together by chance"), "seating_z": gettext_lazy("z of the seating"),
    "helped": gettext_lazy("moves that left the partner a move"),
    "expected_helped": gettext_lazy("the same by chance"), "help_z": gettext_lazy("z of the help"),
    "rating_points_together": gettext_lazy("rating points in the games together"),
    "seating_threshold": gettext_lazy("threshold of the seating"), "best": gettext_lazy("best moves"),
    "tile": gettext_lazy("tile"), "end": gettext_lazy("end"), "legal": gettext_lazy("legal moves"),
    "loss": gettext_lazy("loss"), "player": gettext_lazy("player"), "for": gettext_lazy("for"),
    "chance": gettext_lazy("share of the legal moves that would have"),
}


def _label(key: str) -> str:
    return str(LABELS.get(key, key.replace("_", " ")))


def _pairs(row: dict, skip: tuple[str, ...]) -> str:
    return "; ".join(f"{_label(k)}: {v}" for k, v in row.items() if k not in skip)


class ReviewInline(admin.TabularInline):
    model = FairPlayReview
    extra = 0
    can_delete = False
    fields = ["at", "reviewer", "outcome", "note"]
    readonly_fields = fields
    verbose_name = gettext_lazy("review")
    verbose_name_plural = gettext_lazy("reviews (audit log)")

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.has_perm(REVIEW_PERMISSION)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(FairPlayReport)
class FairPlayReportAdmin(ReviewerOnly, admin.ModelAdmin):
    form = ReviewForm
    list_display = ["kind", "subject", "ruleset_word", "score", "confidence_percent", "decisions", "status",
                    "outcome", "updated_at"]
    list_filter = ["status", "kind", "outcome"]
    search_fields = ["subject"]
    ruleset_word = coded_column("ruleset", words.RULESETS, gettext_lazy("ruleset"))
    readonly_fields = ["kind", "subject", "ruleset_word", "score", "confidence_percent", "decisions", "status",
                       "figures", "evidence_games", "evidence_moves", "awaiting_analysis", "created_at", "updated_at"]
    inlines = [ReviewInline]
    actions = ["ask_analysis"]

    def get_fields(self, request, obj=None):
        fields = list(self.readonly_fields)
        if obj is not None and obj.status == ReportStatus.OPEN and self.has_change_permission(request, obj):
            fields += ["outcome", "note"]
        return fields

    def has_change_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request) and (obj is None or obj.status == ReportStatus.OPEN)

    def changelist_view(self, request, extra_context=None):
        if "status" not in request.GET and "status__exact" not in request.GET and not request.GET.get("q"):
            request.GET = request.GET.copy()
            request.GET["status__exact"] = ReportStatus.OPEN  # the queue: what is left to review
        return super().changelist_view(request, extra_context)

    @admin.display(description=gettext_lazy("confidence"), ordering="confidence")
    def confidence_percent(self, obj) -> str:
        return f"{obj.confidence * 100:.1f}%"

    @admin.display(description=gettext_lazy("figures"))
    def figures(self, obj):
        return format_html("<table>{}</table>", format_html_join(
            "", "<tr><th>{}</th><td>{}</td></tr>", ((_label(key), value) for key, value in obj.statistics.items())))

    @admin.display(description=gettext_lazy("games"))
    def evidence_games(self, obj):
        rows = obj.evidence.get("games", [])
        if not rows:
            return "–"
        return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a> {}</li>', (
            (_replay(row["game"]), gettext("game %(game)s") % {"game": row["game"]},
             _pairs(row, ("game",))) for row in rows)))

    @admin.display(description=gettext_lazy("moves"))
    def evidence_moves(self, obj):
        rows = obj.evidence.get("moves", [])
        if not rows:
            return "–"
        return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a> {}</li>', (
            (_replay(row["game"], row["seq"]),
             gettext("game %(game)s, move %(seq)s") % {"game": row["game"], "seq": row["seq"]},
             _pairs(row, ("game", "seq"))) for row in rows)))

    def save_model(self, request, obj, form, change):
        try:
            services.review(report_id=obj.pk, reviewer=request.user, outcome=form.cleaned_data["outcome"],
                            note=form.cleaned_data.get("note", ""))
        except ServiceError as exc:  # someone reviewed it first: theirs stands
            self.message_user(request, str(exc.detail), messages.ERROR)

    @admin.action(description=gettext_lazy("Ask for the analysis of the reports' games"))
    def ask_analysis(self, request, queryset):
        asked = sum(services.request_analysis(report=report) for report in queryset)
        self.message_user(request, ngettext("%(count)s game sent to the analysis queue.",
                                            "%(count)s games sent to the analysis queue.", asked) % {"count": asked},
                          messages.SUCCESS)


@admin.register(FairPlayReview)
class FairPlayReviewAdmin(ReviewerOnly, admin.ModelAdmin):
    """The audit log: read-only."""

    list_display = ["at", "report", "reviewer", "outcome", "note"]
    list_filter = ["outcome"]
    readonly_fields = ["at", "report", "reviewer", "outcome", "note"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False
