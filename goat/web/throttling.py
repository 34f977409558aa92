"""Rate limits (docs/api.md "Rate limits": 429 with ``Retry-After``) counted per client address.

DRF's throttles read ``X-Forwarded-For`` whenever ``NUM_PROXIES`` is unset, so a client that sends
a new made-up address with every request is never limited. Here the client address is the direct
peer (``REMOTE_ADDR``) unless that peer is one of ``settings.GOAT_TRUSTED_PROXIES`` (addresses or
networks, docs/operations.md): then ``X-Forwarded-For`` is read from the right, each entry being
what a trusted proxy saw as its peer, and the first address that is not a trusted proxy is the
client. Entries left of it were written by the client and are ignored.

``client_ip`` is also the address the login lockout (django-axes) counts failures against.

The counts live in Django's cache (shared through Redis with ``CACHE_URL``). Redis is not on the
game path: when the cache fails, the throttles count in this process's own memory instead (the
limits then hold per process, as without ``CACHE_URL``) and try the cache again every
``CACHE_RETRY_SECONDS``.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from functools import lru_cache
from typing import Any

from django.core.cache import cache as default_cache
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import throttling

logger = logging.getLogger(__name__)

#: after the shared cache failed, how long the throttles count in-process before trying it again
CACHE_RETRY_SECONDS = 2.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(spec: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in spec)


def trusted_proxies() -> tuple[Network, ...]:
    """``settings.GOAT_TRUSTED_PROXIES`` parsed (a system check reports a value that does not parse)."""
    from django.conf import settings

    return _networks(tuple(getattr(settings, "GOAT_TRUSTED_PROXIES", ())))


def _address(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(value.strip())
    except ValueError:
        return None


def _trusted(address, proxies: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in proxies)


def client_ip(request) -> str:
    """The address of the client that sent ``request`` (a Django or DRF request)."""
    meta = request.META
    peer = meta.get("REMOTE_ADDR", "") or ""
    proxies = trusted_proxies()
    if not proxies or not _trusted(_address(peer), proxies):
        return peer
    client = peer
    hops = [hop for hop in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:  # not written by a proxy of ours: stop at the last address we trust
            return client
        client = str(address)
        if not _trusted(address, proxies):
            return client
    return client


class FallbackCache:
    """The default cache, or this process's own memory for CACHE_RETRY_SECONDS after it failed."""

    def __init__(self) -> None:
        self.local = LocMemCache("goat-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 100_000}})
        self.retry_at = 0.0
        self._lock = threading.Lock()

    def _call(self, method: str, *args: Any) -> Any:
        if time.monotonic() >= self.retry_at:
            try:
                return getattr(default_cache, method)(*args)
            except Exception:  # noqa: BLE001 - whatever the cache's client raises, the request goes on
                with self._lock:
                    if time.monotonic() >= self.retry_at:
                        logger.warning("throttles: the cache failed; counting in this process for %ss",
                                       CACHE_RETRY_SECONDS, exc_info=True)
                    self.retry_at = time.monotonic() + CACHE_RETRY_SECONDS
        return getattr(self.local, method)(*args)

    def get(self, key: str, default: Any = None) -> Any:
        return self._call("get", key, default)

    def set(self, key: str, value: Any, timeout: Any = None) -> Any:
        return self._call("set", key, value, timeout)


fallback_cache = FallbackCache()


class ClientAddressMixin:
    cache = fallback_cache

    def get_ident(self, request) -> str:
        return client_ip(request)


class AnonRateThrottle(ClientAddressMixin, throttling.AnonRateThrottle):
    """Anonymous requests, per client address (rate ``anon``)."""


class UserRateThrottle(ClientAddressMixin, throttling.UserRateThrottle):
    """Per account; anonymous requests per client address (rate ``user``)."""


class ScopedRateThrottle(ClientAddressMixin, throttling.ScopedRateThrottle):
    """Per view scope (``throttle_scope``: signup, auth, moves), per account or client address."""


def throttle_wait(request: Any, scope: str, *, by_address: bool = False) -> int | None:
    """Seconds to wait when a page's ``request`` is over the API's ``scope`` rate, else None: the same
    count as the API's views of that scope. Per account when signed in, else per client address;
    ``by_address`` counts per client address alone (the sign-up and sign-in forms, which authenticate
    no one yet)."""
    from types import SimpleNamespace

    from django.contrib.auth.models import AnonymousUser

    throttle = ScopedRateThrottle()
    asker = SimpleNamespace(user=AnonymousUser() if by_address else request.user, META=request.META)
    if throttle.allow_request(asker, SimpleNamespace(throttle_scope=scope)):
        return None
    return max(1, int(throttle.wait() or 1))
