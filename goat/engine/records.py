"""The portable game record (docs/records.md): a signed text transcription of an ended game's
unredacted event log, and its offline verifier.

A record is headers (the game's ruleset, options, seats, players, the deal's commitment and its
reveal, the result), the events in order (one line each), the scoresheet, and a signature block
naming the key that signed everything above it. :func:`write_record` writes the body from an event
log, :func:`sign_record` appends the signature, and :func:`verify_record` checks a record against a
set of published keys: the key, the signature, the commitment, then the events through the engine's
own verifier (:func:`goat.engine.replay.verify_log`), then the declared result and scoresheet
against the replay's. It names the first thing that is wrong.

Pure: the standard library and ``cryptography`` (Ed25519), no Django.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .deal import commitment
from .events import is_seed_hex
from .replay import verify_log

FORMAT = "goat-record/1"
ALGORITHM = "ed25519"
BEGIN = "-----BEGIN GOAT SIGNATURE-----"
END = "-----END GOAT SIGNATURE-----"

#: the headers every record has, in the order they are written (``Player<i>`` follow ``Rated``)
HEADERS_BEFORE_PLAYERS = ("Format", "Game", "Ruleset", "Seats", "Options", "Rated")
HEADERS_AFTER_PLAYERS = ("Engine", "Created", "Ended", "Commitment", "Reveal", "Result")

_HEADER = re.compile(r"\[([A-Z][A-Za-z0-9]*) (.*)\]")
_TILE = re.compile(r"[0-9]+-[0-9]+")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")
_SIGNATURE_FIELDS = ("Key", "Algorithm", "Signed", "Signature")


class RecordError(ValueError):
    """What is wrong with a record: ``what`` names the check (``format``, ``key``, ``signature``,
    ``commitment``, ``header``, ``deal``, ``move``, ``result``), ``detail`` says why."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


