"""The verifiable deal (docs/rules.md §3).

At creation the server draws a secret ``server_seed`` and publishes only its :func:`commitment`.
Every round's shuffle is derived from :func:`deal_key` (server seed plus the players' client seeds)
with an HMAC-SHA256 byte stream and a Fisher–Yates shuffle over the canonical order of the set, so
that anyone holding the revealed server seed can recompute every deal of a finished game.

Everything here is pure and stdlib-only.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import secrets
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter as _itemgetter
from typing import Any, NamedTuple

from .errors import InvalidOptions
from .tiles import ALL_TILES, BIT, HALVES, TEXT, Tile

__all__ = [
    "new_server_seed",
    "commitment",
    "deal_key",
    "shuffled_order",
    "deal_hands",
    "needs_redeal",
    "deal_round",
    "deal_texts",
    "Deal",
    "Stream",
    "prepare_stream",
    "shuffle",
]

_TWO_32 = 2**32

#: For each modulus ``m`` used by the shuffle, the first rejected 32-bit value: ``x >= limit`` is discarded.
_REJECT_FROM: tuple[int, ...] = tuple(_TWO_32 - (_TWO_32 % m) if m else 0 for m in range(len(ALL_TILES) + 1))



class Stream(NamedTuple):
    """An HMAC-SHA256 key prepared once (RFC 2104): the key, and the SHA-256 states that have absorbed
    its inner and its outer pad. A game's deals all use one key, so its machine keeps one stream."""

    key: bytes
    inner: Any  # hashlib's sha256 objects (their type is private)
    outer: Any


