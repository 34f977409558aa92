"""Prometheus metrics: what ``/metrics`` shows (docs/operations.md "Metrics").

Every process of a deployment counts into its own files in ``PROMETHEUS_MULTIPROC_DIR``
(prometheus_client's multiprocess mode): the gunicorn/uvicorn workers, the Celery worker's pool
processes, the beat. ``/metrics`` in any web process adds up every file of that directory, so one
scrape sees the whole process set that shares it. Without the variable (tests, ``runserver``) the
metrics live in this process's memory and ``/metrics`` shows this process alone.

The directory is set up and emptied by whoever starts the process set (``manage.py run``;
gunicorn.conf.py when gunicorn runs alone; compose's ``migrate``), never by a process that is
restarted inside it: the counters of a dead process are part of the totals. A dead process's gauge
files are removed (``process_dead``) by its parent: gunicorn's ``child_exit`` hook, Celery's
process-shutdown signal.

Gauges that need a query (queue depths, the ticker's overdue clocks, the projection backlog) are
computed when ``/metrics`` is read, by the functions registered with ``scrape_register``.

This module imports no Django at module level: gunicorn's master imports it for ``child_exit``.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, values
from prometheus_client.core import GaugeMetricFamily, Metric

logger = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: this machine's name as a file-name part (prometheus_client splits file names on "_")
_HOST = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:63] or "host"


def process_id(pid: int | None = None) -> str:
    """The name of a process's metric files: host and pid, so that containers sharing one directory
    (their pids start at 1 in each) never write one file. prometheus_client asks for it at every
    update (to notice a fork): this process's own is kept, and computed again in a forked child."""
    if pid is None:
        return _own[0]
    return f"{_HOST}-{pid}"


_own = [f"{_HOST}-{os.getpid()}"]


def _forked() -> None:
    _own[0] = f"{_HOST}-{os.getpid()}"


os.register_at_fork(after_in_child=_forked)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


if multiprocess_dir():
    # Before any metric exists: every value is a file named after process_id() (checked again after
    # a fork, as prometheus_client does with the pid), in a directory that exists.
    Path(multiprocess_dir()).mkdir(parents=True, exist_ok=True)  # type: ignore[arg-type]
    values.ValueClass = values.MultiProcessValue(process_identifier=process_id)


def multiprocess_dir_reset(path: str | os.PathLike) -> Path:
    """Create ``path`` and delete every metric file in it (at the start of a process set)."""
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    for entry in directory.glob("*.db"):
        entry.unlink(missing_ok=True)
    return directory


def host_live_gauges_forget(path: str | os.PathLike) -> None:
    """Delete the live gauge files of every earlier process of this machine (a web server starting
    again: its streams of before are closed), keeping every counter."""
    for entry in Path(path).glob(f"gauge_live*_{_HOST}-*.db"):
        entry.unlink(missing_ok=True)


def process_dead(pid: int, path: str | None = None) -> None:
    """Forget the live gauges (open streams) of a process that has exited; its counters stay."""
    path = path or multiprocess_dir()
    if not path:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(process_id(pid), path)


#: the metrics of this process (outside multiprocess mode, what ``/metrics`` shows)
REGISTRY = CollectorRegistry(auto_describe=True)

#: request latency buckets (s): a move answers in a few ms; the API's target is p99 under 100 ms
_HTTP_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Counter(
    "goat_http_requests", "HTTP requests answered, by URL pattern, method and status.",
    ["route", "method", "status"], registry=REGISTRY)
HTTP_DURATION = Histogram(
    "goat_http_request_duration_seconds",
    "Time to answer an HTTP request (to the start of a stream's body), by URL pattern and method.",
    ["route", "method"], buckets=_HTTP_BUCKETS, registry=REGISTRY)
COMMANDS = Counter(
    "goat_commands", "Game commands by command and result (committed, or the refusal's code).",
    ["command", "result"], registry=REGISTRY)
APPEND_RETRIES = Counter(
    "goat_append_retries", "Commands decided again after another writer appended first (optimistic append).",
    registry=REGISTRY)
STREAMS_OPEN = Gauge(
    "goat_streams_open", "Live streams (game streams and feeds) open now.",
    registry=REGISTRY, multiprocess_mode="livesum")
