"""``/metrics`` of the real ``python manage.py run`` (gunicorn with two uvicorn workers, a Celery
worker and a beat as separate processes), scraped over TCP and parsed with prometheus_client's parser:

* from loopback it answers; from the machine's non-loopback address (a real non-loopback source
  address) it is 404, also with a forged ``X-Forwarded-For``, unless the request carries the token;
* every scrape, whichever web worker answers it, shows the requests of every worker (multiprocess
  mode), and a killed web worker's counts stay in the totals;
* what only the Celery worker does (the ticker's timeouts) shows on the web's ``/metrics``;
* open streams and their delivery, the scrape-time gauges.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from testkit import RUN_THROTTLES_OFF, ManageRun, wait_for

START_TIMEOUT = 90
TOKEN = "scrape-token-for-the-test"
pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX"),
    pytest.mark.realprocess,  # a real `manage.py run`, on the embedded defaults in its own directory
]


def _non_loopback_address() -> str | None:
    """An address of this machine's own non-loopback interface (the one a route out would use)."""
    for family, target in ((socket.AF_INET, ("192.0.2.1", 9)), (socket.AF_INET6, ("2001:db8::1", 9))):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as probe:
                probe.connect(target)  # UDP: no packet is sent, the kernel only picks a source address
                address = probe.getsockname()[0]
        except OSError:
            continue
        if not address.startswith("127.") and address != "::1":
            return address
    return None


class Run(ManageRun):
    def __init__(self, cwd: Path):
        self.data = cwd / "goat-data"
        outside = _non_loopback_address()
        hosts = ["localhost", "127.0.0.1", *([outside, f"[{outside}]"] if outside else [])]
        super().__init__(cwd, host="0.0.0.0", args=["--web-workers", "2", "--worker-concurrency", "1"],
                         migrated=True, drop={"PROMETHEUS_MULTIPROC_DIR", "GOAT_METRICS_ALLOW", "GOAT_TRUSTED_PROXIES"},
                         env={"GOAT_METRICS_TOKEN": TOKEN, "ALLOWED_HOSTS": ",".join(hosts),
                              "GOAT_ADMIN_PASSWORD": "staff-pass-123", **RUN_THROTTLES_OFF,
                              "GOAT_THROTTLE_ANON": "100000/min"})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    server = Run(tmp_path_factory.mktemp("metrics-run"))
    try:
        server.wait_healthy(START_TIMEOUT)
        yield server
    finally:
        server.stop()
        assert server.group_gone(5)


def call(host: str, port: int, method: str, path: str, body=None, headers=None):
    """One request on a new connection (so that either web worker may answer it)."""
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def scrape(run: Run, host: str = "127.0.0.1", headers=None) -> dict[str, dict[tuple, float]]:
    status, raw = call(host, run.port, "GET", "/metrics", headers=headers)
    assert status == 200, raw[:300]
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(raw.decode()):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def value(samples, name, **labels) -> float:
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


def player(run: Run, name: str) -> str:
    password = f"pw-{name}-long-enough"
    assert call("127.0.0.1", run.port, "POST", "/api/players/", {"username": name, "password": password})[0] == 201
    status, raw = call("127.0.0.1", run.port, "POST", "/api/auth/token/", {"username": name, "password": password})
    return json.loads(raw)["token"]


def test_only_loopback_or_the_token_reads_it_from_a_real_non_loopback_source(run):
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback interface address")
    host = address
    assert call(host, run.port, "GET", "/health/")[0] == 200  # the server answers on that address
    status, body = call(host, run.port, "GET", "/metrics")
    assert (status, b"goat_" in body) == (404, False)
    # a forged header does not make the request loopback (no trusted proxy is configured)
    assert call(host, run.port, "GET", "/metrics", headers={"X-Forwarded-For": "127.0.0.1"})[0] == 404
    assert call(host, run.port, "GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}x"})[0] == 404
    samples = scrape(run, host, headers={"Authorization": f"Bearer {TOKEN}"})
    assert "goat_http_requests_total" in samples


