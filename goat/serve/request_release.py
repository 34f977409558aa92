"""Free a request's objects when its response closes, without the garbage collector.

Django and DRF tie each request's objects into reference cycles: the request and its message
storage (``request._messages``, whose storages hold ``request``), the lazy user and ``auser`` (closures
over the request), django-csp's lazy nonce (likewise), DRF's request and the view (``parser_context``
holds both), and DRF's response (``renderer_context`` holds the response itself, the view and the
request). Reference counting frees none of these; the collector does, when it next scans the
generation they reached. In a web worker, a request that lives through two young collections (an
open stream always, an API request under load often) reaches the oldest generation, which
``goat.serve.server.collector_settle`` collects rarely so that its pauses stay out of the moves: there
it waits, the worker grows, and its other collections slow (docs/performance-journal.md, issue 37's
seventh and tenth sessions).

``ReleaseMiddleware`` removes those links when the response closes (after its body is sent, or at
the test client's close; a stream's at once, since its body does not read them), so reference
counting frees the request, the view and the response as soon as the server lets go of them.
goat.web.api.auth caches the token's user one way only, for the same reason. Only links are removed:
what a caller still holding the response reads (its content, status, headers, ``data``) is intact.
Left to the collector: a DRF serializer and its fields (they point at each other, and die young,
inside the view) and a rendered template's context (an HTML page's request). tests/web/test_release.py
counts what an API request leaves, so a new cycle (a Django or DRF upgrade, a middleware added)
shows as a failing test.
"""

from __future__ import annotations

from functools import partial

#: the request attributes that hold a reference back to the request (see the module's docstring)
REQUEST_LINKS = ("_messages", "user", "auser", "csp_nonce")


def release(request, response) -> None:
    """Remove the links that tie ``request`` and ``response`` (and DRF's request and view) into cycles."""
    context = response.__dict__.pop("renderer_context", None) or {}
    api_request = context.get("request")
    if api_request is not None:
        api_request.__dict__.pop("parser_context", None)
    view = context.get("view")
    if view is not None:  # done with: its request, its response, and ``head``, a bound method of its own
        view.__dict__.clear()
    for name in REQUEST_LINKS:
        request.__dict__.pop(name, None)


class ReleaseMiddleware:
    """First in MIDDLEWARE, so every other middleware is done with the request: ``release`` its cycles."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.streaming:
            # a stream's body reads nothing of the request, and holding it for the stream's life
            # would keep the request in memory as long as the stream is open
            release(request, response)
        else:
            # Django runs a response's closers when the server closes it (the WSGI iterable's close(),
            # the ASGI handler after the last body), before request_finished; an error in one is
            # ignored. By then the handler has logged the response (which may read the request).
            # ``_resource_closers`` is Django's own list (it closes the request's files through it):
            # no public hook has both the request and the closed response.
            response._resource_closers.append(partial(release, request, response))
        return response
