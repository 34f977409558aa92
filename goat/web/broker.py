"""The embedded default's Celery broker: kombu's filesystem transport, with messages written atomically.

kombu's filesystem channel creates a message file under its final ``*.msg`` name and then writes
the payload; a consumer in another process that lists the folder in between moves and reads an
empty or half-written file, fails to decode it and stops the worker (seen under ``manage.py run``
while a fuzzer drove the API). Here a message is written under a name no consumer picks up
(``*.msg.part``) and renamed to its final name once complete: a rename within one folder is atomic,
so a consumer sees a whole message or none. Everything else is kombu's.

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


class Transport(filesystem.Transport):
    Channel = Channel
