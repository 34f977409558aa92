"""Our event store against the ``eventsourcing`` library's PostgreSQL recorder, same database, same run.

    DATABASE_URL=postgres://... python bench/eventstore_vs_peer.py [--games N] [--threads T] [--quick] [--json]

Real events: games from ``goat.engine.simulate`` (goat-classic, 2 seats), cut into the batches a
command appends (the client's move plus every forced draw, knock and deal it caused). Each side
stores the same events; ours as rows of ``goat_gameevent``, the peer's as ``StoredEvent(originator_id,
originator_version, topic=type, state=the event's JSON bytes)`` in its own table.

* ours, one append = ``goat.games.eventstore.events_append``: the hash chain, then ONE statement that moves
  the stream head (the game row's ``version``, ``last_hash``) ``WHERE version = expected`` (which takes
  the row lock) and inserts the batch (``INSERT ... FROM json_to_recordset(...)``), in one CTE; a writer that lost
  the race gets ``StreamConflict`` and nothing is written;
* ours inside a command, reported beside it (no target): what a command of ``goat.games.services`` adds
  around that append to decide on current state: the head read without a lock (``eventstore.game_head``),
  then the append naming the version read (no transaction around the two: the append is the check);
* peer, one append = ``PostgresApplicationRecorder.insert_events`` (its transaction: table lock,
  NOTIFY, INSERT ... FROM unnest(...) RETURNING notification_id, pipelined);
* reported beside the load (no target): the peer's load plus ``json.loads`` of each event, what its
  caller must do before using an event (``events_load`` returns events already decoded);
* figures: append events/s on one stream at a time; append events/s with T threads at once, each with
  its own connection and its own streams; full-stream load events/s (``events_load`` vs
  ``select_events``; the peer's rows stay undecoded bytes, ours come back as decoded events).

Repetitions alternate the sides; each figure is a ratio of medians, ours / peer. Target >= 1.0.
PostgreSQL only (the peer recorder is PostgreSQL's); elsewhere it prints "skipped".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, is_postgres_url, skipped, timed, use_database  # noqa: E402

TARGET = 1.0
#: events that start a new command's batch (everything else is forced by the engine)
COMMAND_EVENTS = {"game_created", "tile_played", "timed_out", "resigned"}
PEER_TABLE = "bench_peer_stored_events"


def command_batches(log: list[dict]) -> list[list[dict]]:
    """Cut a simulated log into the batches the services append: create (+ seat 0), each join
    (+ the deal it forces), each move (+ forced draws, knocks, deals, the seed reveal)."""
    batches: list[list[dict]] = []
    previous = None
    for event in log:
        kind = event["type"]
        if not batches or kind in COMMAND_EVENTS or (kind == "seat_taken" and previous != "game_created"):
            batches.append([])
        batches[-1].append({"type": kind, "seat": event["seat"], "data": event["data"]})
        previous = kind
    return batches


def simulated_games(count: int, seed: int) -> list[list[list[dict]]]:
    from goat.engine.simulate import simulate

    return [command_batches(log) for log in simulate(ruleset="goat-classic", seats=2, seed=seed, count=count,
                                                     interrupt_chance=0.0)]


# --- ours ----------------------------------------------------------------------------------------


def ours_new_streams(count: int, user) -> list[int]:
    from goat.games.models import Game, GameStatus

    games = Game.objects.bulk_create([
        Game(ruleset="goat-classic", options={}, seats=2, status=GameStatus.RUNNING, server_seed="0" * 64,
             server_seed_commitment="0" * 64, created_by=user) for _ in range(count)])
    return [g.pk for g in games]


def ours_append_game(game_id: int, batches: list[list[dict]]) -> None:
    """The store's append on its own (autocommit): the writer knows its stream's head, like the peer's."""
    from goat.games import eventstore
    from goat.games.models import Game

    game = Game.objects.only("id", "version", "last_hash").get(pk=game_id)
    for batch in batches:
        eventstore.events_append(game=game, events=batch)


def ours_command_append_game(game_id: int, batches: list[list[dict]]) -> None:
    """The append as a command makes it: the head read without a lock, then the optimistic append."""
    from goat.games import eventstore

    for batch in batches:
        game, _seat, _players = eventstore.game_head(game_id=game_id)  # type: ignore[misc]  # the stream exists
        eventstore.events_append(game=game, events=batch)


