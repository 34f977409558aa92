"""The verifiable deal (RULES.md §3).

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
from collections.abc import Iterator, Sequence
from operator import itemgetter as _itemgetter

from .errors import InvalidOptions
from .tiles import ALL_TILES, HALVES, Tile

__all__ = [
    "new_server_seed",
    "commitment",
    "deal_key",
    "shuffled_order",
    "deal_hands",
    "needs_redeal",
    "deal_round",
]

_TWO_32 = 2**32

#: For each modulus ``m`` used by the shuffle, the first rejected 32-bit value: ``x >= limit`` is discarded.
_REJECT_FROM: tuple[int, ...] = tuple(_TWO_32 - (_TWO_32 % m) if m else 0 for m in range(len(ALL_TILES) + 1))



def _hmac_blocks(key: bytes, prefix: bytes, start: int, count: int) -> bytes:
    """``HMAC-SHA256(key, prefix + str(i))`` for ``i`` from ``start``, ``count`` blocks, concatenated.

    HMAC as RFC 2104 writes it: the inner hash absorbs the padded key and ``prefix`` once, and each
    block continues a copy of it, so the key is prepared once per stream rather than once per block.
    """
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    inner = hashlib.sha256(key.translate(_IPAD))
    inner.update(prefix)
    outer = hashlib.sha256(key.translate(_OPAD))
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


def _more_words(key: bytes, prefix: bytes) -> Iterator[int]:
    """The words of the stream after the first blocks, block by block, for as long as they are read."""
    for block in itertools.count(_FIRST_BLOCKS):
        yield from _UNPACK_BLOCK(_stream_blocks(key, prefix, block, 1))


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
    order: tuple[Tile, ...] = _itemgetter(*shuffled_positions(key, round_no, attempt))(ALL_TILES)
    return order


def shuffled_positions(key: bytes, round_no: int, attempt: int) -> list[int]:
    """:func:`shuffled_order` as canonical indexes (a :class:`~goat.engine.tiles.Tile` is its index)."""
    prefix = b"deal:%d:%d:" % (round_no, attempt)
    words: Sequence[int] = _UNPACK_FIRST(_stream_blocks(key, prefix, 0, _FIRST_BLOCKS))
    if any(map(operator.ge, words, _LIMITS)):  # a word is rejected (about one deal in ten million)
        words = _accepted(itertools.chain(words, _more_words(key, prefix)))
    items = list(range(len(ALL_TILES)))
    for i, j in zip(_POSITIONS, map(operator.mod, words, _MODULI), strict=False):
        items[i], items[j] = items[j], items[i]
    return items


def deal_hands(
    order: Sequence[Tile], seats: int, hand_size: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]:
    """Cut a shuffled order into hands and the bazaar.

    Seat ``s`` receives positions ``[s*hand_size, (s+1)*hand_size)``; the bazaar is the rest, in order
    (it is drawn from its front).
    """
    if seats < 1 or hand_size < 0 or seats * hand_size > len(order):
        raise InvalidOptions(
            "invalid_options",
            f"cannot deal {hand_size} tiles to each of {seats} seats from {len(order)} tiles.",
            seats=seats,
            hand_size=hand_size,
        )
    order = tuple(order)
    hands = tuple([order[s * hand_size : (s + 1) * hand_size] for s in range(seats)])
    return hands, order[seats * hand_size :]


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
    """True if any hand holds five or more doubles, or six or more tiles sharing one value (RULES.md §3).

    A double counts once toward its value. The hands are of distinct tiles, as any deal of one set.
    """
    counts = _COUNTS
    for hand in hands:
        if (sum([counts[tile] for tile in hand]) + _REDEAL_BIAS) & _REDEAL_MASK:
            return True
    return False


def deal_round(key: bytes, round_no: int, attempt: int, seats: int, hand_size: int, redeal: bool,
               ) -> tuple[list[list[Tile]], list[Tile], bool]:
    """The deal of round ``round_no``, attempt ``attempt``: each seat's hand, the bazaar, and whether the
    deal is void by the redeal rule (only when ``redeal``)."""
    hands, bazaar = deal_hands(shuffled_order(key, round_no, attempt), seats, hand_size)
    return [list(hand) for hand in hands], list(bazaar), redeal and needs_redeal(hands)
