"""Games: ``Game`` (the stream's head and read model), ``Seat`` and the append-only ``GameEvent`` stream.

Events are the truth. Everything else on ``Game`` (status, version, turn, deadline, result, the
engine snapshot) is a cache rebuilt from them (``goat.games.eventstore.state_rebuild``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from goat.engine import status as engine_status
from goat.games import words


class GameStatus(models.TextChoices):
    """The engine's statuses (goat.engine.status) as the column's choices."""

    WAITING = engine_status.WAITING, pgettext_lazy("game status", "Waiting")
    RUNNING = engine_status.RUNNING, pgettext_lazy("game status", "Running")
    FINISHED = engine_status.FINISHED, pgettext_lazy("game status", "Finished")
    INTERRUPTED = engine_status.INTERRUPTED, pgettext_lazy("game status", "Interrupted")
    #: never started: every seated player left, or it did not fill in time (no result, nothing dealt)
    CANCELLED = engine_status.CANCELLED, pgettext_lazy("game status", "Cancelled")


class GameQuerySet(models.QuerySet):
    """Games by status, in the engine's terms."""

    def waiting(self):
        return self.filter(status=engine_status.WAITING)

    def running(self):
        return self.filter(status=engine_status.RUNNING)

    def open(self):
        """Not ended: waiting or running."""
        return self.filter(status__in=engine_status.OPEN)

    def ended(self):
        """Finished, interrupted or cancelled."""
        return self.filter(status__in=engine_status.ENDED)

    def played(self):
        """Ended with a result: finished or interrupted (a cancelled game never started)."""
        return self.filter(status__in=engine_status.PLAYED)


