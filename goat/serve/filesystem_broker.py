"""The embedded default's Celery broker: kombu's filesystem transport, its files written atomically.

kombu's filesystem channel creates a message file under its final ``*.msg`` name and then writes
the payload; a consumer in another process that lists the folder in between moves and reads an
empty or half-written file, fails to decode it and stops the worker (seen under ``manage.py run``
while a fuzzer drove the API). Here a message is written under a name no consumer picks up
(``*.msg.part``) and renamed to its final name once complete: a rename within one folder is atomic,
so a consumer sees a whole message or none.

The exchange tables in the control folder have the same flaw where one is created: kombu opens
the new file (empty) and only then locks and writes it, so a publisher in another process that
reads the table in between decodes nothing and its publish fails, and two processes creating the
same table at once truncate each other's binding. Here a new table is written under a temporary
name and linked into place only if none exists yet; otherwise kombu's locked update of the table
adds the binding. Everything else is kombu's.

Used when ``CELERY_BROKER_URL`` is ``filesystem://`` (settings: ``CELERY_BROKER_TRANSPORT``).
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written under a temporary name, then renamed into place."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + ".part"  # its suffix after the first dot is not "<queue>.msg": never consumed
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        """Bind ``queue`` to ``exchange``: a new exchange table appears whole (linked into place from a
        temporary file, never over another process's), an existing one is updated by kombu under its lock."""
        table = self._exchange_file(exchange)
        if not table.exists():
            self.control_folder.mkdir(exist_ok=True)
            binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
            partial = table.with_name(f"{table.name}.{uuid.uuid4()}.part")
            try:
                partial.write_bytes(str_to_bytes(dumps([binding])))
                try:
                    os.link(partial, table)  # fails if the table exists: another process created it first
                    return
                except OSError:
                    pass  # then add the binding to that table, below
                finally:
                    partial.unlink(missing_ok=True)
            except OSError as exc:
                raise ChannelError(f"Cannot open {table}") from exc
        super()._queue_bind(exchange, routing_key, pattern, queue)


class Transport(filesystem.Transport):
    Channel = Channel
