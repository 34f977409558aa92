"""Run every bench in bench/ and write docs/performance.md.

    python bench/run_all.py [--quick] [--out docs/performance.md] [--keep-db]
    DATABASE_URL=postgres://user@host:port/db CELERY_BROKER_URL=redis://host:port/7 python bench/run_all.py

Each bench runs as a subprocess (a fresh interpreter with its own settings) with ``--json``; its figure
and its baseline are always measured side by side in that subprocess, so every row of the table is a
ratio from one run on one machine. Without ``DATABASE_URL`` the database benches run on throwaway
SQLite files and the PostgreSQL-only parts print "skipped: needs PostgreSQL". With a PostgreSQL
``DATABASE_URL`` each database bench gets its own scratch database on that server (created here,
dropped afterwards unless ``--keep-db``), so the 1M-row leaderboard never lands in a real database.
``--quick`` runs every bench in its smoke size (about two minutes in all on SQLite).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, is_postgres_url  # noqa: E402

BENCH = REPO / "bench"

FIGURES_HEADING = "## Figures"
FINDINGS_HEADING = "## What we found"
RAW_HEADING = "## Raw figures"


def findings(out: Path) -> str:
    """The hand-written sections: every section of the existing file after the generated figures and
    before the raw figures, kept as they are, so a rerun replaces only the figures (profiles, fixes and
    the issues' measurements are written by people, in docs/performance.md itself)."""
    if out.exists():
        text = out.read_text(encoding="utf-8")
        figures, end = text.find(FIGURES_HEADING), text.find(RAW_HEADING)
        # the first heading after the generated table (an older file may have "What we found" only)
        start = text.find("\n## ", figures + 1) + 1 if figures != -1 else text.find(FINDINGS_HEADING)
        if 0 < start < end:
            return text[start:end].rstrip("\n") + "\n"  # one blank line before the raw figures, however often rerun
    return f"{FINDINGS_HEADING}\n\n(Profiles and fixes go here.)\n\n"


def scratch_databases(url: str, count: int) -> list[str]:
    import psycopg

    parsed = urlparse(url)
    base = parsed.path.lstrip("/") or "postgres"
    names = [f"{base}_bench_{os.getpid()}_{i}" for i in range(count)]
    with psycopg.connect(url, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    return [urlunparse(parsed._replace(path=f"/{name}")) for name in names]


def drop_databases(admin_url: str, urls: list[str]) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        for url in urls:
            conn.execute(f'DROP DATABASE IF EXISTS "{urlparse(url).path.lstrip("/")}" WITH (FORCE)')


def run_bench(script: str, args: list[str], env: dict, timeout: float) -> tuple[dict, float]:
    started = time.perf_counter()
    cmd = [sys.executable, str(BENCH / script), "--json", *args]
    print(f"$ {' '.join(cmd[1:])}", flush=True)
    try:
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}, time.perf_counter() - started
    elapsed = time.perf_counter() - started
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"exit {proc.returncode}: {' / '.join(tail)}"}, elapsed
    return json.loads(lines[-1]), elapsed


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("PASS" if ok else "MISS")


