"""Rulesets: the four presets of docs/rules.md §2 and validation of option overrides.

The fully resolved options are stored in a game's first event, so a replay never depends on
today's defaults: :func:`resolve_options` is only called when a game is created, and replay uses
:meth:`Options.from_dict` on what was stored.

A rule change is a new option value or key, never a new meaning (docs/rules.md §2, second edition): the
second edition added the opener ``"doubles_from_one_by_sum"`` and the key ``remembered_counts``. A
stored record without ``remembered_counts`` is a first-edition game, and :func:`with_first_edition`
gives the key the meaning it had then (remembered points count), so every finished game verifies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .errors import InvalidOptions

MIN_SEATS, MAX_SEATS = 2, 4
#: the ruleset a game, a leaderboard or a form takes when none is named
DEFAULT_RULESET = "goat-classic"


def seat_number(seat: int) -> int:
    """A seat as people count it, from 1: the engine, the API and the log count seats from 0; every text
    a person reads (a refusal, a page, the admin) says ``seat_number(seat)``."""
    return seat + 1

OPENERS = ("doubles_from_one", "doubles_from_one_by_sum", "smallest_double")
#: option values the second edition added: a first-edition record (no ``remembered_counts``) cannot hold them
SECOND_EDITION_OPENERS = ("doubles_from_one_by_sum",)
LATER_LEADERS = ("last_winner", "opener")
FISH_RULES = ("positional_or_blocked", "blocked")
SCORINGS = ("goat", "rounds")
FISH_SCORINGS = ("fish_for_all", "fish_for_one")

#: docs/rules.md §2, column by column. Keys with a dash in the table are ``None``.
PRESETS: dict[str, dict[str, Any]] = {
    "goat-classic": {
        "hand_size": 7,  # D-1
        "redeal": True,
        "opener": "doubles_from_one_by_sum",  # D-5
        "later_leader": "last_winner",
        "bazaar_reserve": 0,
        "fish": "positional_or_blocked",
        "lone_double_zero": 10,
        "scoring": "goat",
        "fish_scoring": "fish_for_all",  # seed 000 offers both; fish_for_one is an option (docs/decisions.md)
        "open_threshold": 12,
        "remembered_counts": True,  # D-8 (seed 000)
        "limit": 101,
        "rounds": None,
        "ante": 0,
        "move_time": 30,  # D-4
    },
    "goat-gamesburg": {
        "hand_size": 7,
        "redeal": False,  # D-2
        "opener": "doubles_from_one_by_sum",  # D-5
        "later_leader": "last_winner",
        "bazaar_reserve": 0,
        "fish": "positional_or_blocked",
        "lone_double_zero": 10,
        "scoring": "goat",
        "fish_scoring": "fish_for_all",
        "open_threshold": 12,  # D-3
        "remembered_counts": False,  # D-8 (seed 001)
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
        "remembered_counts": None,
        "limit": None,
        "rounds": 3,
        "ante": 0,
        "move_time": 30,
    },
}

PRESETS["goat-pairs"] = {
    **PRESETS["goat-classic"],
    "fish_scoring": "fish_for_one",  # D-27: the pair holding more pips takes the whole fish
    "remembered_counts": False,  # D-28: a pair's small sums before it has written are noted, not counted
}

RULESETS = tuple(PRESETS)

#: the rulesets played in two pairs, partners opposite (docs/rules.md "goat-pairs", D-24): a pair is a
#: property of the ruleset and the seating, so the stored ruleset name says it and no option can change it
PAIRED_RULESETS = frozenset({"goat-pairs"})
PAIRED_SEATS = 4
#: what a paired game deals and scores by: all 28 tiles to four hands, goat scoring (D-25); an override
#: that changes one of these is refused at creation
PAIRED_FIXED: dict[str, Any] = {"hand_size": 7, "bazaar_reserve": 0, "scoring": "goat", "rounds": None}


def is_paired(ruleset: str) -> bool:
    """Whether ``ruleset`` is played by two pairs."""
    return ruleset in PAIRED_RULESETS


def seat_range(ruleset: str) -> tuple[int, int]:
    """The fewest and the most seats ``ruleset`` is played with: four for a paired ruleset (two pairs),
    ``MIN_SEATS`` to ``MAX_SEATS`` for the others. What a form offers and :func:`resolve_options` takes."""
    return (PAIRED_SEATS, PAIRED_SEATS) if ruleset in PAIRED_RULESETS else (MIN_SEATS, MAX_SEATS)


def parties(ruleset: str, seats: int) -> tuple[int, ...]:
    """Each seat's party: the account its round points are charged to. In a paired ruleset seats 0 and
    2 are pair 0, seats 1 and 3 pair 1 (partners opposite, D-24); otherwise every seat is its own party."""
    if ruleset in PAIRED_RULESETS:
        return tuple(seat % 2 for seat in range(seats))
    return tuple(range(seats))


def team_of(ruleset: str, seat: int) -> int | None:
    """The pair of ``seat`` in a paired ruleset (0 or 1), ``None`` when everyone plays for themselves."""
    return seat % 2 if ruleset in PAIRED_RULESETS else None


def partner_of(ruleset: str, seats: int, seat: int) -> int | None:
    """The seat opposite ``seat`` in a paired ruleset, ``None`` otherwise."""
    return (seat + 2) % seats if ruleset in PAIRED_RULESETS else None


class Options(NamedTuple):
    """The fully resolved options of a game (docs/rules.md §2): a typed named tuple, read on every rule."""

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
    #: whether remembered points are part of a player's points (§7, D-8); ``None`` outside goat scoring
    remembered_counts: bool | None
    limit: int | None
    rounds: int | None
    ante: int
    move_time: int

    def to_dict(self) -> dict[str, Any]:
        return dict(zip(OPTION_KEYS, self, strict=True))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        """The stored options; a first-edition record gets the first edition's ``remembered_counts``."""
        try:
            data = with_first_edition(data)
            return cls(*[data[key] for key in OPTION_KEYS])
        except (KeyError, TypeError) as exc:
            raise InvalidOptions.said(None, "the stored options are incomplete: {error}", error=str(exc)) from exc


