"""Tournaments (docs/tournaments.md): swiss tables and arenas whose games are ordinary goat games.

A game belongs to a tournament through its ``Table`` (``game.tournament_table.tournament``); goat.Game
itself knows nothing about tournaments. ``Standing`` is a materialised projection of the tournament's
ended games and byes (``tournaments.services.standings_rebuild`` recomputes it from them).

Uniqueness is what makes the Celery jobs idempotent: a round number, a table number and an active
seat of a player exist at most once per tournament, whoever tries to create them twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class TournamentFormat(models.TextChoices):
    SWISS = "swiss"
    ARENA = "arena"


class TournamentStatus(models.TextChoices):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    #: stopped by staff: entry fees refunded, running games cancelled, no prizes
    CANCELLED = "cancelled"


class Tournament(models.Model):
    name = models.CharField(max_length=120)
    ruleset = models.CharField(max_length=32)
    #: the options of every game, fully resolved for ``table_size`` seats (ante always 0)
    options = models.JSONField()
    format = models.CharField(max_length=8, choices=TournamentFormat.choices)
    #: swiss: the number of rounds (arena: unused, 0)
    rounds = models.PositiveSmallIntegerField(default=0)
    table_size = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    #: arena: how long tables keep being started after the start (swiss: informational)
    duration_minutes = models.PositiveIntegerField(default=0)
    max_players = models.PositiveIntegerField()
    entry_fee = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=TournamentStatus.choices, default=TournamentStatus.SCHEDULED)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: chips paid in as entry fees (refunds taken out); paid out as prizes when the tournament finishes
    prize_pool = models.BigIntegerField(default=0)
    prizes_paid_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    #: why staff cancelled it (shown on the pages)
    cancel_reason = models.CharField(max_length=500, blank=True, default="")
    #: entry conditions, checked at registration on the ruleset's all-time board (None: no condition)
    entry_min_games = models.PositiveIntegerField(null=True, blank=True)
    entry_min_rating = models.PositiveIntegerField(null=True, blank=True)
    entry_max_rating = models.PositiveIntegerField(null=True, blank=True)
    #: HMAC-SHA256 of the invite code under the SECRET_KEY ("" when none): the code itself is never kept
    invite_code_digest = models.CharField(max_length=64, blank=True, default="", editable=False)
    #: the schedule that created it (an occurrence), if any
    schedule = models.ForeignKey("TournamentSchedule", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="tournaments")

    class Meta:
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due_idx")]
        constraints = [
            models.CheckConstraint(condition=Q(table_size__gte=2, table_size__lte=4), name="tournament_table_size_2_4"),
            # one tournament per occurrence, however many beats or redelivered tasks create it
            models.UniqueConstraint(fields=["schedule", "starts_at"], condition=Q(schedule__isnull=False),
                                    name="tournament_once_per_occurrence"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.format}, {self.status})"

    @property
    def ends_at(self):
        """Arena: no table starts at or after this moment (None before the start)."""
        if self.started_at is None:
            return None
        return self.started_at + timedelta(minutes=self.duration_minutes)


class TournamentSchedule(models.Model):
    """A recurring tournament: from ``template`` (every tournament field but ``starts_at``), one tournament
    starting at ``first_start + k * every`` for k = 0, 1, ..., created ``announce_before`` ahead of its
    start by the beat (tournaments.schedules), once per (schedule, start). ``active`` False stops it;
    the tournaments it created stay as they are."""

    template = models.JSONField()
    first_start = models.DateTimeField()
    every = models.DurationField()
    announce_before = models.DurationField()
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(every__gte=timedelta(minutes=5)), name="schedule_every_5_minutes"),
        ]

    def __str__(self) -> str:
        return f"{self.template.get('name', '?')} every {self.every}"


class Registration(models.Model):
    """A player entered. Withdrawing (before the start) deletes the row and refunds the entry fee."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    registered_at = models.DateTimeField(default=timezone.now)
    #: the entry fee actually debited (what a withdrawal before the start refunds)
    fee_paid = models.PositiveIntegerField(default=0)
    #: when the player withdrew from the running tournament (seated no more; their line stays, marked)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    #: who withdrew them (the player themself, or staff)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")

    class Meta:
        ordering = ["registered_at", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="registration_once")]

    def __str__(self) -> str:
        return f"{self.player_id} in tournament {self.tournament_id}"


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_number_once")]

    def __str__(self) -> str:
        return f"round {self.number} of tournament {self.tournament_id}"