def rows_of(name: str, f: dict) -> list[tuple]:
    """(bench, figure, baseline, ratio, target, verdict) rows of one bench's JSON."""
    if "error" in f:
        return [(name, f"error: {f['error']}", "", "", "", "ERROR")]
    if "skipped" in f:
        return [(name, f"skipped: {f['skipped']}", "", "", "", "—")]
    if name == "engine_vs_peer":
        return [("engine vs peer", f"ours {f['ours_moves_per_s']:,} moves/s (random 4-seat games)",
                 f"{f['peer']} {f['peer_moves_per_s']:,} moves/s", f"{f['ratio']:.2f}", f["target"],
                 verdict(f["pass"])),
                ("engine simulate vs peer", f"simulate {f['simulate_moves_per_s']:,} moves/s (full event logs)",
                 f"{f['peer']} {f['peer_moves_per_s']:,} moves/s", f"{f['simulate_ratio']:.2f}",
                 f["simulate_target"], verdict(f["simulate_pass"]))]
    if name == "engine_snapshot":
        return [("engine state: JSON dump + load", f"JSON {f['json_us']} µs ({f['json_bytes']} bytes)",
                 f"pickle {f['pickle_us']} µs ({f['pickle_bytes']} bytes)", f"{f['ratio']:.2f}", f["target"],
                 verdict(f["pass"]))]
    if name == "ticker":
        late, cost = f["lateness"], f["cost"]
        return [("ticker: lateness of timeouts",
                 f"p99 {late['p99_s']} s, max {late['max_s']} s ({late['games']} running {late['clock_seconds']} s "
                 f"clocks, {f['database']} + {f['broker']}, {late['missing']} missing)", "the deadlines",
                 f"{late['p99_s']}", late["target"], verdict(late["pass"])),
                ("ticker: cost of an idle tick",
                 f"{cost['large_running']:,} running clocks: {cost['idle_tick_ms_large']} ms",
                 f"{cost['small_running']:,} running clocks: {cost['idle_tick_ms_small']} ms", f"{cost['ratio']:.2f}",
                 cost["target"], verdict(cost["pass"]))]
    if name == "bots":
        rows = []
        for pairing in f["pairings"]:
            label = f"computer: {pairing['tested']} vs {pairing['opponent']}, {pairing['ruleset']} x{pairing['seats']}"
            for target in pairing["targets"]:
                figure = target["figure"]
                if figure == "won":
                    shown = (f"won {pairing['won']:.1%} of {pairing['games']:,} games (tied {pairing['tied']:.1%})",
                             f"the opponent won {1 - pairing['won'] - pairing['tied']:.1%}", f"{pairing['won']:.3f}")
                elif figure == "goat_ratio":
                    shown = (f"the goat in {pairing['goat_rate']:.1%} of {pairing['games']:,} games",
                             f"each opponent seat {pairing['opponent_goat_rate']:.1%}", f"{pairing['goat_ratio']:.3f}")
                else:
                    shown = (f"{pairing['rating_points']} rating points a game (as if rated)",
                             f"each opponent seat {pairing['opponent_rating_points']}",
                             f"{pairing['points_ratio']:.2f}")
                stretch = f" (stretch {target['stretch']})" if "stretch" in target else ""
                rows.append((label, *shown, f"{target['target']}{stretch}", verdict(target["pass"])))
        return rows
    if name == "engine":
        return [("engine verify vs decode", f"verify {f['verify_events_per_s']:,.0f} ev/s",
                 f"json.loads {f['decode_events_per_s']:,.0f} ev/s", f"{f['ratio_verify_to_decode']:.2f}",
                 f"<= {f['target']}", verdict(f["pass"]))]
    if name == "eventstore_vs_peer":
        labels = {"one": "append, one stream", "many": f"append, {f['threads']} threads", "load": "full-stream load"}
        rows = [(f"event store: {label}", f"ours {f[f'{k}_ours_events_per_s']:,} ev/s",
                 f"eventsourcing {f[f'{k}_peer_events_per_s']:,} ev/s", f"{f[f'{k}_ratio']:.2f}", f["target"],
                 verdict(f[f"{k}_pass"])) for k, label in labels.items()]
        rows.append(("event store: load vs peer + json.loads", f"ours {f['load_ours_events_per_s']:,} ev/s (decoded)",
                     f"eventsourcing + json.loads {f['load_peer_decoded_events_per_s']:,} ev/s",
                     f"{f['load_decoded_ratio']:.2f}", "(none: reported)", "—"))
        rows.append(("event store: append inside a command", f"ours {f['command_ours_events_per_s']:,} ev/s "
                     "(the head read, then the append)", f"eventsourcing {f['one_peer_events_per_s']:,} ev/s",
                     f"{f['command_ratio']:.2f}", "(none: reported)", "—"))
        return rows
    if name == "http_load":
        return [(f"HTTP moves (gunicorn, {f.get('server', 'gthread')} workers)",
                 f"{f['moves_per_s']} req/s, p50 {f['moves_p50_ms']} ms, p99 {f['moves_p99_ms']} ms"
                 f" ({f['clients']} clients, {f['database']}, {f['moves_errors']} errors)",
                 f"one-INSERT view {f['ping_per_s']} req/s, p50 {f['ping_p50_ms']} ms, p99 {f['ping_p99_ms']} ms",
                 f"{f['ratio']:.3f}", f["target"], verdict(f["pass"])),
                ("HTTP floor: a move's database work alone",
                 f"{f['floor_per_s']} req/s (token lookup; BEGIN, row lock, one write, COMMIT; no DRF)",
                 f"one-INSERT view {f['ping_per_s']} req/s", f"{f['floor_ratio']:.3f}", "(none: reported)", "—"),
                ("HTTP DRF floor: the same behind DRF",
                 f"{f['drf_floor_per_s']} req/s (auth, permission, throttles, rendering; no goat code)",
                 f"one-INSERT view {f['ping_per_s']} req/s", f"{f['drf_floor_ratio']:.3f}", "(none: reported)", "—"),
                ("HTTP moves vs the DRF floor", f"{f['moves_per_s']} req/s",
                 f"DRF floor {f['drf_floor_per_s']} req/s", f"{f['moves_to_drf_floor']:.3f}", f["drf_floor_target"],
                 verdict(f["drf_floor_pass"]))]
    if name == "play_table":
        return [("play page: the table model per update",
                 f"GET /play/{{id}}/table/ {f['early_model_ms']} / {f['late_model_ms']} ms "
                 f"(move 20 / 300, {f['database']})",
                 f"GET /api/games/{{id}}/ {f['early_view_ms']} / {f['late_view_ms']} ms",
                 f"{f['early_ratio']:.3f} / {f['late_ratio']:.3f}", "(none: reported)", "—")]
    if name == "api":
        late_ok = f["late_early_ratio"] <= 1.2
        return [("scaling (a): move latency late vs early",
                 f"moves 300..319: {f['move_ms_median_300_319']} ms ({f['database']})",
                 f"moves 10..29: {f['move_ms_median_10_29']} ms", f"{f['late_early_ratio']:.3f}",
                 f["late_early_target"], verdict(late_ok))]
    if name == "scaling":
        out = []
        lb = f.get("leaderboard")
        if lb is not None and "skipped" in lb:
            out.append(("scaling (b): leaderboard", f"skipped: {lb['skipped']}", "", "", "", "—"))
        elif lb is not None:
            for page in ("page1", "last_page"):
                label = "page 1" if page == "page1" else "last page"
                out.append((f"scaling (b): leaderboard {label}",
                            f"{lb['large_entries']:,} ledger rows: {lb[f'large_{page}_ms']} ms",
                            f"{lb['small_entries']:,} rows: {lb[f'small_{page}_ms']} ms",
                            f"{lb[f'{page}_ratio']:.2f}", lb["target"], verdict(lb[f"{page}_pass"])))
        rb = f.get("rebuild")
        if rb is not None:
            out.append(("scaling (c): ratings_rebuild",
                        f"{rb['rebuild_events_per_s']:,} ev/s; 100k games ≈ {rb['projected_100k_games_seconds']:,} s "
                        f"(projection from {rb['games']} games)",
                        f"in-memory replay {rb['replay_events_per_s']:,} ev/s", f"{rb['ratio_rebuild_to_replay']:.1f}",
                        "(none: reported)", "—"))
        wk = f.get("worker")
        if wk is not None:
            first, last = wk["checkpoints"][0], wk["checkpoints"][-1]
            out.append(("scaling (d): Celery worker RSS",
                        f"after {last:,} games: {wk[f'rss_mb_at_{last}']} MB ({wk['broker']} broker)",
                        f"after {first:,} games: {wk[f'rss_mb_at_{first}']} MB", f"{wk['ratio']:.3f}",
                        wk["target"], verdict(wk["pass"])))
        return out
    return [(name, json.dumps(f)[:200], "", "", "", "—")]


