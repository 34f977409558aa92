"""Each app declares its error codes in one place (its errors.py: goat.web.errors.ErrorCode, with the
status and the title); goat.web renders any of them and declares only its own (WebError)."""

from __future__ import annotations

import re
from pathlib import Path

from goat.games.errors import GameError, RulesRefusal, refusal
from goat.web import errors
from goat.web.errors import WebError

ROOT = Path(__file__).resolve().parents[2]
APP_TABLES = {
    "goat.games.errors": ["GameError", "RulesRefusal"], "tournaments.errors": ["TournamentError"],
    "challenges.errors": ["ChallengeError"], "ratings.errors": ["RatingError"], "goat.players.errors": ["PlayerError"],
    "goat.fairplay.errors": ["FairplayError"],
}


def _declared(table) -> dict[str, errors.ErrorCode]:
    return {value.code: value for value in vars(table).values() if isinstance(value, errors.ErrorCode)}


def _app_codes() -> dict[str, str]:
    import importlib

    owned: dict[str, str] = {}
    for module, tables in APP_TABLES.items():
        for name in tables:
            for code in _declared(getattr(importlib.import_module(module), name)):
                assert code not in owned, f"{code} is declared by {owned[code]} and {module}.{name}"
                owned[code] = f"{module}.{name}"
    return owned


def test_every_code_is_declared_once_with_a_status_and_a_title():
    owned = _app_codes()
    web = _declared(WebError)
    assert not set(owned) & set(web), "a code is the web's or an app's, not both"
    assert set(errors.declared_codes()) == set(owned) | set(web)
    for declared in errors.declared_codes().values():
        assert 400 <= declared.status < 600 and str(declared.title)


def test_goat_web_names_no_app_code():
    """goat/web renders problem details for every app without knowing their codes."""
    owned = _app_codes()
    named = []
    for source in (ROOT / "goat" / "web").rglob("*.py"):
        for code in re.findall(r'"([a-z_]+)"', source.read_text(encoding="utf-8")):
            if code in owned:
                named.append(f"{source.relative_to(ROOT)}: {code}")
    assert named == []


def test_a_declared_code_raises_with_its_status_unless_told_another():
    refused = GameError.NOT_SEATED("You have no seat at this game.")
    assert (refused.code, refused.status, refused.detail) == ("not_seated", 403, "You have no seat at this game.")
    assert WebError.INVALID("x", status=422, errors={"x": ["y"]}).status == 422


def test_the_engine_s_refusals_have_their_status_from_one_table():
    from goat.engine.errors import IllegalMove, InvalidOptions

    assert refusal(InvalidOptions("unknown_ruleset"), "d").status == 400
    assert refusal(InvalidOptions(), "d").status == 400
    assert refusal(IllegalMove("not_your_turn"), "d").status == 422
    assert refusal(IllegalMove("not_seated"), "d").status == 403
    assert refusal(IllegalMove("game_not_waiting"), "d").status == 409
    assert refusal(IllegalMove("some_new_rule"), "d").status == 422  # undeclared: a rule's refusal
    assert RulesRefusal.GAME_NOT_RUNNING.status == 422
