"""The verifiable deal (RULES.md §3).

At creation the server draws a secret ``server_seed`` and publishes only its :func:`commitment`.
Every round's shuffle is derived from :func:`deal_key` (server seed plus the players' client seeds)
with an HMAC-SHA256 byte stream and a Fisher–Yates shuffle over the canonical order of the set, so
that anyone holding the revealed server seed can recompute every deal of a finished game.

Everything here is pure and stdlib-only; :func:`shuffled_order` is on the replay hot path.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import struct
from collections.abc import Sequence
from operator import itemgetter as _itemgetter

from .errors import InvalidOptions
from .tiles import ALL_TILES, Tile

__all__ = [
    "new_server_seed",
    "commitment",
    "deal_key",
    "shuffled_order",
    "deal_hands",
    "needs_redeal",
]

_TWO_32 = 2**32

#: For each modulus ``m`` used by the shuffle, the first rejected 32-bit value: ``x >= limit`` is discarded.
_REJECT_FROM: tuple[int, ...] = tuple(_TWO_32 - (_TWO_32 % m) if m else 0 for m in range(len(ALL_TILES) + 1))

_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


@functools.lru_cache(maxsize=256)
def _hmac_sha256_pads(key: bytes):
    """SHA-256 states after the inner and the outer padded key (RFC 2104); the same for every block of
    every deal of a game, so computed once per key."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))


def _hmac_sha256(key: bytes, msg: bytes, digest: str) -> bytes:
    """``hmac.digest(key, msg, digest)``; for SHA-256 from the key's cached pad states, which is about
    twice as fast as the one-shot call (that prepares the key again on every block)."""
    if digest != "sha256":
        return hmac.digest(key, msg, digest)
    inner, outer = _hmac_sha256_pads(key)
    inner = inner.copy()
    inner.update(msg)
    outer = outer.copy()
    outer.update(inner.digest())
    return outer.digest()


#: HMAC-SHA256 of one message; a module global so that tests can substitute a crafted stream.
_hmac_digest = _hmac_sha256

_UNPACK_BLOCK = struct.Struct(">8I").unpack
# 27 swaps need 27 words; four 32-byte blocks give 32, so a single refill is almost never needed.
_FIRST_BLOCKS = 4
_UNPACK_FIRST = struct.Struct(f">{8 * _FIRST_BLOCKS}I").unpack
_UNPACK_SWAPS = struct.Struct(f">{len(ALL_TILES) - 1}I").unpack_from  # the words of the 27 swaps
_FIRST_SUFFIXES = tuple(str(b).encode("ascii") for b in range(_FIRST_BLOCKS))
# The swaps in order (i = 27 .. 1), their moduli m = i + 1 and rejection limits, for the fast path.
_FAST_I = tuple(range(len(ALL_TILES) - 1, 0, -1))
_FAST_M = tuple(i + 1 for i in _FAST_I)
_POSITIONS = tuple(range(len(ALL_TILES)))
#: A word below every limit is never discarded, whatever its m.
_NEVER_DISCARDED = min(_REJECT_FROM[m] for m in _FAST_M)
#: every word from _NEVER_DISCARDED up starts with these bytes (big-endian)
_THREE_FF = b"\xff\xff\xff"
assert _NEVER_DISCARDED >= 0xFFFFFF00


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