def machine_facts(db_url: str | None) -> list[str]:
    import sqlite3

    facts = [f"- cores: {os.cpu_count()}", f"- Python: {platform.python_version()} ({platform.platform(terse=True)})"]
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    for name in ("Django", "djangorestframework", "gunicorn", "psycopg"):
        try:
            facts.append(f"- {name}: {package_version(name)}")
        except PackageNotFoundError:  # pragma: no cover
            pass
    if db_url and is_postgres_url(db_url):
        import psycopg

        with psycopg.connect(db_url) as conn:
            (version,) = conn.execute("SHOW server_version").fetchone()
        facts.append(f"- database: PostgreSQL {version}")
    else:
        facts.append(f"- database: SQLite {sqlite3.sqlite_version} (PostgreSQL-only parts skipped)")
    broker = os.environ.get("CELERY_BROKER_URL", "filesystem://")
    if broker.startswith("redis"):
        try:
            import redis

            facts.append(f"- Celery broker: Redis {redis.Redis.from_url(broker).info().get('redis_version')}")
        except Exception:  # noqa: BLE001 - informational only
            facts.append("- Celery broker: Redis")
    else:
        facts.append("- Celery broker: filesystem (kombu)")
    return facts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke sizes: every bench in seconds")
    parser.add_argument("--out", default=str(REPO / "docs" / "performance.md"))
    parser.add_argument("--keep-db", action="store_true", help="keep the scratch PostgreSQL databases")
    args = parser.parse_args(argv)
    quick = ["--quick"] if args.quick else []
    db_url = os.environ.get("DATABASE_URL") or None
    postgres = bool(db_url and is_postgres_url(db_url))
    plan = [
        ("engine_vs_peer", "engine_vs_peer.py", quick, False, 600),
        ("engine", "engine.py", ["--games", "120", "--repeat", "3"] if args.quick else [], False, 900),
        ("engine_snapshot", "engine_snapshot.py", quick, False, 600),
        ("bots", "bots.py", ["--games", "100"] if args.quick else [], False, 1800),
        # the HTTP and latency benches before the event store's, whose hundreds of thousands of rows may
        # keep PostgreSQL's autovacuum busy after it (a full run's moves/s once read a third below the
        # bench run alone minutes later; the cause was not pinned down)
        ("http_load", "http_load.py", quick, True, 900),
        ("api", "api.py", ["--baseline", "100"] if args.quick else [], True, 900),
        ("play_table", "play_table.py", ["--repeat", "30"] if args.quick else [], True, 600),
        ("eventstore_vs_peer", "eventstore_vs_peer.py", quick, True, 1200),
        ("scaling", "scaling.py", quick, True, 3600),
        # last: its worker purges the broker's queues (bench/ticker.py)
        ("ticker", "ticker.py", quick, True, 900),
    ]
    scratch = scratch_databases(db_url, sum(1 for p in plan if p[3])) if postgres else []
    started = time.perf_counter()
    results: list[tuple[str, dict, float]] = []
    try:
        pool = iter(scratch)
        for name, script, bench_args, needs_db, timeout in plan:
            env = dict(os.environ)
            if needs_db and postgres:
                env["DATABASE_URL"] = next(pool)
            elif not postgres:
                env.pop("DATABASE_URL", None)  # each bench makes its own throwaway SQLite file
            figures, elapsed = run_bench(script, bench_args, env, timeout)
            results.append((name, figures, elapsed))
            for row in rows_of(name, figures):
                print(f"  {row[0]}: {row[1]} | baseline {row[2]} | ratio {row[3]} {row[4]} {row[5]}", flush=True)
    finally:
        if scratch and not args.keep_db:
            drop_databases(db_url, scratch)
    total = time.perf_counter() - started

    table = ["| bench | figure | baseline (same run) | ratio | target | verdict |", "|---|---|---|---|---|---|"]
    for name, figures, _ in results:
        for row in rows_of(name, figures):
            table.append("| " + " | ".join(str(c).replace("|", "/") for c in row) + " |")
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    mode = "quick (smoke sizes: the figures are noisy)" if args.quick else "full"
    doc = [
        "# Performance",
        "",
        f"Written by `python bench/run_all.py{' --quick' if args.quick else ''}` on {now}, {mode} run, "
        f"{total:.0f} s in all. Every ratio compares a figure with a baseline measured side by side in the same "
        "process and run (medians of repetitions), so it does not depend on how fast this machine is; the "
        "absolute numbers are only for reading. The machine is shared with other work, so ratios move by "
        "10-20% between runs.",
        "",
        "## Machine",
        "",
        *machine_facts(db_url),
        "",
        FIGURES_HEADING,
        "",
        *table,
        "",
        "Per bench: " + ", ".join(f"{name} {elapsed:.0f} s" for name, _, elapsed in results) + ".",
        "Rerun: `python bench/run_all.py` (SQLite) or with `DATABASE_URL=postgres://...` and "
        "`CELERY_BROKER_URL=redis://...` for the PostgreSQL parts; each bench also runs alone "
        "(`python bench/<name>.py --help`).",
        "",
        findings(Path(args.out)),
        RAW_HEADING,
        "",
        "```json",
        json.dumps({name: figures for name, figures, _ in results}, indent=1, sort_keys=True),
        "```",
        "",
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(doc), encoding="utf-8")
    print(f"wrote {out} ({total:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
