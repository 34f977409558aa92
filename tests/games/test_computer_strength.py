"""``strong`` beats ``random`` by a margin that chance alone does not give (issue 27 item 3): a small
sample of bench/bots.py's own games (in process, fixed seeds, the tested seat rotated), far from its
2,000, but with thresholds several standard deviations past what equal players would reach. The
bench measures the margins of docs/computer.md; docs/performance.md has its figures."""

from __future__ import annotations

from bench.bots import measure


def test_strong_wins_most_two_seat_domino_games_against_random():
    figures = measure("domino-3rounds", 2, "strong", "random", games=300, seed=5)
    # equal players win at most half (ties aside): 60% of 300 is 3.5 standard deviations above that
    assert figures["won"] >= 0.60, figures


def test_strong_is_rarely_the_goat_of_four_seat_goat_classic_against_random():
    figures = measure("goat-classic", 4, "strong", "random", games=100, seed=5)
    # equal players: each seat the goat about a third of the games (33 +- 4.7 of 100); half of the
    # others' rate is 3.5 standard deviations below, and the rating points must be higher too
    assert figures["goat_ratio"] <= 0.5, figures
    assert figures["points_ratio"] >= 1.5, figures


def test_the_seat_view_is_what_the_seat_may_see():
    """The strong player's choices come from the redacted view: the same choice whatever the others hold."""
    import random

    from goat.engine import computer

    view = {
        "your_seat": 0, "hand": ["1-2", "5-5", "0-6"], "legal_moves": [{"tile": "1-2", "end": "left"},
                                                                     {"tile": "5-5", "end": "right"}],
        "line": {"tiles": ["2-3", "3-5"], "left": 2, "right": 5},
        "seats": [{"tiles": 3, "points": 0}, {"tiles": 4, "points": 10}], "bazaar": 10,
        "options": {"bazaar_reserve": 2},
    }
    events = [{"type": "round_dealt", "seat": None, "data": {"hands": [["1-2"], 5], "bazaar": 14}},
              {"type": "tile_played", "seat": 1, "data": {"tile": "2-3", "end": "left"}},
              {"type": "tile_drawn", "seat": 0, "data": {"tile": "0-6"}},
              {"type": "tile_played", "seat": 0, "data": {"tile": "3-5", "end": "right"}},
              {"type": "tile_drawn", "seat": 1, "data": {"tile": None}},
              {"type": "knocked", "seat": 1, "data": {}}]
    seat = computer.seat_view(view, events)
    # seat 1 drew and knocked while the ends were 2 and 5 (after 3-5 went on the right)
    assert seat.lacks == (1 << 2 | 1 << 3, 1 << 2 | 1 << 5)
    assert computer.choose(seat, "strong", random.Random(1)) == ("5-5", "right")  # the double, blocking 2 and 5