def ours_load(game_ids: list[int]) -> int:
    from goat.games import eventstore

    return sum(len(eventstore.events_load(game_id=gid)) for gid in game_ids)


# --- peer ----------------------------------------------------------------------------------------


def peer_recorder(url: str, pool_size: int):
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    u = urlparse(url)
    datastore = PostgresDatastore(dbname=u.path.lstrip("/"), host=u.hostname or "127.0.0.1", port=u.port or 5432,
                                  user=unquote(u.username or "postgres"), password=unquote(u.password or ""),
                                  pool_size=pool_size)
    recorder = PostgresApplicationRecorder(datastore, events_table_name=PEER_TABLE)
    recorder.create_table()
    return datastore, recorder


def peer_append_game(recorder, stream: uuid.UUID, batches: list[list[dict]]) -> None:
    from eventsourcing.persistence import StoredEvent

    from goat.games.eventstore import format_at

    version = 0
    for batch in batches:
        at = format_at(datetime.now(UTC))
        stored = []
        for event in batch:
            version += 1
            body = {"seq": version, "type": event["type"], "at": at, "seat": event["seat"], "data": event["data"]}
            stored.append(StoredEvent(originator_id=stream, originator_version=version, topic=event["type"],
                                      state=json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()))
        recorder.insert_events(stored)


def peer_load(recorder, streams: list[uuid.UUID]) -> int:
    return sum(len(recorder.select_events(stream)) for stream in streams)


def peer_load_decoded(recorder, streams: list[uuid.UUID]) -> int:
    """The peer's load plus what its caller does next: decode each event's stored JSON."""
    loads = json.loads
    return sum(len([loads(e.state) for e in recorder.select_events(stream)]) for stream in streams)


# --- the run -------------------------------------------------------------------------------------


def threaded(target, chunks: list) -> float:
    """Wall seconds for ``len(chunks)`` threads, each running ``target(chunk)``, started together."""
    barrier = threading.Barrier(len(chunks) + 1)
    errors: list[BaseException] = []

    def work(chunk):
        try:
            barrier.wait()
            target(chunk)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            from django.db import connection

            connection.close()

    threads = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    barrier.wait()
    started = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return elapsed