def _swaps_without_discard(w: Sequence[int]) -> list[int]:
    """Fisher–Yates over the positions 0..27 when no word is discarded: word ``k`` swaps item ``27 - k``
    with item ``w[k] % (28 - k)``.

    The 27 swaps written out: a loop over ``zip(_FAST_I, map(_mod, w, _FAST_M))`` does the same and
    costs about twice as much; tests/engine/test_deal.py pins this against the plain reference.
    """
    t = list(_POSITIONS)
    j = w[0] % 28
    t[27], t[j] = t[j], t[27]
    j = w[1] % 27
    t[26], t[j] = t[j], t[26]
    j = w[2] % 26
    t[25], t[j] = t[j], t[25]
    j = w[3] % 25
    t[24], t[j] = t[j], t[24]
    j = w[4] % 24
    t[23], t[j] = t[j], t[23]
    j = w[5] % 23
    t[22], t[j] = t[j], t[22]
    j = w[6] % 22
    t[21], t[j] = t[j], t[21]
    j = w[7] % 21
    t[20], t[j] = t[j], t[20]
    j = w[8] % 20
    t[19], t[j] = t[j], t[19]
    j = w[9] % 19
    t[18], t[j] = t[j], t[18]
    j = w[10] % 18
    t[17], t[j] = t[j], t[17]
    j = w[11] % 17
    t[16], t[j] = t[j], t[16]
    j = w[12] % 16
    t[15], t[j] = t[j], t[15]
    j = w[13] % 15
    t[14], t[j] = t[j], t[14]
    j = w[14] % 14
    t[13], t[j] = t[j], t[13]
    j = w[15] % 13
    t[12], t[j] = t[j], t[12]
    j = w[16] % 12
    t[11], t[j] = t[j], t[11]
    j = w[17] % 11
    t[10], t[j] = t[j], t[10]
    j = w[18] % 10
    t[9], t[j] = t[j], t[9]
    j = w[19] % 9
    t[8], t[j] = t[j], t[8]
    j = w[20] % 8
    t[7], t[j] = t[j], t[7]
    j = w[21] % 7
    t[6], t[j] = t[j], t[6]
    j = w[22] % 6
    t[5], t[j] = t[j], t[5]
    j = w[23] % 5
    t[4], t[j] = t[j], t[4]
    j = w[24] % 4
    t[3], t[j] = t[j], t[3]
    j = w[25] % 3
    t[2], t[j] = t[j], t[2]
    j = w[26] % 2
    t[1], t[j] = t[j], t[1]
    return t


def shuffled_order(key: bytes, round_no: int, attempt: int) -> tuple[Tile, ...]:
    """The 28 tiles shuffled for round ``round_no`` (1-based), deal attempt ``attempt`` (0-based).

    The byte stream is ``HMAC-SHA256(key, f"deal:{round_no}:{attempt}:{i}")`` for ``i = 0, 1, …``,
    read as big-endian uint32 words.  Fisher–Yates runs over the canonical order for ``i`` from 27
    down to 1 with ``m = i + 1``; a word ``x >= 2**32 - (2**32 % m)`` is discarded (rejection
    sampling keeps the shuffle unbiased), otherwise items ``i`` and ``x % m`` are swapped.
    """
    return _itemgetter(*shuffled_positions(key, round_no, attempt))(ALL_TILES)


def shuffled_positions(key: bytes, round_no: int, attempt: int) -> list[int]:
    """:func:`shuffled_order` as positions in the canonical order: ``ALL_TILES[p]`` for each ``p``.

    The shuffle itself: Fisher–Yates moves the same items whether they are tiles or their positions,
    and ints are what the deal indexes its tables with (no tile is hashed).
    """
    digest = _hmac_digest
    prefix = f"deal:{round_no}:{attempt}:".encode("ascii")
    if digest is _hmac_sha256:
        # HMAC-SHA256 of the four messages that share ``prefix``: the inner hash absorbs the pad and the
        # prefix once, and each block copies it (the same bytes as four calls of _hmac_sha256).
        inner, outer = _hmac_sha256_pads(key)
        inner = inner.copy()
        inner.update(prefix)
        copy_inner, copy_outer = inner.copy, outer.copy
        # the four blocks written out (the suffixes are _FIRST_SUFFIXES)
        h0, h1, h2, h3 = copy_inner(), copy_inner(), copy_inner(), copy_inner()
        h0.update(b"0")
        h1.update(b"1")
        h2.update(b"2")
        h3.update(b"3")
        o0, o1, o2, o3 = copy_outer(), copy_outer(), copy_outer(), copy_outer()
        o0.update(h0.digest())
        o1.update(h1.digest())
        o2.update(h2.digest())
        o3.update(h3.digest())
        stream = o0.digest() + o1.digest() + o2.digest() + o3.digest()
    else:
        stream = b"".join([digest(key, prefix + suffix, "sha256") for suffix in _FIRST_SUFFIXES])
    # No word is discarded (all but ~1 in 10**7 deals): word k is the swap for i = 27 - k, so the swaps
    # are known up front. A discarded word is >= _NEVER_DISCARDED > 0xFFFFFF00, so its first three bytes
    # are FF: without three FF bytes in a row in the stream no word is discarded (one C search instead
    # of max(words)), and only the 27 words of the swaps are read.
    if _THREE_FF not in stream:
        return _swaps_without_discard(_UNPACK_SWAPS(stream))
    words = _UNPACK_FIRST(stream)
    if max(words) < _NEVER_DISCARDED:
        return _swaps_without_discard(words)
    items = list(_POSITIONS)
    block = _FIRST_BLOCKS
    pos = 0
    available = len(words)
    reject_from = _REJECT_FROM
    for i in range(len(items) - 1, 0, -1):
        m = i + 1
        limit = reject_from[m]
        while True:
            if pos == available:
                words = _UNPACK_BLOCK(digest(key, prefix + str(block).encode("ascii"), "sha256"))
                block += 1
                pos = 0
                available = 8
            x = words[pos]
            pos += 1
            if x < limit:
                break
        j = x % m
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
    hands = tuple(order[s * hand_size : (s + 1) * hand_size] for s in range(seats))
    return hands, order[seats * hand_size :]


