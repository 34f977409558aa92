"""Rate limits (docs/api.md "Rate limits": 429 with ``Retry-After``) counted per client address.

DRF's throttles read ``X-Forwarded-For`` whenever ``NUM_PROXIES`` is unset, so a client that sends
a new made-up address with every request is never limited. Here the client address is the direct
peer (``REMOTE_ADDR``) unless that peer is one of ``settings.GOAT_TRUSTED_PROXIES`` (addresses or
networks, docs/operations.md): then ``X-Forwarded-For`` is read from the right, each entry being
what a trusted proxy saw as its peer, and the first address that is not a trusted proxy is the
client. Entries left of it were written by the client and are ignored.

``client_ip`` is also the address the login lockout (django-axes) counts failures against.

The counts live in the shared rate store (goat.web.api.rates: Redis with ``CACHE_URL``, else a SQLite
file every process of the machine shares), checked and counted in one atomic step, so a rate holds
across web processes and under concurrent requests. DRF's own flow is kept (its ``allow_request``,
the scopes, the rates): the throttles give it an empty history to read and count in ``throttle_success``
instead, all of a request's in one step (one round trip to Redis). Redis is not on the game path:
when the store fails, the throttles count in this process's own memory for a while (the limits then
hold per process: the documented degraded mode).

``rate_limit`` applies a named rate (``DEFAULT_THROTTLE_RATES``) to any key outside a DRF view (the
invite-code attempts); an anonymous stream open runs ``AnonRateThrottle`` itself (goat.live.streaming),
so it shares the count of the address's anonymous API reads.
"""

from __future__ import annotations

import functools
import ipaddress
import math
from typing import Any

from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy
from rest_framework import throttling

from goat.web.api.rates import Hit, rate_hit, rate_hits, rate_refund
from goat.web.errors import ServiceError, WebError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.lru_cache(maxsize=8)
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


class _NoHistory:
    """What DRF's ``allow_request`` reads as the history: nothing, so that the one atomic count in
    ``throttle_success`` (goat.web.api.rates) decides."""

    def get(self, key: str, default: Any = None) -> list:
        return []

    def set(self, key: str, value: Any, timeout: Any = None) -> None:
        return None


#: request attributes: the throttles' hits of the request, and (while they are gathered) the asks
_HITS = "_goat_rate_hits"
_GATHERING = "_goat_rate_asks"


class SharedCountMixin:
    """DRF's throttles, counted in the shared rate store: all the throttles of one request in one
    step (``rates.rate_hits``, one round trip to Redis), each counted or refused on its own as DRF's
    loop over them would. The first throttle of a request that comes to count runs the view's
    throttles once more in a gathering mode, where each notes its (key, limit, window) instead of
    counting; the hits are counted together and kept on the request for the others. A throttle used
    apart from a view's (a stream's open, a page's ``throttle_wait``) counts alone."""

    cache = _NoHistory()
    _shared_wait: float | None = None
    _asked: tuple[Any, Any] | None = None

    def allow_request(self, request, view) -> bool:
        self._asked = (request, view)
        try:
            return super().allow_request(request, view)  # type: ignore[misc]
        finally:
            self._asked = None

    def throttle_success(self) -> bool:
        ask = (f"throttle:{self.key}", self.num_requests, self.duration)  # type: ignore[attr-defined]
        request, view = self._asked or (None, None)
        gathering = getattr(request, _GATHERING, None)
        if gathering is not None:
            gathering.append(ask)
            return True
        hit = _request_hits(request, view).get(ask[0]) or rate_hit(ask[0], limit=ask[1], window=ask[2])
        self._shared_wait = None if hit.admitted else hit.wait
        return hit.admitted

    def wait(self) -> float | None:
        return self._shared_wait


