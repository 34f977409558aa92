"""WSGI entry point: ``gunicorn goat.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")

application = get_wsgi_application()
