"""The engine's fast paths against the general code they shortcut.

Each fast path must give exactly what the general path gives (the same state, the same error with the
same code, detail and seq), on honest logs and on tampered ones:

* ``Fold.push_all`` applies plays, draws and knocks inline; ``Fold.push`` sends every event through
  ``_dispatch`` (the ``_apply_*`` handlers);
* ``shuffled_order`` computes the first four HMAC blocks from one prefixed inner state; any other
  ``_hmac_digest`` goes block by block;
* ``_deal`` cuts the hands by slices (one ``itemgetter`` of slices) and tests the redeal rule in integer
  arithmetic.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine import deal as dealing
from goat.engine import rules
from goat.engine.errors import RulesError
from goat.engine.rules import Fold
from goat.engine.simulate import simulate_game
from goat.engine.tiles import ALL_TILES

MIXES = [
    ("goat-classic", 2, None), ("goat-classic", 3, {"fish_scoring": "fish_for_one"}), ("goat-classic", 4, None),
    ("goat-gamesburg", 2, None), ("goat-gamesburg", 4, {"fish_scoring": "fish_for_one"}),
    ("domino-3rounds", 2, None), ("domino-3rounds", 3, None), ("domino-3rounds", 4, None),
]
JUNK = [None, 1, 1.0, True, "x", [], {}, "0-0", "6-6", "left", "right", -1, 99, "3-2", [1, 2], "tile_played",
        "tile_drawn", "knocked"]
ROUND_EVENTS = ("tile_played", "tile_drawn", "knocked")


def _log(n: int) -> list[dict]:
    ruleset, seats, options = MIXES[n % len(MIXES)]
    return simulate_game(random.Random(n), ruleset=ruleset, seats=seats, options=options)


def _renumber(events):
    for i, e in enumerate(events, start=1):
        e["seq"] = i
    return events


def _tampered(log: list[dict], rng: random.Random) -> list[dict]:
    """``log`` with one random change, mostly to the events of a round in progress."""
    log = copy.deepcopy(log)
    in_round = [i for i, e in enumerate(log) if isinstance(e, dict) and e.get("type") in ROUND_EVENTS]
    i = rng.choice(in_round) if rng.random() < 0.8 else rng.randrange(len(log))
    e = log[i]
    r = rng.random()
    if r < 0.1:
        del log[i]
        return _renumber(log)
    if r < 0.2:
        kind = rng.choice(["tile_drawn", "knocked", "tile_played"])
        data = {"tile": rng.choice(["0-0", "1-2", "3-3", "6-5"]), "end": rng.choice(["left", "right"])}
        log.insert(i, {"type": kind, "seat": rng.randrange(4), "data": data})
        return _renumber(log)
    if r < 0.3:
        j = min(len(log) - 1, i + 1)
        log[i], log[j] = log[j], log[i]
        return _renumber(log)
    if r < 0.45:
        e[rng.choice(["type", "seat", "data"])] = rng.choice(JUNK + [0, 1, 2, 3])
        return log
    if r < 0.5:
        del e[rng.choice(["type", "seat", "data"])]
        return log
    data = e.get("data")
    if not isinstance(data, dict) or not data:
        e["data"] = rng.choice([{}, {"tile": "1-1"}, {"end": "left"}, {"tile": "2-5", "end": "right"}])
        return log
    key = rng.choice(sorted(data))
    if rng.random() < 0.2:
        del data[key]
    elif key == "end":
        data[key] = rng.choice(["left", "right", None, "middle", 0])
    elif key == "tile":
        data[key] = rng.choice(["0-0", "1-2", "3-3", "6-5", "2-4", "5-1", "9-9", [1, 2], None, 12])
    else:
        data[key] = rng.choice(JUNK)
    return log


def _by_push_all(events, check: bool, server_seed=None):
    fold = Fold(check=check)
    try:
        fold.push_all(events[:1])
        if server_seed is not None:
            fold.set_server_seed(server_seed)
        fold.push_all(events[1:], first_seq=2)
    except RulesError as exc:
        return fold.state, (type(exc), exc.code, exc.detail, exc.seq)
    except Exception as exc:  # noqa: BLE001 - trusted (check=False) garbage may crash: it must crash alike
        return fold.state, (type(exc), str(exc))
    return fold.state, None


def _by_push(events, check: bool, server_seed=None):
    """The reference: every event through ``Fold.push`` (``_dispatch``), seq checked as push_all does."""
    fold = Fold(check=check)
    for position, event in enumerate(events, start=1):
        try:
            if not isinstance(event, dict):
                raise rules.InvalidEvent("malformed_event", "an event must be a JSON object.")
            seq = event.get("seq", position)
            if seq != position:
                raise rules.InvalidEvent("wrong_seq", f"expected seq {position}, found {seq!r}.")
            fold.push(event)
        except RulesError as exc:
            return fold.state, (type(exc), exc.code, exc.detail, position)
        except Exception as exc:  # noqa: BLE001
            return fold.state, (type(exc), str(exc))
        if position == 1 and server_seed is not None:
            fold.set_server_seed(server_seed)
    return fold.state, None


def _seed_of(log):
    return log[-1]["data"]["server_seed"] if log[-1]["type"] == "seed_revealed" else None


@pytest.mark.parametrize("n", range(16))
def test_push_all_applies_honest_logs_as_push_does(n):
    log = _log(n)
    for check in (True, False):
        for seed in (None, _seed_of(log)):
            fast = _by_push_all(log, check, seed)
            assert fast == _by_push(log, check, seed)
            assert fast[1] is None


def test_push_all_applies_most_round_events_without_dispatch(monkeypatch):
    # Not a behaviour, but the point of the inline loop: if it stopped taking its fast path, the
    # equivalence tests here would pass without testing it.
    log = _log(2)
    calls = []
    dispatch = rules._dispatch
    monkeypatch.setattr(rules, "_dispatch", lambda g, e, c: calls.append(e["type"]) or dispatch(g, e, c))
    _by_push_all(log, True, _seed_of(log))
    in_round = sum(1 for e in log if e["type"] in ("tile_played", "tile_drawn", "knocked"))
    inline = in_round - sum(1 for t in calls if t in ("tile_played", "tile_drawn", "knocked"))
    assert inline > 0.9 * in_round


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 10**6), changes=st.integers(1, 3), check=st.booleans(), seeded=st.booleans())
def test_push_all_refuses_tampered_logs_as_push_does(n, changes, check, seeded):
    rng = random.Random(n)
    log = honest = _log(n % 64)
    for _ in range(changes):
        log = _tampered(log, rng)
    seed = _seed_of(honest) if seeded else None
    assert _by_push_all(log, check, seed) == _by_push(log, check, seed)


def test_tampered_logs_reach_every_refusal_of_a_round():
    # The generator above does produce the refusals the inline loop must hand over to _dispatch.
    rng = random.Random(7)
    codes = set()
    for n in range(200):
        honest = _log(n % 32)
        _, error = _by_push_all(_tampered(honest, rng), True, _seed_of(honest))
        if error is not None:
            codes.add(error[1])
    assert {"tile_not_in_hand", "tile_does_not_fit", "not_your_turn", "draw_mismatch", "unforced_draw",
            "unforced_knock", "forced_action_missing", "invalid_seat", "malformed_event"} <= codes


# --- the deal ----------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(key=st.binary(max_size=100), round_no=st.integers(1, 200), attempt=st.integers(0, 50))
def test_shuffle_from_the_prefixed_inner_state_is_the_block_by_block_shuffle(key, round_no, attempt):
    fast = dealing.shuffled_order(key, round_no, attempt)
    original = dealing._hmac_digest
    try:
        dealing._hmac_digest = lambda k, msg, name: hmac.digest(k, msg, name)  # not _hmac_sha256: block by block
        general = dealing.shuffled_order(key, round_no, attempt)
    finally:
        dealing._hmac_digest = original
    assert fast == general


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.one_of(st.integers(0, 2**32 - 1), st.integers(0xFFFFFF00 - 300, 2**32 - 1),
                                st.integers(0, 0xFF), st.sampled_from([0xFFFF, 0xFFFFFF, 0xFFFF0000, 0xFF000000])),
                      min_size=32, max_size=32))
def test_shuffle_s_three_ff_search_decides_as_max_of_the_words(words):
    # The fast shuffle is taken when no three FF bytes are in the stream, else when max(words) is below
    # every limit; either way the result is the reference Fisher-Yates over the same stream (the words
    # include FF bytes across word boundaries, words just below and above the limits).
    stream = struct.pack(">32I", *words)
    assert (dealing._THREE_FF not in stream) <= (max(words) < dealing._NEVER_DISCARDED)
    blocks = [stream[i:i + 32] for i in range(0, 128, 32)]
    items, words_iter = list(ALL_TILES), iter(list(words) + [0] * 64)
    for i in range(27, 0, -1):
        m = i + 1
        x = next(words_iter)
        while x >= 2**32 - (2**32 % m):
            x = next(words_iter)
        j = x % m
        items[i], items[j] = items[j], items[i]
    original = dealing._hmac_digest
    try:
        dealing._hmac_digest = lambda k, msg, name: blocks[int(msg[-1:])] if msg[-1:] in b"0123" else bytes(32)
        assert dealing.shuffled_order(b"k", 1, 0) == tuple(items)
    finally:
        dealing._hmac_digest = original


@settings(max_examples=300, deadline=None)
@given(order=st.permutations(ALL_TILES), seats=st.integers(1, 4), hand_size=st.integers(1, 7))
def test_redeal_test_in_integers_is_needs_redeal(order, seats, hand_size):
    hands, _ = dealing.deal_hands(order, seats, hand_size)
    positions = [ALL_TILES.index(t) for t in order]
    assert dealing._needs_redeal_positions(positions, seats, hand_size) == dealing.needs_redeal(hands)


def _redeal_in_integers(hand) -> bool:
    """``_needs_redeal_positions`` of one hand (the rest of the set after it, undealt)."""
    positions = [ALL_TILES.index(t) for t in hand]
    rest = [p for p in range(len(ALL_TILES)) if p not in positions]
    return dealing._needs_redeal_positions(positions + rest, 1, len(hand)) if hand else False


def test_redeal_test_in_integers_at_its_thresholds():
    def tiles(text):
        return [tuple(sorted(map(int, t.split("-")))) for t in text.split()]

    for hand, expected in [
        ("0-0 1-1 2-2 3-3 4-4", True), ("0-0 1-1 2-2 3-3 0-1 2-4 5-6", False),
        ("3-3 0-3 1-3 2-3 3-4 3-5 1-2", True), ("0-3 1-3 2-3 3-4 3-5 3-6 1-2", True),
        ("3-3 0-3 1-3 2-3 3-4 1-2 5-6", False), ("0-0 1-1 2-2 3-3 4-4 5-5 6-6", True),
        ("0-1 0-2 0-3 0-4 0-5 0-6 0-0", True), ("", False),
    ]:
        assert dealing.needs_redeal([tiles(hand)]) is expected
        assert _redeal_in_integers(tiles(hand)) is expected
    for v in range(7):  # each value's field at 5, 6 and 7 tiles (a double once)
        carrying = [t for t in ALL_TILES if v in t]
        for count in (5, 6, 7):
            hand = carrying[:count]
            assert _redeal_in_integers(hand) is dealing.needs_redeal([hand]) is (count >= 6)
    doubles = [(v, v) for v in range(7)]
    for count in range(8):  # the doubles' field
        assert _redeal_in_integers(doubles[:count]) is dealing.needs_redeal([doubles[:count]]) is (
            count >= 5)


@settings(max_examples=100, deadline=None)
@given(seed=st.binary(min_size=1, max_size=8), seats=st.integers(1, 4), hand_size=st.integers(1, 8),
       redeal=st.booleans())
def test_deal_cut_by_slices_is_deal_hands(seed, seats, hand_size, redeal):
    key = hashlib.sha256(seed).digest()
    order = dealing.shuffled_order(key, 1, 0)
    try:
        hands, bazaar = dealing.deal_hands(order, seats, hand_size)
    except RulesError as exc:
        with pytest.raises(type(exc)):
            rules._deal(key, 1, 0, seats, hand_size, redeal)
        return
    got = rules._deal(key, 1, 0, seats, hand_size, redeal)
    held = rules._held(hands)
    assert got[:3] == (list(map(list, hands)), list(bazaar),
                       bool(redeal and dealing.needs_redeal(hands)) if redeal else False)
    assert got[3] == [[f"{a}-{b}" for a, b in h] for h in hands]
    assert got[4] == [f"{a}-{b}" for a, b in bazaar]
    assert got[5] == held
    # fresh lists, every one (the round's table takes them as they are)
    for part in (got[0], got[1], got[3], got[4], got[5], *got[0], *got[3]):
        assert part.__class__ is list
    again = rules._deal(key, 1, 0, seats, hand_size, redeal)
    assert again == got and all(a is not b for a, b in zip(again, got) if a.__class__ is list)


def test_deal_held_reads_the_value_fields_at_value_shifts():
    # _deal unrolls the held counts with the shifts written out
    assert dealing.VALUE_SHIFTS == (0, 4, 8, 12, 16, 20, 24)


# --- Session: the legal moves found by decide ----------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), mix=st.sampled_from(MIXES))
def test_session_legal_moves_found_by_decide_are_legal_moves(seed, mix):
    ruleset, seats, options = mix
    rng = random.Random(seed)
    session = rules.Session()
    session.decide(rules.CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=f"{seed:064x}", options=options))
    for s in range(seats):
        session.decide(rules.TakeSeat(player=f"p{s}"))
    found = 0
    while session.pending()[0] == rules.PLAY:
        state = session.state
        kind, seat = rules.pending(state)
        assert session.pending() == (kind, seat)
        found += session._moves is not None
        expected = rules.legal_moves(state)
        other = (seat + 1) % seats
        if rng.random() < 0.3:  # a question about another seat leaves the found moves in place
            assert session.legal_moves(other) == rules.legal_moves(state, other) == []
        moves = session.legal_moves(seat if rng.random() < 0.5 else None)
        assert moves == expected
        moves.append("the caller's own list")  # handed out once: the next call computes afresh
        assert session.legal_moves() == expected
        assert session.legal_moves(other) == []
        tile, end = rng.choice(expected)
        session.decide(rules.PlayTile(seat=seat, tile=tile, end=end))
    assert found > 0


# --- _end_round: the hand values -----------------------------------------------------------------------

@pytest.mark.parametrize("hands", [
    [[(0, 0)], [(1, 2), (3, 3)]],  # a lone 0-0 counts lone_double_zero
    [[(0, 0), (0, 1)], []],  # 0-0 with another tile counts its pips; an empty hand 0
    [[(6, 6), (5, 6), (0, 0)], [(0, 1)]],
])
def test_end_round_hand_values_are_scoring_hand_value(hands):
    from goat.engine.scoring import hand_value

    log = _log(1)  # goat-classic, 3 seats
    fold = Fold()
    fold.push_all(log[:1 + 3 + 1])  # created, seated, dealt
    g = fold._g
    g.table.hands = [list(h) for h in hands] + [[(2, 4)]] * (g.seats - len(hands))
    rules._end_round(g, "fish", 0)
    expected = tuple(hand_value(h, g.options.lone_double_zero) for h in g.table.hands)
    assert g.rounds[-1].hands == expected
    assert expected[0] == (10 if hands[0] == [(0, 0)] else sum(a + b for a, b in hands[0]))


# --- verify_log reports from the fold's machine, replay from the frozen state -------------------------

@pytest.mark.parametrize("n", range(12))
def test_verify_log_reports_what_replay_reports(n):
    from goat.engine.replay import replay, report, verify_log

    log = _log(n)
    seed = _seed_of(log)
    result = replay(log, server_seed=seed, require_complete=True)
    assert result.ok
    assert verify_log(log) == {"valid": True, **report(result.state)}
    # cut where the rules force an action: the same refusal either way
    cut = next(i for i in range(len(log) - 1, 0, -1) if log[i]["type"] in ("tile_drawn", "knocked", "round_dealt"))
    short = log[:cut] + [{**log[-1], "seq": cut + 1}]
    result = replay(short, server_seed=seed, require_complete=True)
    report_ = verify_log(short)
    assert (report_["valid"], report_["seq"], report_["code"]) == (False, result.seq, result.code)
    assert report_["detail"] == result.detail


# --- game_created builds the machine without a GameState ------------------------------------------------

@pytest.mark.parametrize("n", range(3))
def test_game_created_machine_is_the_thawed_initial_state(n):
    from goat.engine.rulesets import Options
    from goat.engine.scoring import PlayerScore
    from goat.engine.state import GameState

    first = _log(n)[0]
    fold = Fold()
    fold.push_all([first])
    data = first["data"]
    seats = data["seats"]
    expected = rules._thaw(GameState(
        ruleset=data["ruleset"], options=Options.from_dict(data["options"]), seats=seats,
        commitment=data["server_seed_commitment"], players=(None,) * seats, client_seeds=(None,) * seats,
        scores=(PlayerScore(),) * seats, version=1,
    ))
    got = fold.machine
    for name in rules._Game.__slots__:
        assert getattr(got, name) == getattr(expected, name), name
        assert type(getattr(got, name)) is type(getattr(expected, name)), name
    assert fold.state == rules._freeze(expected)


def _first_plays(log):
    """Indexes of the first tile_played of each round (the one push_all applies on an empty line)."""
    firsts, after_deal = [], False
    for i, e in enumerate(log):
        if e["type"] == "round_dealt":
            after_deal = not e["data"]["void"]
        elif e["type"] == "tile_played" and after_deal:
            firsts.append(i)
            after_deal = False
    return firsts


@pytest.mark.parametrize("n", range(8))
def test_push_all_applies_or_refuses_a_round_s_first_tile_as_push_does(n):
    log = _log(n)
    seed = _seed_of(log)
    firsts = _first_plays(log)
    assert firsts
    changes = [
        {"end": "right"}, {"end": None}, {"end": "up"}, {"tile": "0-0"}, {"tile": "6-6"}, {"tile": "1-3"},
        {"tile": [1, 1]}, {"tile": None},
    ]
    for i in firsts[:3]:
        for change in changes:
            bad = copy.deepcopy(log)
            bad[i]["data"].update(change)
            for check in (True, False):
                assert _by_push_all(bad, check, seed) == _by_push(bad, check, seed), (i, change)
        for seat in (bad[i]["seat"] + 1, -1, "0", 1.0):
            bad = copy.deepcopy(log)
            bad[i]["seat"] = seat
            assert _by_push_all(bad, True, seed) == _by_push(bad, True, seed), (i, seat)
        # reversed text of the same tile ("a-b" and "b-a" name one tile)
        bad = copy.deepcopy(log)
        a, _, b = bad[i]["data"]["tile"].partition("-")
        bad[i]["data"]["tile"] = f"{b}-{a}"
        assert _by_push_all(bad, True, seed) == _by_push(bad, True, seed)


# --- fast constructors of the frozen records ----------------------------------------------------------

def _indistinguishable(fast, slow):
    import pickle
    from dataclasses import fields

    assert fast.__class__ is slow.__class__
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    for f in fields(slow):
        assert getattr(fast, f.name) is getattr(slow, f.name)
    assert not hasattr(fast, "__dict__")
    assert pickle.dumps(fast) == pickle.dumps(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    with pytest.raises(AttributeError):  # still frozen
        setattr(fast, fields(slow)[0].name, 1)


@given(open_=st.booleans(), score=st.integers(-500, 500), remembered=st.integers(-500, 500))
def test_player_score_fast_constructor_is_the_dataclass(open_, score, remembered):
    from goat.engine import scoring

    _indistinguishable(scoring._player_score(open_, score, remembered),
                       scoring.PlayerScore(open_, score, remembered))


def test_field_setters_follow_the_fields():
    from dataclasses import fields

    from goat.engine import scoring
    from goat.engine.state import RoundRecord

    for cls in (scoring.PlayerScore, RoundRecord):
        setters = scoring.field_setters(cls)
        assert [s.__self__.__name__ for s in setters] == [f.name for f in fields(cls)]
        assert not hasattr(cls, "__post_init__")


def test_round_record_fast_constructor_is_the_dataclass():
    from goat.engine import scoring
    from goat.engine.state import RoundRecord

    players = (scoring.PlayerScore(True, 30, 0), scoring.PlayerScore(False, 0, 7))
    values = (2, "out", 1, (((1, 2),), ()), (3, 0), (3, 0), 5, False, players)
    _indistinguishable(rules._round_record(*values), RoundRecord(*values))


@settings(max_examples=300, deadline=None)
@given(
    seats=st.integers(2, 4), data=st.data(),
    end=st.sampled_from(["out", "fish"]), fish_scoring=st.sampled_from(["fish_for_all", "fish_for_one"]),
    open_threshold=st.integers(0, 30), fish_pot=st.integers(0, 40),
)
def test_score_tuples_are_the_round_outcomes(seats, data, end, fish_scoring, open_threshold, fish_pot):
    from goat.engine import scoring

    players = tuple(
        scoring.PlayerScore(data.draw(st.booleans()), data.draw(st.integers(0, 120)), data.draw(st.integers(0, 40)))
        for _ in range(seats)
    )
    values = tuple(data.draw(st.integers(0, 60)) for _ in range(seats))
    seat = data.draw(st.integers(0, seats - 1))
    slow = scoring.score_goat_round(players=players, hand_values=values, end=end, seat=seat,
                                    fish_scoring=fish_scoring, open_threshold=open_threshold, fish_pot=fish_pot)
    fast = scoring._score_goat(players, values, end, seat, fish_scoring, open_threshold, fish_pot)
    assert fast == (slow.players, slow.round_points, slow.fish_pot, slow.draw)
    assert fast == _score_goat_reference(players, values, end, seat, fish_scoring, open_threshold, fish_pot)
    assert all(p.__class__ is scoring.PlayerScore for p in fast[0]) and fast[1].__class__ is tuple
    slow = scoring.score_fixed_round(players=players, hand_values=values)
    assert scoring._score_fixed(players, values) == (slow.players, slow.round_points, slow.fish_pot, slow.draw)


# --- game_created: the resolved options, cached by (key, class, value) ------------------------------------

def _created_reference(data):
    """What _apply_game_created checked before the cache: resolve, then compare with what is stored."""
    from goat.engine.rulesets import resolve_options

    try:
        options = resolve_options(data["ruleset"], data["seats"], data["options"])
        if options.to_dict() != dict(data["options"]):
            return ("options_not_resolved",)
        return ("ok", options)
    except (KeyError, TypeError):
        return ("malformed_event",)
    except RulesError as exc:
        return (exc.code, exc.detail)


def _created_fast(data):
    try:
        g = rules._apply_game_created(None, {"type": "game_created", "seat": None,
                                              "data": {**data, "server_seed_commitment": "0" * 64}}, True)
        return ("ok", g.options)
    except RulesError as exc:
        if exc.code in ("options_not_resolved", "malformed_event"):
            return (exc.code,)
        return (exc.code, exc.detail)


def _option_variants():
    from goat.engine.rulesets import PRESETS, resolve_options

    for ruleset in list(PRESETS) + ["nope"]:
        base = resolve_options(ruleset, 3).to_dict() if ruleset in PRESETS else dict(PRESETS["goat-classic"])
        yield {"ruleset": ruleset, "seats": 3, "options": base}
        for key, value in base.items():
            for other in (True, False, 1, 0, 1.0, None, "1", 7, 2, 101, [1], 0.0):
                if other is value or (other.__class__ is value.__class__ and other == value):
                    continue
                yield {"ruleset": ruleset, "seats": 3, "options": {**base, key: other}}
            yield {"ruleset": ruleset, "seats": 3, "options": {k: v for k, v in base.items() if k != key}}
        yield {"ruleset": ruleset, "seats": 3, "options": {**base, "extra": 1}}
        for seats in (True, 2, 4, 5, 2.0, "2"):
            yield {"ruleset": ruleset, "seats": seats, "options": base}
    yield {"ruleset": ["x"], "seats": 2, "options": {}}
    yield {"ruleset": "goat-classic", "seats": 2, "options": None}
    yield {"ruleset": "goat-classic", "seats": 2, "options": []}
    yield {"ruleset": "goat-classic", "seats": 2, "options": {}}


def test_game_created_cached_options_are_the_resolved_ones():
    for data in _option_variants():
        expected = _created_reference(data)
        for _ in range(2):  # the second call is a cache hit when the first resolved
            got = _created_fast(data)
            assert got == expected, data
            if got[0] == "ok":
                assert got[1].to_dict() == data["options"]
                assert [v.__class__ for v in got[1].to_dict().values()] == [
                    v.__class__ for v in data["options"].values()]


# --- is_seed_hex: strip() for exact str, the set test otherwise ---------------------------------------------

@settings(max_examples=500, deadline=None)
@given(text=st.one_of(
    st.text(alphabet="0123456789abcdefABCDEF xg\n-", min_size=60, max_size=68),
    st.text(min_size=0, max_size=70),
    st.from_regex(r"\A[0-9a-f]{64}\Z"),
    st.from_regex(r"\A[0-9a-f]{20}[^0-9a-f][0-9a-f]{43}\Z"),
))
def test_is_seed_hex_is_its_definition(text):
    expected = len(text) == 64 and set(text) <= set("0123456789abcdef")
    assert rules.is_seed_hex(text) is expected

    class Text(str):
        pass

    assert rules.is_seed_hex(Text(text)) is expected
    assert rules.is_seed_hex(text.encode()) is False


def _score_goat_reference(players, hand_values, end, seat, fish_scoring, open_threshold, fish_pot):
    """score_goat_round as it was written before the fast paths (RULES.md §7.2-7.4), for comparison."""
    from goat.engine.scoring import PlayerScore, _unique_top

    n = len(players)
    remembered = [p.remembered for p in players]
    if end == "out":
        rp = [0 if p == seat else hand_values[p] for p in range(n)]
    elif fish_scoring == "fish_for_all":
        rp = list(hand_values)
    else:
        total = sum(hand_values)
        top = _unique_top(hand_values)
        if top is None:
            return tuple(players), (0,) * n, fish_pot + total, True
        rp = [total if p == top else 0 for p in range(n)]
        remembered = [remembered[p] if p == top else 0 for p in range(n)]
    if fish_pot:
        top = _unique_top(rp)
        if top is not None:
            rp[top] += fish_pot
            fish_pot = 0
    written = []
    for p, before in enumerate(players):
        if before.open:
            after = PlayerScore(True, before.score + rp[p], remembered[p])
        elif end == "out" and p == seat:
            after = PlayerScore(False, before.score, 0)
        elif rp[p] > open_threshold:
            after = PlayerScore(True, before.score + rp[p] + remembered[p], 0)
        else:
            after = PlayerScore(False, before.score, remembered[p] + rp[p])
        written.append(after)
    return tuple(written), tuple(rp), fish_pot, False


# --- round_dealt: pending() == DEAL tested by its two conditions ---------------------------------------------

def test_round_dealt_deal_condition_is_pending_deal():
    """_apply_round_dealt calls _expect exactly when pending(g) is not DEAL: status is not running, or a
    table whose round has not ended."""
    checked = 0
    for n in range(12):
        log = _log(n)
        fold = Fold()
        for event in log:
            g = fold.machine
            if g is not None:
                t = g.table
                fast_says_not_deal = g.status != rules.RUNNING or (t is not None and t.ended is None)
                assert fast_says_not_deal is (rules.pending(g)[0] != rules.DEAL)
                checked += 1
            fold.push(event)
    assert checked > 500


def test_plays_table_is_what_place_leaves_open():
    # Fold.push_all looks the end a play leaves open up in rules._PLAYS; _place computes it from the tile
    from goat.engine.tiles import _PARSE

    assert set(rules._PLAYS) == set(_PARSE)
    for text, (tile, leaves) in rules._PLAYS.items():
        assert tile is _PARSE[text]
        for v in range(7):
            if v not in tile:
                assert leaves[v] is None
                continue
            t = rules._Table()
            t.line, t.left, t.right, t.held, t.on_table = [(v, v)], v, v, [7] * 7, [0] * 7
            t.hands, t.bazaar, t.turn = [[tile, (9, 9)]], [], 0
            g = rules._Game()
            g.seats, g.version, g.options = 1, 0, rules.resolve_options("goat-classic", 2, None)
            rules._place(g, t, 0, tile, "right", t.hands[0])
            assert t.right == leaves[v]


@pytest.mark.parametrize("n", range(8))
def test_advance_s_deal_is_the_dispatched_deal(n):
    # _advance checks the deal event it writes against the deal it wrote it from, instead of letting
    # _dispatch compute that deal again: the same machine either way
    ruleset, seats, options = MIXES[n % len(MIXES)]
    session = rules.Session()
    session.decide(rules.CreateGame(ruleset=ruleset, seats=seats, server_seed_hex=f"{n:064x}", options=options))
    for s in range(seats):
        session.decide(rules.TakeSeat(player=f"p{s}", client_seed=str(s)))
    g = session._g
    assert rules.pending(g)[0] in (rules.PLAY, rules.DONE)  # the seats' last decide dealt through _advance
    deals = 0
    rng = random.Random(n)
    while rules.pending(g)[0] == rules.PLAY:
        tile, end = rng.choice(session.legal_moves())
        before = copy.deepcopy(g)
        events = session.decide(rules.PlayTile(seat=rules.pending(g)[1], tile=tile, end=end))
        g = session._g
        for event in events:
            if event["type"] == "round_dealt":
                event_again, dealt = rules._deal_event(before)
                assert event_again == event
                a = rules._apply_round_dealt(copy.deepcopy(before), event, True, dealt)
                b = rules._dispatch(copy.deepcopy(before), event, True)
                assert rules._freeze(a) == rules._freeze(b) and a.table.held == b.table.held
                deals += 1
            before = rules._dispatch(before, event, True)
    assert deals > 0
