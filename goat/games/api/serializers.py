"""Serializers of the games API: strict request bodies, and the response shapes for the schema.

Responses are built by ``goat.games.selectors`` as plain dicts; the response serializers here describe
them for the OpenAPI schema. Request bodies are strict: unknown fields, wrong JSON types (a number
where a string is expected, ``"3"`` or ``true`` where a number is) and over-long strings are 400
``invalid`` with per-field ``errors``.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from goat.engine.computer import LEVELS as COMPUTER_LEVELS
from goat.engine.rulesets import (
    MAX_SEATS,
    MIN_SEATS,
    NULLABLE_OPTIONS,
    OPTION_CHOICES,
    OPTION_KEYS,
    OPTION_RANGES,
    RULESETS,
)
from goat.games.shapes import (  # noqa: F401 (a game in a list: one shape for the list and the lobby)
    GameSummarySerializer,
    ResultSerializer,
    SummarySeatSerializer,
)
from goat.web.api.fields import StrictCharField, StrictIntegerField, StrictSerializer
from goat.web.api.query import QueryIntegerField

#: client seeds are stored in ``Seat.client_seed`` (255 characters)
CLIENT_SEED_MAX_LENGTH = 255
#: a tile as the engine parses it ("a-b", 0..6 each, either order), the serializer having trimmed it
TILE_PATTERN = r"^\s*[0-6]-[0-6]\s*$"


def options_schema(*, ante: bool = True) -> dict:
    """The OpenAPI schema of ``options``: each key's type and range as the engine checks them
    (goat.engine.rulesets). Combinations (hand_size x seats over 28 tiles, a redeal with hands over 7,
    goat scoring without a limit...) are checked by the engine too but cannot be said in a schema:
    400 ``invalid_options``."""
    properties: dict[str, dict] = {}
    for key in OPTION_KEYS:
        if key in ("redeal", "remembered_counts"):
            schema: dict = {"type": "boolean"}
        elif key in OPTION_CHOICES:
            schema = {"type": "string", "enum": list(OPTION_CHOICES[key])}
        else:
            low, high = OPTION_RANGES[key]
            schema = {"type": "integer", "minimum": low, "maximum": high}
        if key in NULLABLE_OPTIONS:
            schema["nullable"] = True
            if "enum" in schema:
                schema["enum"].append(None)
        properties[key] = schema
    if not ante:
        properties["ante"] = {"type": "integer", "enum": [0], "description": "Tournament games have no ante."}
    return {"type": "object", "properties": properties, "additionalProperties": False}


@extend_schema_field({"type": "string", "enum": list(RULESETS)})
class RulesetField(StrictCharField):
    """A ruleset name; the engine refuses another (400 ``unknown_ruleset``)."""


@extend_schema_field(options_schema())
class OptionsField(serializers.DictField):
    """Overrides of a ruleset's options; the engine checks them (400 ``invalid_options``)."""


@extend_schema_field({"type": "string", "pattern": TILE_PATTERN})
class TileField(StrictCharField):
    """A tile as text; the engine refuses one that is not a tile (422 ``invalid_tile``)."""


# --- Requests -------------------------------------------------------------------------------


class GameCreateSerializer(StrictSerializer):
    ruleset = RulesetField(max_length=32, help_text=(
        "goat-classic, goat-gamesburg, domino-3rounds or goat-pairs (4 seats)."))
    seats = StrictIntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, help_text="Number of players, 2 to 4.")
    options = OptionsField(
        required=False, default=dict,
        help_text="Overrides of the ruleset's options (docs/rules.md §2, second edition), e.g. {\"limit\": 51} or "
                  "{\"remembered_counts\": true}. Keys: hand_size, redeal, opener (doubles_from_one, "
                  "doubles_from_one_by_sum, smallest_double), later_leader, bazaar_reserve, fish, lone_double_zero, "
                  "scoring, fish_scoring, open_threshold, remembered_counts, limit, rounds, ante, move_time.",
    )
    client_seed = StrictCharField(
        max_length=CLIENT_SEED_MAX_LENGTH, required=False, allow_blank=True, default="",
        help_text="Your contribution to the verifiable deal (docs/rules.md §3): letters, digits, spaces and "
                  "- _ . , : ; ! ? + = # @ * ~ ( ) [ ] ' / (400 invalid_client_seed for another character).",
    )
    computer_players = StrictIntegerField(
        min_value=0, max_value=MAX_SEATS - 1, required=False, default=0,
        help_text="Computer players who take seats 1..N at once (0 to seats - 1). A game with a computer is "
                  "unrated: no rating points, skill, chips, ante, tournament or leaderboard.",
    )
    computer_level = serializers.ChoiceField(
        choices=list(COMPUTER_LEVELS), required=False, default="strong",
        help_text="How the computer players choose their moves: random or strong (docs/computer.md).",
    )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        seats, computers = attrs.get("seats"), attrs.get("computer_players", 0)
        if isinstance(seats, int) and computers >= seats:
            message = f"Ensure this value is from 0 to {seats - 1} (the seats but yours)."
            raise serializers.ValidationError({"computer_players": [message]})
        return attrs


