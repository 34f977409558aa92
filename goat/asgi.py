"""ASGI entry point: the streams on Django's async handler (goat.serve.server.stream_handler),
everything else on the WSGI app in a thread pool (goat/serve/server.py explains why).
``gunicorn -k goat.serve.server.Worker goat.asgi``."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")

import django  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from goat.serve.server import split, stream_handler  # noqa: E402

#: the paths served by the async handler: the live streams (docs/api.md "Live play", docs/tournaments.md)
ASGI_PATHS = r"^/api/(?:(?:games/[^/]+/|tournaments/[^/]+/)?stream/|bot/stream/events/)$"

django.setup(set_prefix=False)
application = split(asgi=stream_handler(), wsgi=get_wsgi_application(), asgi_paths=ASGI_PATHS,
                    threads=int(os.environ.get("GUNICORN_THREADS", "").strip() or 4))
