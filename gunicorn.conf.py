"""gunicorn settings for goat (``gunicorn -c gunicorn.conf.py goat.asgi``); every one from the environment.

Used by docker-compose.yml and ``python manage.py run``; gunicorn also reads this file on its own
when started from this directory. Command-line flags override it.
"""

import ipaddress
import multiprocessing
import os
from pathlib import Path


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# WEB_CONCURRENCY (the usual platform variable) or 2 x cores + 1
workers = _int("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1)
# uvicorn event loops serving goat.asgi: the streams async, the API on GUNICORN_THREADS threads per worker
# (goat/serve/server.py). GUNICORN_WORKER_CLASS=gthread with goat.wsgi serves the API without the streams.
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "").strip() or "goat.serve.server.Worker"
threads = _int("GUNICORN_THREADS", 4)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# recycle workers now and then (jitter so they do not all restart at once): a bound on what a worker
# keeps that nothing frees (a library's cache or leak); requests free their own objects (goat.serve.request_release)
max_requests = _int("GUNICORN_MAX_REQUESTS", 100000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 10000)
# gunicorn >= 25.1 opens a control socket (worker count, reload, shutdown at runtime) by default, at
# $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl: one path for every gunicorn of the user,
# each unlinking the other's. goat does not use it: off unless GUNICORN_CONTROL_SOCKET names a path.
_control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
if _control_socket:
    control_socket = _control_socket
control_socket_disable = not _control_socket


def _network(item: str) -> str:
    """An address, or a network as gunicorn reads it (``10.0.0.1/8`` as ``10.0.0.0/8``, as goat does)."""
    try:
        return str(ipaddress.ip_network(item, strict=False)) if "/" in item else item
    except ValueError:
        return item  # gunicorn refuses it, as goat's system check does


# whose X-Forwarded-For/-Proto is believed: the proxies of GOAT_TRUSTED_PROXIES, the one setting that
# also decides it for goat's rate limits and login lockout (goat.web.api.throttling); empty: nobody's
forwarded_allow_ips = ",".join(_network(item.strip()) for item in os.environ.get("GOAT_TRUSTED_PROXIES", "").split(",")
                               if item.strip())

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# the request id is the X-Request-ID response header set by goat.logs.RequestIdMiddleware
access_log_format = (
    '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" request_id=%({x-request-id}o)s'
)

if os.environ.get("GOAT_LOG_FORMAT", "").strip().lower() == "json":
    # gunicorn's own and access logs as JSON lines too (goat.logs.JsonFormatter; request_id field)
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "goat.web.observe.logs.ContextFilter"}},
        "formatters": {"json": {"()": "goat.web.observe.logs.JsonFormatter"}},
        "handlers": {
            "stdout": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout",
                       "formatter": "json", "filters": ["context"]},
        },
        "root": {"handlers": ["stdout"], "level": loglevel.upper()},
        "loggers": {
            "gunicorn.error": {"handlers": ["stdout"], "level": loglevel.upper(), "propagate": False},
            "gunicorn.access": {"handlers": ["stdout"], "level": "INFO", "propagate": False},
        },
    }

# /metrics (goat/web/observe/metrics.py): every worker writes its metrics into PROMETHEUS_MULTIPROC_DIR and any
# worker's /metrics adds them up. `manage.py run` and compose set the directory (and empty it once per
# start of the whole process set); gunicorn started alone uses GOAT_DATA_DIR/metrics and empties it at
# its own start. The variable must be set before a worker imports prometheus_client: here, in the master.
_metrics_dir_given = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
if not _metrics_dir_given:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(Path(os.environ.get("GOAT_DATA_DIR", "goat-data")).resolve()
                                                 / "metrics")


def on_starting(server):
    from goat.web.observe.metrics import host_live_gauges_forget, multiprocess_dir_reset

    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    if _metrics_dir_given:
        # shared with the other processes of the set (a worker, a beat, other web containers): only the
        # open-stream gauges of this machine's earlier web processes go, which are no longer open
        directory.mkdir(parents=True, exist_ok=True)
        host_live_gauges_forget(directory)
    else:
        multiprocess_dir_reset(directory)


def child_exit(server, worker):
    """A worker exited (stopped, recycled, killed): its open-stream gauge goes; its counters stay."""
    from goat.web.observe.metrics import process_dead

    process_dead(worker.pid)
