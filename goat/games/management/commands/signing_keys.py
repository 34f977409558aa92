"""``manage.py signing_keys``: list the keys that sign game records, or rotate them
(docs/operations.md "Record signing keys")."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand

from goat.games import signing


class Command(BaseCommand):
    help = ("List the keys that sign game records (the /api/keys/ answer), or --rotate: retire the current "
            "key now (it stays published, its private half is dropped) and sign with a new one from now.")

    def add_arguments(self, parser):
        parser.add_argument("--rotate", action="store_true", help="Retire the current key and make a new one.")

    def handle(self, *args, rotate: bool = False, **options):
        if rotate:
            retired, new = signing.rotate()
            self.stdout.write(f"retired {retired['id']} at {retired['valid_until']}; "
                              f"{new['id']} signs from {new['valid_from']} ({settings.GOAT_SIGNING_KEYRING})")
            return
        self.stdout.write(json.dumps(signing.keyring().published(), indent=2))
