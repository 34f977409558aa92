"""Rulesets: the three presets of RULES.md §2 and validation of option overrides.

The fully resolved options are stored in a game's first event, so a replay never depends on
today's defaults: :func:`resolve_options` is only called when a game is created, and replay uses
:meth:`Options.from_dict` on what was stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .errors import InvalidOptions

MIN_SEATS, MAX_SEATS = 2, 4

OPENERS = ("doubles_from_one", "smallest_double")
LATER_LEADERS = ("last_winner", "opener")
FISH_RULES = ("positional_or_blocked", "blocked")
SCORINGS = ("goat", "rounds")
FISH_SCORINGS = ("fish_for_all", "fish_for_one")

#: RULES.md §2, column by column. Keys with a dash in the table are ``None``.
PRESETS: dict[str, dict[str, Any]] = {
    "goat-classic": {
        "hand_size": 7,  # D-1
        "redeal": True,
        "opener": "doubles_from_one",
        "later_leader": "last_winner",
        "bazaar_reserve": 0,
        "fish": "positional_or_blocked",
        "lone_double_zero": 10,
        "scoring": "goat",
        "fish_scoring": "fish_for_all",  # seed 000 offers both; fish_for_one is an option (docs/decisions.md)
        "open_threshold": 12,
        "limit": 101,
        "rounds": None,
        "ante": 0,
        "move_time": 30,  # D-4
    },
    "goat-gamesburg": {
        "hand_size": 7,
        "redeal": False,  # D-2
        "opener": "doubles_from_one",
        "later_leader": "last_winner",
        "bazaar_reserve": 0,
        "fish": "positional_or_blocked",
        "lone_double_zero": 10,
        "scoring": "goat",
        "fish_scoring": "fish_for_all",
        "open_threshold": 12,  # D-3
        "limit": 125,
        "rounds": None,
        "ante": 10,
        "move_time": 30,
    },
    "domino-3rounds": {
        "hand_size": 5,
        "redeal": False,
        "opener": "smallest_double",
        "later_leader": "opener",
        "bazaar_reserve": 2,
        "fish": "blocked",
        "lone_double_zero": 0,
        "scoring": "rounds",
        "fish_scoring": None,
        "open_threshold": None,
        "limit": None,
        "rounds": 3,
        "ante": 0,
        "move_time": 30,
    },
}

RULESETS = tuple(PRESETS)


class Options(NamedTuple):
    """The fully resolved options of a game (RULES.md §2): a typed named tuple, read on every rule."""

    hand_size: int
    redeal: bool
    opener: str
    later_leader: str
    bazaar_reserve: int
    fish: str
    lone_double_zero: int
    scoring: str
    fish_scoring: str | None
    open_threshold: int | None
    limit: int | None
    rounds: int | None
    ante: int
    move_time: int

    def to_dict(self) -> dict[str, Any]:
        return dict(zip(OPTION_KEYS, self, strict=True))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        try:
            return cls(*[data[key] for key in OPTION_KEYS])
        except (KeyError, TypeError) as exc:
            raise InvalidOptions(detail=f"the stored options are incomplete: {exc}") from exc


OPTION_KEYS: tuple[str, ...] = Options._fields

_INT_RANGES = {
    "hand_size": (1, 14),
    "bazaar_reserve": (0, 26),
    "lone_double_zero": (0, 100),
    "open_threshold": (0, 1000),
    "limit": (1, 10000),
    "rounds": (1, 100),
    "ante": (0, 1_000_000),
    "move_time": (0, 86400),
}
_CHOICES = {
    "opener": OPENERS,
    "later_leader": LATER_LEADERS,
    "fish": FISH_RULES,
    "scoring": SCORINGS,
    "fish_scoring": FISH_SCORINGS,
}
_NULLABLE = {"fish_scoring", "open_threshold", "limit", "rounds"}


def _check_value(key: str, value: Any) -> None:
    if value is None:
        if key not in _NULLABLE:
            raise InvalidOptions(detail=f"option {key!r} cannot be null.")
        return
    if key == "redeal":
        if not isinstance(value, bool):
            raise InvalidOptions(detail="option 'redeal' must be true or false.")
    elif key in _CHOICES:
        if value not in _CHOICES[key]:
            choices = ", ".join(_CHOICES[key])
            raise InvalidOptions(detail=f"option {key!r} must be one of: {choices}.")
    else:
        lo, hi = _INT_RANGES[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise InvalidOptions(detail=f"option {key!r} must be a whole number from {lo} to {hi}.")


def resolve_options(ruleset: str, seats: int, overrides: Mapping[str, Any] | None = None) -> Options:
    """The preset of ``ruleset`` with ``overrides`` applied, validated for ``seats`` players.

    Raises :class:`InvalidOptions` with a sentence that says what is wrong.
    """
    if ruleset not in PRESETS:
        raise InvalidOptions(
            "unknown_ruleset", f"unknown ruleset {ruleset!r}; choose one of: {', '.join(RULESETS)}."
        )
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidOptions(detail=f"seats must be {MIN_SEATS} to {MAX_SEATS}.")
    merged = dict(PRESETS[ruleset])
    if overrides:
        if not isinstance(overrides, Mapping):
            raise InvalidOptions(detail="options must be an object of option names to values.")
        unknown = sorted(set(overrides) - set(OPTION_KEYS))
        if unknown:
            raise InvalidOptions(
                detail=f"unknown option(s): {', '.join(map(str, unknown))}; known: {', '.join(OPTION_KEYS)}."
            )
        merged.update(overrides)
    for key in OPTION_KEYS:
        _check_value(key, merged[key])
    options = Options(**merged)
    validate_options(options, seats)
    return options


def validate_options(options: Options, seats: int) -> None:
    """Refuse combinations that cannot be played."""
    dealt = options.hand_size * seats
    if dealt > 28:
        raise InvalidOptions(
            detail=f"hand_size {options.hand_size} x {seats} seats = {dealt} tiles, but a set has only 28."
        )
    if dealt + options.bazaar_reserve > 28:
        raise InvalidOptions(
            detail=f"bazaar_reserve {options.bazaar_reserve} is more than the {28 - dealt} tiles left after the deal."
        )
    if options.redeal and options.hand_size > 7:
        raise InvalidOptions(detail="the redeal rule is only defined for hands of at most 7 tiles.")
    if options.scoring == "goat":
        for key in ("fish_scoring", "open_threshold", "limit"):
            if getattr(options, key) is None:
                raise InvalidOptions(detail=f"goat scoring needs option {key!r}.")
    elif options.rounds is None:
        raise InvalidOptions(detail="fixed-rounds scoring needs option 'rounds'.")