def _json(value: Any) -> str:
    """The compact canonical JSON of a header value or a scoresheet row."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _tiles(tiles: Sequence[str]) -> str:
    return ",".join(tiles) if tiles else "-"


def _event_line(event: Mapping[str, Any]) -> str:
    """One event after ``game_created`` and before ``seed_revealed``, as its record line."""
    kind, seat, data = event["type"], event["seat"], event["data"]
    if kind == "seat_taken":
        body = f"join {data['seat']} {_json(data['player'])} {_json(data.get('client_seed', ''))}"
    elif kind == "seat_left":
        body = f"leave {data['seat']} {_json(data['player'])}"
    elif kind == "game_cancelled":
        body = f"cancel {data['reason']}"
    elif kind == "round_dealt":
        hands = " ".join(_tiles(h) for h in data["hands"])
        body = f"deal {data['round']} {data['attempt']} {hands} / {_tiles(data['bazaar'])}"
        if data["void"]:
            body += " void"
    elif kind == "tile_played":
        body = f"play {seat} {data['tile']} {data['end']}"
    elif kind == "tile_drawn":
        body = f"draw {seat} {data['tile']}"
    elif kind in _BARE:
        body = f"{_BARE[kind]} {seat}"
    else:
        raise ValueError(f"an event of type {kind!r} has no record line")
    return f"{event['seq']} {event['at']} {body}"


_BARE = {"knocked": "knock", "timed_out": "timeout", "resigned": "resign"}
_BARE_TYPES = {verb: kind for kind, verb in _BARE.items()}


def _seat(token: str) -> int:
    if not token.isdigit() or len(token) > 1:
        raise ValueError(f"{token!r} is not a seat")
    return int(token)


def _tile(token: str) -> str:
    if not _TILE.fullmatch(token):
        raise ValueError(f"{token!r} is not a tile")
    return token


def _tile_list(token: str) -> list[str]:
    return [] if token == "-" else [_tile(t) for t in token.split(",")]


def _json_string(text: str) -> tuple[str, str]:
    """A JSON string at the start of ``text``: its value and the rest after one space (or nothing)."""
    value, end = json.JSONDecoder().raw_decode(text)
    if not isinstance(value, str):
        raise ValueError("a JSON string was expected")
    rest = text[end:]
    if rest and not rest.startswith(" "):
        raise ValueError("a space was expected after a JSON string")
    return value, rest[1:]


def _parse_event_line(line: str) -> dict[str, Any]:
    parts = line.split(" ", 3)
    if len(parts) != 4 or not parts[0].isdigit() or not _TIME.fullmatch(parts[1]):
        raise ValueError("an event line is its seq, its time, a verb and the verb's arguments")
    seq_text, at, verb, args = parts
    seq = int(seq_text)
    seat: int | None
    if verb in ("join", "leave"):
        seat_text, text = args.split(" ", 1)
        seat = _seat(seat_text)
        player, text = _json_string(text)
        if verb == "join":
            client_seed, text = _json_string(text)
            data: dict[str, Any] = {"seat": seat, "player": player, "client_seed": client_seed}
            kind = "seat_taken"
        else:
            data, kind = {"seat": seat, "player": player}, "seat_left"
        if text:
            raise ValueError("unexpected text after the player")
    elif verb == "cancel":
        if not args or " " in args:
            raise ValueError("cancel takes one reason")
        seat, kind, data = None, "game_cancelled", {"reason": args}
    elif verb == "deal":
        tokens = args.split(" ")
        void = tokens[-1] == "void"
        if void:
            tokens.pop()
        if len(tokens) < 5 or tokens[-2] != "/" or not tokens[0].isdigit() or not tokens[1].isdigit():
            raise ValueError("deal takes a round, an attempt, the hands, '/' and the bazaar")
        seat, kind = None, "round_dealt"
        data = {"round": int(tokens[0]), "attempt": int(tokens[1]),
                "hands": [_tile_list(t) for t in tokens[2:-2]], "bazaar": _tile_list(tokens[-1]), "void": void}
    elif verb == "play":
        seat_text, tile, end = args.split(" ")
        seat, kind, data = _seat(seat_text), "tile_played", {"tile": _tile(tile), "end": end}
    elif verb == "draw":
        seat_text, tile = args.split(" ")
        seat, kind, data = _seat(seat_text), "tile_drawn", {"tile": _tile(tile)}
    elif verb in _BARE_TYPES:
        seat, kind, data = _seat(args), _BARE_TYPES[verb], {}
    else:
        raise ValueError(f"unknown event {verb!r}")
    return {"seq": seq, "type": kind, "at": at, "seat": seat, "data": data}


def write_record(events: Sequence[Mapping[str, Any]], *, game: int, rated: bool, engine: str) -> str:
    """The unsigned body of an ended game's record, from its unredacted event log (which must
    verify: the result and scoresheet written are the replay's). Raises ``ValueError`` when the log
    does not verify or when an event would not survive the transcription."""
    report = verify_log(list(events))
    if not report["valid"]:
        raise ValueError(f"the log does not verify: seq {report['seq']}: {report['code']}: {report['detail']}")
    created, revealed = events[0], events[-1]
    data = created["data"]
    headers: list[tuple[str, Any]] = [
        ("Format", FORMAT), ("Game", game), ("Ruleset", data["ruleset"]), ("Seats", data["seats"]),
        ("Options", data["options"]), ("Rated", rated),
    ]
    players = _players(events, data["seats"])
    headers += [(f"Player{seat}", name) for seat, name in enumerate(players)]
    headers += [
        ("Engine", engine), ("Created", created["at"]), ("Ended", revealed["at"]),
        ("Commitment", data["server_seed_commitment"]), ("Reveal", revealed["data"]["server_seed"]),
        ("Result", report["result"]),
    ]
    sections = ([f"[{name} {_json(value)}]" for name, value in headers],
                [_event_line(e) for e in events[1:-1]],
                [_json(row) for row in report["rounds"]])
    body = "".join("".join(line + "\n" for line in section) + "\n" for section in sections)
    parsed = parse_record(body + _unsigned_block())
    if parsed.events != [_canonical(e) for e in events]:
        raise ValueError("the log does not survive its transcription into a record")
    return body


def _canonical(event: Mapping[str, Any]) -> dict[str, Any]:
    return {"seq": event["seq"], "type": event["type"], "at": event["at"], "seat": event["seat"],
            "data": dict(event["data"])}


def _players(events: Sequence[Mapping[str, Any]], seats: int) -> list[str | None]:
    """Who holds each seat once the seat events are read (``None``: a seat never taken)."""
    players: list[str | None] = [None] * seats
    for e in events:
        if e["type"] == "seat_taken":
            players[e["data"]["seat"]] = e["data"]["player"]
        elif e["type"] == "seat_left":
            players[e["data"]["seat"]] = None
    return players


def _unsigned_block() -> str:
    return f"{BEGIN}\nKey: -\nAlgorithm: {ALGORITHM}\nSigned: -\nSignature: -\n{END}\n"


def format_time(at: datetime) -> str:
    """The written form of a signature's or a key's time: UTC, seconds, ``Z``."""
    return at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    if not _TIME.fullmatch(text):
        raise ValueError(f"{text!r} is not a UTC time")
    return datetime.fromisoformat(text)


def key_id(public_key: bytes) -> str:
    """A key's id: ``ed25519-`` and the first 16 hex digits of the SHA-256 of its 32 raw bytes."""
    return f"{ALGORITHM}-{hashlib.sha256(public_key).hexdigest()[:16]}"


