"""A challenge (``Challenge``) and each player's place in it (``ChallengeEntry``).

A challenge is open until every seat is accepted (it is then ``accepted`` and names its ``game``),
one named opponent declines it, its challenger cancels it, or it expires (``expires_at``): a
challenge past ``expires_at`` is expired on every read at once, and the beat's
``challenges.expire`` writes the status (challenges.services.challenges_expire).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _


class ChallengeStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("challenge status", "Open")
    #: every seat accepted: the game started
    ACCEPTED = "accepted", pgettext_lazy("challenge status", "Accepted")
    DECLINED = "declined", pgettext_lazy("challenge status", "Declined")
    CANCELLED = "cancelled", pgettext_lazy("challenge status", "Cancelled")
    EXPIRED = "expired", pgettext_lazy("challenge status", "Expired")


class Seating(models.TextChoices):
    #: the seats are drawn at random when the game starts
    RANDOM = "random", pgettext_lazy("seating", "Random")
    #: the challenger in seat 0, the named opponents in the order named, then who came by the link
    FIXED = "fixed", pgettext_lazy("seating", "As named")


class Answer(models.TextChoices):
    PENDING = "pending", pgettext_lazy("challenge answer", "Pending")
    ACCEPTED = "accepted", pgettext_lazy("challenge answer", "Accepted")
    DECLINED = "declined", pgettext_lazy("challenge answer", "Declined")


class DeclineReason(models.TextChoices):
    GENERIC = "generic", pgettext_lazy("decline reason", "Not now")
    LATER = "later", pgettext_lazy("decline reason", "Later, please")
    RULESET = "ruleset", pgettext_lazy("decline reason", "Not this ruleset")
    RATED = "rated", pgettext_lazy("decline reason", "Rather a rated game")
    CASUAL = "casual", pgettext_lazy("decline reason", "Rather an unrated game")
    TOO_FAST = "too_fast", pgettext_lazy("decline reason", "The clock is too fast")
    TOO_SLOW = "too_slow", pgettext_lazy("decline reason", "The clock is too slow")


class Challenge(models.Model):
    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("challenger"), on_delete=models.PROTECT,
                                   related_name="challenges_sent")
    ruleset = models.CharField(_("ruleset"), max_length=32)
    seats = models.PositiveSmallIntegerField(_("seats"))
    #: the game's options, resolved by the engine when the challenge was made
    options = models.JSONField(_("options"))
    rated = models.BooleanField(_("rated"), default=True)
    #: its game is a private table (docs/api.md "Private tables"): always with seats by link, else asked for
    private = models.BooleanField(_("private"), default=False)
    seating = models.CharField(_("seating"), max_length=8, choices=Seating.choices, default=Seating.RANDOM)
    status = models.CharField(_("status"), max_length=16, choices=ChallengeStatus.choices,
                              default=ChallengeStatus.OPEN)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    #: when it stopped being open (accepted, declined, cancelled, expired)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    #: the link's code of a challenge with seats open to anyone who holds it (null: every seat named)
    code = models.CharField(_("code"), max_length=64, null=True, blank=True, unique=True, editable=False)
    #: the game that started once every seat was accepted
    game = models.OneToOneField("goat.Game", verbose_name=_("game"), null=True, blank=True, on_delete=models.PROTECT,
                                related_name="challenge")
    #: the ended game this challenge plays again ("rematch"), if any
    again_of = models.ForeignKey("goat.Game", verbose_name=_("again of"), null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="challenges_again")

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-id"]
        # the open ones, by expiry: the beat's expiry and the caps read only these
        indexes = [models.Index(fields=["expires_at"], name="challenge_open_expiry_idx",
                                condition=models.Q(status="open"))]

    def __str__(self) -> str:
        return gettext("challenge %(id)s by %(challenger)s (%(status)s)") % {
            "id": self.pk, "challenger": self.challenger, "status": self.get_status_display()}


class ChallengeEntry(models.Model):
    """A player's place in a challenge: a named opponent (``named``) waiting, accepted or declined, or
    a player who came by the link and accepted."""

    challenge = models.ForeignKey(Challenge, verbose_name=_("challenge"), on_delete=models.CASCADE,
                                  related_name="entries", db_index=False)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="challenge_entries")
    named = models.BooleanField(_("named"), default=True)
    answer = models.CharField(_("answer"), max_length=16, choices=Answer.choices, default=Answer.PENDING)
    reason = models.CharField(_("reason"), max_length=16, choices=DeclineReason.choices, blank=True, default="")
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)

    class Meta:
        verbose_name = _("challenge entry")
        verbose_name_plural = _("challenge entries")
        ordering = ["challenge", "id"]
        constraints = [models.UniqueConstraint(fields=["challenge", "player"], name="challenge_player_once")]

    def __str__(self) -> str:
        return gettext("%(player)s in challenge %(challenge)s") % {"player": self.player,
                                                                    "challenge": self.challenge_id}
