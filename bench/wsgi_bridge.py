"""What the API's WSGI bridge costs per request: goat's one-crossing bridge against a2wsgi's, in process.

    python bench/wsgi_bridge.py [--requests N] [--in-flight K] [--rounds R] [--json]

``manage.py run`` serves the API's views through ``goat.serve.bridge.Bridge`` inside each uvicorn
worker (goat/serve/server.py): the body already read in the loop, the application run on a pool
thread in one ``run_in_executor``, the response taken whole. a2wsgi's ``WSGIMiddleware``, which goat
used before, crosses between the loop and the thread several times per request: the thread asks the
loop for the body, and hands it the response's start, each body chunk and its end, each a
``run_coroutine_threadsafe`` it blocks on. This bench puts a number on those crossings, with no
Django, network or database in the way: N requests (default 5,000), K in flight (default 8, what
bench/http_load.py keeps in flight), 4 threads each (the server's default), a trivial WSGI
application that reads a move-sized body and answers 600 bytes, through

* ``a2wsgi``: a2wsgi's ``WSGIMiddleware``;
* ``goat``: goat's ``Bridge``.

Reported: CPU (``time.process_time``) and wall time per request of each (the median of R rounds,
default 3), and the ratio a2wsgi / goat. No target: a bench without a busy loop shows the crossings'
own cost, not the waits for a loop busy with streams that the soak shows (docs/capacity.md).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit  # noqa: E402

BODY = b'{"tile": "3-5", "end": "left"}'
ANSWER = b"x" * 600
THREADS = 4


def application(environ, start_response):
    environ["wsgi.input"].read()
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER)))])
    return [ANSWER]


SCOPE = {"type": "http", "method": "POST", "path": "/api/games/1/moves/", "raw_path": b"/api/games/1/moves/",
         "query_string": b"", "headers": [(b"content-type", b"application/json"),
                                          (b"content-length", str(len(BODY)).encode())],
         "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000), "scheme": "http", "http_version": "1.1",
         "root_path": "", "asgi": {"version": "3.0"}}


async def receive():
    return {"type": "http.request", "body": BODY, "more_body": False}


async def send(message):
    return None


def goat_app():
    from goat.serve.bridge import Bridge

    bridge = Bridge(application, threads=THREADS)

    async def app(scope, receive_, send_):  # as goat.serve.server.split: the body read in the loop first
        await bridge(scope, (await receive_())["body"], send_)

    return app


async def drive(app, requests: int, in_flight: int) -> None:
    gate = asyncio.Semaphore(in_flight)

    async def one():
        async with gate:
            await app(dict(SCOPE), receive, send)

    await asyncio.gather(*(one() for _ in range(requests)))


def measure(app, requests: int, in_flight: int) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    asyncio.run(drive(app, requests, in_flight))
    return ((time.process_time() - cpu) / requests * 1e6, (time.perf_counter() - wall) / requests * 1e6)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from a2wsgi import WSGIMiddleware

    bridges = {"a2wsgi": WSGIMiddleware(application, workers=THREADS),
               "goat": goat_app()}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in bridges}
    for _ in range(args.rounds):  # alternating, so both see the same machine
        for name, app in bridges.items():
            runs[name].append(measure(app, args.requests, args.in_flight))
    cpu = {name: statistics.median(r[0] for r in rs) for name, rs in runs.items()}
    wall = {name: statistics.median(r[1] for r in rs) for name, rs in runs.items()}
    figures = {"bench": "wsgi_bridge", "requests": args.requests, "in_flight": args.in_flight,
               "rounds": args.rounds, "a2wsgi_cpu_us": round(cpu["a2wsgi"], 1),
               "goat_cpu_us": round(cpu["goat"], 1), "a2wsgi_wall_us": round(wall["a2wsgi"], 1),
               "goat_wall_us": round(wall["goat"], 1),
               "ratio": round(cpu["a2wsgi"] / cpu["goat"], 2), "target": "(none: reported)", "pass": None}
    emit(figures, args.json, [
        f"wsgi bridge: {args.requests} requests, {args.in_flight} in flight, median of {args.rounds} rounds",
        f"  a2wsgi   {cpu['a2wsgi']:7.1f} us CPU, {wall['a2wsgi']:7.1f} us wall per request",
        f"  goat     {cpu['goat']:7.1f} us CPU, {wall['goat']:7.1f} us wall per request",
        f"  ratio a2wsgi / goat (CPU): {figures['ratio']} (reported, no target)",
    ])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
