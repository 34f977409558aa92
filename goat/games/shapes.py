"""The shape of a game in a list, one definition for each place that shows it: the game list
(``GET /api/games/``, goat.games.api) and the lobby's live rows (goat.games.notify, built by
``selectors.game_summary``). DRF serializers, so the OpenAPI document describes the same shape."""

from __future__ import annotations

from rest_framework import serializers


class ResultSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="limit, rounds, timeout or resigned.")
    goats = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    rating_points = serializers.ListField(child=serializers.IntegerField())
    chips = serializers.ListField(child=serializers.IntegerField())


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
