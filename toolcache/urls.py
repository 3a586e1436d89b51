"""URLs from scripts and traces stay on the site: the one rule lives in :mod:`agentjit.protocol.urls`."""

from agentjit.protocol.urls import OffSiteURL, origin, site_path, site_url

__all__ = ["OffSiteURL", "origin", "site_path", "site_url"]
