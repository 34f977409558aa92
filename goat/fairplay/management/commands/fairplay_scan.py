"""``manage.py fairplay_scan``: run the fair-play scan now (the beat runs it daily; docs/fairplay.md)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from goat.fairplay import services


class Command(BaseCommand):
    help = "Scan the rated games of the window for assistance and collusion; print what the reports hold after it."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(services.scan()))