def prepare_stream(key: bytes) -> Stream:
    """The stream of ``key``: the padded key absorbed by an inner and an outer SHA-256 state."""
    padded = (hashlib.sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")
    return Stream(key, hashlib.sha256(padded.translate(_IPAD)), hashlib.sha256(padded.translate(_OPAD)))


def _hmac_blocks(stream: Stream, prefix: bytes, start: int, count: int) -> bytes:
    """``HMAC-SHA256(stream.key, prefix + str(i))`` for ``i`` from ``start``, ``count`` blocks, concatenated.

    Each block continues copies of the prepared states, so the key is never padded or hashed again."""
    inner = stream.inner.copy()
    inner.update(prefix)
    outer = stream.outer
    out = []
    for i in range(start, start + count):
        h = inner.copy()
        h.update(b"%d" % i)
        o = outer.copy()
        o.update(h.digest())
        out.append(o.digest())
    return b"".join(out)


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
#: the byte stream of a deal; a module global so that tests can substitute a crafted stream
_stream_blocks = _hmac_blocks

#: 27 swaps need 27 words; four 32-byte blocks give 32, so a fifth block is almost never needed
_FIRST_BLOCKS = 4
_UNPACK_FIRST = struct.Struct(f">{8 * _FIRST_BLOCKS}I").unpack
_UNPACK_BLOCK = struct.Struct(">8I").unpack
#: the swaps in order: position i = 27 .. 1 swaps with ``word % m``, m = i + 1, for a word below its limit
_POSITIONS = tuple(range(len(ALL_TILES) - 1, 0, -1))
_MODULI = tuple(i + 1 for i in _POSITIONS)
_LIMITS = tuple(_REJECT_FROM[m] for m in _MODULI)
#: the words the swaps read when none is rejected
_UNPACK_SWAPS = struct.Struct(f">{len(_POSITIONS)}I").unpack_from
#: every limit below 2**32 is at least 2**32 - 27 (``2**32 % m < m``), so a rejected word, big-endian,
#: begins with these bytes; a stream without them rejects nothing
_REJECTED_PREFIX = b"\xff\xff\xff"
assert min(limit for limit in _LIMITS if limit < _TWO_32) >= 0xFFFFFF00


def _more_words(stream: Stream, prefix: bytes) -> Iterator[int]:
    """The words of the stream after the first blocks, block by block, for as long as they are read."""
    for block in itertools.count(_FIRST_BLOCKS):
        yield from _UNPACK_BLOCK(_stream_blocks(stream, prefix, block, 1))


def _accepted(words: Iterator[int]) -> list[int]:
    """The word each swap uses: the next word of the stream below that swap's limit."""
    accepted = []
    for limit in _LIMITS:
        x = next(words)
        while x >= limit:  # rejection sampling keeps the shuffle unbiased
            x = next(words)
        accepted.append(x)
    return accepted


def new_server_seed() -> str:
    """32 fresh random bytes as 64 lowercase hex digits (the secret ``server_seed_hex``)."""
    return secrets.token_hex(32)


def commitment(server_seed_hex: str) -> str:
    """The published commitment: SHA-256 of the 32 raw seed bytes, lowercase hex."""
    raw = bytes.fromhex(server_seed_hex)
    if len(raw) != 32:
        raise ValueError(f"server seed must be 32 bytes (64 hex digits), got {len(raw)} bytes")
    return hashlib.sha256(raw).hexdigest()


def deal_key(server_seed_hex: str, client_seeds: Sequence[str]) -> bytes:
    """SHA-256 digest of UTF-8 ``server_seed_hex + "|" + cs_0 + "|" + … + "|" + cs_{n-1}`` (seat order)."""
    text = "|".join([server_seed_hex, *client_seeds])
    return hashlib.sha256(text.encode("utf-8")).digest()


def shuffled_order(key: bytes, round_no: int, attempt: int) -> tuple[Tile, ...]:
    """The 28 tiles shuffled for round ``round_no`` (1-based), deal attempt ``attempt`` (0-based).

    The byte stream is ``HMAC-SHA256(key, f"deal:{round_no}:{attempt}:{i}")`` for ``i = 0, 1, …``,
    read as big-endian uint32 words.  Fisher–Yates runs over the canonical order for ``i`` from 27
    down to 1 with ``m = i + 1``; a word ``x >= 2**32 - (2**32 % m)`` is discarded (rejection
    sampling keeps the shuffle unbiased), otherwise items ``i`` and ``x % m`` are swapped.
    """
    return tuple(shuffle(prepare_stream(key), round_no, attempt))


def shuffle(stream: Stream, round_no: int, attempt: int) -> list[Tile]:
    """:func:`shuffled_order` with the key's stream prepared, as a new list."""
    prefix = b"deal:%d:%d:" % (round_no, attempt)
    blocks = _stream_blocks(stream, prefix, 0, _FIRST_BLOCKS)
    words: Sequence[int] = _UNPACK_SWAPS(blocks)
    # A rejected word starts with three FF bytes (see _REJECTED_PREFIX): only then are the words compared
    # with their limits (about one deal in a hundred thousand), and one is rejected about one in ten million.
    if _REJECTED_PREFIX in blocks and any(map(operator.ge, words, _LIMITS)):
        words = _accepted(itertools.chain(_UNPACK_FIRST(blocks), _more_words(stream, prefix)))
    items = list(ALL_TILES)  # a tile is its canonical index, so the tiles are shuffled in place
    for i, m, word in zip(_POSITIONS, _MODULI, words, strict=True):
        j = word % m
        items[i], items[j] = items[j], items[i]
    return items


Cutter = Callable[[Sequence[Any]], tuple[Any, ...]]


def _cutter(seats: int, hand_size: int) -> Cutter:
    """Cuts a shuffled order (or anything in its order, such as its texts) into ``seats`` hands of
    ``hand_size`` and the bazaar: one ``itemgetter`` of slices."""
    return _itemgetter(*[slice(s * hand_size, (s + 1) * hand_size) for s in range(seats)],
                       slice(seats * hand_size, None))


#: the cutter of every deal the set allows, by ``(seats, hand_size)``
_CUTTERS = {(seats, size): _cutter(seats, size)
            for seats in range(1, len(ALL_TILES) + 1) for size in range(len(ALL_TILES) // seats + 1)}


def _cutter_of(seats: int, hand_size: int, tiles: int) -> Cutter:
    """The cutter of a deal of ``tiles`` tiles; refuses a deal they cannot give."""
    cutter = _CUTTERS.get((seats, hand_size)) if tiles == len(ALL_TILES) else None
    if cutter is None:
        if seats < 1 or hand_size < 0 or seats * hand_size > tiles:
            raise InvalidOptions.said("invalid_options",
                                      "cannot deal {hand_size} tiles to each of {seats} seats from {tiles} tiles.",
                                      seats=seats, hand_size=hand_size, tiles=tiles)
        cutter = _cutter(seats, hand_size)
    return cutter


def deal_hands(
    order: Sequence[Tile], seats: int, hand_size: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]:
    """Cut a shuffled order into hands and the bazaar.

    Seat ``s`` receives positions ``[s*hand_size, (s+1)*hand_size)``; the bazaar is the rest, in order
    (it is drawn from its front).
    """
    order = tuple(order)
    *hands, bazaar = _cutter_of(seats, hand_size, len(order))(order)
    return tuple(hands), bazaar


# The redeal test counts in one integer per hand: each tile is a number with a 4-bit field per value
# 0..6 (1 in the fields of its values, a double once) and an eighth field counting doubles, so a hand's
# sum holds its counts. No field exceeds 7 (a value is on 7 tiles of the set, and there are 7 doubles),
# so fields never carry into each other. Adding 2 to each value field and 3 to the doubles field sets a
# field's top bit (8) exactly when the count is >= 6, resp. >= 5: the test is one mask.
_FIELD = 4
_DOUBLES_SHIFT = 7 * _FIELD
#: the packed counts of each tile
_COUNTS = tuple(
    (1 << (_FIELD * a)) + ((1 << (_FIELD * b)) if a != b else (1 << _DOUBLES_SHIFT)) for a, b in HALVES
)
_REDEAL_BIAS = sum(2 << (_FIELD * v) for v in range(7)) + (3 << _DOUBLES_SHIFT)
_REDEAL_MASK = sum(8 << (_FIELD * f) for f in range(8))


def needs_redeal(hands: Sequence[Sequence[int]]) -> bool:
    """True if any hand holds five or more doubles, or six or more tiles sharing one value (docs/rules.md §3).

    A double counts once toward its value. The hands are of distinct tiles, as any deal of one set.
    """
    counts = _COUNTS
    return _overfull([sum([counts[tile] for tile in hand]) for hand in hands])


def _overfull(hand_counts: Iterable[int]) -> bool:
    """The redeal rule on each hand's packed counts (the sum of its tiles' ``_COUNTS``)."""
    for counts in hand_counts:
        if (counts + _REDEAL_BIAS) & _REDEAL_MASK:
            return True
    return False


#: builds a named tuple from its fields without its ``__new__`` (a Python frame)
_new_tuple = tuple.__new__


class Deal(NamedTuple):
    """A deal: each seat's hand and the bazaar (fresh lists), whether the redeal rule voids it, each
    hand as a tile set, and how to read any per-tile table in the deal's order (``pick``: the
    shuffled order as an ``itemgetter``) and cut it as the tiles were (``cut``)."""

    hands: list[list[Tile]]
    bazaar: list[Tile]
    void: bool
    held: list[int]
    pick: Callable[[Sequence[Any]], tuple[Any, ...]]
    cut: Cutter


def deal_round(stream: Stream, round_no: int, attempt: int, seats: int, hand_size: int, redeal: bool) -> Deal:
    """The deal of round ``round_no``, attempt ``attempt``: the shuffled order cut into hands and the
    bazaar, void by the redeal rule only when ``redeal``. The hands' tile sets and packed counts are
    sums of the per-tile tables read in the deal's order, cut as the hands are (no loop per tile)."""
    order = shuffle(stream, round_no, attempt)
    cut = _cutter_of(seats, hand_size, len(order))
    pick = _itemgetter(*order)
    *hands, bazaar = cut(order)
    void = redeal and _overfull(map(sum, cut(pick(_COUNTS))[:-1]))
    return _new_tuple(Deal, (hands, bazaar, void, list(map(sum, cut(pick(BIT))[:-1])), pick, cut))


def deal_texts(deal: Deal) -> tuple[list[list[str]], list[str]]:
    """The deal as ``round_dealt`` writes it: each hand's tile texts and the bazaar's, the 28 texts
    read in one step and cut as the tiles were."""
    *hands, bazaar = deal.cut(list(deal.pick(TEXT)))
    return hands, bazaar
