"""``python manage.py rules_docs``: write the rules pages' text (pages/rules.py) into docs/rules.md's
section "The rules pages"; ``--check`` only says whether it is up to date (exit 1 if not)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from pages import rules


class Command(BaseCommand):
    help = "Write the /rules/ pages' English text into docs/rules.md (or --check it)."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="Only check; exit 1 when docs/rules.md differs.")

    def handle(self, *args, check: bool = False, **options):
        if check:
            if rules.docs_section(rules.DOCS.read_text(encoding="utf-8")) != rules.rules_markdown():
                raise CommandError("docs/rules.md's rules pages section is out of date: run manage.py rules_docs")
            self.stdout.write("docs/rules.md is up to date")
            return
        self.stdout.write("docs/rules.md written" if rules.docs_write() else "docs/rules.md was up to date")
