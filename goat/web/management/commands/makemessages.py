"""``manage.py makemessages``: Django's, with goat's defaults for its one catalog (goat/locale).

Run from the repository root: ``python manage.py makemessages -l ru`` (then translate the new entries
in goat/locale/ru/LC_MESSAGES/django.po and run ``python manage.py compilemessages``). The defaults keep
the catalog easy to merge between branches: no source locations (line numbers), no wrapping, entries
sorted by msgid, no obsolete entries, no creation date in the header; and it leaves out what is not the product
(tests, benches, data, docs). Every app's strings, whatever its folder, land in the one catalog of
LOCALE_PATHS.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.core.management.commands import makemessages

#: folders of the repository whose strings are not shown to anyone
IGNORED = ["tests", "bench", "docs", "goat-data", "*.egg-info", "build", "dist", "node_modules", "venv"]


class Command(makemessages.Command):
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--sort-output"]
    msgattrib_options = [*makemessages.Command.msgattrib_options, "--sort-output"]

    def handle(self, *args, **options):
        options["ignore_patterns"] = [*(options.get("ignore_patterns") or []), *IGNORED]
        options["no_location"] = True
        options["no_wrap"] = True
        options["no_obsolete"] = True
        super().handle(*args, **options)
        domain = options.get("domain") or "django"
        for root in settings.LOCALE_PATHS:
            for po in Path(root).glob(f"*/LC_MESSAGES/{domain}.po"):
                text = po.read_text(encoding="utf-8")
                po.write_text(re.sub(r'^"POT-Creation-Date: [^"]*"\n', "", text, flags=re.M), encoding="utf-8")
