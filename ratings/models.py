"""Projections of ended games (docs/architecture.md "After a game ends"): the rating ledger (docs/rules.md §9), chip
accounts (§10, D-14), skill ratings (openskill) and materialised leaderboards.

All of them are derivable from the game events alone (``ratings.services.ratings_rebuild``); the
incremental path (``ratings.services.ratings_apply_game``) writes every projection of one game in
one transaction, guarded by the unique (game, player) rating entry, so a game is applied exactly once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class RatingReason(models.TextChoices):
    FINISHED = "finished"
    TIMEOUT = "timeout"
    RESIGNED = "resigned"


#: ``Game.result["reason"]`` -> ledger reason
REASONS = {"limit": RatingReason.FINISHED, "rounds": RatingReason.FINISHED,
           "timeout": RatingReason.TIMEOUT, "resigned": RatingReason.RESIGNED}


class RatingEntry(models.Model):
    """Rating points one player earned in one ended game (docs/rules.md §9). A rating is their sum."""

    game = models.ForeignKey("goat.Game", on_delete=models.PROTECT, related_name="rating_entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rating_entries")
    seat = models.PositiveSmallIntegerField()
    points = models.PositiveIntegerField()
    reason = models.CharField(max_length=16, choices=RatingReason.choices)
    ruleset = models.CharField(max_length=32)
    #: the player was among the game's goats (losers)
    goat = models.BooleanField(default=False)
    #: when the game ended
    at = models.DateTimeField()

    class Meta:
        verbose_name = "rating ledger entry"
        verbose_name_plural = "rating ledger entries"
        ordering = ["-at", "-game_id"]
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="rating_entry_once_per_game")]
        indexes = [
            models.Index(fields=["player", "-at", "-game"], name="rating_entry_player_idx"),
            models.Index(fields=["at"], name="rating_entry_at_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} +{self.points} (game {self.game_id})"


class ChipAccount(models.Model):
    """A player's chip balance (D-14: chips, not money). Created lazily with ``GOAT_INITIAL_CHIPS``."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chip_account")
    balance = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.player_id}: {self.balance} chips"


class ChipKind(models.TextChoices):
    INITIAL = "initial"
    STAKE = "stake"
    PAYOUT = "payout"
    #: the stake returned when its seat is given up before the game started (left, or cancelled as expired)
    REFUND = "refund"
    #: tournaments: an entry fee into the prize pool (negative), its refund on withdrawal, a prize
    ENTRY_FEE = "entry_fee"
    ENTRY_REFUND = "entry_refund"
    PRIZE = "prize"


class ChipLedgerEntry(models.Model):
    """Every change of a balance: the initial grant, a stake put in escrow on taking a seat (negative),
    the payout of a game (stake + net change, docs/rules.md §10). ``balance == sum(amount)``."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chip_entries")
    game = models.ForeignKey("goat.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    kind = models.CharField(max_length=16, choices=ChipKind.choices)
    at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "chip ledger entries"
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

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="skill_ratings")
    ruleset = models.CharField(max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    username = models.CharField(max_length=150)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "ruleset"], name="skill_once_per_ruleset")]
        indexes = [models.Index(fields=["ruleset", "-ordinal", "games", "username"], name="skill_board_idx")]

    def __str__(self) -> str:
        return f"{self.username} {self.ruleset}: {self.ordinal:.2f}"


class GameSkillChange(models.Model):
    """How one game moved a player's skill rating (like the rating diff shown on a chess server)."""

    game = models.ForeignKey("goat.Game", on_delete=models.PROTECT, related_name="skill_changes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ruleset = models.CharField(max_length=32)
    #: 1 = best; ties share a rank (winners first, goats last, the others by game points)
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="skill_change_once_per_game")]

    def __str__(self) -> str:
        return f"game {self.game_id}, player {self.player_id}: rank {self.rank}"


class LeaderboardRow(models.Model):
    """One player's line on one rating board, kept up to date on every game end.

    ``board`` is ``ratings:<period>:<ruleset or *>`` with period ``all``, ``month:YYYY-MM`` or
    ``week:YYYY-Www`` (calendar periods in UTC, ISO weeks), so a new period starts with an empty board
    and nothing has to be reset. ``rank`` is materialised (decisions.md R-9): the 1-based position in
    (rating desc, games asc, username asc), kept exact by every write under the board's lock, so a page
    is the index range ``board = b AND rank > offset ORDER BY rank LIMIT n``.
    """

    board = models.CharField(max_length=64)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)
    rating = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    goats = models.PositiveIntegerField(default=0)
    #: position on the board (1 = best); NULL only between a bulk load and its ``leaderboards_rerank``
    rank = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["board", "player"], name="leaderboard_row_unique")]
        indexes = [
            models.Index(fields=["board", "-rating", "games", "username"], name="leaderboard_order_idx"),
            models.Index(fields=["board", "rank"], name="leaderboard_rank_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.board}: #{self.rank} {self.username} {self.rating}"


class LeaderboardBoard(models.Model):
    """One rating board: its row count (the ``count`` of a page) and the lock that serialises rank changes.

    Every writer of a board's rows locks this row (``SELECT ... FOR UPDATE``, several boards in
    ``board`` order) before it changes ratings or ranks, so ``players`` and the ranks stay exact.
    """

    board = models.CharField(max_length=64, primary_key=True)
    players = models.PositiveIntegerField(default=0)
    #: when the ranks were last recomputed from scratch (``leaderboards_rerank``); None = only incremental
    ranked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.board}: {self.players} players"
