"""Tournaments API (docs/tournaments.md), one module per concern as goat/games/api: serializers,
schema (examples, parameters, the stream's operation), views, and the recurring schedules."""
