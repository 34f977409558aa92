"""Admin labels read as English: every model of goat's apps has a correct plural."""

from __future__ import annotations

import re

import pytest
from django.apps import apps

OUR_APPS = {"goat", "web", "players", "ratings", "tournaments"}
#: singular endings whose plural is not just "+s" (Django's default)
IRREGULAR = re.compile(r"([^aeiou]y|s|x|z|ch|sh)$")


@pytest.mark.parametrize("model", [m for m in apps.get_models() if m._meta.app_label in OUR_APPS],
                         ids=lambda m: f"{m._meta.app_label}.{m.__name__}")
def test_every_model_has_an_english_plural(model):
    singular, plural = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
    if IRREGULAR.search(singular):
        assert plural != singular + "s", f"{singular!r} -> {plural!r}: set verbose_name_plural"
    assert not re.search(r"[^aeiou]ys$", plural), plural
    assert singular == singular.lower() or singular[0].isupper(), singular


def test_the_admin_index_lists_the_ledgers_by_their_english_names(admin_client):
    html = admin_client.get("/admin/").content.decode()
    assert "Chip ledger entries" in html and "Rating ledger entries" in html
    assert "entrys" not in html
