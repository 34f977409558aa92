"""Games: Game, Seat and the GameEvent stream (added by the event store work)."""

from django.db import models  # noqa: F401
