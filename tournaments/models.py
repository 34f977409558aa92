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
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from goat.games import words


class TournamentFormat(models.TextChoices):
    SWISS = "swiss", pgettext_lazy("tournament format", "Swiss")
    ARENA = "arena", pgettext_lazy("tournament format", "Arena")


class TournamentStatus(models.TextChoices):
    SCHEDULED = "scheduled", pgettext_lazy("tournament status", "Scheduled")
    RUNNING = "running", pgettext_lazy("tournament status", "Running")
    FINISHED = "finished", pgettext_lazy("tournament status", "Finished")
    #: stopped by staff: entry fees refunded, running games cancelled, no prizes
    CANCELLED = "cancelled", pgettext_lazy("tournament status", "Cancelled")


class Tournament(models.Model):
    name = models.CharField(_("name"), max_length=120)
    ruleset = models.CharField(_("ruleset"), max_length=32)
    #: the options of every game, fully resolved for ``table_size`` seats (ante always 0)
    options = models.JSONField(_("options"))
    format = models.CharField(_("format"), max_length=8, choices=TournamentFormat.choices)
    #: swiss: the number of rounds (arena: unused, 0)
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=0)
    table_size = models.PositiveSmallIntegerField(_("table size"))
    starts_at = models.DateTimeField(_("starts at"))
    #: arena: how long tables keep being started after the start (swiss: informational)
    duration_minutes = models.PositiveIntegerField(_("duration minutes"), default=0)
    max_players = models.PositiveIntegerField(_("max players"))
    entry_fee = models.PositiveIntegerField(_("entry fee"), default=0)
    status = models.CharField(_("status"), max_length=16, choices=TournamentStatus.choices,
                              default=TournamentStatus.SCHEDULED)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("organiser"), on_delete=models.PROTECT,
                                   related_name="+")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    #: chips paid in as entry fees (refunds taken out); paid out as prizes when the tournament finishes
    prize_pool = models.BigIntegerField(_("prize pool"), default=0)
    prizes_paid_at = models.DateTimeField(_("prizes paid at"), null=True, blank=True)
    cancelled_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    #: why staff cancelled it (shown on the pages)
    cancel_reason = models.CharField(_("cancel reason"), max_length=500, blank=True, default="")
    #: entry conditions, checked at registration on the ruleset's all-time board (None: no condition)
    entry_min_games = models.PositiveIntegerField(_("entry min games"), null=True, blank=True)
    entry_min_rating = models.PositiveIntegerField(_("entry min rating"), null=True, blank=True)
    entry_max_rating = models.PositiveIntegerField(_("entry max rating"), null=True, blank=True)
    #: HMAC-SHA256 of the invite code under the SECRET_KEY ("" when none): the code itself is never kept
    invite_code_digest = models.CharField(_("invite code digest"), max_length=64, blank=True, default="",
                                          editable=False)
    #: the schedule that created it (an occurrence), if any
    schedule = models.ForeignKey("TournamentSchedule", verbose_name=_("schedule"), null=True, blank=True,
                                 on_delete=models.PROTECT,
                                 related_name="tournaments")

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_at", "-id"]
        # tournament_due_idx: the scheduler's due scan and the list by status; tournament_list_idx: the
        # list of every status, in its order
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due_idx"),
                   models.Index(fields=["-starts_at", "-id"], name="tournament_list_idx")]
        constraints = [
            models.CheckConstraint(condition=Q(table_size__gte=2, table_size__lte=4), name="tournament_table_size_2_4"),
            # one tournament per occurrence, however many beats or redelivered tasks create it
            models.UniqueConstraint(fields=["schedule", "starts_at"], condition=Q(schedule__isnull=False),
                                    name="tournament_once_per_occurrence"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_format_display()}, {self.get_status_display()})"

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

    template = models.JSONField(_("template"))
    first_start = models.DateTimeField(_("first start"))
    every = models.DurationField(_("every"))
    announce_before = models.DurationField(_("announce before"))
    active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.PROTECT,
                                   related_name="+")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament schedule")
        verbose_name_plural = _("tournament schedules")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(every__gte=timedelta(minutes=5)), name="schedule_every_5_minutes"),
        ]

    def __str__(self) -> str:
        return gettext("%(name)s every %(every)s") % {"name": self.template.get("name", "?"), "every": self.every}


class Registration(models.Model):
    """A player entered. Withdrawing (before the start) deletes the row and refunds the entry fee."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="registrations")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="+")
    registered_at = models.DateTimeField(_("registered at"), default=timezone.now)
    #: the entry fee actually debited (what a withdrawal before the start refunds)
    fee_paid = models.PositiveIntegerField(_("fee paid"), default=0)
    #: when the player withdrew from the running tournament (seated no more; their line stays, marked)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    #: who withdrew them (the player themself, or staff)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("withdrawn by"), null=True, blank=True,
                                     on_delete=models.PROTECT,
                                     related_name="+")

    class Meta:
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        ordering = ["registered_at", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="registration_once")]

    def __str__(self) -> str:
        return gettext("%(player)s in tournament %(tournament)s") % {
            "player": self.player_id, "tournament": self.tournament_id}


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="round_set")
    number = models.PositiveSmallIntegerField(_("number"))
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("tournament round")
        verbose_name_plural = _("tournament rounds")
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_number_once")]

    def __str__(self) -> str:
        return gettext("round %(round)s of tournament %(tournament)s") % {
            "round": self.number, "tournament": self.tournament_id}


class Table(models.Model):
    """One game of a tournament. Swiss tables are numbered per round, arena tables per tournament."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="tables")
    round = models.ForeignKey(TournamentRound, verbose_name=pgettext_lazy("tournament", "round"), null=True,
                              blank=True,
                              on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField(_("number"))
    game = models.OneToOneField("goat.Game", verbose_name=_("game"), on_delete=models.PROTECT,
                                related_name="tournament_table")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    #: when the ended game was counted in the standings (None while it runs)
    recorded_at = models.DateTimeField(_("recorded at"), null=True, blank=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["tournament", "round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round", "number"], name="table_number_once_per_round"),
            models.UniqueConstraint(fields=["tournament", "number"], condition=Q(round__isnull=True),
                                    name="arena_table_number_once"),
        ]

    def __str__(self) -> str:
        return gettext("table %(table)s of tournament %(tournament)s") % {
            "table": self.number, "tournament": self.tournament_id}


