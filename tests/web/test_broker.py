"""The embedded default's broker (goat/serve/filesystem_broker.py): a message is never seen half-written."""

from __future__ import annotations

import contextlib
import os
import queue as queues
import threading

import pytest
from django.conf import settings
from kombu import Connection

from goat.serve import filesystem_broker


def _connection(folder) -> Connection:
    # every folder inside ``folder`` (kombu's default control folder is ./control, in the working directory)
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder),
               "control_folder": str(folder / "control"), "polling_interval": 0.01}
    return Connection("filesystem://", transport="goat.serve.filesystem_broker:Transport", transport_options=options)


def test_the_embedded_default_uses_it():
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        assert settings.CELERY_BROKER_TRANSPORT == "goat.serve.filesystem_broker:Transport"


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

        monkeypatch.setattr(filesystem_broker.os, "replace", replace)
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

    with _connection(tmp_path) as conn:
        # The queue is bound before the consumer starts: kombu's filesystem transport keeps declared
        # bindings in memory for the whole process (``Transport.global_state``), so while the consumer
        # thread's bind is in flight this one would be skipped and the first puts find no table
        # (undeliverable). Processes each write their own binding; the binding race has its own test.
        simple = conn.SimpleQueue("race")
        consumer = threading.Thread(target=consume)
        consumer.start()
        for i in range(count):
            simple.put({"n": i, "pad": "y" * 2_000})
        simple.close()
    consumer.join(60)
    assert sorted(m["n"] for m in got) == list(range(count))


def test_a_new_exchange_table_is_never_seen_empty_or_half_written(tmp_path, monkeypatch):
    seen_before: list = []
    real_link = os.link

    with _connection(tmp_path) as conn, _connection(tmp_path) as other:
        reader = other.default_channel

        def link(src, dst):
            assert not os.path.exists(dst) and os.path.getsize(src) > 0  # written in full, under its temporary name
            seen_before.append(reader.get_table("ex"))  # what a publisher finds meanwhile: no table, not an empty one
            real_link(src, dst)

        monkeypatch.setattr(filesystem_broker.os, "link", link)
        conn.default_channel._queue_bind("ex", "rk", "", "q")
        assert seen_before == [[]]
        assert [tuple(b) for b in reader.get_table("ex")] == [("rk", "", "q")]
        assert sorted(os.listdir(tmp_path / "control")) == ["ex.exchange"]  # no temporary file left


def test_processes_binding_to_a_new_exchange_at_once_keep_every_binding_and_publishers_never_fail(tmp_path):
    # flock locks belong to open files, so threads with connections of their own race as processes do
    binders, rounds = 6, 15
    errors: list = []
    with contextlib.ExitStack() as stack:
        channels = [stack.enter_context(_connection(tmp_path)).default_channel for _ in range(binders + 1)]
        for r in range(rounds):
            exchange = f"ex{r}"
            start = threading.Barrier(binders + 1)
            done = threading.Event()

            def bind(channel, i, exchange=exchange, start=start):
                start.wait()
                try:
                    channel._queue_bind(exchange, f"q{i}", "", f"q{i}")
                except Exception as exc:  # noqa: BLE001 - collected, asserted below
                    errors.append(exc)

            def read(channel, exchange=exchange, start=start, done=done):
                start.wait()
                while not done.is_set():
                    try:
                        channel.get_table(exchange)
                    except Exception as exc:  # noqa: BLE001 - collected, asserted below
                        errors.append(exc)
                        return

            threads = [threading.Thread(target=bind, args=(channels[i], i)) for i in range(binders)]
            reader = threading.Thread(target=read, args=(channels[binders],))
            for thread in [*threads, reader]:
                thread.start()
            for thread in threads:
                thread.join(30)
            done.set()
            reader.join(30)
            assert errors == []
            assert sorted(b.queue for b in channels[0].get_table(exchange)) == [f"q{i}" for i in range(binders)]