def test_every_scrape_counts_every_web_workers_requests_and_a_dead_workers_stay(run):
    route = {"route": "/health/", "method": "GET", "status": "200"}
    before = value(scrape(run), "goat_http_requests_total", **route)
    for _ in range(30):
        assert call("127.0.0.1", run.port, "GET", "/health/")[0] == 200
    seen = {value(scrape(run), "goat_http_requests_total", **route) for _ in range(6)}
    assert seen == {before + 30}, "a scrape answered by one worker missed the other's requests"
    files = {p.name.split("_")[-1][:-3] for p in (run.data / "metrics").glob("counter_*.db")}
    assert len(files) >= 3, files  # two web workers and the Celery worker (at least) wrote counters

    gunicorn_workers = _web_worker_pids(run)
    assert len(gunicorn_workers) == 2, gunicorn_workers
    os.kill(gunicorn_workers[0], signal.SIGKILL)
    wait_for(lambda: len(_web_worker_pids(run)) == 2 and gunicorn_workers[0] not in _web_worker_pids(run),
             timeout=30, what="gunicorn starting a new worker")
    run.wait_http_ok(f"http://127.0.0.1:{run.port}/health/", 30)
    after = value(scrape(run), "goat_http_requests_total", **route)
    assert after >= before + 31  # the killed worker's count is still in the total


def _web_worker_pids(run: Run) -> list[int]:
    """The gunicorn workers: children of the gunicorn master, itself a child of `run`."""
    def children(pid: int) -> list[int]:
        try:
            text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def cmdline(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return ""

    masters = [p for p in children(run.pid) if "gunicorn" in cmdline(p)]
    return [w for m in masters for w in children(m)]


def test_the_celery_workers_timeouts_streams_and_gauges_show_on_the_webs_metrics(run):
    suffix = time.monotonic_ns() % 10**6
    tokens = [player(run, f"met{i}{suffix}") for i in range(2)]
    status, raw = call("127.0.0.1", run.port, "POST", "/api/games/",
                       {"ruleset": "goat-classic", "seats": 2, "options": {"move_time": 2}},
                       {"Authorization": f"Token {tokens[0]}"})
    assert status == 201, raw
    game_id = json.loads(raw)["id"]
    before = scrape(run)

    # a stream open on the game until it ends
    conn = http.client.HTTPConnection("127.0.0.1", run.port, timeout=60)
    conn.request("GET", f"/api/games/{game_id}/stream/",
                 headers={"Authorization": f"Token {tokens[0]}", "Accept": "application/x-ndjson"})
    stream = conn.getresponse()
    assert stream.status == 200
    lines: list[bytes] = []
    reader = threading.Thread(target=lambda: lines.extend(stream), daemon=True)
    reader.start()
    wait_for(lambda: lines, timeout=20, what="the stream's state")
    assert value(scrape(run), "goat_streams_open") >= 1

    assert call("127.0.0.1", run.port, "POST", f"/api/games/{game_id}/join/", {},
                {"Authorization": f"Token {tokens[1]}"})[0] == 200
    # nobody moves: the ticker (the Celery worker, another process) times the game out
    timed_out = {"command": "time_out", "result": "committed"}
    wait_for(lambda: value(scrape(run), "goat_commands_total", **timed_out) > value(before, "goat_commands_total",
                                                                                   **timed_out),
             timeout=45, what="a timeout counted by the Celery worker")
    after = scrape(run)
    assert value(after, "goat_ticker_lateness_seconds_count") > value(before, "goat_ticker_lateness_seconds_count")
    assert value(after, "goat_commands_total", command="join", result="committed") > value(
        before, "goat_commands_total", command="join", result="committed")
    reader.join(20)  # the game ended: its stream ends
    assert not reader.is_alive()
    conn.close()
    wait_for(lambda: value(scrape(run), "goat_streams_open") == 0, timeout=20, what="the stream counted closed")
    final = scrape(run)
    assert value(final, "goat_stream_delivery_seconds_count") > value(before, "goat_stream_delivery_seconds_count")
    assert value(final, "goat_ticker_overdue_clocks") == 0
    assert {dict(k)["queue"] for k in final["goat_celery_queue_length"]} == {"celery", "clock"}
    # the ended game's projections run on the worker: the backlog empties
    wait_for(lambda: value(scrape(run), "goat_projection_backlog_games") == 0, timeout=30,
             what="the projection backlog to empty")