class Seating(models.Model):
    """A player at a table. ``active`` while the table's game has not been recorded: a player has at
    most one active seating per tournament (arena: never seated twice while waiting), and at most
    one table per swiss round."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="seatings")
    round = models.ForeignKey(TournamentRound, verbose_name=pgettext_lazy("tournament", "round"), null=True,
                              blank=True,
                              on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seatings")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="+")
    seat = models.PositiveSmallIntegerField(_("seat"))
    active = models.BooleanField(_("active"), default=True)
    #: when the player left the table (their game was recorded): arena waiting order
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)
    #: the recorded game's outcome for this player (None until recorded; written by the standings
    #: projection, so the crosstable reads no game state): rating points, goat, game points (§7)
    rating_points = models.PositiveIntegerField(_("rating points"), null=True, blank=True)
    goat = models.BooleanField(_("goat"), null=True, blank=True)
    game_points = models.PositiveIntegerField(_("game points"), null=True, blank=True)

    class Meta:
        verbose_name = _("seating")
        verbose_name_plural = _("seatings")
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="seating_once_per_table"),
            models.UniqueConstraint(fields=["tournament", "player"], condition=Q(active=True),
                                    name="seating_one_active_per_player"),
            models.UniqueConstraint(fields=["round", "player"], name="seating_once_per_round"),
        ]

    def __str__(self) -> str:
        return gettext("player %(player)s at %(table)s, seat %(seat)s") % {
            "player": self.player_id, "table": self.table, "seat": words.seat(self.seat)}


class Bye(models.Model):
    """A swiss round in which a player had no table (one player left over); scores ``points`` (rating points)."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="byes")
    round = models.ForeignKey(TournamentRound, verbose_name=pgettext_lazy("tournament", "round"),
                              on_delete=models.CASCADE, related_name="byes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="+")
    points = models.PositiveIntegerField(_("points"))

    class Meta:
        verbose_name = _("bye")
        verbose_name_plural = _("byes")
        constraints = [models.UniqueConstraint(fields=["round"], name="bye_once_per_round")]

    def __str__(self) -> str:
        return gettext("bye for player %(player)s in round %(round)s: %(points)s points") % {
            "player": self.player_id, "round": self.round_id, "points": self.points}


class Standing(models.Model):
    """A player's line in a tournament (a projection of the recorded tables and byes)."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="standings")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="+")
    username = models.CharField(_("username"), max_length=150)
    #: the rating points of the player's recorded games, plus byes (the API keeps the name ``points``)
    points = models.PositiveIntegerField(_("points"), default=0)
    games = models.PositiveIntegerField(_("games"), default=0)
    goats = models.PositiveIntegerField(_("goats"), default=0)
    #: Σ the player's game points at the end of their tournament games (the game's points: §7, D-8)
    game_points = models.PositiveIntegerField(_("game points"), default=0)
    byes = models.PositiveIntegerField(_("byes"), default=0)
    #: Buchholz for tables: over the player's recorded games, Σ the mean standings points of the others
    #: at the table. Every term is a multiple of 1/6 (1 to 3 others), so two places keep the order exact.
    opponents_points = models.DecimalField(_("opponents points"), max_digits=14, decimal_places=2, default=0)
    #: the player withdrew while the tournament ran (Registration.withdrawn_at)
    withdrawn = models.BooleanField(_("withdrawn"), default=False)
    #: position in registration order (the last tiebreak)
    registration_order = models.PositiveIntegerField(_("registration order"), default=0)
    rank = models.PositiveIntegerField(_("rank"), default=0)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        ordering = ["tournament", "rank"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="standing_once")]
        indexes = [models.Index(fields=["tournament", "rank"], name="standing_rank_idx")]

    def __str__(self) -> str:
        return f"{self.username}: {self.points} (#{self.rank})"


class Prize(models.Model):
    """Chips paid from the prize pool to a top-three player when the tournament finished."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="prizes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="+")
    place = models.PositiveSmallIntegerField(_("place"))
    amount = models.BigIntegerField(_("amount"))

    class Meta:
        verbose_name = _("prize")
        verbose_name_plural = _("prizes")
        ordering = ["tournament", "place"]
        constraints = [models.UniqueConstraint(fields=["tournament", "place"], name="prize_once_per_place")]

    def __str__(self) -> str:
        return gettext("place %(place)s of tournament %(tournament)s: %(amount)s chips") % {
            "place": self.place, "tournament": self.tournament_id, "amount": self.amount}
