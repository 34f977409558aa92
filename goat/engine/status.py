"""A game's status and why it ended: the one set of names the engine, the games app's models and
queries, the ratings and every page use (goat/games/words.py gives each its words, keyed by these names).

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

#: why a played game ended (``Result.reason``): by the rules, the point limit reached (goat scoring) or
#: every round played (fixed rounds), so ``finished``; a player's clock ran out or they resigned, so
#: ``interrupted`` (D-12, D-13)
REASON_LIMIT, REASON_ROUNDS, REASON_TIMEOUT, REASON_RESIGNED = "limit", "rounds", "timeout", "resigned"
RESULT_REASONS = (REASON_LIMIT, REASON_ROUNDS, REASON_TIMEOUT, REASON_RESIGNED)

#: why a game was cancelled (``game_cancelled``): its last seated player left, or it did not fill in
#: time (a waiting game); or the tournament it belongs to was cancelled (a waiting or running game); or
#: nothing happened in it for the server's idle time (a running game; the server cancels only unclocked
#: games with a computer)
CANCEL_LEFT, CANCEL_EXPIRED, CANCEL_TOURNAMENT, CANCEL_IDLE = "left", "expired", "tournament_cancelled", "idle"
CANCEL_REASONS = (CANCEL_LEFT, CANCEL_EXPIRED, CANCEL_TOURNAMENT, CANCEL_IDLE)
#: the reasons that may also cancel a game that has started
CANCEL_RUNNING_REASONS = (CANCEL_TOURNAMENT, CANCEL_IDLE)
