"""The trace format: write, read back, and errors that name the file and line."""

import json

import pytest

from agentjit.exceptions import TraceError
from agentjit.protocol.trace import SessionEvent, StepEvent, TraceWriter, read_trace


def make_trace(path):
    with TraceWriter(path, SessionEvent(site="food", start_url="http://127.0.0.1:1/")) as w:
        sid = w.snapshot("<html><body>hi</body></html>")
        again = w.snapshot("<html><body>hi</body></html>")
        assert sid == again
        w.step(StepEvent(index=w.next_index(), action="click", start=1.0, end=1.5, snapshot=sid, target={"selector": "#a"}))
        w.step(StepEvent(index=w.next_index(), action="tool", tool="goto_home", start=2.0, end=2.1, effect="READ"))
    return path


def test_round_trip(tmp_path):
    trace = read_trace(make_trace(tmp_path / "t.jsonl"))
    assert trace.session.site == "food"
    assert [s.action for s in trace.steps] == ["click", "tool"]
    assert trace.steps[0].target.selector == "#a"
    assert trace.snapshot_html(trace.steps[0]) == "<html><body>hi</body></html>"
    assert trace.steps[0].duration == pytest.approx(0.5)
    # one snapshot line for two identical snapshots
    kinds = [json.loads(line)["kind"] for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert kinds.count("snapshot") == 1


def test_truncated_line_names_file_and_line(tmp_path):
    path = make_trace(tmp_path / "t.jsonl")
    text = path.read_text()
    path.write_text(text[: len(text) - 20])
    with pytest.raises(TraceError) as err:
        read_trace(path)
    assert str(path) in str(err.value) and f":{len(text.splitlines())}" in str(err.value)


def test_unknown_version(tmp_path):
    path = make_trace(tmp_path / "t.jsonl")
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head["version"] = 99
    path.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    with pytest.raises(TraceError, match=r"t.jsonl:1: unknown trace version 99"):
        read_trace(path)


def test_version_1_still_reads(tmp_path):
    """Version 2 added what a state-changing request sent and got; a version-1 trace (requests with
    method, url and status only) reads as before."""
    path = make_trace(tmp_path / "t.jsonl")
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["version"] == 2
    head["version"] = 1
    step = json.loads(lines[2])
    step["requests"] = [{"method": "POST", "url": "http://127.0.0.1:1/api/cart", "resource": "fetch", "status": 200}]
    path.write_text("\n".join([json.dumps(head), lines[1], json.dumps(step), *lines[3:]]) + "\n")
    trace = read_trace(path)
    assert trace.session.version == 1
    assert trace.steps[0].requests[0]["status"] == 200 and "response" not in trace.steps[0].requests[0]


def test_missing_snapshot(tmp_path):
    path = make_trace(tmp_path / "t.jsonl")
    lines = [line for line in path.read_text().splitlines() if '"kind":"snapshot"' not in line]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError, match=r"t.jsonl:2: step 0 refers to snapshot"):
        read_trace(path)


def test_bad_field_named(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(SessionEvent().model_dump_json() + "\n" + json.dumps({"kind": "step", "index": 0, "action": "fly", "start": 0, "end": 1}) + "\n")
    with pytest.raises(TraceError, match=r":2: field 'step.action'"):
        read_trace(path)


def test_first_line_must_be_session(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"kind": "step", "index": 0, "action": "click", "start": 0, "end": 1}) + "\n")
    with pytest.raises(TraceError, match=":1: the first line must be a session"):
        read_trace(path)
