"""The shape of a game in a list, one definition for each place that shows it: the game list
(``GET /api/games/``, goat.games.api) and the lobby's live rows (goat.games.notify, built by
``selectors.game_summary``). DRF serializers, so the OpenAPI document describes the same shape."""

from __future__ import annotations

from rest_framework import serializers


class PairResultSerializer(serializers.Serializer):
    goats = serializers.ListField(child=serializers.IntegerField(), help_text="The losing pair's two seats.")
    winners = serializers.ListField(child=serializers.IntegerField(), help_text="The winning pair's two seats.")
    margin = serializers.IntegerField(help_text="The goats' points minus the winners'.")
    dry = serializers.BooleanField(help_text="A dry goat («сухой козёл»): the winners reached the end with 0 points.")


class ResultSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="limit, rounds, timeout or resigned.")
    goats = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    rating_points = serializers.ListField(child=serializers.IntegerField())
    chips = serializers.ListField(child=serializers.IntegerField())
    pair = PairResultSerializer(required=False, allow_null=True, help_text=(
        "goat-pairs only: the losing pair, the winners' margin and the dry goat; null when both pairs "
        "reached the limit at once. Absent in the other rulesets."))


class SummarySeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(source="player.username")
    computer = serializers.BooleanField(help_text="Whether a computer player holds the seat.")
    bot = serializers.BooleanField(help_text="Whether a bot account holds the seat (docs/api.md \"Bots\").")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    status = serializers.CharField()
    seat_count = serializers.IntegerField(source="seats", help_text="Seats at the table (2 to 4).")
    seats = SummarySeatSerializer(source="seat_set", many=True, help_text="Seats taken so far.")
    version = serializers.IntegerField()
    round = serializers.IntegerField()
    turn = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    result = ResultSerializer(allow_null=True)
    rated = serializers.BooleanField(help_text="False for a game with a computer player.")
    move_time = serializers.SerializerMethodField(
        help_text="The clock: seconds for each move (0: no clock), as the game's options say.")

    def get_move_time(self, game) -> int:
        return int((game.options or {}).get("move_time") or 0)
