"""The OpenAPI examples show results the rules can produce (docs/rules.md §9): every example's
``rating_points``, collected from the generated schema of every app, is 0 for the goats (the offender
of an interrupted game), at least 1 for every other seat, never negative, and at most 10 in a normally
finished game; the examples' options are options a game can be created with."""

from __future__ import annotations

from typing import Any

import pytest

from goat.engine.rulesets import OPTION_KEYS, PRESETS, resolve_options
from goat.games.api.examples import OPTIONS_EXAMPLE, RESULT_EXAMPLE


def _schema(api_client) -> dict[str, Any]:
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def _example_values(node: Any):
    """Every example value in the schema: ``examples: {name: {value}}`` and ``example: value``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "examples" and isinstance(value, dict):
                for example in value.values():
                    if isinstance(example, dict) and "value" in example:
                        yield example["value"]
            elif key == "example":
                yield value
            else:
                yield from _example_values(value)
    elif isinstance(node, list):
        for item in node:
            yield from _example_values(item)


def _with_key(node: Any, key: str):
    """Every object inside ``node`` that has ``key``."""
    if isinstance(node, dict):
        if key in node:
            yield node
        for value in node.values():
            yield from _with_key(value, key)
    elif isinstance(node, list):
        for item in node:
            yield from _with_key(item, key)


def check_rating_points(result: dict[str, Any]) -> None:
    """The formula's range (§9): goats 0, every other seat at least 1 (and at most 10 after a normal end).
    A single player's game (a crosstable's ``{"rating_points": n, "goat": bool}``): 0 for a goat, at least
    1 otherwise (an interrupted game's offender is a goat too)."""
    if isinstance(result["rating_points"], int):
        assert result["rating_points"] == 0 if result["goat"] else result["rating_points"] >= 1, result
        return
    points, goats = result["rating_points"], set(result.get("goats", []))
    assert all(isinstance(p, int) and p >= 0 for p in points), result
    for seat, p in enumerate(points):
        if seat in goats:
            assert p == 0, result
        else:
            assert p >= 1, result
            if result.get("reason") in ("limit", "rounds"):
                assert p <= 10, result  # max(1, round_half_up((100 - points) / 10)) with points >= 0


def test_the_range_check_refuses_the_impossible_example_it_replaced():
    with pytest.raises(AssertionError):
        check_rating_points({"reason": "limit", "goats": [1], "winners": [0], "rating_points": [12, -12]})
    with pytest.raises(AssertionError):
        check_rating_points({"reason": "timeout", "goats": [0], "winners": [1], "rating_points": [0, 0]})
    check_rating_points({"reason": "timeout", "goats": [0], "winners": [1], "rating_points": [0, 14]})


def test_every_rating_points_example_in_the_schema_is_in_the_formulas_range(api_client):
    schema = _schema(api_client)
    results = [r for value in _example_values(schema) for r in _with_key(value, "rating_points")]
    assert len(results) >= 2  # the game list and resign show RESULT_EXAMPLE at least
    for result in results:
        check_rating_points(result)
    check_rating_points(RESULT_EXAMPLE)


def test_every_options_example_in_the_schema_is_fully_resolved_second_edition_options(api_client):
    schema = _schema(api_client)
    found = [v for value in _example_values(schema) for v in _with_key(value, "options")]
    full = [o["options"] for o in found if isinstance(o["options"], dict) and set(o["options"]) == set(OPTION_KEYS)]
    assert full and all(options == OPTIONS_EXAMPLE for options in full)
    assert OPTIONS_EXAMPLE == PRESETS["goat-classic"]
    assert resolve_options("goat-classic", 2, OPTIONS_EXAMPLE).to_dict() == OPTIONS_EXAMPLE


def test_every_game_view_and_summary_example_says_whether_it_is_rated_and_which_seats_are_computers(api_client):
    schema = _schema(api_client)
    views = list(_with_key(list(_example_values(schema)), "legal_moves"))
    summaries = list(_with_key(list(_example_values(schema)), "seat_count"))
    assert views and summaries
    for example in views + summaries:
        assert isinstance(example["rated"], bool), example
        assert all(isinstance(seat["computer"], bool) for seat in example["seats"]), example
        # a game with a computer is never rated
        assert example["rated"] is not any(seat["computer"] for seat in example["seats"]), example
    assert any(example["rated"] is False for example in views)
