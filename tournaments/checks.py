"""What a tournament's fields must be, checked once for every way a tournament is made: the API's
``POST /api/tournaments/`` body, the admin's add form and a schedule's template
(tournaments.schedules.schedule_fields) all validate with ``TournamentCreateSerializer``."""

from __future__ import annotations

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from goat.engine import RULESETS
from goat.games.api.serializers import options_schema
from goat.web.api.fields import StrictCharField, StrictIntegerField, StrictSerializer

from .models import TournamentFormat


@extend_schema_field(options_schema(ante=False))
class TournamentOptionsField(serializers.DictField):
    """Overrides of the ruleset's options for every game of the tournament (no ante)."""


#: the shortest invite code a tournament takes: with wrong codes throttled (``invite_player``,
#: ``invite_tournament``), 8 characters leave no code to guess in a tournament's lifetime
INVITE_CODE_MIN_LENGTH = 8


class EntrySerializer(StrictSerializer):
    min_games = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, allow_null=True,
                                   help_text="Games played on the ruleset's all-time board, at least.")
    min_rating = StrictIntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True,
                                    help_text="Rating on the ruleset's all-time board, at least.")
    max_rating = StrictIntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True,
                                    help_text="Rating on the ruleset's all-time board, at most.")
    invite_code = StrictCharField(min_length=INVITE_CODE_MIN_LENGTH, max_length=64, required=False, allow_null=True,
                                  trim_whitespace=False, write_only=True,
                                  help_text=f"Registration needs this code; never shown back. At least "
                                            f"{INVITE_CODE_MIN_LENGTH} characters.")

    def validate(self, attrs):
        attrs = super().validate(attrs)
        low, high = attrs.get("min_rating"), attrs.get("max_rating")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"max_rating": ["Must be at least min_rating."]})
        return attrs


@extend_schema_field(EntrySerializer)
class EntryField(serializers.Field):
    """``entry``: an object validated by EntrySerializer (strict: an unknown key is refused)."""

    strict_serializer = EntrySerializer  # what validates it (and the schema's additionalProperties: false)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("Must be an object of entry conditions.")
        entry = self.strict_serializer(data=data)
        if not entry.is_valid():
            raise serializers.ValidationError(entry.errors)
        return dict(entry.validated_data)

    def to_representation(self, value):
        return value


class TournamentCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=120)
    ruleset = serializers.ChoiceField(choices=list(RULESETS), error_messages={
        "invalid_choice": format_lazy(gettext_lazy("Not a ruleset; choose one of: {rulesets}."),
                                  rulesets=", ".join(RULESETS))})
    options = TournamentOptionsField(required=False, default=dict,
                                     help_text="Overrides of the ruleset's options for every game (no `ante`).")
    format = serializers.ChoiceField(choices=TournamentFormat.choices, help_text="swiss or arena.",
                                     error_messages={"invalid_choice": gettext_lazy("Must be swiss or arena.")})
    rounds = StrictIntegerField(min_value=1, max_value=50, required=False, default=None,
                                help_text="Swiss: number of rounds (required). Arena: ignored.")
    table_size = StrictIntegerField(min_value=2, max_value=4, help_text="Players per table, 2 to 4.")
    starts_at = serializers.DateTimeField(help_text="ISO 8601; the scheduler starts the tournament then.")
    duration_minutes = StrictIntegerField(min_value=0, max_value=7 * 24 * 60, required=False, default=0,
                                          help_text="Arena: minutes during which tables are started (required).")
    max_players = StrictIntegerField(min_value=1, max_value=10000)
    entry_fee = StrictIntegerField(min_value=0, max_value=1_000_000, required=False, default=0,
                                   help_text="Chips debited on registration into the prize pool.")
    entry = EntryField(required=False, help_text="Entry conditions, checked at registration (all optional).")

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if attrs["format"] == TournamentFormat.SWISS and not attrs.get("rounds"):
            raise serializers.ValidationError({"rounds": [gettext_lazy("A swiss tournament needs rounds (1 to 50).")]})
        if attrs["format"] == TournamentFormat.ARENA and not attrs.get("duration_minutes"):
            raise serializers.ValidationError({"duration_minutes": [
                gettext_lazy("An arena needs a duration of at least 1 minute.")]})
        attrs["rounds"] = attrs.get("rounds") or 0
        return attrs


