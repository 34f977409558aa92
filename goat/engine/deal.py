"""The verifiable deal (RULES.md §3).

At creation the server draws a secret ``server_seed`` and publishes only its :func:`commitment`.
Every round's shuffle is derived from :func:`deal_key` (server seed plus the players' client seeds)
with an HMAC-SHA256 byte stream and a Fisher–Yates shuffle over the canonical order of the set, so
that anyone holding the revealed server seed can recompute every deal of a finished game.

Everything here is pure and stdlib-only; :func:`shuffled_order` is on the replay hot path.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Sequence

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

#: HMAC-SHA256 of one message; a module global so that tests can substitute a crafted stream.
_hmac_digest = hmac.digest

_UNPACK_BLOCK = struct.Struct(">8I").unpack
# 27 swaps need 27 words; four 32-byte blocks give 32, so a single refill is almost never needed.
_FIRST_BLOCKS = 4
_UNPACK_FIRST = struct.Struct(f">{8 * _FIRST_BLOCKS}I").unpack


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
    digest = _hmac_digest
    prefix = f"deal:{round_no}:{attempt}:"
    words = _UNPACK_FIRST(
        b"".join([digest(key, f"{prefix}{b}".encode("ascii"), "sha256") for b in range(_FIRST_BLOCKS)])
    )
    block = _FIRST_BLOCKS
    pos = 0
    available = len(words)
    reject_from = _REJECT_FROM
    items = list(ALL_TILES)
    for i in range(len(items) - 1, 0, -1):
        m = i + 1
        limit = reject_from[m]
        while True:
            if pos == available:
                words = _UNPACK_BLOCK(digest(key, f"{prefix}{block}".encode("ascii"), "sha256"))
                block += 1
                pos = 0
                available = 8
            x = words[pos]
            pos += 1
            if x < limit:
                break
        j = x % m
        items[i], items[j] = items[j], items[i]
    return tuple(items)


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
