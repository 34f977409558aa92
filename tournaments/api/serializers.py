"""The tournaments API's serializers: what its requests take and its answers hold."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from goat.web.api.fields import StrictCharField, StrictSerializer

from ..checks import (  # noqa: F401 (the API's request bodies: one check for the API, the admin and schedules)
    INVITE_CODE_MIN_LENGTH,
    EntryField,
    EntrySerializer,
    TournamentCreateSerializer,
    TournamentOptionsField,
)
from ..models import TournamentFormat, TournamentStatus

STATUSES = list(TournamentStatus.values)
STATUS_CHOICE = gettext_lazy("Must be scheduled, running, finished or cancelled.")

# --- serializers -------------------------------------------------------------------------------


class EntryViewSerializer(serializers.Serializer):
    min_games = serializers.IntegerField(allow_null=True)
    min_rating = serializers.IntegerField(allow_null=True)
    max_rating = serializers.IntegerField(allow_null=True)
    invite_only = serializers.BooleanField(help_text="Registration needs an invite code.")


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.DictField(help_text="Fully resolved options of the games.")
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    rounds = serializers.IntegerField(help_text="Swiss rounds (0 for an arena).")
    table_size = serializers.IntegerField()
    starts_at = serializers.DateTimeField()
    duration_minutes = serializers.IntegerField()
    max_players = serializers.IntegerField()
    entry_fee = serializers.IntegerField()
    status = serializers.CharField(help_text="scheduled, running, finished or cancelled.")
    created_by = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True, help_text="Arena: no table starts after this.")
    prize_pool = serializers.IntegerField()
    players = serializers.IntegerField(help_text="Registered players.")
    entry = EntryViewSerializer(help_text="Entry conditions (the invite code itself is never shown).")
    cancelled_at = serializers.DateTimeField(allow_null=True)
    cancel_reason = serializers.CharField(help_text="Why staff cancelled it (empty otherwise).")


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    bye = serializers.CharField(allow_null=True, help_text="The player without a table this round, if any.")


class TableSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="Round number (null in an arena).")
    number = serializers.IntegerField()
    game = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/).")
    status = serializers.CharField(help_text="The game's status.")
    players = serializers.ListField(child=serializers.CharField(), help_text="Usernames in seat order.")
    turn = serializers.IntegerField(allow_null=True)
    points = serializers.ListField(child=serializers.IntegerField(), help_text="Game points per seat.")
    result = serializers.DictField(allow_null=True)


class PrizeSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = serializers.CharField()
    amount = serializers.IntegerField()


class TournamentDetailSerializer(TournamentSerializer):
    played_rounds = RoundSerializer(many=True)
    tables = TableSerializer(many=True)
    prizes = PrizeSerializer(many=True)


class WithdrawnSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    player = serializers.CharField()
    withdrawn_at = serializers.DateTimeField()
    withdrawn_by = serializers.CharField(help_text="The player themself, or the staff member.")




class RegisterBodySerializer(StrictSerializer):
    invite_code = StrictCharField(max_length=64, required=False, allow_null=True, trim_whitespace=False,
                                  help_text="The tournament's invite code, if it has one.")


class RegistrationSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    player = serializers.CharField()
    registered_at = serializers.DateTimeField()
    fee_paid = serializers.IntegerField()


class TiebreaksSerializer(serializers.Serializer):
    goats = serializers.IntegerField(help_text="Fewer is better.")
    opponents_points = serializers.FloatField(
        help_text="Buchholz for tables: over the player's games, Σ the mean standings points of the others at "
                  "the table (two decimals); higher is better.")
    game_points = serializers.IntegerField(help_text="Σ game points at the end of the player's games; lower is better.")
    byes = serializers.IntegerField()
    registration_order = serializers.IntegerField(help_text="Earlier is better (the last tiebreak).")


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    withdrawn = serializers.BooleanField(help_text="The player withdrew while the tournament ran (seated no more).")
    tiebreaks = TiebreaksSerializer()


class TournamentListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=STATUSES, required=False,
                                     error_messages={"invalid_choice": STATUS_CHOICE})



# --- crosstable, a player's tournaments ----------------------------------------------------------


class CrosstableGameSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="Swiss round (null in an arena).")
    table = serializers.IntegerField(help_text="Table number (per round in a swiss, per tournament in an arena).")
    game = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/).")
    status = serializers.CharField(help_text="The game's status.")
    opponents = serializers.ListField(child=serializers.CharField(),
                                      help_text="The others at the table, in seat order.")
    points = serializers.IntegerField(allow_null=True, help_text="The player's game points at the end (§7); null "
                                                                 "until the game is recorded.")
    rating_points = serializers.IntegerField(allow_null=True, help_text="Standings points the game gave (§9).")
    goat = serializers.BooleanField(allow_null=True, help_text="Whether the player was among the game's goats.")


class CrosstableRowSerializer(serializers.Serializer):
    player = serializers.CharField()
    rank = serializers.IntegerField()
    withdrawn = serializers.BooleanField(help_text="The player withdrew while the tournament ran.")
    games = CrosstableGameSerializer(many=True, help_text="In play order; a bye is no game.")


class PlayerTournamentSerializer(serializers.Serializer):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    name = serializers.CharField()
    status = serializers.CharField()
    format = serializers.CharField()
    starts_at = serializers.DateTimeField()
    rank = serializers.IntegerField(allow_null=True, help_text="Place in the standings (null before the start).")
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class CancelSerializer(StrictSerializer):
    reason = StrictCharField(min_length=1, max_length=500, help_text="Why; shown on the tournament's pages.")


class WithdrawSerializer(StrictSerializer):
    player = StrictCharField(max_length=150, required=False,
                             help_text="Staff: the username to withdraw. A player withdraws themself without it.")


class ScheduleCreateSerializer(StrictSerializer):
    template = serializers.DictField(help_text="Every tournament field (as POST /api/tournaments/) except "
                                               "starts_at; checked now, not when the beat runs.")
    first_start = serializers.DateTimeField(help_text="The first occurrence's start (ISO 8601).")
    every = serializers.CharField(max_length=64, help_text="ISO 8601 duration, at least PT5M (PT1H … P7D).")
    announce_before = serializers.CharField(max_length=64, required=False, default="PT0S",
                                            help_text="ISO 8601 duration: each occurrence is created this long "
                                                      "before its start (at most P31D and 100 periods).")


class ScheduleUpdateSerializer(StrictSerializer):
    active = serializers.BooleanField(required=False, help_text="false stops the schedule; created tournaments "
                                                                "stay as they are.")
    template = serializers.DictField(required=False)
    first_start = serializers.DateTimeField(required=False)
    every = serializers.CharField(max_length=64, required=False)
    announce_before = serializers.CharField(max_length=64, required=False)


class ScheduleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    template = serializers.DictField(help_text="The tournament fields (an invite code shows as invite_only).")
    first_start = serializers.DateTimeField()
    every = serializers.CharField(help_text="ISO 8601 duration.")
    announce_before = serializers.CharField(help_text="ISO 8601 duration.")
    active = serializers.BooleanField()
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    tournaments = serializers.IntegerField(help_text="How many tournaments it has created.")
