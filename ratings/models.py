"""Projections of ended games (docs/architecture.md "After a game ends"): the rating ledger (docs/rules.md §9), chip
accounts (§10, D-14), skill ratings (openskill) and materialised leaderboards.

All of them are derivable from the game events alone (``ratings.services.ratings_rebuild``); the
incremental path (``ratings.services.ratings_apply_game``) writes every projection of one game in
one transaction, guarded by the unique (game, player) rating entry, so a game is applied exactly once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from goat.engine import status
from goat.games import words


class RatingReason(models.TextChoices):
    FINISHED = status.FINISHED, pgettext_lazy("rating reason", "Finished")
    TIMEOUT = status.REASON_TIMEOUT, pgettext_lazy("rating reason", "Timeout")
    RESIGNED = status.REASON_RESIGNED, pgettext_lazy("rating reason", "Resigned")


#: ``Game.result["reason"]`` (goat.engine.status RESULT_REASONS) -> ledger reason
REASONS = {status.REASON_LIMIT: RatingReason.FINISHED, status.REASON_ROUNDS: RatingReason.FINISHED,
           status.REASON_TIMEOUT: RatingReason.TIMEOUT, status.REASON_RESIGNED: RatingReason.RESIGNED}


class RatingEntry(models.Model):
    """Rating points one player earned in one ended game (docs/rules.md §9). A rating is their sum."""

    game = models.ForeignKey("goat.Game", verbose_name=_("game"), on_delete=models.PROTECT,
                             related_name="rating_entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="rating_entries")
    seat = models.PositiveSmallIntegerField(_("seat"))
    points = models.PositiveIntegerField(_("points"))
    reason = models.CharField(_("reason"), max_length=16, choices=RatingReason.choices)
    ruleset = models.CharField(_("ruleset"), max_length=32)
    #: the player was among the game's goats (losers)
    goat = models.BooleanField(_("goat"), default=False)
    #: when the game ended
    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("rating ledger entry")
        verbose_name_plural = _("rating ledger entries")
        ordering = ["-at", "-game_id"]
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="rating_entry_once_per_game")]
        indexes = [
            models.Index(fields=["player", "-at", "-game"], name="rating_entry_player_idx"),
            models.Index(fields=["at"], name="rating_entry_at_idx"),
        ]

    def __str__(self) -> str:
        return gettext("%(player)s +%(points)s (game %(game)s)") % {
            "player": self.player_id, "points": self.points, "game": self.game_id}


class ChipAccount(models.Model):
    """A player's chip balance (D-14: chips, not money). Created lazily with ``GOAT_INITIAL_CHIPS``."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                                  related_name="chip_account")
    balance = models.BigIntegerField(_("balance"))

    class Meta:
        verbose_name = _("chip account")
        verbose_name_plural = _("chip accounts")

    def __str__(self) -> str:
        return gettext("%(player)s: %(balance)s chips") % {"player": self.player_id, "balance": self.balance}


class ChipKind(models.TextChoices):
    INITIAL = "initial", pgettext_lazy("chip kind", "Initial")
    STAKE = "stake", pgettext_lazy("chip kind", "Stake")
    PAYOUT = "payout", pgettext_lazy("chip kind", "Payout")
    #: the stake returned when its seat is given up before the game started (left, or cancelled as expired)
    REFUND = "refund", pgettext_lazy("chip kind", "Refund")
    #: tournaments: an entry fee into the prize pool (negative), its refund on withdrawal, a prize
    ENTRY_FEE = "entry_fee", pgettext_lazy("chip kind", "Entry Fee")
    ENTRY_REFUND = "entry_refund", pgettext_lazy("chip kind", "Entry Refund")
    PRIZE = "prize", pgettext_lazy("chip kind", "Prize")


