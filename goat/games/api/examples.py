"""Example bodies of the games API's answers, for its OpenAPI document (goat.games.api.schema).

The examples show what the service really answers; tests check them against the rules
(tests/games/test_schema_examples.py)."""

from __future__ import annotations

T0 = "2025-05-01T18:30:00.000000Z"
SEATS_EXAMPLE = [
    {"seat": 0, "player": "alice", "tiles": 7, "team": None, "open": False, "score": 0, "remembered": 0,
     "points": 0, "computer": False, "bot": False},
    {"seat": 1, "player": "bob", "tiles": 7, "team": None, "open": False, "score": 0, "remembered": 0,
     "points": 0, "computer": False, "bot": False},
]
#: the options a goat-classic game is created with today (docs/rules.md §2, second edition)
OPTIONS_EXAMPLE = {
    "hand_size": 7, "redeal": True, "opener": "doubles_from_one_by_sum", "later_leader": "last_winner",
    "bazaar_reserve": 0, "fish": "positional_or_blocked", "lone_double_zero": 10, "scoring": "goat",
    "fish_scoring": "fish_for_all", "open_threshold": 12, "remembered_counts": True, "limit": 101, "rounds": None,
    "ante": 0, "move_time": 30,
}
GAME_EXAMPLE = {
    "id": 42, "ruleset": "goat-classic", "options": OPTIONS_EXAMPLE, "status": "running", "version": 4,
    "round": 1, "turn": 0, "deadline": "2025-05-01T18:30:30Z", "seats": SEATS_EXAMPLE,
    "line": {"tiles": [], "left": None, "right": None}, "bazaar": 14,
    "hand": ["0-3", "1-1", "1-4", "2-5", "3-3", "4-6", "5-5"],
    "legal_moves": [{"tile": "1-1", "end": "left"}], "fish_pot": 0,
    "server_seed_commitment": "9c1185a5c5e9fc54612808977ee8f548b2258d31b3a2c6a1c4c4e8a4f6a1f0b2",
    "server_seed": None, "result": None, "created_at": "2025-05-01T18:29:51Z", "rated": True,
    "computer_level": None, "your_seat": 0, "server_time": "2025-05-01T18:30:02Z", "remaining_ms": 28000,
}
WAITING_EXAMPLE = {
    **GAME_EXAMPLE, "status": "waiting", "version": 2, "round": 0, "turn": None, "deadline": None,
    "seats": [SEATS_EXAMPLE[0] | {"tiles": 0}, SEATS_EXAMPLE[1] | {"player": None, "tiles": 0}],
    "bazaar": 0, "hand": [], "legal_moves": [],
}
#: bob left a waiting three-seat game: his seat is free again, alice keeps seat 0
LEFT_EXAMPLE = {
    **WAITING_EXAMPLE, "version": 4, "your_seat": None, "remaining_ms": None,
    "seats": [*WAITING_EXAMPLE["seats"], SEATS_EXAMPLE[1] | {"seat": 2, "player": None, "tiles": 0}],
}
#: the last seated player left: the game is cancelled (no result) and its seed revealed
CANCELLED_EXAMPLE = {
    **WAITING_EXAMPLE, "status": "cancelled", "version": 5, "your_seat": None, "remaining_ms": None,
    "seats": [SEATS_EXAMPLE[0] | {"player": None, "tiles": 0}, SEATS_EXAMPLE[1] | {"player": None, "tiles": 0}],
    "server_seed": "5f" * 32,
}
MOVE_EXAMPLE = {
    "version": 5,
    "events": [{"seq": 5, "type": "tile_played", "at": T0, "seat": 0, "data": {"tile": "1-1", "end": "left"}}],
    "game": {**GAME_EXAMPLE, "version": 5, "turn": 1, "line": {"tiles": ["1-1"], "left": 1, "right": 1},
             "seats": [SEATS_EXAMPLE[0] | {"tiles": 6}, SEATS_EXAMPLE[1]],
             "hand": ["0-3", "1-4", "2-5", "3-3", "4-6", "5-5"], "legal_moves": []},
}
EVENTS_EXAMPLE = {
    "version": 4,
    "events": [
        {"seq": 1, "type": "game_created", "at": T0, "seat": None,
         "data": {"ruleset": "goat-classic", "options": OPTIONS_EXAMPLE, "seats": 2,
                  "server_seed_commitment": GAME_EXAMPLE["server_seed_commitment"]}},
        {"seq": 2, "type": "seat_taken", "at": T0, "seat": 0,
         "data": {"seat": 0, "player": "alice", "client_seed": ""}},
        {"seq": 3, "type": "seat_taken", "at": T0, "seat": 1,
         "data": {"seat": 1, "player": "bob", "client_seed": "x7"}},
        {"seq": 4, "type": "round_dealt", "at": T0, "seat": None,
         "data": {"round": 1, "attempt": 0, "hands": [GAME_EXAMPLE["hand"], 7], "bazaar": 14, "void": False}},
    ],
}
#: bob reached the limit; alice ended with 30 points: (100 - 30) / 10 = 7 (docs/rules.md §9); no ante in goat-classic
RESULT_EXAMPLE = {"reason": "limit", "goats": [1], "winners": [0], "rating_points": [7, 0], "chips": [0, 0]}
SUMMARY_EXAMPLE = {
    "id": 42, "ruleset": "goat-classic", "status": "finished", "seat_count": 2,
    "seats": [{"seat": 0, "player": "alice", "computer": False, "bot": False},
              {"seat": 1, "player": "bob", "computer": False, "bot": False}],
    "version": 211, "round": 6, "turn": None, "created_at": "2025-05-01T18:29:51Z",
    "ended_at": "2025-05-01T18:52:10Z", "result": RESULT_EXAMPLE, "rated": True, "move_time": 30,
}
#: alice against two strong computers (seats 1 and 2): unrated, running at once, a computer to lead
COMPUTER_EXAMPLE = {
    **GAME_EXAMPLE, "version": 5, "turn": 2, "rated": False, "computer_level": "strong", "legal_moves": [],
    "bazaar": 7,
    "seats": [SEATS_EXAMPLE[0], SEATS_EXAMPLE[1] | {"player": "computer-1", "computer": True},
              SEATS_EXAMPLE[1] | {"seat": 2, "player": "computer-2", "computer": True}],
}