class GameJoinSerializer(StrictSerializer):
    client_seed = StrictCharField(
        max_length=CLIENT_SEED_MAX_LENGTH, required=False, allow_blank=True, default="",
        help_text="Your contribution to the verifiable deal (docs/rules.md §3): letters, digits, spaces and "
                  "- _ . , : ; ! ? + = # @ * ~ ( ) [ ] ' / (400 invalid_client_seed for another character).",
    )
    seat = StrictIntegerField(
        min_value=0, max_value=MAX_SEATS - 1, required=False, default=None, allow_null=True,
        help_text="The seat to take (0-based); default: the lowest free one. In goat-pairs the seat chooses "
                  "the partner (the seat opposite). 409 seat_taken when someone holds it, 422 invalid_seat "
                  "when the game has no such seat.")


class MoveSerializer(StrictSerializer):
    tile = TileField(max_length=8, help_text='A tile you hold, "a-b" in either order, e.g. "3-5".')
    end = serializers.ChoiceField(
        choices=["left", "right"], required=False, allow_null=True, default=None,
        help_text="The end of the line to play on; only needed when the tile fits both ends.",
    )


class EventsQuerySerializer(serializers.Serializer):
    after = QueryIntegerField(min_value=0, max_value=2**31 - 1, required=False, default=0,
                                     help_text="Only events with a larger seq.")


class ReplayQuerySerializer(serializers.Serializer):
    at = QueryIntegerField(min_value=1, max_value=2**31 - 1, required=False, default=None,
                                  help_text="Event seq to replay up to (default: the last event).")


# --- Responses (schema) ---------------------------------------------------------------------


class SeatViewSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True, help_text="Username, null while the seat is free.")
    computer = serializers.BooleanField(help_text="Whether a computer player holds the seat.")
    bot = serializers.BooleanField(help_text="Whether a bot account holds the seat (docs/api.md \"Bots\").")
    tiles = serializers.IntegerField(help_text="Tiles in the hand.")
    team = serializers.IntegerField(allow_null=True, help_text=(
        "The seat's pair in goat-pairs: 0 (seats 0 and 2) or 1 (seats 1 and 3), partners opposite; "
        "null in the rulesets where everyone plays for themselves."))
    open = serializers.BooleanField()
    score = serializers.IntegerField()
    remembered = serializers.IntegerField()
    points = serializers.IntegerField()


class LineSerializer(serializers.Serializer):
    tiles = serializers.ListField(child=serializers.CharField(), help_text='Tiles oriented as laid, e.g. "5-2".')
    left = serializers.IntegerField(allow_null=True)
    right = serializers.IntegerField(allow_null=True)


class LegalMoveSerializer(serializers.Serializer):
    tile = serializers.CharField()
    end = serializers.CharField()


class GameViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    options = serializers.DictField(help_text="Fully resolved options.")
    status = serializers.CharField(help_text="waiting, running, finished, interrupted or cancelled.")
    version = serializers.IntegerField(help_text="seq of the last event; also the ETag.")
    round = serializers.IntegerField()
    turn = serializers.IntegerField(allow_null=True, help_text="Seat to play, or null.")
    deadline = serializers.DateTimeField(allow_null=True)
    seats = SeatViewSerializer(many=True)
    line = LineSerializer()
    bazaar = serializers.IntegerField(help_text="Tiles left in the bazaar.")
    hand = serializers.ListField(child=serializers.CharField(), help_text="Your own hand; empty for spectators.")
    legal_moves = LegalMoveSerializer(many=True, help_text="Your legal moves when it is your turn.")
    fish_pot = serializers.IntegerField()
    server_seed_commitment = serializers.CharField()
    server_seed = serializers.CharField(allow_null=True, help_text="Revealed once the game has ended.")
    result = ResultSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    rated = serializers.BooleanField(help_text="False for a game with a computer player: it counts for no rating, "
                                               "skill, chips, leaderboard or tournament.")
    computer_level = serializers.ChoiceField(choices=list(COMPUTER_LEVELS), allow_null=True,
                                             help_text="The computer players' level; null without computers.")
    your_seat = serializers.IntegerField(allow_null=True)
    server_time = serializers.DateTimeField(help_text="The server's clock when the view was made.")
    remaining_ms = serializers.IntegerField(allow_null=True, min_value=0,
                                            help_text="The player to move's time left; null without a clock.")


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    at = serializers.DateTimeField()
    seat = serializers.IntegerField(allow_null=True)
    data = serializers.DictField()


class EventsSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    events = EventSerializer(many=True)


class MoveResponseSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    events = EventSerializer(many=True, help_text="The play and every forced action after it, redacted for you.")
    game = GameViewSerializer()


class ScoreTotalSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True)
    open = serializers.BooleanField()
    score = serializers.IntegerField()
    remembered = serializers.IntegerField()
    points = serializers.IntegerField()


class ScoresheetSerializer(serializers.Serializer):
    rounds = serializers.ListField(child=serializers.DictField())
    fish_pot = serializers.IntegerField()
    totals = ScoreTotalSerializer(many=True)


class ReplaySerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    options = serializers.DictField()
    status = serializers.CharField()
    version = serializers.IntegerField()
    round = serializers.IntegerField()
    turn = serializers.IntegerField(allow_null=True)
    seats = SeatViewSerializer(many=True)
    line = LineSerializer()
    bazaar = serializers.IntegerField()
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    bazaar_tiles = serializers.ListField(child=serializers.CharField())
    must_lead = serializers.CharField(allow_null=True)
    pending = serializers.DictField()
    rounds = serializers.ListField(child=serializers.DictField())
    fish_pot = serializers.IntegerField()
    server_seed_commitment = serializers.CharField()
    server_seed = serializers.CharField(allow_null=True)
    result = ResultSerializer(allow_null=True)


class VerificationSerializer(serializers.Serializer):
    hash_chain = serializers.BooleanField()
    deals = serializers.BooleanField()
    replay = serializers.BooleanField()
    detail = serializers.CharField()
    seq = serializers.IntegerField(allow_null=True, help_text="First event found wrong, if any.")


class SigningKeySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="ed25519- and the first 16 hex digits of the SHA-256 of the raw public key")
    public_key = serializers.CharField(help_text="the 32 raw bytes of the Ed25519 public key, standard base64")
    algorithm = serializers.ChoiceField(choices=["ed25519"])
    valid_from = serializers.CharField(help_text="UTC, YYYY-MM-DDTHH:MM:SSZ: it signs records from then")
    valid_until = serializers.CharField(allow_null=True, help_text="when it was retired; null for the current key")


# --- Analysis (docs/api.md "Computer analysis") ---------------------------------------------------


class AnalysisMoveRefSerializer(serializers.Serializer):
    tile = serializers.CharField(help_text='"a-b"')
    end = serializers.ChoiceField(choices=["left", "right"])


class AnalysisMoveSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The tile_played event's seq.")
    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True)
    played = AnalysisMoveRefSerializer()
    legal = AnalysisMoveRefSerializer(many=True)
    best = AnalysisMoveRefSerializer(help_text="The expert's choice from what the seat knew then.")
    loss = serializers.FloatField(min_value=0, help_text="Expected cost of the move played against the best, "
                                  "in points of the round (0 when the best was played).")
    loss_interval = serializers.ListField(
        child=serializers.FloatField(min_value=0), min_length=2, max_length=2,
        help_text="[low, high]: the loss's 95% interval, in the same points (second edition).")
    label = serializers.ChoiceField(choices=["inaccuracy", "mistake", "blunder"], allow_null=True,
                                    help_text="Given only when the interval's low end reaches the label's threshold "
                                              "(docs/computer.md).")
    forced = serializers.BooleanField(help_text="There was no real choice: one legal move, or only equivalent ones "
                                                "(one tile on two ends showing the same value).")


class AnalysisPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True)
    decisions = serializers.IntegerField(help_text="Moves that were not forced.")
    average_loss = serializers.FloatField()
    inaccuracies = serializers.IntegerField()
    mistakes = serializers.IntegerField()
    blunders = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True, min_value=0, max_value=100,
                                      help_text="0-100, 100 when every decision was the best (docs/computer.md); "
                                                "null without a decision (second edition).")


class AnalysisSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    engine = serializers.CharField(required=False, help_text="The expert's version that judged (when done or failed).")
    code = serializers.CharField(required=False, help_text="Why the engine could not judge the game (when failed), "
                                 "e.g. `no_consistent_deal`: a seat's knowledge admits no deal of the unseen tiles.")
    samples = serializers.IntegerField(required=False, help_text="The most sampled deals a decision may take "
                                       "(when done; it stops once the label is settled).")
    moves = AnalysisMoveSerializer(many=True, required=False)
    players = AnalysisPlayerSerializer(many=True, required=False)
