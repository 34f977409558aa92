"""Live delivery: the fan-out channel that carries what happened from the process that committed it
to every open stream (``fanout``), and what every stream shares: its wire formats, its response, its
slot on the caller's stream limit (``streaming``). docs/architecture.md "Live delivery"."""