def public_bytes(private_key: bytes) -> bytes:
    """The 32 raw bytes of the public key of a 32-byte Ed25519 private key."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return Ed25519PrivateKey.from_private_bytes(private_key).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def sign_record(body: str, *, private_key: bytes, signed_at: datetime) -> str:
    """``body`` with its signature block: the key's id, the algorithm and the time, then the
    Ed25519 signature of every byte before the ``Signature:`` line (docs/records.md)."""
    head = (f"{BEGIN}\nKey: {key_id(public_bytes(private_key))}\nAlgorithm: {ALGORITHM}\n"
            f"Signed: {format_time(signed_at)}\n")
    signature = Ed25519PrivateKey.from_private_bytes(private_key).sign((body + head).encode("utf-8"))
    return f"{body}{head}Signature: {base64.b64encode(signature).decode('ascii')}\n{END}\n"


@dataclass(frozen=True)
class Record:
    headers: dict[str, Any]
    #: the event log the record transcribes, ``game_created`` and ``seed_revealed`` included
    events: list[dict[str, Any]]
    rounds: list[Any]
    #: Key, Algorithm, Signed, Signature as written
    signature: dict[str, str]
    #: the bytes the signature covers
    signed_bytes: bytes


def parse_record(text: str) -> Record:
    """Read a record; raises :class:`RecordError` (``format``) when it does not follow the format."""
    try:
        return _parse(text)
    except RecordError:
        raise
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise RecordError("format", str(exc)) from exc


def _parse(text: str) -> Record:
    if "\r" in text:
        raise RecordError("format", "lines end with LF only")
    start = text.find("\n" + BEGIN + "\n")
    if start < 0 or not text.endswith("\n" + END + "\n"):
        raise RecordError("format", "the record does not end with a signature block")
    body, block = text[: start + 1], text[start + 1:]
    block_lines = block.split("\n")[1:-2]
    if [line.split(": ", 1)[0] for line in block_lines] != list(_SIGNATURE_FIELDS):
        raise RecordError("format", f"the signature block has the lines {', '.join(_SIGNATURE_FIELDS)}")
    signature = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in block_lines}
    signed_upto = start + 1 + block.index("\nSignature: ") + 1
    sections: list[list[str]] = [[]]
    for line in body.split("\n")[:-1]:
        if line:
            sections[-1].append(line)
        else:
            sections.append([])
    if len(sections) != 4 or sections[3]:
        raise RecordError("format", "the body has three sections (headers, events, scoresheet), each "
                                    "followed by one empty line")
    headers: dict[str, Any] = {}
    for line in sections[0]:
        match = _HEADER.fullmatch(line)
        if match is None:
            raise RecordError("format", f"not a header line: {line[:80]!r}")
        if match[1] in headers:
            raise RecordError("format", f"the header {match[1]} is repeated")
        headers[match[1]] = json.loads(match[2])
    seats = headers.get("Seats")
    if not isinstance(seats, int) or not 2 <= seats <= 4:
        raise RecordError("format", "the Seats header is a number of seats (2 to 4)")
    expected = [*HEADERS_BEFORE_PLAYERS, *(f"Player{s}" for s in range(seats)), *HEADERS_AFTER_PLAYERS]
    if list(headers) != expected:
        raise RecordError("format", f"the headers are, in order: {' '.join(expected)}")
    if headers["Format"] != FORMAT:
        raise RecordError("format", f"this verifier reads {FORMAT}, not {headers['Format']!r}")
    created = {"seq": 1, "type": "game_created", "at": headers["Created"], "seat": None,
               "data": {"ruleset": headers["Ruleset"], "options": headers["Options"], "seats": seats,
                        "server_seed_commitment": headers["Commitment"]}}
    events = [created]
    for line in sections[1]:
        try:
            events.append(_parse_event_line(line))
        except (ValueError, IndexError) as exc:
            raise RecordError("format", f"event line {line[:80]!r}: {exc}") from exc
    events.append({"seq": len(events) + 1, "type": "seed_revealed", "at": headers["Ended"], "seat": None,
                   "data": {"server_seed": headers["Reveal"]}})
    for position, event in enumerate(events, 1):
        if event["seq"] != position:
            raise RecordError("format", f"event {position} is numbered {event['seq']}")
    rounds = [json.loads(line) for line in sections[2]]
    return Record(headers, events, rounds, signature, text[:signed_upto].encode("utf-8"))


@dataclass(frozen=True)
class PublicKey:
    id: str
    key: Ed25519PublicKey
    valid_from: datetime
    valid_until: datetime | None


def load_keys(published: object) -> dict[str, PublicKey]:
    """The keys of a ``/api/keys/`` answer (a JSON array), by id. Raises :class:`RecordError` (``key``)."""
    if not isinstance(published, list):
        raise RecordError("key", "the keys file is not a JSON array of keys")
    keys = {}
    for item in published:
        try:
            if item["algorithm"] != ALGORITHM:
                continue  # a verifier of this format knows Ed25519 only
            raw = base64.b64decode(item["public_key"], validate=True)
            if len(raw) != 32 or key_id(raw) != item["id"]:
                raise RecordError("key", f"the key {item['id']!r} is not the key its id names")
            until = item.get("valid_until")
            keys[item["id"]] = PublicKey(item["id"], Ed25519PublicKey.from_public_bytes(raw),
                                         parse_time(item["valid_from"]), None if until is None else parse_time(until))
        except (KeyError, TypeError, ValueError, binascii.Error) as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError("key", f"a key of the keys file is malformed: {exc}") from exc
    return keys


def verify_record(text: str, published: object) -> dict[str, Any]:
    """Check a record against published keys (the ``/api/keys/`` answer). Returns the engine's
    verifier report (``result``, ``rounds``) with the record's headers; raises :class:`RecordError`
    naming the first thing that is wrong, in the order of docs/records.md "Verifying"."""
    record = parse_record(text)
    keys = load_keys(published)
    sig = record.signature
    key = keys.get(sig["Key"])
    if key is None:
        raise RecordError("key", f"no published key has the id {sig['Key']!r}")
    if sig["Algorithm"] != ALGORITHM:
        raise RecordError("key", f"the record names the algorithm {sig['Algorithm']!r}, not {ALGORITHM}")
    try:
        signed = parse_time(sig["Signed"])
    except ValueError as exc:
        raise RecordError("format", str(exc)) from exc
    if signed < key.valid_from or (key.valid_until is not None and signed > key.valid_until):
        raise RecordError("key", f"the key {key.id} was not valid at {sig['Signed']}")
    try:
        key.key.verify(base64.b64decode(sig["Signature"], validate=True), record.signed_bytes)
    except (InvalidSignature, binascii.Error, ValueError) as exc:
        raise RecordError("signature", f"the signature does not match the record under the key {key.id}") from exc
    reveal, committed = record.headers["Reveal"], record.headers["Commitment"]
    if not is_seed_hex(reveal) or commitment(reveal) != committed:
        raise RecordError("commitment", "the revealed server seed does not open the commitment")
    report = verify_log(list[Mapping[str, Any]](record.events))
    if not report["valid"]:
        # the first event is the headers' (ruleset, seats, options, commitment)
        what = "header" if report["seq"] == 1 else "deal" if report["code"] == "deal_mismatch" else "move"
        raise RecordError(what, f"seq {report['seq']}: {report['code']}: {report['detail']}")
    players = _players(record.events, record.headers["Seats"])
    declared = [record.headers[f"Player{s}"] for s in range(record.headers["Seats"])]
    if players != declared:
        raise RecordError("header", f"the players headers say {declared}, the events seat {players}")
    replayed, declared_result = report["result"], record.headers["Result"]
    if isinstance(replayed, dict) and isinstance(declared_result, dict) and "pair" not in declared_result:
        # A goat-pairs result's ``pair`` follows from the rest of the result and the scoresheet, and a
        # record may leave it out (docs/records.md): records signed before the verifier reported it.
        replayed = {name: value for name, value in replayed.items() if name != "pair"}
    if declared_result != replayed:
        raise RecordError("result", f"the record declares {_json(declared_result)}, "
                                    f"the replay ends with {_json(replayed)}")
    if record.rounds != report["rounds"]:
        first = next((i for i, (a, b) in enumerate(zip(record.rounds, report["rounds"], strict=False)) if a != b),
                     min(len(record.rounds), len(report["rounds"])))
        raise RecordError("result", f"the scoresheet differs from the replay's at its row {first + 1}")
    return {**report, "headers": record.headers, "key": key.id}