SCORESHEET_EXAMPLE = {
    "rounds": [{"round": 1, "end": "out", "seat": 0, "hands": [0, 23], "round_points": [0, 23],
                "fish_pot": 0, "draw": False, "hand_tiles": [[], ["5-6", "6-6"]],
                "players": [{"open": False, "score": 0, "remembered": 0, "points": 0},
                            {"open": True, "score": 23, "remembered": 0, "points": 23}]}],
    "fish_pot": 0,
    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 0, "points": 0},
               {"seat": 1, "player": "bob", "open": True, "score": 23, "remembered": 0, "points": 23}],
}
SCORESHEET_GAMESBURG_EXAMPLE = {
    "rounds": [{"round": 1, "end": "out", "seat": 1, "hands": [9, 0], "round_points": [9, 0],
                "fish_pot": 0, "draw": False, "hand_tiles": [["4-5"], []],
                "players": [{"open": False, "score": 0, "remembered": 9, "points": 0},
                            {"open": False, "score": 0, "remembered": 0, "points": 0}]}],
    "fish_pot": 0,
    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 9, "points": 0},
               {"seat": 1, "player": "bob", "open": False, "score": 0, "remembered": 0, "points": 0}],
}
SCORESHEET_3ROUNDS_EXAMPLE = {
    "rounds": [{"round": 1, "end": "out", "seat": 0, "hands": [0, 7, 0], "round_points": [0, 7, 0],
                "fish_pot": 0, "draw": False, "hand_tiles": [[], ["3-4"], ["0-0"]], "winners": [0, 2],
                "players": [{"open": False, "score": 0, "remembered": 0, "points": 0},
                            {"open": False, "score": 7, "remembered": 0, "points": 7},
                            {"open": False, "score": 0, "remembered": 0, "points": 0}]}],
    "fish_pot": 0,
    "totals": [{"seat": 0, "player": "alice", "open": False, "score": 0, "remembered": 0, "points": 0},
               {"seat": 1, "player": "bob", "open": False, "score": 7, "remembered": 0, "points": 7},
               {"seat": 2, "player": "carl", "open": False, "score": 0, "remembered": 0,
                "points": 0}],
}
#: everything after the deal of GAME_EXAMPLE (the game since ended), as replay shows it
REPLAY_EXAMPLE = {k: v for k, v in GAME_EXAMPLE.items()
                  if k not in ("id", "deadline", "hand", "legal_moves", "created_at", "your_seat")} | {
    "hands": [GAME_EXAMPLE["hand"], ["0-0", "0-1", "2-2", "2-6", "3-4", "4-4", "5-6"]],
    "bazaar_tiles": ["0-2", "0-4", "0-5", "0-6", "1-2", "1-3", "1-5", "1-6", "2-3", "2-4", "3-5", "3-6", "4-5", "6-6"],
    "must_lead": "1-1", "pending": {"action": "play", "seat": 0}, "rounds": [], "status": "finished",
    "server_seed": "5f" * 32,
}
