"""Serializers of the challenges API: strict request bodies, and the challenge's shape for the schema
(the views answer ``challenges.selectors.challenge_view``'s dicts)."""

from __future__ import annotations

from rest_framework import serializers

from goat.engine.rulesets import MAX_SEATS, MIN_SEATS, RULESETS
from goat.games.api.serializers import OptionsField, RulesetField
from goat.web.api.fields import (
    FlatListField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)

from ..models import Answer, ChallengeStatus, DeclineReason, Seating


class ChallengeCreateSerializer(StrictSerializer):
    opponents = FlatListField(
        child=StrictCharField(max_length=150), max_length=MAX_SEATS - 1, required=False, default=list,
        help_text="Usernames of the players you challenge (up to 3); empty: an open challenge, its seats taken "
                  "by whoever holds its link.")
    ruleset = RulesetField(max_length=32, required=False,
                           help_text=("goat-classic, goat-gamesburg, domino-3rounds or goat-pairs (4 seats) "
                                      "(required unless again_of)."))
    seats = StrictIntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, required=False,
                               help_text="Number of players, 2 to 4; default: you and the opponents named. Seats "
                                         "beyond the named opponents are taken by holders of the link.")
    options = OptionsField(required=False, help_text="Overrides of the ruleset's options, as for a game.")
    rated = StrictBooleanField(required=False, default=True,
                               help_text="Whether the game counts for ratings (false: no rating points and no ante).")
    seating = serializers.ChoiceField(choices=Seating.values, required=False, default=Seating.RANDOM,
                                      help_text="random (default): seats drawn when the game starts; fixed: you in "
                                                "seat 0, the opponents in the order named, then the link's holders.")
    private = StrictBooleanField(required=False, default=False,
                                 help_text="Make its game a private table (always so with seats by link): shown "
                                           "to its players and staff only until it ends, never listed.")
    partner = StrictCharField(
        max_length=150, required=False,
        help_text="goat-pairs: the username of your partner, who sits opposite you (seat 2); `opponents` then "
                  "names the other pair, both of them, and the seating is fixed (you at seat 0, the opponents "
                  "at seats 1 and 3 in the order named).")
    again_of = StrictIntegerField(min_value=1, max_value=2**63 - 1, required=False,
                                  help_text="An ended game you played: play it again with the same people (its "
                                            "ruleset, seats, options and other players, unless given here).")


class ChallengeAcceptSerializer(StrictSerializer):
    code = StrictCharField(max_length=64, required=False,
                           help_text="The link's code: needed to take a seat of an open challenge by its link.")


class ChallengeDeclineSerializer(StrictSerializer):
    reason = serializers.ChoiceField(choices=DeclineReason.choices, required=False, default=DeclineReason.GENERIC,
                                     help_text="Why: " + ", ".join(DeclineReason.values) + ".")


class ChallengeListQuerySerializer(serializers.Serializer):
    direction = serializers.ChoiceField(choices=["in", "out"], required=False,
                                        help_text="in: challenges to you; out: yours; neither: both.")
    status = serializers.ChoiceField(choices=ChallengeStatus.choices, required=False)


class ChallengeOpponentSerializer(serializers.Serializer):
    player = serializers.CharField()
    answer = serializers.ChoiceField(choices=Answer.choices)
    named = serializers.BooleanField(help_text="Named by the challenger (false: came by the link).")
    reason = serializers.ChoiceField(choices=DeclineReason.choices, allow_null=True)
    bot = serializers.BooleanField()


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ChallengeStatus.choices)
    challenger = serializers.CharField()
    challenger_bot = serializers.BooleanField()
    opponents = ChallengeOpponentSerializer(many=True)
    ruleset = serializers.CharField()
    seats = serializers.IntegerField()
    options = serializers.DictField()
    rated = serializers.BooleanField()
    seating = serializers.ChoiceField(choices=Seating.values)
    private = serializers.BooleanField(help_text="Its game is a private table (always so with seats by link).")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    link = serializers.URLField(allow_null=True, help_text="The play page's link to share (the challenger's, "
                                                            "while open).")
    code = serializers.CharField(allow_null=True, help_text="The link's code (the challenger's, while open).")
    game = serializers.IntegerField(allow_null=True, help_text="The game, once every seat accepted.")
    again_of = serializers.IntegerField(allow_null=True)


class BotUpgradeSerializer(StrictSerializer):
    rulesets = FlatListField(
        child=RulesetField(max_length=32), required=False, max_length=16,
        help_text="The rulesets the bot accepts challenges for (empty or absent: every ruleset).")

    def validate_rulesets(self, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in RULESETS]
        if unknown:
            raise serializers.ValidationError(
                f"Not a ruleset: {', '.join(unknown)}; choose among {', '.join(RULESETS)}.")
        return list(dict.fromkeys(value))


class BotSerializer(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField()
    rulesets = serializers.ListField(child=serializers.CharField())
    upgraded_at = serializers.DateTimeField()