def needs_redeal(hands: Sequence[Sequence[Tile]]) -> bool:
    """True if any hand holds five or more doubles, or six or more tiles sharing one value.

    A double counts once toward its value.
    """
    for hand in hands:
        doubles = 0
        per_value = [0] * 7
        for low, high in hand:
            if low == high:
                doubles += 1
                per_value[low] += 1
            else:
                per_value[low] += 1
                per_value[high] += 1
        if doubles >= 5 or max(per_value) >= 6:
            return True
    return False


# needs_redeal for hands of distinct tiles (hands cut from one shuffled set), in integer arithmetic: each
# tile is a number with a 4-bit field per value 0..6 (1 in the fields of its values, a double once) and
# an eighth field counting doubles. A hand's sum then holds its counts; no field exceeds 7 (a value is on
# 7 tiles of the set, and there are 7 doubles), so fields never carry into each other. Adding 2 to each
# value field and 3 to the doubles field sets a field's top bit (8) exactly when the count is >= 6,
# resp. >= 5: the redeal test is one mask.
_FIELD = 4
_DOUBLES_SHIFT = 7 * _FIELD
#: the packed counts of each tile, by its position in ALL_TILES
_POSITION_COUNTS = tuple(
    (1 << (_FIELD * a)) + ((1 << (_FIELD * b)) if a != b else (1 << _DOUBLES_SHIFT)) for a, b in ALL_TILES
)
_REDEAL_BIAS = sum(2 << (_FIELD * v) for v in range(7)) + (3 << _DOUBLES_SHIFT)
_REDEAL_MASK = sum(8 << (_FIELD * f) for f in range(8))


def _needs_redeal_positions(positions: Sequence[int], seats: int, hand_size: int) -> bool:
    """:func:`needs_redeal` of the hands dealt from ``positions`` (:func:`shuffled_positions`): seat ``s``
    holds ``positions[s*hand_size:(s+1)*hand_size]``; the tiles are distinct, as in any deal of one set."""
    return _needs_redeal_counts(_itemgetter(*positions)(_POSITION_COUNTS), seats, hand_size)


def _needs_redeal_counts(counts: Sequence[int], seats: int, hand_size: int) -> bool:
    """:func:`_needs_redeal_positions` given the packed counts of the positions, in the dealt order."""
    for start in range(0, seats * hand_size, hand_size):
        if (sum(counts[start:start + hand_size]) + _REDEAL_BIAS) & _REDEAL_MASK:
            return True
    return False


#: the shifts of the value fields 0..6 in packed counts
VALUE_SHIFTS = tuple(_FIELD * v for v in range(7))
