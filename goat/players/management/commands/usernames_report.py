"""``manage.py usernames_report``: the accounts whose usernames break the username rule
(goat.players.usernames.username_check), one line each: id, the name as a Python literal (so hidden
characters show as escapes) and why. Nothing is changed or deleted: staff rename or deactivate them
in the admin. Exit status 0 whatever it finds (``--exit-code``: 1 when it finds any)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from goat.players.usernames import username_breaks_rule


class Command(BaseCommand):
    help = "List the accounts whose usernames break the username rule (nothing is changed)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--exit-code", action="store_true", help="Exit with status 1 when any account is listed.")

    def handle(self, *args, exit_code: bool = False, **options) -> None:
        User = get_user_model()
        found = 0
        accounts = User._default_manager.order_by("pk").values_list("pk", User.USERNAME_FIELD, "is_active")
        for pk, username, active in accounts.iterator():
            reason = username_breaks_rule(username)
            if reason is None:
                continue
            found += 1
            state = "" if active else " (inactive)"
            self.stdout.write(f"{pk}\t{username!r}{state}\t{reason}")
        self.stdout.write(f"{found} account(s) break the username rule.")
        if exit_code and found:
            raise CommandError("accounts break the username rule", returncode=1)
