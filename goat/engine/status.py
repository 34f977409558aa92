"""A game's status: the one set of names the engine, the games app's models and queries use.

``waiting`` for players, ``running`` (dealt, played), then one of the ended statuses: ``finished``
(by the rules: limit or rounds), ``interrupted`` (a resignation or a timeout, docs/rules.md D-12) or
``cancelled`` (never started: every seat left, or it did not fill in time; no result).
"""

from __future__ import annotations

WAITING, RUNNING, FINISHED, INTERRUPTED = "waiting", "running", "finished", "interrupted"
#: a game that ended without a result (``game_cancelled``: every seat left, it expired, or its tournament
#: was cancelled)
CANCELLED = "cancelled"
#: the statuses of a game that has ended (the seed is then revealed and nothing is hidden)
ENDED = (FINISHED, INTERRUPTED, CANCELLED)
#: the ended statuses of a game that was played: it has a result (scored, rated, open to a rematch)
PLAYED = (FINISHED, INTERRUPTED)
#: the statuses of a game that has not ended
OPEN = (WAITING, RUNNING)