class Game(models.Model):
    # no index of its own either (see status): three values, so a filter on it reads the newest games
    ruleset = models.CharField(_("ruleset"), max_length=32)
    options = models.JSONField(_("options"))
    seats = models.PositiveSmallIntegerField(_("seats"))
    # no index of its own: every move rewrites this row (a new row version, as the clock's deadline
    # changes), so each index on it is one more write per move; the game list filters status among the
    # newest games, along the primary key
    status = models.CharField(_("status"), max_length=16, choices=GameStatus.choices, default=GameStatus.WAITING)
    #: seq of the last event (0 before the first)
    version = models.PositiveIntegerField(_("version"), default=0)
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    turn = models.SmallIntegerField(_("turn"), null=True, blank=True)
    #: when the player to move times out (``None`` without a clock or without a choice pending)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)  # game_deadline_idx: the ticker's range scan
    #: the secret 32-byte server seed as hex; never in a response before the game ended
    server_seed = models.CharField(_("server seed"), max_length=64, editable=False)
    server_seed_commitment = models.CharField(_("server seed commitment"), max_length=64, editable=False)
    #: the engine state after ``snapshot_version`` events in the engine's versioned JSON form (a cache:
    #: rebuilt from events when absent, stale or of another format version)
    snapshot = models.TextField(_("snapshot"), null=True, editable=False)  # noqa: DJ001 - NULL: none yet
    snapshot_version = models.PositiveIntegerField(_("snapshot version"), default=0)
    #: hash of the last event, where the next append continues the chain
    last_hash = models.CharField(_("last hash"), max_length=64, default="", editable=False)
    result = models.JSONField(_("result"), null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.PROTECT,
                                   related_name="+")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True, db_index=True)
    #: the last replay audit (goat.games.verification.game_verify) by the admin, the command or the nightly job
    verified_at = models.DateTimeField(_("verified at"), null=True, blank=True)
    verification_ok = models.BooleanField(_("verification ok"), null=True, blank=True)  # game_verification_failed_idx
    verification_detail = models.TextField(_("verification detail"), blank=True, default="")
    #: the seats held by computer players (goat.games.computer), one bit per seat (bit s: seat s); set
    #: when the game is created and never changed. A game with a computer is unrated.
    computers = models.PositiveSmallIntegerField(_("computers"), default=0, editable=False)
    #: the seats held by bot accounts (goat.players.BotAccount; docs/api.md "Bots"), one bit per seat,
    #: set when the game is created (a bot sits only at a challenge's game, seated all at once)
    bots = models.PositiveSmallIntegerField(_("bots"), default=0, editable=False)
    #: how the computer players choose their moves: ``random`` or ``strong`` ("" without computers)
    computer_level = models.CharField(_("computer level"), max_length=16, blank=True, default="", editable=False)
    #: the ended game this one is the rematch of (docs/api.md "Live play"): at most one per game
    rematch_of = models.OneToOneField("self", verbose_name=_("rematch of"), null=True, blank=True,
                                      on_delete=models.SET_NULL,
                                      related_name="rematch", editable=False)
    #: a private table (an open challenge by link, docs/api.md "Challenges"): never listed in the lobby
    #: or on the home page; its pages are shown to its players and staff while it runs, to all once ended
    private = models.BooleanField(_("private"), default=False, editable=False)
    #: unrated by its players' choice (a challenge with ``"rated": false``): no rating points, skill,
    #: chips or ante, as a game with a computer player
    casual = models.BooleanField(_("casual"), default=False, editable=False)

    objects = GameQuerySet.as_manager()

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-id"]
        # only running clocks are indexed: the ticker reads ``deadline <= now`` as a range of this index,
        # so a tick costs what is due, not what is running
        indexes = [models.Index(fields=["deadline"], name="game_deadline_idx",
                                condition=models.Q(deadline__isnull=False)),
                   # the games whose audit failed, the few an auditor looks for; a move writes no entry
                   models.Index(fields=["verification_ok"], name="game_verification_failed_idx",
                                condition=models.Q(verification_ok=False))]
        permissions = [("audit_game", "Can audit games: replay, verify, export")]

    def __str__(self) -> str:
        return gettext("game %(game)s (%(ruleset)s, %(status)s)") % {
            "game": self.pk, "ruleset": words.ruleset(self.ruleset), "status": self.get_status_display()}

    @property
    def rated(self) -> bool:
        """Whether the game counts for ratings, skill, chips, leaderboards and tournaments: not with a
        computer player (docs/computer.md), nor a casual one (a challenge asked for it unrated)."""
        return not self.computers and not self.casual

    def computer_seat(self, seat: int | None) -> bool:
        """Whether ``seat`` is a computer player's."""
        return seat is not None and bool(self.computers >> seat & 1)

    def bot_seat(self, seat: int | None) -> bool:
        """Whether a bot account holds ``seat``."""
        return seat is not None and bool(self.bots >> seat & 1)

    @property
    def ended(self) -> bool:
        return self.status in engine_status.ENDED


class Seat(models.Model):
    # db_index off: both unique constraints below lead with game
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="seat_set",
                             db_index=False)
    seat = models.PositiveSmallIntegerField(_("seat"))
    player = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.PROTECT,
                               related_name="seats")
    client_seed = models.CharField(_("client seed"), max_length=255, blank=True, default="")

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="seat_unique_per_game"),
            models.UniqueConstraint(fields=["game", "player"], name="player_once_per_game"),
        ]

    def __str__(self) -> str:
        return gettext("seat %(seat)s of game %(game)s") % {"seat": words.seat(self.seat), "game": self.game_id}

    @property
    def computer(self) -> bool:
        """Whether a computer player holds this seat (the game row says which seats are computers')."""
        return self.game.computer_seat(self.seat)

    @property
    def bot(self) -> bool:
        """Whether a bot account holds this seat (the game row says which seats are bots')."""
        return self.game.bot_seat(self.seat)


class AppendOnlyError(Exception):
    """Events are never changed or deleted."""


class GameEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("game events are append-only: UPDATE is refused")

    def delete(self):
        raise AppendOnlyError("game events are append-only: DELETE is refused")