def _request_hits(request: Any, view: Any) -> dict[str, Hit]:
    """The hits of ``request``'s throttles (those of ``view``), counted in one step the first time."""
    hits = getattr(request, _HITS, None)
    if hits is not None:
        return hits
    get_throttles = getattr(view, "get_throttles", None)
    if request is None or get_throttles is None:
        return {}
    asks: list = []
    setattr(request, _GATHERING, asks)
    try:
        for throttle in get_throttles():
            if isinstance(throttle, SharedCountMixin):
                throttle.allow_request(request, view)
    finally:
        delattr(request, _GATHERING)
    hits = {hit.key: hit for hit in rate_hits(asks)}
    setattr(request, _HITS, hits)
    return hits


THROTTLED = gettext_lazy("Request was throttled.")


def _rate(scope: str) -> tuple[int, float]:
    rates = throttling.SimpleRateThrottle.THROTTLE_RATES  # DEFAULT_THROTTLE_RATES, as the throttles read it
    num, duration = throttling.SimpleRateThrottle.parse_rate(None, rates[scope])  # type: ignore[arg-type]
    return num, duration


def _throttled(hit: Hit) -> ServiceError:
    return WebError.THROTTLED(str(THROTTLED),
                        headers={"Retry-After": str(max(1, math.ceil(hit.wait)))})


def secret_attempt(*, guesser: tuple[str, str], target: tuple[str, str], right: bool) -> None:
    """Throttle the guessing of a secret (an invite code, a link's code) so that it holds the guesser and
    never the secret's rightful holders. ``guesser`` and ``target`` are (rate scope, ident): the player
    who tries, and what the secret opens (a tournament); ``right``: whether the attempt was right.

    * the guesser's own rate counts their wrong attempts: past it, every attempt of theirs is 429, right
      or wrong, so they cannot learn the secret at request speed;
    * the target's rate counts every guesser's wrong attempts (many accounts guessing together). Past
      it, a player who has made no wrong attempt at this target within its window still has one
      attempt: a rightful holder who types the secret right gets in; a guesser, once wrong, gets 429.
      Guessing then goes no faster than new accounts can be made (sign-ups are throttled per address).
    * a right attempt counts for nobody.

    Raises 429 ``throttled`` where the attempt is refused; returns when it may be judged (the caller then
    accepts a right one, refuses a wrong one)."""
    player_hit = rate_limit(*guesser)
    num, window = _rate(target[0])
    target_hit, first = rate_hits([(f"{target[0]}:{target[1]}", num, window),
                                   (f"{target[0]}:{target[1]}:tried:{guesser[1]}", 1, window)])
    if not target_hit.admitted and not first.admitted:
        rate_refund(player_hit)  # refused unjudged: no attempt of theirs
        raise _throttled(first)
    if right:
        for hit in (player_hit, target_hit, first):
            rate_refund(hit)


def rate_limit(scope: str, ident: str) -> Hit:
    """One hit of ``ident`` on the rate of ``scope`` (``DEFAULT_THROTTLE_RATES``); a 429 ``throttled``
    ServiceError with ``Retry-After`` when it is over. The hit is returned (``rates.rate_refund``)."""
    num, duration = _rate(scope)
    hit = rate_hit(f"{scope}:{ident}", limit=num, window=duration)
    if not hit.admitted:
        raise _throttled(hit)
    return hit


class ClientAddressMixin(SharedCountMixin):
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


def page_limited(view):
    """``view``, a public page, under the ``pages`` rate per client address (signed in or not): past it,
    a GET or HEAD is answered 429 with a page that says how long to wait, and ``Retry-After``."""

    @functools.wraps(view)
    def limited(request, *args, **kwargs):
        if request.method in ("GET", "HEAD") and (wait := throttle_wait(request, "pages", by_address=True)):
            response = TemplateResponse(request, "429.html", {"seconds": wait}, status=429)
            response["Retry-After"] = str(wait)
            return response
        return view(request, *args, **kwargs)

    return limited


def pages_limited(patterns: list) -> list:
    """``patterns`` (a URLconf's list of public pages) with each view ``page_limited``."""
    for pattern in patterns:
        pattern.callback = page_limited(pattern.callback)
    return patterns
