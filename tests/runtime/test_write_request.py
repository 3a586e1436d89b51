"""Whether a WRITE's request carried what the call gave it, held to the requests its good calls sent (issue 21; no
browser): :func:`agentjit.runtime.healing.inputs_not_carried` and the good calls the suspect store keeps for it."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from agentjit.cache import SuspectStore
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime.healing import inputs_not_carried, request_hold, text_inputs

SCHEMA = {"type": "object", "properties": {
    "title": {"type": "string"}, "note": {"type": "string"}, "priority": {"type": "string", "enum": ["bug", "wish"]},
    "password": {"type": "string", "writeOnly": True}, "count": {"type": "integer"},
}}  # fmt: skip
TOOL = ToolManifest(name="save", description="d", type=ToolType.SET_FIELDS, execute="return {};", effect=Effect.WRITE,
                    input_schema=SCHEMA)  # fmt: skip


def post(**fields: str) -> dict[str, object]:
    return {"method": "POST", "url": "http://x.test/issue", "post_data": urlencode(fields)}


GOOD = [{"args": {"title": "Old", "note": "First note.", "priority": "bug"},
         "writes": [post(title="Old", **{"@note": "First note."}, priority="3")]}]  # fmt: skip


def test_only_free_texts_are_held() -> None:
    assert text_inputs(TOOL) == ["title", "note"]


def test_a_value_sent_empty_or_missing_is_named_with_its_parameter() -> None:
    args = {"title": "New", "note": "Second note.", "priority": "wish"}
    [why] = inputs_not_carried(TOOL, args, [post(title="New", **{"@note": ""}, priority="5")], GOOD)
    assert why.startswith("note:") and "@note=''" in why
    [why] = inputs_not_carried(TOOL, args, [post(title="New", priority="5")], GOOD)
    assert "no '@note'" in why


def test_a_value_carried_as_a_form_json_html_or_with_other_line_breaks_is_no_loss() -> None:
    args = {"title": "New", "note": "Fish & chips\non Friday."}
    sent = [
        post(title="New", **{"@note": "Fish & chips\r\non Friday."}),  # a textarea's line breaks as a form sends them
        post(title="New", content=json.dumps({"blocks": [{"text": "Fish & chips\non Friday."}]})),  # an editor's state
        post(title="New", body="<p>Fish &amp; chips\non Friday.</p>"),  # an editor's HTML
        {"method": "PUT", "url": "http://x.test/issue", "post_data": json.dumps({"title": "New", "n": args["note"]})},
        post(title="New", renamed="Fish & chips\non Friday."),  # another parameter: still carried
    ]
    for one in sent:
        assert inputs_not_carried(TOOL, args, [one], GOOD) == [], one


def test_nothing_to_hold_it_to_is_no_loss() -> None:
    args = {"title": "New", "note": "Second note."}
    lost = [post(title="New")]
    assert inputs_not_carried(TOOL, args, [], GOOD) == []  # no request: not judged here
    assert inputs_not_carried(TOOL, args, lost, []) == []  # no good call
    # a good call that never sent the note as given (a form that reformats it), or did not give one
    assert inputs_not_carried(TOOL, args, lost, [{"args": {"note": "First note."}, "writes": [post(n="FIRST NOTE")]}]) == []
    assert inputs_not_carried(TOOL, args, lost, [{"args": {"title": "Old"}, "writes": [post(title="Old")]}]) == []
    # a choice (label sent as its option's value) and a secret are never held
    assert inputs_not_carried(TOOL, {"priority": "wish", "password": "pw1"}, lost, GOOD) == []


def test_a_later_good_write_is_kept_for_a_free_text_no_kept_call_gave(tmp_path) -> None:
    store = SuspectStore(tmp_path)
    store.save_good("save", 1, "http://x.test/issue1", "<html></html>", args={"priority": "bug"}, writes=[post(priority="3")])
    texts = text_inputs(TOOL)
    # a choice given again, or a call that sent nothing: not kept
    assert not store.add_good_write("save", 1, "http://x.test/issue2", args={"priority": "wish"}, writes=[post(priority="5")], texts=texts)
    assert not store.add_good_write("save", 1, "http://x.test/issue2", args={"note": "A note."}, writes=[], texts=texts)
    assert store.add_good_write("save", 1, "http://x.test/issue2", args={"note": "A note."},
                                writes=[post(**{"@note": "A note."})], texts=texts)  # fmt: skip
    assert not store.add_good_write("save", 1, "http://x.test/issue3", args={"note": "Another."},
                                    writes=[post(**{"@note": "Another."})], texts=texts)  # fmt: skip
    calls = store.good_calls("save")
    assert [c["args"] for c in calls] == [{"priority": "bug"}, {"note": "A note."}]
    # the note is held to the kept call's request now
    assert inputs_not_carried(TOOL, {"note": "Third."}, [post(**{"@note": ""})], calls)


def test_the_free_texts_no_kept_call_gave_are_named(tmp_path) -> None:
    """A run keeps a WRITE's later calls on other pages or with other arguments too (an item with options), but
    leaves the last place for a call that gives a free text none kept gave: that input's request is then checked.
    Roundup's edit_issue, called for a status, a priority, an assignee and then a note, kept no note before."""
    store = SuspectStore(tmp_path)
    store.save_good("save", 1, "http://x.test/issue1", "<html></html>", args={"priority": "bug"}, writes=[post(priority="3")])
    assert store.texts_not_given("save", text_inputs(TOOL)) == ["title", "note"]
    assert store.add_good_call("save", 1, "http://x.test/issue2", args={"priority": "wish", "title": "New"}, output=None,
                               writes=[post(priority="5", title="New")])  # fmt: skip
    assert store.texts_not_given("save", text_inputs(TOOL)) == ["note"]
    assert store.new_write_inputs("save", 1, {"note": "A note.", "title": "x"}, text_inputs(TOOL)) == ["note"]


def test_the_hold_names_a_request_to_the_good_calls_route_that_lacks_the_value_before_it_leaves() -> None:
    """:func:`request_hold`: the same rule, asked of each request before it is sent."""
    args = {"title": "New", "note": "Second note.", "priority": "wish"}
    hold = request_hold(TOOL, args, GOOD)
    assert hold is not None
    why = hold(post(title="New", **{"@note": ""}, priority="5"))
    assert why is not None and why.startswith("note:") and "'@note'" in why
    assert hold(post(title="New", **{"@note": "Second note."})) is None  # carried
    other = {"method": "POST", "url": "http://x.test/csrf-token", "post_data": "x=1"}
    assert hold(other) is None  # another route: the request that carries it may come next
    assert hold({**post(title="New"), "method": "PUT"}) is None  # another method
    # nothing to hold it to: no good call, no free text given, a good call that never carried its text as given
    assert request_hold(TOOL, args, []) is None
    assert request_hold(TOOL, {"priority": "wish"}, GOOD) is None
    assert request_hold(TOOL, args, [{"args": {"note": "First note."}, "writes": [post(n="FIRST NOTE")]}]) is None