STREAM_DELIVERY = Histogram(
    "goat_stream_delivery_seconds",
    "From a command's publish to its update written to a stream (wall clocks of two processes).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5), registry=REGISTRY)
TICKER_LATENESS = Histogram(
    "goat_ticker_lateness_seconds", "How long after its deadline the ticker timed a game out.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0), registry=REGISTRY)
COMPUTER_MOVES = Counter(
    "goat_computer_moves", "Moves played by computer players, by level.", ["level"], registry=REGISTRY)


@contextmanager
def command_counted(command: str):
    """Count one command: ``committed`` if the block returns, else the refusal's ``code`` (any
    exception with a string ``code``, e.g. ServiceError or the engine's RulesError), else ``error``."""
    try:
        yield
    except Exception as exc:
        code = getattr(exc, "code", None)
        COMMANDS.labels(command, code if isinstance(code, str) and code else "error").inc()
        raise
    COMMANDS.labels(command, "committed").inc()


def stream_delivered(sent: float | None) -> None:
    """Record the delivery delay of an update a stream writes now, caused by messages published at
    ``sent`` (the earliest of them; ``live`` stamps each payload with its publisher's wall clock)."""
    if sent:
        STREAM_DELIVERY.observe(max(0.0, time.time() - sent))


# --- scrape-time gauges ------------------------------------------------------------------------

#: functions called at every scrape, each returning metric families (e.g. a GaugeMetricFamily)
_scrapers: list[Callable[[], Iterable[Metric]]] = []


def scrape_register(scraper: Callable[[], Iterable[Metric]]) -> None:
    """Register ``scraper`` (once per function): its metrics are computed when ``/metrics`` is read."""
    if scraper not in _scrapers:
        _scrapers.append(scraper)


class _ScrapeTime:
    def collect(self) -> Iterable[Metric]:
        for scraper in list(_scrapers):
            try:
                yield from scraper()
            except Exception:  # one failing source (a database down) must not hide the others
                logger.warning("metrics: %s failed", getattr(scraper, "__name__", scraper), exc_info=True)


class _Of:
    """A collector that yields what another registry collects."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry

    def collect(self) -> Iterable[Metric]:
        return self.registry.collect()


class _ProcessFiles:
    """Every process's metric files in ``path``, added up as prometheus_client's MultiProcessCollector
    adds them, less the files still empty.

    A process creates its file empty and sizes it a moment later (``MmapedDict.__init__``); a scrape
    that read it in that moment would fail as a whole (prometheus/client_python#1199). A file never
    shrinks, so one found empty here holds nothing yet and is left out; one found sized is whole."""

    def __init__(self, registry: CollectorRegistry, path: str):
        self.path = path
        registry.register(self)

    def collect(self) -> Iterable[Metric]:
        from prometheus_client.multiprocess import MultiProcessCollector

        files = []
        for entry in os.scandir(self.path):
            try:
                if entry.name.endswith(".db") and entry.stat().st_size > 0:
                    files.append(entry.path)
            except FileNotFoundError:  # a dead process's gauge file, removed since the scan
                continue
        return MultiProcessCollector.merge(files, accumulate=True)


def exposition(*, scrape_time: bool = True) -> bytes:
    """The text format of every metric: every process's (multiprocess mode) or this one's, and (with
    ``scrape_time``) the scrape-time gauges."""
    from prometheus_client import generate_latest

    registry = CollectorRegistry(auto_describe=False)
    path = multiprocess_dir()
    if path:
        _ProcessFiles(registry, path)
    else:
        registry.register(_Of(REGISTRY))
    if scrape_time:
        registry.register(_ScrapeTime())
    return generate_latest(registry)


def celery_queue_lengths() -> Iterable[Metric]:
    """``goat_celery_queue_length{queue}``: messages waiting in each Celery queue (Redis: the queue's
    lists, one per priority step; the filesystem broker: its message files)."""
    from django.conf import settings

    family = GaugeMetricFamily("goat_celery_queue_length", "Messages waiting in a Celery queue.", labels=["queue"])
    queues = [queue.name for queue in settings.CELERY_TASK_QUEUES]
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        counts = dict.fromkeys(queues, 0)
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    # kombu's file name: <timestamp>_<uuid>.<queue>.msg
                    parts = entry.name.rsplit(".", 2)
                    if len(parts) == 3 and parts[2] == "msg" and parts[1] in counts:
                        counts[parts[1]] += 1
        except FileNotFoundError:
            pass
        for queue, count in counts.items():
            family.add_metric([queue], count)
    elif url.startswith(("redis://", "rediss://")):
        import redis

        # kombu's Redis transport keeps a queue in one list per priority step: "<queue>" for the
        # default priority and "<queue>\x06\x16<step>" for the others
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            pipe = client.pipeline(transaction=False)
            for queue in queues:
                for step in (0, 3, 6, 9):
                    pipe.llen(queue if step == 0 else f"{queue}\x06\x16{step}")
            lengths = pipe.execute()
        finally:
            client.close()
        for index, queue in enumerate(queues):
            family.add_metric([queue], sum(lengths[index * 4:index * 4 + 4]))
    else:
        return []
    return [family]


scrape_register(celery_queue_lengths)


# --- access ------------------------------------------------------------------------------------

def _networks(items: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:  # reported by `manage.py check` (goat.E002); never allows anything
            continue
    return networks


def allowed(*, client: str, authorization: str, allow: Iterable[str], token: str) -> bool:
    """Whether a request may read ``/metrics``: its client address is in ``allow`` (addresses or
    networks), or it carries ``Authorization: Bearer <token>`` (when a token is set)."""
    if token and authorization.startswith("Bearer "):
        if hmac.compare_digest(authorization[len("Bearer "):].strip().encode(), token.encode()):
            return True
    try:
        address = ipaddress.ip_address(client.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in _networks(allow))


def worker_exporter_start(*, port: int, host: str = "0.0.0.0"):
    """Serve ``/metrics`` of this machine's metrics directory on ``host:port`` from a thread (a
    Celery worker in its own container, whose processes no web server shares a directory with).
    Without the scrape-time gauges (the web's ``/metrics`` has them); the same access rule as the
    web's: GOAT_METRICS_ALLOW addresses (the direct peer) or the token, anyone else 404."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    from django.conf import settings
    from prometheus_client import CONTENT_TYPE_LATEST

    def app(environ, start_response):
        ok = environ.get("PATH_INFO") == "/metrics" and allowed(
            client=environ.get("REMOTE_ADDR", ""), authorization=environ.get("HTTP_AUTHORIZATION", ""),
            allow=settings.GOAT_METRICS_ALLOW, token=settings.GOAT_METRICS_TOKEN)
        if not ok:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"Not Found"]
        body = exposition(scrape_time=False)
        start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))])
        return [body]

    class _Quiet(WSGIRequestHandler):
        def log_message(self, *args):  # a scrape every few seconds is not worth a log line
            pass

    class _Server(WSGIServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    server = make_server(host, port, app, server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, name="metrics-exporter", daemon=True).start()
    logger.info("metrics: /metrics of this worker on %s:%s", host, port)
    return server
