"""Fair-play reports (docs/fairplay.md): what the scan found, its evidence, and the staff's reviews."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

REVIEW_PERMISSION = "fairplay.review_fair_play"


class ReportKind(models.TextChoices):
    ASSISTANCE = "assistance", pgettext_lazy("fair-play report kind", "assistance")
    COLLUSION = "collusion", pgettext_lazy("fair-play report kind", "collusion")


class ReportStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("fair-play report status", "open")
    REVIEWED = "reviewed", pgettext_lazy("fair-play report status", "reviewed")


class Outcome(models.TextChoices):
    CLEARED = "cleared", pgettext_lazy("fair-play outcome", "cleared: fair play")
    INCONCLUSIVE = "inconclusive", pgettext_lazy("fair-play outcome", "inconclusive")
    WARNED = "warned", pgettext_lazy("fair-play outcome", "warned")
    SANCTIONED = "sanctioned", pgettext_lazy("fair-play outcome", "sanctioned")


class FairPlayReport(models.Model):
    """One flagged player (assistance) or pair (collusion). ``statistics`` holds the figures of the
    finding, ``evidence`` the games and moves (ended games only) that staff open in the replay. A
    later scan updates the open report of the same kind and subject; a reviewed one is left as it was."""

    kind = models.CharField(_("kind"), max_length=16, choices=ReportKind.choices)
    #: the player, or the pair's two usernames joined by " + " in name order
    subject = models.CharField(_("subject"), max_length=310)
    players = models.ManyToManyField(settings.AUTH_USER_MODEL, verbose_name=_("players"),
                                     related_name="fairplay_reports")
    ruleset = models.CharField(_("ruleset"), max_length=32)
    score = models.FloatField(_("score"))
    confidence = models.FloatField(_("confidence"))
    decisions = models.PositiveIntegerField(_("decisions"))
    statistics = models.JSONField(_("statistics"))
    evidence = models.JSONField(_("evidence"))
    #: the games the report needs whose analysis was not done at the scan (requested on the analysis queue)
    awaiting_analysis = models.PositiveIntegerField(_("games awaiting analysis"), default=0)
    status = models.CharField(_("status"), max_length=16, choices=ReportStatus.choices, default=ReportStatus.OPEN)
    outcome = models.CharField(_("outcome"), max_length=16, choices=Outcome.choices, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("fair-play report")
        verbose_name_plural = _("fair-play reports")
        ordering = ["status", "-confidence", "-id"]
        permissions = [("review_fair_play", _("Can review fair-play reports"))]
        constraints = [models.UniqueConstraint(fields=["kind", "subject"], condition=models.Q(status="open"),
                                               name="fairplay_one_open_report")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.subject}"


class FairPlayReview(models.Model):
    """The audit log of the reviews: who marked a report reviewed, with what outcome and note, when.
    Rows are only ever added."""

    report = models.ForeignKey(FairPlayReport, verbose_name=_("report"), on_delete=models.PROTECT,
                               related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("reviewer"), on_delete=models.PROTECT,
                                 related_name="fairplay_reviews")
    outcome = models.CharField(_("outcome"), max_length=16, choices=Outcome.choices)
    note = models.TextField(_("note"), blank=True, default="")
    at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("fair-play review")
        verbose_name_plural = _("fair-play reviews")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.report} — {self.get_outcome_display()}"
