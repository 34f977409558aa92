"""The players app's table: each account's username in its folded form, unique (goat.players.usernames)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class UsernameKey(models.Model):
    """``folded`` = ``username_fold(user.username)`` and ``skeleton`` = ``username_skeleton(user.username)``,
    kept by a ``post_save`` signal (goat.players.signals).

    The unique constraints are what make "one name, one account" and "no two names that look alike"
    hold under concurrent sign-ups on SQLite and PostgreSQL alike. An account migrated from before this
    table whose name folds as an older account's has no row here; one from before the skeleton whose
    name looks like an older account's has an empty skeleton: the system check ``players.W001`` names
    both.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE,
                                primary_key=True,
                                related_name="username_key")
    # Case folding can lengthen a name (ß -> ss, ﬃ -> ffi): room for four times Django's 150.
    folded = models.CharField(_("folded"), max_length=600)
    # A prototype may be several characters (m -> rn): room for eight times Django's 150; empty for an
    # old account whose name looks like an older one's (unique among the others).
    skeleton = models.CharField(_("look-alike form"), max_length=1200, blank=True, default="")

    class Meta:
        verbose_name = _("username key")
        verbose_name_plural = _("username keys")
        constraints = [models.UniqueConstraint(fields=["folded"], name="players_usernamekey_folded_unique"),
                       models.UniqueConstraint(fields=["skeleton"], condition=~models.Q(skeleton=""),
                                               name="players_usernamekey_skeleton_unique")]

    def __str__(self) -> str:
        return self.folded


class ComputerAccount(models.Model):
    """A built-in account that plays as a computer opponent (goat.games.computer). It has no usable
    password, so it cannot sign in (the log-in refuses it like a wrong password); ``number`` (1, 2, 3)
    is its place among the computers: a game seats computers 1..N."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.PROTECT,
                                primary_key=True,
                                related_name="computer_account")
    number = models.PositiveSmallIntegerField(_("number"), unique=True)

    class Meta:
        verbose_name = _("computer account")
        verbose_name_plural = _("computer accounts")

    def __str__(self) -> str:
        return gettext("computer %(number)s") % {"number": self.number}


class PlayerSetting(models.Model):
    """A player's own settings for how pages speak to them: ``time_zone`` (an IANA name, e.g.
    ``Europe/Moscow``; empty: the default of the page's language, goat.web.timezones)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE,
                                primary_key=True, related_name="setting")
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True, default="")

    class Meta:
        verbose_name = _("player setting")
        verbose_name_plural = _("player settings")

    def __str__(self) -> str:
        return self.time_zone or "–"


class BotAccount(models.Model):
    """An account its owner turned into a bot (docs/api.md "Bots"): a program plays it, through
    challenges only. Irreversible: nothing deletes this row. ``rulesets``: the rulesets the bot
    accepts challenges for (empty: every ruleset)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.PROTECT,
                                primary_key=True,
                                related_name="bot_account")
    rulesets = models.JSONField(_("rulesets"), default=list, blank=True)
    upgraded_at = models.DateTimeField(_("upgraded at"), auto_now_add=True)

    class Meta:
        verbose_name = _("bot account")
        verbose_name_plural = _("bot accounts")

    def __str__(self) -> str:
        return gettext("bot %(user)s") % {"user": self.user}
