"""``manage.py run``'s first start on a node racing another: the staff account another node made
meanwhile is found, not a crash (tests/web/test_run_together.py starts two real nodes on PostgreSQL)."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model

from goat.serve.management.commands.run import Command


@pytest.mark.django_db(transaction=True)
def test_a_staff_account_made_by_another_node_meanwhile_is_found(monkeypatch):
    User = get_user_model()
    User.objects.create_superuser(username="admin", password="made-elsewhere", email="")
    queryset = type(User.objects.all())
    monkeypatch.setattr(queryset, "exists", lambda self: False)  # this node looked before the other made it

    out = io.StringIO()
    command = Command(stdout=out)
    command._ensure_staff()

    assert "exists (made by another node at this start)" in out.getvalue()
    assert User.objects.filter(username="admin").count() == 1
    assert User.objects.get(username="admin").check_password("made-elsewhere")