def run(games: int, threads: int, repeat: int, seed: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0, interactive=False)
    user, _ = get_user_model().objects.get_or_create(username="bench-eventstore")
    logs = simulated_games(games, seed)
    events_per_rep = sum(len(b) for log in logs for b in log)
    batches_per_rep = sum(len(log) for log in logs)
    datastore, recorder = peer_recorder(os.environ["DATABASE_URL"], pool_size=threads)
    try:
        # warm-up: one game each side
        ours_append_game(ours_new_streams(1, user)[0], logs[0])
        peer_append_game(recorder, uuid.uuid4(), logs[0])
        samples = {k: [] for k in ("ours_one", "peer_one", "ours_many", "peer_many", "ours_load", "peer_load",
                                   "ours_command", "peer_load_decoded")}
        for _ in range(repeat):
            # one stream at a time
            ids = ours_new_streams(games, user)
            streams = [uuid.uuid4() for _ in range(games)]
            samples["ours_one"].append(timed(lambda ids=ids: [ours_append_game(g, log)
                                                              for g, log in zip(ids, logs, strict=True)]))
            samples["peer_one"].append(timed(lambda streams=streams: [peer_append_game(recorder, s, log)
                                                                      for s, log in zip(streams, logs, strict=True)]))
            command_ids = ours_new_streams(games, user)
            samples["ours_command"].append(timed(lambda command_ids=command_ids: [
                ours_command_append_game(g, log) for g, log in zip(command_ids, logs, strict=True)]))
            # full-stream loads of what was just written
            samples["ours_load"].append(timed(lambda ids=ids: ours_load(ids)))
            samples["peer_load"].append(timed(lambda streams=streams: peer_load(recorder, streams)))
            samples["peer_load_decoded"].append(timed(lambda streams=streams: peer_load_decoded(recorder, streams)))
            # many streams at once: T threads, each its own connection and its own streams
            ids = ours_new_streams(games, user)
            streams = [uuid.uuid4() for _ in range(games)]
            pairs_ours = [list(zip(ids, logs, strict=True))[i::threads] for i in range(threads)]
            pairs_peer = [list(zip(streams, logs, strict=True))[i::threads] for i in range(threads)]
            samples["ours_many"].append(threaded(lambda chunk: [ours_append_game(g, log) for g, log in chunk],
                                                 pairs_ours))
            samples["peer_many"].append(threaded(lambda chunk: [peer_append_game(recorder, s, log) for s, log in chunk],
                                                 pairs_peer))
    finally:
        datastore.close()
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {PEER_TABLE}")
            cursor.execute("DROP FUNCTION IF EXISTS es_insert_events_uuid")
            cursor.execute("DROP TYPE IF EXISTS stored_event_uuid")
    med = {k: statistics.median(v) for k, v in samples.items()}
    rate = {k: events_per_rep / v for k, v in med.items()}
    es_version = metadata.version("eventsourcing")

    figures = {
        "bench": "eventstore_vs_peer", "peer": f"eventsourcing {es_version} PostgresApplicationRecorder",
        "database": connection.vendor, "games_per_rep": games, "events_per_rep": events_per_rep,
        "appends_per_rep": batches_per_rep, "threads": threads, "repeat": repeat,
        "event_bytes_mean": round(statistics.mean(len(json.dumps(e)) for log in logs for b in log for e in b)),
    }
    for what in ("one", "many", "load"):
        ratio = rate[f"ours_{what}"] / rate[f"peer_{what}"]
        figures[f"{what}_ours_events_per_s"] = round(rate[f"ours_{what}"])
        figures[f"{what}_peer_events_per_s"] = round(rate[f"peer_{what}"])
        figures[f"{what}_ratio"] = round(ratio, 3)
        figures[f"{what}_pass"] = ratio >= TARGET
    figures["command_ours_events_per_s"] = round(rate["ours_command"])
    figures["command_ratio"] = round(rate["ours_command"] / rate["peer_one"], 3)
    figures["load_peer_decoded_events_per_s"] = round(rate["peer_load_decoded"])
    figures["load_decoded_ratio"] = round(rate["ours_load"] / rate["peer_load_decoded"], 3)
    figures["target"] = f">= {TARGET}"
    figures["pass"] = all(figures[f"{w}_pass"] for w in ("one", "many", "load"))
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games (streams) per repetition and side")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a few seconds (CI smoke)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.repeat = 8, 3
    url = use_database()
    if not is_postgres_url(url):
        return skipped("eventstore_vs_peer", "needs PostgreSQL (set DATABASE_URL)", args.json)
    import django

    django.setup()
    f = run(args.games, args.threads, args.repeat, args.seed)
    names = {"one": "append, one stream at a time", "many": f"append, {f['threads']} threads at once",
             "load": "full-stream load"}
    lines = [f"event store vs {f['peer']}: {f['events_per_rep']} events in {f['appends_per_rep']} appends "
             f"({f['games_per_rep']} games) per side, median of {f['repeat']}"]
    for what, name in names.items():
        lines.append(f"  {name:<32} ours {f[f'{what}_ours_events_per_s']:>9,} ev/s  peer "
                     f"{f[f'{what}_peer_events_per_s']:>9,} ev/s  ratio {f[f'{what}_ratio']:.2f} "
                     f"(>= {TARGET}): {'PASS' if f[f'{what}_pass'] else 'MISS'}")
    lines.append(f"  {'append inside a command':<32} ours {f['command_ours_events_per_s']:>9,} ev/s  "
                 f"(the head read, then the append) ratio to the peer {f['command_ratio']:.2f} (reported, no target)")
    lines.append(f"  {'load, peer + json.loads':<32} ours {f['load_ours_events_per_s']:>9,} ev/s  peer "
                 f"{f['load_peer_decoded_events_per_s']:>9,} ev/s  ratio {f['load_decoded_ratio']:.2f} "
                 "(reported, no target: ours returns decoded events, the peer bytes)")
    emit(f, args.json, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
