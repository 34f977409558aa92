"""Django settings for goat.

Every setting that differs between a laptop and production comes from an environment variable
with a safe local default, so ``python manage.py migrate && python manage.py runserver`` works on a
fresh machine with nothing configured (SQLite, filesystem Celery broker). docs/operations.md lists
the variables.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url


def env_str(name: str, default: str) -> str:
    value = os.environ.get(name, "")
    return value if value.strip() else default


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


BASE_DIR = Path(__file__).resolve().parent.parent

# Where the embedded default keeps its state: generated secret key, filesystem broker, static files.
# Importing the settings creates no directory: goat.web's AppConfig.ready creates the static and
# broker folders, and the secret key below creates the data directory only when it must write a key.
GOAT_DATA_DIR = Path(env_str("GOAT_DATA_DIR", "goat-data")).resolve()

DEBUG = env_bool("DEBUG", False)


def _data_dir_secret_key(data_dir: Path) -> str:
    """Read (or create once, mode 0600) a random secret key kept in the data directory.

    Creation is atomic (write a temp file, then hard-link it into place), so processes that start
    together (gunicorn workers, pytest-xdist) all end up with the same key.
    """
    path = data_dir / "secret_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)  # the first start of the embedded default
        tmp = data_dir / f".secret_key.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


# GOAT_ENV=production (docker-compose sets it) makes SECRET_KEY required. Otherwise (the embedded
# default, tests) an unset SECRET_KEY is a random key generated once per data directory, so a local
# run needs no configuration and no secret is ever committed. On a non-SQLite database without
# GOAT_ENV=production the generated key still works, but `manage.py check` warns (goat.W001):
# processes on different machines would not share it. docs/operations.md states the rule.
GOAT_ENV = env_str("GOAT_ENV", "development").strip().lower()
if GOAT_ENV not in {"development", "production"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"GOAT_ENV must be 'development' or 'production', not {GOAT_ENV!r}")
SECRET_KEY_FROM_ENV = bool(os.environ.get("SECRET_KEY", "").strip())
if GOAT_ENV == "production" and not SECRET_KEY_FROM_ENV:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("SECRET_KEY must be set when GOAT_ENV=production (see docs/operations.md)")
SECRET_KEY = os.environ["SECRET_KEY"].strip() if SECRET_KEY_FROM_ENV else _data_dir_secret_key(GOAT_DATA_DIR)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "goat.web.admin_site.GoatAdminConfig",  # django.contrib.admin, its site guarded (goat/web/admin_site.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    "goat.web",
    "goat.serve",
    "goat.games",
    "goat.players",
    "ratings",
    "challenges",
    "tournaments",
    "goat.fairplay.apps.FairPlayConfig",
    "pages",  # the public pages that gather every app (home, player, game): the top of the layering
    "play",
]

MIDDLEWARE = [
    # Outermost: when a response closes, its request's reference cycles are undone (goat.serve.request_release).
    "goat.serve.request_release.ReleaseMiddleware",
    # Counts and times every request by URL pattern (goat_http_* on /metrics).
    "goat.web.observe.metrics_http.MetricsMiddleware",
    # First: every response (even one made by a middleware below) carries X-Request-ID.
    "goat.web.observe.logs.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every response (CONTENT_SECURITY_POLICY below)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The visitor's language: the language cookie (set by the switch, django.views.i18n.set_language),
    # else Accept-Language, else LANGUAGE_CODE. After sessions, before CommonMiddleware (Django's order).
    "django.middleware.locale.LocaleMiddleware",
    # The reader's time zone (goat.web.timezones): theirs when chosen, else their language's default.
    "goat.web.timezones.TimeZoneMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A login refused by the lockout gets its 429 answer (goat.players.lockout.lockout_response).
    "axes.middleware.AxesMiddleware",
    # Last, so it sees exceptions raised by views: /api/ errors become problem+json 500s.
    "goat.web.api.problems.ProblemMiddleware",
]

ROOT_URLCONF = "goat.urls"
WSGI_APPLICATION = "goat.wsgi.application"
ASGI_APPLICATION = "goat.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Django's own admin templates that goat words differently (they shadow django.contrib.admin's)
        "DIRS": [BASE_DIR / "goat" / "web" / "templates" / "django_admin"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",  # LANGUAGE_CODE, LANGUAGES for the switch
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL", "sqlite:///" + str(Path.cwd() / "goat.sqlite3"))
DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
#: "pgbouncer" when DATABASE_URL points at PgBouncer in transaction mode (see below); empty otherwise
DATABASE_POOLER = env_str("DATABASE_POOLER", "").strip().lower()
if DATABASE_POOLER not in {"", "pgbouncer"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"DATABASE_POOLER must be empty or 'pgbouncer', not {DATABASE_POOLER!r}")
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db["CONN_MAX_AGE"] = 0
    _db.setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            # IMMEDIATE: a write transaction takes the write lock at BEGIN, so concurrent writers
            # wait for each other (up to `timeout`) instead of failing with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests use a file too (not a shared-cache in-memory database, whose table locks fail at once
    # instead of waiting), so the race tests see the same locking as a real run.
    # One file per test process, so that test runs started side by side never share a database.
    _db["TEST"] = {"NAME": str(GOAT_DATA_DIR / f"test-goat-{os.getpid()}.sqlite3")}
elif _db["ENGINE"] == "django.db.backends.postgresql":
    # DATABASE_POOLER=pgbouncer: PostgreSQL is reached through PgBouncer in transaction mode, where one
    # client connection's transactions may run on different server connections (docs/operations.md
    # "PgBouncer"): no server-side cursors (Django's .iterator() would open one in a transaction and
    # read it in another), no prepared statements unless asked for (PgBouncer before 1.21 cannot keep
    # them), and goat's own session-level locks take their transaction-level form (goat.web.db.locks,
    # goat.web.api.idempotency).
    if DATABASE_POOLER == "pgbouncer":
        _db["DISABLE_SERVER_SIDE_CURSORS"] = True
    # goat's fixed SQL texts (goat/web/db/fixed_sql.py fixed_cursor: the token lookup, the event store's game
    # load, append and stream load) are prepared once per connection; Django's own queries never are
    # (client-side binding). Behind PgBouncer they are not prepared unless DB_PREPARED_STATEMENTS=1 says
    # so (PgBouncer 1.22+ with max_prepared_statements); behind another transaction-mode pooler without
    # that support, set DB_PREPARED_STATEMENTS=0.
    _prepare = env_bool("DB_PREPARED_STATEMENTS", DATABASE_POOLER != "pgbouncer")
    _db.setdefault("OPTIONS", {})["prepare_threshold"] = 5 if _prepare else None
    if env_bool("DB_POOL", False):
        # psycopg 3's connection pool (Django 5.1+), one pool per process; needs CONN_MAX_AGE = 0.
        _db["CONN_MAX_AGE"] = 0
        _db.setdefault("OPTIONS", {})["pool"] = {
            "min_size": env_int("DB_POOL_MIN_SIZE", 2),
            "max_size": env_int("DB_POOL_MAX_SIZE", 10),
            "timeout": env_int("DB_POOL_TIMEOUT", 10),
        }
    else:
        _db["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60)
        _db["CONN_HEALTH_CHECKS"] = True

# DATABASE_REPLICA_URL: a PostgreSQL streaming standby of DATABASE_URL that serves the public reads
# (goat/web/db/replica.py; docs/operations.md "A standby for reads"). Unset: one database, as always.
DATABASE_REPLICA_URL = env_str("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    _replica = dj_database_url.parse(DATABASE_REPLICA_URL)
    _replica_options = _replica.setdefault("OPTIONS", {})
    # a standby that is away costs a public read at most this long before it goes to the primary
    _replica_options.setdefault("connect_timeout", env_int("GOAT_REPLICA_CONNECT_TIMEOUT", 2))
    for _option in ("prepare_threshold", "pool"):  # as the primary's
        if _option in _db.get("OPTIONS", {}):
            _replica_options[_option] = _db["OPTIONS"][_option]
    _replica["CONN_MAX_AGE"] = _db.get("CONN_MAX_AGE", 0)
    _replica["CONN_HEALTH_CHECKS"] = True
    _replica["DISABLE_SERVER_SIDE_CURSORS"] = _db.get("DISABLE_SERVER_SIDE_CURSORS", False)
    # tests: the standby is the test database itself (no second test database is made)
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES["replica"] = _replica
    DATABASE_ROUTERS = ["goat.web.db.replica.ReplicaRouter"]
#: a standby further behind than this many seconds is not read (its reads go to the primary)
GOAT_REPLICA_MAX_LAG_SECONDS = env_float("GOAT_REPLICA_MAX_LAG_SECONDS", 2.0)
#: each process measures the standby's lag at most this often
GOAT_REPLICA_CHECK_SECONDS = env_float("GOAT_REPLICA_CHECK_SECONDS", 1.0)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (throttle counters, idempotency locks) -----------------------------------------------

# Without CACHE_URL each process has its own local-memory cache (idempotency locks); the rate limits
# count in GOAT_RATES_PATH then. With Redis every web process shares both.
CACHE_URL = env_str("CACHE_URL", os.environ.get("REDIS_CACHE_URL", ""))
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "goat"),
            # a Redis that is away costs a request at most this long: the throttles then count in the
            # process (goat/web/api/throttling.py)
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }

# Every rate limit counts in one store all web processes share (goat/web/api/rates.py): Redis when the
# cache is Redis, else this SQLite file (one machine; not the game database).
GOAT_RATES_PATH = env_str("GOAT_RATES_PATH", str(GOAT_DATA_DIR / "rates.sqlite3"))
# The keys that sign game records (goat/games/signing.py, docs/operations.md "Record signing keys"): a
# JSON keyring created once (mode 0600) in the data directory, or a file the environment names (one
# shared by every machine that serves records).
GOAT_SIGNING_KEYRING = env_str("GOAT_SIGNING_KEYRING", str(GOAT_DATA_DIR / "signing_keys.json"))

# --- Auth ---------------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Login lockout (django-axes, goat/players/lockout.py): GOAT_LOGIN_FAILURE_LIMIT failed logins for one
# account (any address) or from one address (any account) within the cool-off lock that account or
# address out of the admin login and POST /api/auth/token/ until GOAT_LOGIN_COOLOFF_MINUTES have passed
# since its last counted failure. Attempts while locked out are not counted, so the end is fixed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out attempt before any password check
    "goat.players.backends.UsernameBackend",  # Django's ModelBackend, the username compared in its fold
]
AXES_ENABLED = env_bool("GOAT_LOGIN_LOCKOUT", True)
# Failures that lock: one account from one address; one address; one account from anywhere
# (goat.players.lockout: a guesser is held, the account's owner elsewhere is not).
AXES_FAILURE_LIMIT = max(1, env_int("GOAT_LOGIN_FAILURE_LIMIT", 10))
GOAT_LOGIN_ADDRESS_FAILURE_LIMIT = max(AXES_FAILURE_LIMIT, env_int("GOAT_LOGIN_ADDRESS_FAILURE_LIMIT", 30))
GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT = max(AXES_FAILURE_LIMIT, env_int("GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT", 300))
AXES_COOLOFF_TIME = timedelta(minutes=env_int("GOAT_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address", "username"]  # goat.players.lockout
AXES_HANDLER = "goat.players.lockout.LockoutHandler"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = False  # a login to one's own account must not clear the failures of one's address
AXES_VERBOSE = False  # no start-up banner in every process and command; failures and lockouts are still logged
AXES_DISABLE_ACCESS_LOG = True  # failures are kept (AccessAttempt, in the admin); successes are not logged
AXES_CLIENT_IP_CALLABLE = "goat.web.api.throttling.client_ip"
AXES_USERNAME_CALLABLE = "goat.players.lockout.lockout_username"
AXES_LOCKOUT_CALLABLE = "goat.players.lockout.lockout_response"

# --- Internationalisation -------------------------------------------------------------------

# English (the default) and Russian: the pages, the admin's own strings and the API's problem details
# (`title`, `detail`; never `code`). One catalog for every app, goat/locale/ru/LC_MESSAGES/django.po,
# compiled .mo committed beside it and shipped in the package (docs/development.md, "Translations").
from django.utils.translation import gettext_lazy as _  # noqa: E402

LANGUAGE_CODE = "en"
#: goat's corrections of Django's formats for a language (goat/web/formats/: "2 декабря", not "2 декабрь")
FORMAT_MODULE_PATH = ["goat.web.formats"]
LANGUAGES = [("en", _("English")), ("ru", _("Russian"))]
LOCALE_PATHS = [Path(__file__).resolve().parent / "locale"]
TIME_ZONE = "UTC"
#: the time zone of a page's reader who chose none, by the page's language (goat.web.timezones)
GOAT_LANGUAGE_TIME_ZONES = {"ru": "Europe/Moscow"}
USE_I18N = True
USE_TZ = True

# --- Static files (served by whitenoise; no CDN) ------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = GOAT_DATA_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # No manifest: works before (and without) `collectstatic`.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the apps' static folders unless told that `collectstatic` has been run.
WHITENOISE_USE_FINDERS = env_bool("GOAT_STATIC_FINDERS", True)

# --- Security headers ---------------------------------------------------------------------------

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", SECURE_SSL_REDIRECT)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SECURE_SSL_REDIRECT)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# Content-Security-Policy (django-csp): scripts, styles, fonts and images only from this origin
# (whitenoise serves them), no inline script or style, no plugins, no framing, forms post here only.
# The pages and the admin need nothing more (tests/e2e/test_csp_browser.py checks in Chromium that
# they raise no violation); Swagger UI's page adds inline styles for itself (goat/urls.py).
from csp.constants import NONE as _CSP_NONE  # noqa: E402
from csp.constants import SELF as _CSP_SELF  # noqa: E402

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [_CSP_SELF],
        "script-src": [_CSP_SELF],
        "style-src": [_CSP_SELF],
        "img-src": [_CSP_SELF, "data:"],
        "font-src": [_CSP_SELF],
        "connect-src": [_CSP_SELF],
        "object-src": [_CSP_NONE],
        "base-uri": [_CSP_SELF],
        "form-action": [_CSP_SELF],
        "frame-ancestors": [_CSP_NONE],
    },
}
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    # Only behind a proxy that sets X-Forwarded-Proto and strips it from clients.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Reverse proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated). Empty
# (the default): the client address of throttles and the login lockout is the direct peer, whatever
# X-Forwarded-For says. Behind a proxy, list it, and make it overwrite or append to that header.
GOAT_TRUSTED_PROXIES = env_list("GOAT_TRUSTED_PROXIES", "")
# /metrics (goat.web.observe.metrics): readable from these addresses or networks, or with
# "Authorization: Bearer <GOAT_METRICS_TOKEN>" (unset: no token opens it); anyone else gets 404
GOAT_METRICS_ALLOW = env_list("GOAT_METRICS_ALLOW", "127.0.0.1,::1")
GOAT_METRICS_TOKEN = env_str("GOAT_METRICS_TOKEN", "")

# The API takes small JSON bodies only.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
# What the web server (goat.serve.request_limits) lets a request hold before Django sees it: a slow or oversized
# request is refused in the event loop and never takes a thread (docs/reliability.md "Limits").
# Request line and headers: received within GOAT_HEADER_TIMEOUT_SECONDS of the connection opening (or of
# the previous answer on a kept-alive one), at most GOAT_MAX_HEADER_BYTES in all, at most GOAT_MAX_HEADERS
# fields (431 past either). The body: whole within GOAT_BODY_TIMEOUT_SECONDS of the headers (408), at most
# GOAT_MAX_BODY_BYTES (413; Django's own 64 KiB limit answers the API's bodies below that).
GOAT_HEADER_TIMEOUT_SECONDS = max(1.0, env_float("GOAT_HEADER_TIMEOUT_SECONDS", 10.0))
GOAT_BODY_TIMEOUT_SECONDS = max(1.0, env_float("GOAT_BODY_TIMEOUT_SECONDS", 10.0))
# A response: each part of it taken by the client within GOAT_SEND_TIMEOUT_SECONDS of the connection's
# write buffer filling (the write deadline, as nginx's send_timeout), else the connection is dropped.
GOAT_SEND_TIMEOUT_SECONDS = max(1.0, env_float("GOAT_SEND_TIMEOUT_SECONDS", 10.0))
# A connection whose sent bytes stay unacknowledged this long is closed (TCP_USER_TIMEOUT, Linux): a
# client whose network vanished is found, and its stream's slot freed, within it.
GOAT_TCP_USER_TIMEOUT_SECONDS = max(5.0, env_float("GOAT_TCP_USER_TIMEOUT_SECONDS", 30.0))
GOAT_MAX_HEADER_BYTES = max(4096, env_int("GOAT_MAX_HEADER_BYTES", 32 * 1024))
GOAT_MAX_HEADERS = max(16, env_int("GOAT_MAX_HEADERS", 100))
GOAT_MAX_BODY_BYTES = max(DATA_UPLOAD_MAX_MEMORY_SIZE, env_int("GOAT_MAX_BODY_BYTES", 256 * 1024))

# A web worker that recycles itself (GUNICORN_MAX_REQUESTS) ends its open streams spread over this many
# seconds, so their clients reconnect to the other workers as a flow, not a storm (goat/serve/server.py);
# 0: at once. A worker told to stop (a deploy, Ctrl-C) ends them at once whatever this says.
GOAT_RECYCLE_SPREAD_SECONDS = max(0.0, env_float("GOAT_RECYCLE_SPREAD_SECONDS", 10.0))
# At least this many seconds between the beginnings of two web workers' recycles on one machine (one
# GOAT_DATA_DIR); a worker whose recycle comes due sooner serves on and asks again (goat/serve/server.py).
# 0: each recycles when due.
GOAT_RECYCLE_GAP_SECONDS = max(0.0, env_float("GOAT_RECYCLE_GAP_SECONDS", 60.0))
# An Idempotency-Key claimed by a request that died (a killed worker) may be taken over after this long.
GOAT_IDEMPOTENCY_STALE_SECONDS = env_int("GOAT_IDEMPOTENCY_STALE_SECONDS", 60)
# Stored Idempotency-Key answers are kept this long, then purged hourly (docs/api.md: at least 24 h).
GOAT_IDEMPOTENCY_HOURS = max(24, env_int("GOAT_IDEMPOTENCY_HOURS", 48))

# --- Logging: everything to stdout, plain text or JSON (goat/logs.py) ------------------------

LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
GOAT_LOG_FORMAT = env_str("GOAT_LOG_FORMAT", "plain").strip().lower()
from goat.web.observe.logs import logging_config as _logging_config  # noqa: E402

LOGGING = _logging_config(fmt=GOAT_LOG_FORMAT, level=LOG_LEVEL)

# --- Django REST framework ------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an unauthenticated API call gets 401 with WWW-Authenticate: Token.
        "goat.web.api.auth.TokenAuthentication",  # DRF's, its lookup as one SQL text on PostgreSQL
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    "DEFAULT_PARSER_CLASSES": ["goat.web.api.parsers.StrictJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "goat.web.api.pagination.Pagination",
    "DEFAULT_SCHEMA_CLASS": "goat.web.api.schema.AutoSchema",  # adds the statuses every operation can answer
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": [
        # Counted per account, or per client address as goat.web.api.throttling.client_ip gives it.
        "goat.web.api.throttling.AnonRateThrottle",
        "goat.web.api.throttling.UserRateThrottle",
        "goat.web.api.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("GOAT_THROTTLE_ANON", "60/min"),
        "user": env_str("GOAT_THROTTLE_USER", "600/min"),
        "moves": env_str("GOAT_THROTTLE_MOVES", "1200/min"),
        "signup": env_str("GOAT_THROTTLE_SIGNUP", "20/min"),
        "auth": env_str("GOAT_THROTTLE_AUTH", "30/min"),
        # wrong invite codes (tournaments.services.entry_check): per player, and per tournament
        "invite_player": env_str("GOAT_THROTTLE_INVITE_PLAYER", "10/hour"),
        "invite_tournament": env_str("GOAT_THROTTLE_INVITE_TOURNAMENT", "100/hour"),
        "analysis": env_str("GOAT_THROTTLE_ANALYSIS", "20/hour"),
        # wrong challenge link codes (challenges.services): per player, and per challenge
        "challenge_code_player": env_str("GOAT_THROTTLE_CHALLENGE_CODE_PLAYER", "10/hour"),
        "challenge_code": env_str("GOAT_THROTTLE_CHALLENGE_CODE", "100/hour"),
        # a bot's POSTs on challenges (create, accept, decline, cancel): per bot account
        "bot_challenges": env_str("GOAT_THROTTLE_BOT_CHALLENGES", "30/min"),
        # the public pages (home, players, games, rules, leaderboards, tournaments), per client address
        "pages": env_str("GOAT_THROTTLE_PAGES", "300/min"),
    },
    "EXCEPTION_HANDLER": "goat.games.problems.exception_handler",  # goat.web.api.problems' + the engine's errors
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    # "status" names choice sets of several components: /health/'s keeps its name, the analysis's gets one
    "ENUM_NAME_OVERRIDES": {"StatusEnum": ["ok", "degraded"],
                            "AnalysisStatusEnum": ["queued", "running", "done", "failed"],
                            "DeclineReasonEnum": "challenges.models.DeclineReason",
                            "RulesetEnum": "goat.engine.rulesets.RULESETS",
                            "ChallengeStatusEnum": "challenges.models.ChallengeStatus",
                            "ChallengeAnswerEnum": "challenges.models.Answer"},
    "TITLE": "goat API",
    "VERSION": "0.1.0",
    "DESCRIPTION": (
        "REST API of goat, the scoring and rating backend for the domino game Goat (Kozyol). "
        "Authenticate with `Authorization: Token <key>` (POST /api/auth/token/). Every error is an "
        "RFC 9457 problem details object (`application/problem+json`) with a stable `code`."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "goat.games.api.stream_schema.streams_postprocessing_hook",  # the async stream views, outside DRF
        "tournaments.api.schema.stream_postprocessing_hook",  # the tournament stream, likewise
        "challenges.api.schema.bot_stream_postprocessing_hook",  # the bot stream, likewise
        "goat.web.api.schema.strict_bodies_postprocessing_hook",  # no unknown field in a StrictSerializer's body
        "goat.web.api.schema.validated_min_length_postprocessing_hook",  # lengths only a validator checks
    ],
}

# --- Celery (the app itself lives in goat/celery.py) --------------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # Embedded default: kombu's filesystem transport, no server. Web and worker share one folder.
    # goat.serve.filesystem_broker writes each message atomically (kombu's own can be read half-written).
    CELERY_BROKER_TRANSPORT = "goat.serve.filesystem_broker:Transport"
    _broker_dir = GOAT_DATA_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "data_folder_processed": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        # kombu's virtual transports poll an empty queue every polling_interval seconds (1 s by
        # default), which delayed the ticker's one-second task by up to a second more; the ticker
        # needs it to arrive within a fraction of that (docs/performance.md, "Clocks")
        "polling_interval": env_float("GOAT_BROKER_POLLING_SECONDS", 0.1),
    }

from datetime import timedelta as _timedelta  # noqa: E402

from celery.schedules import crontab as _crontab  # noqa: E402

CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = False  # opted in per task where a repeat is harmless
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The worker reconnects to a broker that went away for as long as it stays away (Celery's default
# gives up after 100 tries and exits); `manage.py run` and compose restart it if it exits anyway.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TIMEZONE = "UTC"
# Celery's Django fixup closes every database connection before and after each task, and with
# DB_POOL the whole pool: each task would open one to three new PostgreSQL connections. It closes
# them every CELERY_DB_REUSE_MAX tasks instead; between tasks goat.celery checks them as Django does
# between requests (a connection that failed or outlived DB_CONN_MAX_AGE is closed).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
# JSON logs: the worker keeps Django's LOGGING (JSON, with request/game ids) instead of its own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = GOAT_LOG_FORMAT != "json"
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # acks_late tasks of a killed worker are redelivered after this many seconds. kombu scans for them
    # only every unacked_restore_interval x unacked_restore_throttle seconds (10 x 10 by default, which
    # added up to 100 s to every redelivery) and a worker killed during a scan leaves the scan's mutex
    # held for unacked_mutex_expire (300 s): scan every min(10 s, timeout), mutex bounded by the timeout.
    _visibility = env_int("GOAT_BROKER_VISIBILITY_TIMEOUT", 300)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": _visibility,
        "unacked_restore_interval": max(1, min(10, _visibility)),
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": max(5, min(300, _visibility)),
    }
# The ticker has a queue of its own, which every worker consumes besides the default one: a tick
# must not wait behind the projection tasks of the games the last ticks ended.
from kombu import Queue as _Queue  # noqa: E402

CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (_Queue("celery"), _Queue("clock"))
# The analysis of finished games has a queue of its own, consumed only by a worker that asks for it
# (``-Q analysis``, concurrency 1: ``manage.py run`` starts one; docs/computer.md): an analysis takes
# seconds of CPU and must never delay a move or a tick.
CELERY_TASK_ROUTES = {"goat.tasks.games_tick_clocks": {"queue": "clock"},
                      "goat.tasks.analyse_game": {"queue": "analysis"}}
# The ticker's shares: each second's tick times out the due games in this many shares (by game id),
# each share a task of its own on the clock queue, so that several worker processes time out a burst
# of clocks at once (docs/operations.md "Clocks, projections and the beat"). SQLite has one writer:
# one share there.
GOAT_TICK_SHARES = max(1, env_int("GOAT_TICK_SHARES", 1 if _db["ENGINE"] == "django.db.backends.sqlite3" else 2))
CELERY_BEAT_SCHEDULE = {
    # THE ticker: every second, times out every game past its deadline (goat.games.tasks). A tick
    # that waited in the queue longer than a second is dropped: the next one does its work.
    "games-tick-clocks": {
        "task": "goat.tasks.games_tick_clocks",
        "schedule": _timedelta(seconds=1),
        "options": {"expires": 1},
    },
    # waiting games older than GOAT_WAITING_GAME_HOURS: cancelled, every stake returned (docs/api.md)
    "games-expire-waiting": {
        "task": "goat.tasks.games_expire_waiting",
        "schedule": _timedelta(minutes=5),
        "options": {"expires": 300},
    },
    # unclocked games with a computer and no command for GOAT_COMPUTER_GAME_IDLE_HOURS: the player to
    # move times out (unrated: games with a computer always are)
    "games-end-idle": {
        "task": "goat.tasks.games_end_idle",
        "schedule": _timedelta(minutes=5),
        "options": {"expires": 300},
    },
    # open challenges past their time: written expired, everyone named told (reads expire them at once)
    "challenges-expire": {
        "task": "challenges.tasks.challenges_expire",
        "schedule": _timedelta(minutes=1),
        "options": {"expires": 60},
    },
    # projections of ended games that no task applied (a killed worker, a lost message)
    "projections-catch-up": {
        "task": "goat.tasks.projections_catch_up",
        "schedule": _timedelta(seconds=env_int("GOAT_PROJECTIONS_CATCH_UP_SECONDS", 30)),
        "options": {"expires": env_int("GOAT_PROJECTIONS_CATCH_UP_SECONDS", 30)},
    },
    "idempotency-purge": {"task": "goat.tasks.idempotency_purge", "schedule": _timedelta(hours=1)},
    # ratings: apply games whose post-game task was lost, then recompute the current rating boards
    "leaderboards-refresh": {
        "task": "ratings.tasks.leaderboards_refresh",
        "schedule": _timedelta(seconds=env_int("GOAT_LEADERBOARDS_REFRESH_SECONDS", 600)),
    },
    # tournaments: start the due ones; seat arena players, finish arenas (and advance any running one)
    "tournaments-start-due": {
        "task": "tournaments.tasks.tournaments_start_due",
        "schedule": _timedelta(seconds=env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)),
        "options": {"expires": env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)},
    },
    "tournaments-arena-tick": {
        "task": "tournaments.tasks.tournaments_arena_tick",
        "schedule": _timedelta(seconds=env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)),
        "options": {"expires": env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)},
    },
    # tournament schedules: announce each occurrence announce_before ahead of its start, once
    "tournament-schedules-run": {
        "task": "tournaments.tasks.tournament_schedules_run",
        "schedule": _timedelta(seconds=env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)),
        "options": {"expires": env_int("GOAT_TOURNAMENTS_TICK_SECONDS", 5)},
    },
    # replay audit: verify every game that ended in the last day, flag mismatches (goat.audit_tasks)
    "games-verify-recent": {"task": "goat.audit_tasks.games_verify_recent", "schedule": _crontab(hour=3, minute=0)},
    # fair play: the daily scan for assistance and collusion (goat.fairplay, docs/fairplay.md)
    "fairplay-scan": {"task": "goat.fairplay.scan", "schedule": _crontab(hour=4, minute=0)},
}

# --- goat -------------------------------------------------------------------------------------

GOAT_SIGNUP_OPEN = env_bool("GOAT_SIGNUP_OPEN", True)
#: fair play (docs/fairplay.md): the scan reads the rated games that ended in this many days, and asks
#: the analysis queue for at most this many of the games its reports need at each run
GOAT_FAIRPLAY_DAYS = max(1, env_int("GOAT_FAIRPLAY_DAYS", 90))
GOAT_FAIRPLAY_ANALYSE_LIMIT = max(0, env_int("GOAT_FAIRPLAY_ANALYSE_LIMIT", 200))
GOAT_INITIAL_CHIPS = env_int("GOAT_INITIAL_CHIPS", 1000)
#: a game still waiting for players this long after it was created is cancelled and its stakes returned
GOAT_WAITING_GAME_HOURS = env_int("GOAT_WAITING_GAME_HOURS", 24)
# challenges (docs/api.md "Challenges"): how long one stays open, and the caps of open ones per
# challenger (out) and per challenged player (in)
GOAT_CHALLENGE_MINUTES = max(1, env_int("GOAT_CHALLENGE_MINUTES", 60))
GOAT_CHALLENGES_OPEN_OUT = max(1, env_int("GOAT_CHALLENGES_OPEN_OUT", 10))
GOAT_CHALLENGES_OPEN_IN = max(1, env_int("GOAT_CHALLENGES_OPEN_IN", 20))
# A computer player's think time: its move is a task run this many seconds after its turn began
# (0: at once). Docs: docs/computer.md.
GOAT_COMPUTER_THINK_SECONDS = max(0.0, env_float("GOAT_COMPUTER_THINK_SECONDS", 1.0))
#: open (waiting or running) games with a computer player one player may hold a seat in; one more is
#: 409 too_many_computer_games
GOAT_COMPUTER_GAMES_PER_PLAYER = max(1, env_int("GOAT_COMPUTER_GAMES_PER_PLAYER", 5))
#: an unclocked game with a computer player and no command for this long ends: the player to move times out
GOAT_COMPUTER_GAME_IDLE_HOURS = max(1, env_int("GOAT_COMPUTER_GAME_IDLE_HOURS", 24))

# The analysis of a finished game (docs/computer.md "Analysis"): the most sampled deals a decision may take
# (the expert samples in batches until the label is settled), and
# the lease of a running job (renewed while it runs; a job killed mid-analysis is taken up again once
# its lease has run out)
GOAT_ANALYSIS_SAMPLES = max(1, env_int("GOAT_ANALYSIS_SAMPLES", 1000))
GOAT_ANALYSIS_LEASE_SECONDS = max(2, env_int("GOAT_ANALYSIS_LEASE_SECONDS", 120))
# RFC 9457 `type` of our problems is this prefix + the problem's code (documented in docs/api.md).
GOAT_PROBLEM_TYPE_BASE = env_str("GOAT_PROBLEM_TYPE_BASE", "https://goat.example/problems/")

# --- Live delivery (goat/live/fanout.py; docs/architecture.md "Live delivery") ---------------------

# The fan-out channel: a Redis URL (production; by default the broker's when it is Redis) or "local"
# (Unix datagram sockets in GOAT_DATA_DIR/live: one machine, every process of `manage.py run`).
GOAT_LIVE_URL = env_str("GOAT_LIVE_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
                        else "local")
# Redis pub/sub channels are not per database number: the prefix keeps deployments (and test runs)
# that share a Redis apart.
GOAT_LIVE_PREFIX = env_str("GOAT_LIVE_PREFIX", f"goat:{DATABASES['default'].get('NAME') or 'default'}:live:")
# Open streams per token (docs/api.md "Live play"); one more is 429 too_many_streams.
GOAT_STREAMS_PER_TOKEN = env_int("GOAT_STREAMS_PER_TOKEN", 8)
# Seconds between keep-alives of an idle stream (docs/api.md: at most 15).
GOAT_STREAM_KEEPALIVE_SECONDS = min(15.0, float(env_str("GOAT_STREAM_KEEPALIVE_SECONDS", "15")))
