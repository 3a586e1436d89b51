"""URLs from caches, scripts, traces and effect logs, kept on the site being used.

A cache's ``start_path``, a script's ``goto``, a trace's recorded URLs and an
effect log's page after a write are input, not instructions to go anywhere:
``http://127.0.0.1:8000//other-host/x`` has the path ``//other-host/x``, which
``urljoin`` turns into ``http://other-host/x``, and ``"@127.0.0.1:9/x"``
appended to a base URL as text makes the base its userinfo. :func:`site_url`
builds every such URL the runtime, the recorder, the verifier and the stepwise
agent open, and refuses one whose origin (scheme, host, port) is not the site's
or that carries userinfo; :func:`check_site_path` is the rule for a path a
cache file stores.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from agentjit.exceptions import UserError

__all__ = ["OffSiteURL", "check_site_path", "origin", "site_path", "site_url"]


class OffSiteURL(UserError):
    """A URL in a script or trace that leads off the site (another scheme, host or port)."""


def origin(url: str) -> tuple[str, str]:
    """``(scheme, host:port)`` of ``url``, lowercased, default ports made explicit."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number
        port = None
    host = (parts.hostname or "").lower()
    if port is None:
        port = {"http": 80, "https": 443}.get(scheme)
    return scheme, f"{host}:{port}"


def site_path(url: str | None) -> str:
    """The path and query of ``url`` (absolute or relative), always starting with ``/``.

    ``//other-host/x`` stays a path (of the site it is appended to), never a host.
    """
    parts = urlsplit(url or "/")
    path = parts.path or "/"
    if not path.startswith("/"):
        path = "/" + path
    return path + (f"?{parts.query}" if parts.query else "")


def site_url(base_url: str, url: str | None, *, keep_host: bool = False) -> str:
    """``url`` as a URL on ``base_url``'s site; raises :class:`OffSiteURL` if it would leave it.

    By default only the path and query of ``url`` are kept (a trace recorded on
    another port of the same app replays on this one). With ``keep_host`` (a
    script's ``goto``), ``url`` is resolved against ``base_url`` as a browser
    would, and an absolute or protocol-relative URL to another origin is refused.
    """
    if keep_host:
        target = urljoin(base_url, url or "/")
    else:
        base = urlsplit(base_url)
        target = f"{base.scheme}://{base.netloc}{site_path(url)}"
    if origin(target) != origin(base_url) or urlsplit(target).username is not None:
        raise OffSiteURL(f"{url!r} leads off the site {base_url} (resolved to {target})")
    return target


def check_site_path(path: str) -> str:
    """``path`` if it is a path on a site (``/``, ``/store/7?tab=x``), else ``ValueError`` saying why.

    Refused: anything not starting with one ``/`` (a scheme, ``//host``, ``@host``, a relative
    path), backslashes (browsers read ``/\\host`` as ``//host``) and control characters."""
    if not path.startswith("/") or path.startswith("//"):
        raise ValueError(f"{path!r} is not a path on the site (it must start with a single '/')")
    if "\\" in path or any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        raise ValueError(f"{path!r} holds a backslash or a control character")
    return path
