"""The Roundup bench tracker: generated data in its own database, reset, the bench endpoints."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from agentjit.bench.roundup import PASSWORD, generate


def test_state_holds_the_generated_issues(roundup_site: Any) -> None:
    data = generate(0)
    state = roundup_site.state()
    assert [i["title"] for i in state["issues"]] == [i.title for i in data.issues]
    first = state["issues"][0]
    spec = data.issues[0]
    assert (first["status"], first["priority"], first["assignedto"]) == (spec.status, spec.priority, spec.assignedto)
    assert [m["content"] for m in first["messages"]] == [t for _, t in spec.messages]
    assert {u["username"] for u in state["users"]} >= {u.username for u in data.users}


def test_reset_undoes_a_change(roundup_site: Any) -> None:
    import roundup.instance

    db = roundup.instance.open(str(roundup_site.home)).open("admin")
    try:
        db.issue.set("1", title="changed")
        db.commit()
    finally:
        db.close()
    assert roundup_site.state()["issues"][0]["title"] == "changed"
    with urllib.request.urlopen(urllib.request.Request(roundup_site.url + "__reset", data=b"{}", method="POST")) as r:
        assert json.load(r) == {"ok": True}
    assert roundup_site.state()["issues"][0]["title"] == generate(0).issues[0].title


def test_tracker_serves_pages_and_state(roundup_site: Any) -> None:
    with urllib.request.urlopen(roundup_site.url + "issue1") as r:
        html = r.read().decode()
    assert generate(0).issues[0].title in html
    with urllib.request.urlopen(roundup_site.url + "__state") as r:
        assert len(json.load(r)["issues"]) == 30
    assert PASSWORD  # the users' password, for login tools