class Table(models.Model):
    """One game of a tournament. Swiss tables are numbered per round, arena tables per tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.ForeignKey(TournamentRound, null=True, blank=True, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    game = models.OneToOneField("goat.Game", on_delete=models.PROTECT, related_name="tournament_table")
    created_at = models.DateTimeField(default=timezone.now)
    #: when the ended game was counted in the standings (None while it runs)
    recorded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round", "number"], name="table_number_once_per_round"),
            models.UniqueConstraint(fields=["tournament", "number"], condition=Q(round__isnull=True),
                                    name="arena_table_number_once"),
        ]

    def __str__(self) -> str:
        return f"table {self.number} of tournament {self.tournament_id}"


class Seating(models.Model):
    """A player at a table. ``active`` while the table's game has not been recorded: a player has at
    most one active seating per tournament (arena: never seated twice while waiting), and at most
    one table per swiss round."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="seatings")
    round = models.ForeignKey(TournamentRound, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seatings")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    seat = models.PositiveSmallIntegerField()
    active = models.BooleanField(default=True)
    #: when the player left the table (their game was recorded): arena waiting order
    released_at = models.DateTimeField(null=True, blank=True)
    #: the recorded game's outcome for this player (None until recorded; written by the standings
    #: projection, so the crosstable reads no game state): rating points, goat, game points (§7)
    rating_points = models.PositiveIntegerField(null=True, blank=True)
    goat = models.BooleanField(null=True, blank=True)
    game_points = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="seating_once_per_table"),
            models.UniqueConstraint(fields=["tournament", "player"], condition=Q(active=True),
                                    name="seating_one_active_per_player"),
            models.UniqueConstraint(fields=["round", "player"], name="seating_once_per_round"),
        ]

    def __str__(self) -> str:
        return f"player {self.player_id} at {self.table}, seat {self.seat}"


class Bye(models.Model):
    """A swiss round in which a player had no table (one player left over); scores ``points`` (rating points)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="byes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    points = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round"], name="bye_once_per_round")]

    def __str__(self) -> str:
        return f"bye for player {self.player_id} in round {self.round_id}: {self.points} points"


class Standing(models.Model):
    """A player's line in a tournament (a projection of the recorded tables and byes)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    username = models.CharField(max_length=150)
    #: the rating points of the player's recorded games, plus byes (the API keeps the name ``points``)
    points = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    goats = models.PositiveIntegerField(default=0)
    #: Σ the player's game points at the end of their tournament games (the game's points: §7, D-8)
    game_points = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    #: Buchholz for tables: over the player's recorded games, Σ the mean standings points of the others
    #: at the table. Every term is a multiple of 1/6 (1 to 3 others), so two places keep the order exact.
    opponents_points = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    #: the player withdrew while the tournament ran (Registration.withdrawn_at)
    withdrawn = models.BooleanField(default=False)
    #: position in registration order (the last tiebreak)
    registration_order = models.PositiveIntegerField(default=0)
    rank = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["tournament", "rank"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="standing_once")]
        indexes = [models.Index(fields=["tournament", "rank"], name="standing_rank_idx")]

    def __str__(self) -> str:
        return f"{self.username}: {self.points} (#{self.rank})"


class Prize(models.Model):
    """Chips paid from the prize pool to a top-three player when the tournament finished."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="prizes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    place = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["tournament", "place"]
        constraints = [models.UniqueConstraint(fields=["tournament", "place"], name="prize_once_per_place")]

    def __str__(self) -> str:
        return f"place {self.place} of tournament {self.tournament_id}: {self.amount} chips"
