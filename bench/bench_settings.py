"""Settings of the HTTP benches: goat's own settings, plus a bench-only URL (a one-INSERT view) and
no rate limits (the bench measures work, not throttles). Used by bench/http_load.py for the gunicorn
server and its driver alike, so the move path and the baseline run with the same settings."""

from goat.settings import *  # noqa: F401,F403
from goat.settings import REST_FRAMEWORK

ROOT_URLCONF = "bench.bench_urls"
DEBUG = False
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "1000000/min"),
}