OPTION_KEYS: tuple[str, ...] = Options._fields


def is_first_edition(stored: Mapping[str, Any]) -> bool:
    """Whether stored options are a first-edition record: they have no ``remembered_counts`` (docs/rules.md §2)."""
    return "remembered_counts" not in stored


def with_first_edition(stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """``stored`` with the first edition's meaning of the key it lacks: in a first-edition goat game
    remembered points count (D-8, first edition); outside goat scoring the key is ``None``."""
    if not is_first_edition(stored):
        return stored
    return {**stored, "remembered_counts": True if stored.get("scoring") == "goat" else None}


#: each whole-number option's inclusive range
OPTION_RANGES: dict[str, tuple[int, int]] = {
    "hand_size": (1, 14),
    "bazaar_reserve": (0, 26),
    "lone_double_zero": (0, 100),
    "open_threshold": (0, 1000),
    "limit": (1, 10000),
    "rounds": (1, 100),
    "ante": (0, 1_000_000),
    "move_time": (0, 86400),
}
#: each text option's allowed values
OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "opener": OPENERS,
    "later_leader": LATER_LEADERS,
    "fish": FISH_RULES,
    "scoring": SCORINGS,
    "fish_scoring": FISH_SCORINGS,
}
#: the options that may be null (each meaningful for one scoring only)
NULLABLE_OPTIONS = frozenset({"fish_scoring", "open_threshold", "remembered_counts", "limit", "rounds"})