class GameEvent(models.Model):
    """One event of a game's stream. Append-only (a PostgreSQL trigger and this model refuse changes)."""

    #: global, monotonically increasing position across all streams
    position = models.BigAutoField(_("position"), primary_key=True)
    # db_index off: event_seq_unique_per_game (game, seq) serves every lookup by game, in seq order
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.PROTECT, related_name="events",
                             db_index=False)
    seq = models.PositiveIntegerField(_("seq"))
    type = models.CharField(_("type"), max_length=32)
    seat = models.SmallIntegerField(_("seat"), null=True, blank=True)
    data = models.JSONField(_("data"))
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("actor"), null=True, blank=True,
                              on_delete=models.PROTECT,
                              related_name="+")
    at = models.DateTimeField(_("at"))
    prev_hash = models.CharField(_("prev hash"), max_length=64)
    hash = models.CharField(_("hash"), max_length=64)

    objects = GameEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_seq_unique_per_game")]

    def __str__(self) -> str:
        return gettext("#%(seq)s %(type)s (game %(game)s)") % {"seq": self.seq, "type": words.event(self.type),
                                                                "game": self.game_id}

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("game events are append-only: UPDATE is refused")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("game events are append-only: DELETE is refused")


class ProjectionRecord(models.Model):
    """A projection has processed a game (goat.games.projections): written in the same transaction as
    the projection's rows, so a projection runs once per game however often it is triggered."""

    projection = models.CharField(_("projection"), max_length=64)
    # db_index off: the unique constraint below leads with projection, then game
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="+", db_index=False)
    at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        verbose_name = _("projection record")
        verbose_name_plural = _("projection records")
        constraints = [models.UniqueConstraint(fields=["projection", "game"], name="projection_once_per_game")]

    def __str__(self) -> str:
        return f"{self.projection} of game {self.game_id}"


class HiddenInfoView(models.Model):
    """A staff member looked at a running game's hidden information (hands, bazaar). See goat.games.audit."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.PROTECT,
                             related_name="+")
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="hidden_info_views")
    #: what was looked at, e.g. ``admin_replay``, ``admin_export_events``, ``api_events``
    what = models.CharField(_("what"), max_length=64)
    at = models.DateTimeField(_("at"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name_plural = _("hidden-information views")
        verbose_name = _("hidden-information view")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return gettext("%(user)s viewed %(what)s of game %(game)s") % {
            "user": self.user, "what": self.what, "game": self.game_id}


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", pgettext_lazy("analysis status", "Queued")
    RUNNING = "running", pgettext_lazy("analysis status", "Running")
    DONE = "done", pgettext_lazy("analysis status", "Done")
    #: the engine refused the game's log (``error`` holds its code): final, never run again
    FAILED = "failed", pgettext_lazy("analysis status", "Failed")


class GameAnalysis(models.Model):
    """The expert's analysis of a finished game (goat.games.analysis, docs/computer.md): one per game and
    engine version. ``result`` (the moves and the players' summary) is written in the same transaction
    that sets ``done``, so a half-written analysis is never read; ``claimed_until`` is the running
    job's lease (a job killed mid-analysis is taken up again once it runs out)."""

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="analyses",
                             db_index=False)
    engine = models.CharField(_("engine"), max_length=32)
    samples = models.PositiveIntegerField(_("samples"))
    status = models.CharField(_("status"), max_length=8, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED)
    requested_at = models.DateTimeField(_("requested at"), auto_now_add=True)
    #: the running job's claim and lease (empty while queued)
    claim = models.CharField(_("claim"), max_length=32, blank=True, default="")
    claimed_until = models.DateTimeField(_("claimed until"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    #: ``{"moves": [...], "players": [...]}`` once done (docs/api.md "Computer analysis")
    result = models.JSONField(_("result"), null=True, blank=True)
    #: the engine's code when it failed (e.g. ``no_consistent_deal``: a seat's knowledge admits no deal)
    error = models.CharField(_("error"), max_length=40, blank=True, default="")

    class Meta:
        verbose_name = _("game analysis")
        verbose_name_plural = _("game analyses")
        constraints = [models.UniqueConstraint(fields=["game", "engine"], name="analysis_once_per_game_engine")]

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.engine}, {self.status})"