class ChipLedgerEntry(models.Model):
    """Every change of a balance: the initial grant, a stake put in escrow on taking a seat (negative),
    the payout of a game (stake + net change, docs/rules.md §10). ``balance == sum(amount)``."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                               related_name="chip_entries")
    game = models.ForeignKey("goat.Game", verbose_name=_("game"), null=True, blank=True, on_delete=models.PROTECT,
                             related_name="+")
    amount = models.BigIntegerField(_("amount"))
    kind = models.CharField(_("kind"), max_length=16, choices=ChipKind.choices)
    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("chip ledger entry")
        verbose_name_plural = _("chip ledger entries")
        ordering = ["-at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "game", "kind"], name="chip_entry_once_per_game"),
            models.UniqueConstraint(fields=["player"], condition=models.Q(kind="initial"),
                                    name="chip_initial_grant_once"),
        ]
        indexes = [models.Index(fields=["game", "kind"], name="chip_entry_game_idx")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} {self.amount:+d}"


class SkillRating(models.Model):
    """A player's openskill (Plackett-Luce) rating in one ruleset; ``ordinal = mu - 3 sigma``."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                               related_name="skill_ratings")
    ruleset = models.CharField(_("ruleset"), max_length=32)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    ordinal = models.FloatField(_("ordinal"))
    games = models.PositiveIntegerField(_("games"), default=0)
    username = models.CharField(_("username"), max_length=150)

    class Meta:
        verbose_name = _("skill rating")
        verbose_name_plural = _("skill ratings")
        constraints = [models.UniqueConstraint(fields=["player", "ruleset"], name="skill_once_per_ruleset")]
        indexes = [models.Index(fields=["ruleset", "-ordinal", "games", "username"], name="skill_board_idx")]

    def __str__(self) -> str:
        return f"{self.username} · {words.ruleset(self.ruleset)}: {self.ordinal:.2f}"


class GameSkillChange(models.Model):
    """How one game moved a player's skill rating (like the rating diff shown on a chess server)."""

    game = models.ForeignKey("goat.Game", verbose_name=_("game"), on_delete=models.PROTECT,
                             related_name="skill_changes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                               related_name="+")
    ruleset = models.CharField(_("ruleset"), max_length=32)
    #: 1 = best; ties share a rank (winners first, goats last, the others by game points)
    rank = models.PositiveSmallIntegerField(_("rank"))
    mu_before = models.FloatField(_("mu before"))
    sigma_before = models.FloatField(_("sigma before"))
    mu_after = models.FloatField(_("mu after"))
    sigma_after = models.FloatField(_("sigma after"))

    class Meta:
        verbose_name = _("game skill change")
        verbose_name_plural = _("game skill changes")
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="skill_change_once_per_game")]

    def __str__(self) -> str:
        return gettext("game %(game)s, player %(player)s: rank %(rank)s") % {
            "game": self.game_id, "player": self.player_id, "rank": self.rank}


class LeaderboardRow(models.Model):
    """One player's line on one rating board, kept up to date on every game end.

    ``board`` is ``ratings:<period>:<ruleset or *>`` with period ``all``, ``month:YYYY-MM`` or
    ``week:YYYY-Www`` (calendar periods in UTC, ISO weeks), so a new period starts with an empty board
    and nothing has to be reset. A row's place is computed at read (decisions.md R-9): its 1-based
    position in (rating desc, games asc, username asc), the ``leaderboard_order_idx`` index, so a game
    end writes its players' rows and nothing else.
    """

    board = models.CharField(_("board"), max_length=64)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                               related_name="+")
    username = models.CharField(_("username"), max_length=150)
    rating = models.PositiveIntegerField(_("rating"), default=0)
    games = models.PositiveIntegerField(_("games"), default=0)
    goats = models.PositiveIntegerField(_("goats"), default=0)

    class Meta:
        verbose_name = _("leaderboard row")
        verbose_name_plural = _("leaderboard rows")
        constraints = [models.UniqueConstraint(fields=["board", "player"], name="leaderboard_row_unique")]
        indexes = [
            models.Index(fields=["board", "-rating", "games", "username"], name="leaderboard_order_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.board}: {self.username} {self.rating}"


class LeaderboardBoard(models.Model):
    """One rating board: its row count (the ``count`` of a page) and the lock of its writers.

    Every writer of a board's rows locks this row (``SELECT ... FOR UPDATE``, several boards in
    ``board`` order) before it changes them, so ``players`` stays exact.
    """

    board = models.CharField(_("board"), max_length=64, primary_key=True)
    players = models.PositiveIntegerField(_("players"), default=0)
    #: when the count was last recomputed from the rows (``leaderboards_recount``); None = only incremental
    counted_at = models.DateTimeField(_("counted at"), null=True, blank=True)

    class Meta:
        verbose_name = _("leaderboard board")
        verbose_name_plural = _("leaderboard boards")

    def __str__(self) -> str:
        return gettext("%(board)s: %(players)s players") % {"board": self.board, "players": self.players}