def _check_value(key: str, value: Any) -> None:
    if value is None:
        if key not in NULLABLE_OPTIONS:
            raise InvalidOptions.said(None, "option {option!r} cannot be null.", option=key)
        return
    if key in ("redeal", "remembered_counts"):
        if not isinstance(value, bool):
            raise InvalidOptions.said(None, "option {option!r} must be true or false.", option=key)
    elif key in OPTION_CHOICES:
        if value not in OPTION_CHOICES[key]:
            raise InvalidOptions.said(None, "option {option!r} must be one of: {choices}.", option=key,
                                      choices=", ".join(OPTION_CHOICES[key]))
    else:
        lo, hi = OPTION_RANGES[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise InvalidOptions.said(None, "option {option!r} must be a whole number from {lo} to {hi}.", option=key,
                                      lo=lo, hi=hi)


def resolve_options(ruleset: str, seats: int, overrides: Mapping[str, Any] | None = None) -> Options:
    """The preset of ``ruleset`` with ``overrides`` applied, validated for ``seats`` players.

    Raises :class:`InvalidOptions` with a sentence that says what is wrong.
    """
    if ruleset not in PRESETS:
        raise InvalidOptions.said("unknown_ruleset", "unknown ruleset {ruleset!r}; choose one of: {choices}.",
                                  ruleset=ruleset, choices=", ".join(RULESETS))
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidOptions.said(None, "seats must be {lo} to {hi}.", lo=MIN_SEATS, hi=MAX_SEATS)
    merged = dict(PRESETS[ruleset])
    if overrides:
        if not isinstance(overrides, Mapping):
            raise InvalidOptions(detail="options must be an object of option names to values.")
        unknown = sorted(set(overrides) - set(OPTION_KEYS))
        if unknown:
            raise InvalidOptions.said(None, "unknown option(s): {unknown}; known: {known}.",
                                      unknown=", ".join(map(str, unknown)), known=", ".join(OPTION_KEYS))
        merged.update(overrides)
    if ruleset in PAIRED_RULESETS:
        _check_paired(ruleset, seats, merged)
    for key in OPTION_KEYS:
        _check_value(key, merged[key])
    options = Options(**merged)
    validate_options(options, seats)
    return options


def _check_paired(ruleset: str, seats: int, merged: Mapping[str, Any]) -> None:
    """A paired ruleset takes exactly four seats and none of the options that would change its deal or
    its scoring (D-25)."""
    if seats != PAIRED_SEATS:
        raise InvalidOptions.said(None, "{ruleset} is played by two pairs: seats must be {n}.", ruleset=ruleset,
                                  n=PAIRED_SEATS)
    for key, value in PAIRED_FIXED.items():
        if merged[key] != value or merged[key].__class__ is not value.__class__:
            raise InvalidOptions.said(None, "{ruleset} does not take option {option!r} = {value!r}: it is {fixed!r}.",
                                      ruleset=ruleset, option=key, value=merged[key], fixed=value)


def validate_options(options: Options, seats: int) -> None:
    """Refuse combinations that cannot be played."""
    dealt = options.hand_size * seats
    if dealt > 28:
        raise InvalidOptions.said(None, "hand_size {hand_size} x {seats} seats = {dealt} tiles, but a set has only 28.",
                                  hand_size=options.hand_size, seats=seats, dealt=dealt)
    if dealt + options.bazaar_reserve > 28:
        raise InvalidOptions.said(None, "bazaar_reserve {reserve} is more than the {left} tiles left after the deal.",
                                  reserve=options.bazaar_reserve, left=28 - dealt)
    if options.redeal and options.hand_size > 7:
        raise InvalidOptions(detail="the redeal rule is only defined for hands of at most 7 tiles.")
    if options.scoring == "goat":
        for key in ("fish_scoring", "open_threshold", "remembered_counts", "limit"):
            if getattr(options, key) is None:
                raise InvalidOptions.said(None, "goat scoring needs option {option!r}.", option=key)
    elif options.rounds is None:
        raise InvalidOptions(detail="fixed-rounds scoring needs option 'rounds'.")
