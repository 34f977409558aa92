"""The verifiable deal (docs/rules.md §3)."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine import deal
from goat.engine.deal import (
    commitment,
    deal_hands,
    deal_key,
    needs_redeal,
    new_server_seed,
    shuffled_order,
)
from goat.engine.errors import InvalidOptions, RulesError
from goat.engine.fold import Fold
from goat.engine.simulate import simulate_game
from goat.engine.tiles import ALL_TILES, parse_tile, tile_str


def _order(text: str) -> tuple:
    return tuple(parse_tile(t) for t in text.split())


def _reference_order(words):
    """docs/rules.md §3 Fisher–Yates, written as plainly as possible over an iterator of uint32 words.

    Returns the order and the number of discarded words.
    """
    items = list(ALL_TILES)
    discarded = 0
    for i in range(27, 0, -1):
        m = i + 1
        x = next(words)
        while x >= 2**32 - (2**32 % m):
            discarded += 1
            x = next(words)
        j = x % m
        items[i], items[j] = items[j], items[i]
    return tuple(items), discarded


def _reference_words(key: bytes, round_no: int, attempt: int, digest=hmac.digest):
    i = 0
    while True:
        block = digest(key, f"deal:{round_no}:{attempt}:{i}".encode("ascii"), "sha256")
        yield from struct.unpack(">8I", block)
        i += 1


# --- the test vectors of docs/rules.md §3 ----------------------------------------------------------------

def test_vector_1_zero_seed_two_empty_client_seeds_round_1_attempt_0():
    seed = "0" * 64
    assert commitment(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    key = deal_key(seed, ["", ""])
    assert key.hex() == "c07104e9353bd76b57d9c4adefd5b85aaa0cac6647bcc38bc1cf82aec130029e"
    assert shuffled_order(key, 1, 0) == _order(
        "4-5 0-5 2-6 0-6 4-6 5-5 5-6 1-3 2-4 4-4 0-1 0-3 6-6 3-4 3-5 0-0 1-1 1-5 2-5 2-3 1-2 3-3 0-4 1-4 0-2 1-6 2-2 3-6"  # noqa: E501
    )


def test_vector_2_counting_seed_three_client_seeds_round_2_attempt_1():
    seed = bytes(range(32)).hex()
    assert seed.startswith("000102") and seed.endswith("1e1f")
    key = deal_key(seed, ["alice", "", "карл"])
    assert key.hex() == "e0658126c0cb394e0ebf606feff1ee16ec724d320b579c5481f8d53fadedd447"
    assert shuffled_order(key, 2, 1) == _order(
        "1-4 2-6 0-6 3-4 0-2 1-3 3-6 0-3 2-4 3-5 1-6 0-4 4-5 6-6 5-6 2-2 1-5 0-1 3-3 4-4 5-5 2-3 2-5 0-0 1-1 4-6 0-5 1-2"  # noqa: E501
    )


# --- further pinned vectors (computed once; they keep the algorithm from drifting) -------------------

PINNED = [
    # (server_seed_hex, client_seeds, round, attempt, commitment, key, order)
    (
        "ff" * 32,
        ["x", "y", "z", "w"],
        3,
        0,
        "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051",
        "a4a319b10b155a04a29ffab31a974831a85b4db6ab190e32a60a854b3b1bc17e",
        "0-6 2-3 2-4 0-1 2-5 1-3 3-4 4-6 1-5 1-6 0-4 3-3 0-3 4-4 1-1 5-6 3-6 2-2 0-2 1-2 0-5 3-5 0-0 6-6 4-5 1-4 5-5 2-6",  # noqa: E501
    ),
    (
        hashlib.sha256(b"goat").hexdigest(),
        ["Маша", "alex|pipe"],
        1,
        2,
        "5bd83b9119e32988d4fed369c55e1d85d6d739b240c5c57ddc1c296e189d4944",
        "89cc2c8cd5ae1a26a549d52ec8392fda1b12a622465404e95fff032107c68ebb",
        "1-2 0-2 0-4 3-3 4-6 2-6 0-1 4-5 1-3 4-4 0-6 6-6 2-2 1-5 2-5 2-4 3-4 5-6 0-5 1-6 1-1 3-5 3-6 5-5 0-0 0-3 2-3 1-4",  # noqa: E501
    ),
    (
        "0123456789abcdef" * 4,
        ["", "", ""],
        12,
        0,
        "4884fdaafea47c29fea7159d0daddd9c085d6200e1359e85bb81736af6b7c837",
        "141ee85c27257ec70e8a0ba945dcddac74a0392332fa7f72b73a853d5a3c8ac8",
        "0-5 0-0 4-6 1-3 0-4 2-5 1-2 4-5 0-1 1-4 2-6 3-4 3-3 2-4 0-6 2-3 1-5 4-4 3-6 0-2 0-3 3-5 6-6 2-2 1-6 5-6 1-1 5-5",  # noqa: E501
    ),
]


@pytest.mark.parametrize("seed, client_seeds, round_no, attempt, commit, key_hex, order", PINNED)
def test_pinned_vectors(seed, client_seeds, round_no, attempt, commit, key_hex, order):
    assert commitment(seed) == commit
    key = deal_key(seed, client_seeds)
    assert key.hex() == key_hex
    assert shuffled_order(key, round_no, attempt) == _order(order)
    assert _reference_order(_reference_words(key, round_no, attempt))[0] == _order(order)


def test_pinned_vector_deals_four_hands_of_seven_and_an_empty_bazaar():
    seed, client_seeds, round_no, attempt, *_ , order = PINNED[0]
    hands, bazaar = deal_hands(shuffled_order(deal_key(seed, client_seeds), round_no, attempt), 4, 7)
    assert [" ".join(map(tile_str, h)) for h in hands] == [
        "0-6 2-3 2-4 0-1 2-5 1-3 3-4",
        "4-6 1-5 1-6 0-4 3-3 0-3 4-4",
        "1-1 5-6 3-6 2-2 0-2 1-2 0-5",
        "3-5 0-0 6-6 4-5 1-4 5-5 2-6",
    ]
    assert bazaar == ()


def test_pinned_vector_deals_three_hands_of_five_and_bazaar_in_order():
    seed, client_seeds, round_no, attempt, *_, order = PINNED[2]
    hands, bazaar = deal_hands(shuffled_order(deal_key(seed, client_seeds), round_no, attempt), 3, 5)
    assert hands[1] == _order("2-5 1-2 4-5 0-1 1-4")
    assert bazaar == _order(order)[15:]


# --- the stream and rejection sampling --------------------------------------------------------------

def test_stream_messages_are_deal_round_attempt_block_with_the_key(monkeypatch):
    calls = []

    def recording(key, msg, digest):
        calls.append((key, msg, digest))
        return hmac.digest(key, msg, digest)

    monkeypatch.setattr(deal, "_stream_blocks", _blocks_of(recording))
    key = b"k" * 32
    shuffled_order(key, 7, 3)
    assert [c[1] for c in calls][:4] == [b"deal:7:3:0", b"deal:7:3:1", b"deal:7:3:2", b"deal:7:3:3"]
    assert {c[0] for c in calls} == {key}
    assert {c[2] for c in calls} == {"sha256"}


@settings(max_examples=200, deadline=None)
@given(key=st.binary(max_size=100), msg=st.binary(max_size=40))
def test_the_default_stream_is_hmac_sha256(key, msg):
    # The key is prepared once per stream; every block must be exactly the stdlib's HMAC.
    assert deal._stream_blocks(deal.prepare_stream(key), msg, 3, 2) == (hmac.digest(key, msg + b"3", "sha256")
                                                   + hmac.digest(key, msg + b"4", "sha256"))


def test_the_shuffle_agrees_with_the_reference():
    for n in range(200):
        key = hashlib.sha256(b"fast%d" % n).digest()
        expected, discarded = _reference_order(_reference_words(key, 1 + n % 5, n % 3))
        assert discarded == 0
        assert shuffled_order(key, 1 + n % 5, n % 3) == expected


def _blocks_of(digest):
    """A stream of blocks (deal._stream_blocks) made of one digest call per block message."""

    def blocks(stream, prefix, start, count):
        return b"".join(digest(stream.key, prefix + str(i).encode("ascii"), "sha256")
                        for i in range(start, start + count))

    return blocks


def _crafted_digest(first_words):
    """A fake HMAC: block 0 is ``first_words`` padded with zeros; every later block is all zeros."""

    def digest(key, msg, name):
        words = list(first_words) if msg.endswith(b":0") else []
        return struct.pack(">8I", *(words + [0] * (8 - len(words))))

    return _blocks_of(digest)


def test_rejection_discards_a_word_at_or_above_the_limit_and_takes_the_next(monkeypatch):
    limit_28 = 2**32 - (2**32 % 28)
    assert limit_28 == 2**32 - 4
    # First word is rejected for m = 28; the next word 5 swaps positions 27 and 5.
    monkeypatch.setattr(deal, "_stream_blocks", _crafted_digest([limit_28, 5]))
    rejected = shuffled_order(b"\0" * 32, 1, 0)
    monkeypatch.setattr(deal, "_stream_blocks", _crafted_digest([5]))
    direct = shuffled_order(b"\0" * 32, 1, 0)
    assert rejected[27] == ALL_TILES[5]
    # Every later word is 0 in both streams, so dropping the rejected word is the only difference.
    assert rejected == direct


def test_rejection_accepts_the_largest_word_below_the_limit(monkeypatch):
    # 2**32 - 5 is accepted for m = 28 and is 27 mod 28: position 27 keeps 6-6 (later swaps stay below 27).
    monkeypatch.setattr(deal, "_stream_blocks", _crafted_digest([2**32 - 5]))
    order = shuffled_order(b"\0" * 32, 1, 0)
    assert order[27] == ALL_TILES[27] and tuple(ALL_TILES[27]) == (6, 6)
    assert sorted(order) == list(ALL_TILES)


@pytest.mark.parametrize("first_words", [
    [0x00FFFFFF, 0xFF000000],  # three FF bytes across a word boundary: no word is rejected
    [5, 0xFFFFFF00, 0xFFFFFFE4],  # whole FF prefixes just below every limit
    [2**32 - 1, 2**32 - 4, 2**32 - 5],  # two words rejected by the first swap (m = 28: limit 2**32 - 4)
])
def test_words_with_ff_bytes_give_the_reference_permutation(monkeypatch, first_words):
    """The shuffle compares words with their limits only in a stream holding three FF bytes in a row;
    with or without them, it agrees with the plain reference word for word."""
    blocks = _crafted_digest(first_words)
    monkeypatch.setattr(deal, "_stream_blocks", blocks)

    def words():
        for i in itertools.count():
            yield from struct.unpack(">8I", blocks(deal.prepare_stream(b"\0" * 32), b"deal:1:0:", i, 1))

    expected, _ = _reference_order(words())
    assert shuffled_order(b"\0" * 32, 1, 0) == expected


def test_many_discards_across_block_boundaries_still_give_the_reference_permutation(monkeypatch):
    """A hostile stream where most words are rejected: the shuffle must read blocks past the
    first four and agree with the plain reference implementation word for word."""

    def hostile(key, msg, name):
        real = hmac.digest(key, msg, name)
        words = list(struct.unpack(">8I", real))
        # Push six of every eight words to the very top of the range: rejected for every m that is not
        # a power of two, accepted (and reduced) for m in {2, 4, 8, 16}.
        for w in range(6):
            words[w] = 0xFFFFFFFF - (words[w] % 3)
        return struct.pack(">8I", *words)

    monkeypatch.setattr(deal, "_stream_blocks", _blocks_of(hostile))
    total_discarded = 0
    for n in range(30):
        key = hashlib.sha256(str(n).encode()).digest()
        expected, discarded = _reference_order(_reference_words(key, 1 + n % 3, n % 2, digest=hostile))
        total_discarded += discarded
        got = shuffled_order(key, 1 + n % 3, n % 2)
        assert got == expected
        assert sorted(got) == list(ALL_TILES)
    assert total_discarded > 30 * 20  # the discard branch really ran, a lot


# --- seeds, commitment, key -------------------------------------------------------------------------

def test_new_server_seed_is_64_lowercase_hex_and_fresh():
    a, b = new_server_seed(), new_server_seed()
    assert re.fullmatch(r"[0-9a-f]{64}", a)
    assert a != b


def test_commitment_hashes_the_raw_bytes_not_the_hex_text():
    seed = "ab" * 32
    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert commitment(seed) != hashlib.sha256(seed.encode()).hexdigest()


def test_commitment_refuses_a_seed_that_is_not_32_bytes():
    with pytest.raises(ValueError):
        commitment("00" * 31)


def test_deal_key_joins_seeds_with_bars_in_seat_order():
    assert deal_key("s", ["a", "b"]) == hashlib.sha256(b"s|a|b").digest()
    assert deal_key("s", ["a", "b"]) != deal_key("s", ["b", "a"])
    assert deal_key("s", []) == hashlib.sha256(b"s").digest()


# --- dealing -----------------------------------------------------------------------------------------

def test_deal_hands_refuses_more_tiles_than_the_set_holds():
    with pytest.raises(InvalidOptions):
        deal_hands(ALL_TILES, 4, 8)


def test_redeal_five_doubles_in_a_hand():
    hand = _order("0-0 1-1 2-2 3-3 4-4 0-1 2-3")
    assert needs_redeal([_order("5-6"), hand])


def test_no_redeal_with_four_doubles():
    assert not needs_redeal([_order("0-0 1-1 2-2 3-3 0-1 2-4 5-6")])


def test_redeal_six_tiles_sharing_a_value_double_counts_once():
    assert needs_redeal([_order("3-3 0-3 1-3 2-3 3-4 3-5 1-2")])
    assert needs_redeal([_order("0-3 1-3 2-3 3-4 3-5 3-6 1-2")])


def test_no_redeal_with_five_tiles_sharing_a_value():
    assert not needs_redeal([_order("3-3 0-3 1-3 2-3 3-4 1-2 5-6")])


# --- properties --------------------------------------------------------------------------------------

keys = st.binary(min_size=32, max_size=32)


@settings(max_examples=100, deadline=None)
@given(key=keys, round_no=st.integers(1, 500), attempt=st.integers(0, 20))
def test_every_order_is_a_permutation_of_the_28_tiles(key, round_no, attempt):
    order = shuffled_order(key, round_no, attempt)
    assert len(order) == 28
    assert sorted(order) == list(ALL_TILES)


@settings(max_examples=100, deadline=None)
@given(key=keys, round_no=st.integers(1, 50), attempt=st.integers(0, 5))
def test_fast_shuffle_agrees_with_the_reference(key, round_no, attempt):
    expected, _ = _reference_order(_reference_words(key, round_no, attempt))
    assert shuffled_order(key, round_no, attempt) == expected


@st.composite
def deals(draw):
    seats = draw(st.integers(2, 4))
    hand_size = draw(st.integers(0, 28 // seats))
    order = tuple(draw(st.permutations(ALL_TILES)))
    return order, seats, hand_size


@settings(max_examples=100, deadline=None)
@given(deals())
def test_deal_hands_partitions_the_order(d):
    order, seats, hand_size = d
    hands, bazaar = deal_hands(order, seats, hand_size)
    assert len(hands) == seats
    assert all(len(h) == hand_size for h in hands)
    assert sum(hands, ()) + bazaar == order
    assert len(set(sum(hands, ()) + bazaar)) == 28


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(ALL_TILES), min_size=0, max_size=10, unique=True))
def test_needs_redeal_matches_its_definition(hand):
    doubles = sum(1 for a, b in hand if a == b)
    shares = max((sum(1 for t in hand if v in t) for v in range(7)), default=0)
    assert needs_redeal([hand]) == (doubles >= 5 or shares >= 6)


# --- the machine's prepared stream -----------------------------------------------------------------

def test_the_machine_prepares_its_deal_stream_again_when_the_seed_changes():
    """The machine keeps the deal key's prepared stream; a new server seed must give new deals."""
    log = simulate_game(random.Random(5), ruleset="goat-classic", seats=4, interrupt_chance=0)
    seed = log[-1]["data"]["server_seed"]
    deals = [i for i, e in enumerate(log) if e["type"] == "round_dealt"]
    assert len(deals) >= 2
    fold = Fold()
    fold.push_all(log[:1])
    fold.set_server_seed(seed)
    fold.push_all(log[1:deals[1]], first_seq=2)  # the first round, dealt from the kept stream
    assert fold.machine.stream is not None
    fold.set_server_seed("ab" * 32)
    assert fold.machine.stream is None
    with pytest.raises(RulesError) as refused:
        fold.push_all(log[deals[1]:], first_seq=deals[1] + 1)
    assert (refused.value.code, refused.value.seq) == ("deal_mismatch", deals[1] + 1)
