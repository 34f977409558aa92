"""The embedded default's broker (goat/web/broker.py): a message is never seen half-written."""

from __future__ import annotations

import os
import queue as queues
import threading

import pytest
from django.conf import settings
from kombu import Connection

from goat.web import broker


def _connection(folder) -> Connection:
    # every folder inside ``folder`` (kombu's default control folder is ./control, in the working directory)
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder),
               "control_folder": str(folder / "control"), "polling_interval": 0.01}
    return Connection("filesystem://", transport="goat.web.broker:Transport", transport_options=options)


def test_the_embedded_default_uses_it():
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        assert settings.CELERY_BROKER_TRANSPORT == "goat.web.broker:Transport"


def test_a_message_being_written_is_not_consumed_until_it_is_complete(tmp_path, monkeypatch):
    seen_before: list = []
    real_replace = os.replace

    with _connection(tmp_path) as conn:
        channel = conn.default_channel

        def replace(src, dst):
            assert src.endswith(".msg.part") and os.path.getsize(src) > 0  # written in full, under its temporary name
            with pytest.raises(queues.Empty):
                seen_before.append(channel._get("q"))  # what a consumer finds meanwhile: nothing
            real_replace(src, dst)

        monkeypatch.setattr(broker.os, "replace", replace)
        channel._put("q", {"body": "x" * 10_000})
        assert seen_before == []
        assert channel._get("q") == {"body": "x" * 10_000}
        assert os.listdir(tmp_path) == []


def test_messages_put_while_another_connection_consumes_all_arrive_whole(tmp_path):
    count = 300
    got: list = []

    def consume():
        with _connection(tmp_path) as conn:
            simple = conn.SimpleQueue("race")
            while len(got) < count:
                message = simple.get(timeout=20)
                got.append(message.payload)
                message.ack()
            simple.close()

    consumer = threading.Thread(target=consume)
    consumer.start()
    with _connection(tmp_path) as conn:
        simple = conn.SimpleQueue("race")
        for i in range(count):
            simple.put({"n": i, "pad": "y" * 2_000})
        simple.close()
    consumer.join(60)
    assert sorted(m["n"] for m in got) == list(range(count))
