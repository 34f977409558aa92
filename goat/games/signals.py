"""What the games app tells the apps above it, and asks them, as Django signals (it never imports them).

``seat_taking`` and ``seat_freed`` are sent inside the command's transaction, so what a receiver writes
lands with the command's events or not at all; each is sent with ``sender=Game`` and the keyword
arguments ``game``, ``player`` (the user), ``seat`` and ``options`` (the game's resolved ``Options``).
``feed_catch_up`` asks: each receiver's answer is part of the result.
"""

from __future__ import annotations

from django.dispatch import Signal

from goat.web.errors import ErrorCodeGroup

#: a seat is about to be taken (the engine accepted it); a receiver may refuse it by raising a
#: ServiceError, which rolls the seat back (ratings escrows the ante here)
seat_taking = Signal()
#: the codes a receiver of ``seat_taking`` refuses a seat with: its app adds them where it connects the
#: receiver, and every operation that takes a seat lists them in the OpenAPI document
SEAT_REFUSALS = ErrorCodeGroup("seat_taking")
#: likewise, the codes it refuses a seat with at a game the player held a seat at before and left (only a
#: join takes a seat at an existing game: the operations that create one do not list them)
RETURN_REFUSALS = ErrorCodeGroup("seat_taking_again")
#: a seat of a game that never started was freed: its player left, or the game was cancelled as
#: expired (ratings returns the ante here)
seat_freed = Signal()
#: a feed catches up (goat.games.notify.feed_catch_up), sent with ``sender=Game``, ``user`` and ``since``:
#: each receiver returns the feed messages its app's own events owed ``user`` since then (the
#: tournaments app: ``tournament_table``)
feed_catch_up = Signal()
