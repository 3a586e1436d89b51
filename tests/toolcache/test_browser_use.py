"""browser-use AgentHistoryList import: a realistic history becomes a valid trace; bad files are named."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentjit.exceptions import TraceError
from agentjit.protocol.trace import read_trace
from toolcache.browser_use import import_history, read_history
from toolcache.build import build_cache
from toolcache.cli import main

HISTORY = Path(__file__).parent / "data" / "browser_use_history.json"
BASE = "http://127.0.0.1:8765"
FOOD_TRACES = Path(__file__).resolve().parents[2] / "traces" / "food"


def _history() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(HISTORY.read_text(encoding="utf-8"))
    return data


def test_import_maps_actions_targets_urls_and_timings(tmp_path: Path) -> None:
    out = import_history(HISTORY, tmp_path / "bu.jsonl", site="food")
    trace = read_trace(out)
    assert trace.session.source == "browser-use" and trace.session.site == "food"
    assert trace.session.start_url == BASE + "/"
    # done is skipped; the two actions of step 2 become two steps
    assert [s.action for s in trace.steps] == ["goto", "fill", "press", "click", "click", "click", "click"]
    assert [s.index for s in trace.steps] == list(range(7))
    goto, fill, press, card, item, failed, add = trace.steps
    assert goto.value == BASE + "/" and goto.url_after == BASE + "/" and goto.target is None
    assert fill.value == "pizza" and fill.url == BASE + "/" and fill.url_after is None
    assert press.value == "Enter" and press.url_after == BASE + "/search?q=pizza" and press.title == "Search - Food"
    assert fill.target is not None and fill.target.tag == "input" and fill.target.role == "textbox"
    assert fill.target.name == "Search stores and dishes"
    assert fill.target.selector == '[data-testid="search-input"]'
    assert card.target is not None and card.target.role == "link"
    extra = card.target.model_extra or {}
    assert extra["testid"] == "store-card" and extra["attributes"]["data-name"] == "Nonna's Pizza"
    assert extra["xpath"] == "html/body/main/section/div/a[1]" and extra["index"] == 7
    assert extra["ancestors"][0] == {"tag": "div"} and extra["ancestors"][-1] == {"tag": "html"}
    assert card.url == BASE + "/search?q=pizza" and card.url_after == BASE + "/store/nonnas-pizza"
    assert item.target is not None and (item.target.model_extra or {})["testid"] == "menu-item"
    assert not failed.ok and failed.reason is not None and "index 31" in failed.reason and failed.phase == "execute"
    assert add.ok and add.goal == "Click Add to cart again"
    # step times: metadata start/end, split evenly over a step's actions
    assert goto.start == 1718000000.0 and goto.duration == pytest.approx(2.25)
    assert fill.duration == pytest.approx(1.75) and press.start == pytest.approx(fill.end)
    assert card.duration == pytest.approx(2.5)
    assert all(a.end <= b.start for a, b in zip(trace.steps, trace.steps[1:], strict=False))


def test_newer_format_navigate_click_input(tmp_path: Path) -> None:
    """browser-use >= 0.5: flat model_output, navigate / click / input, DOMInteractedElement."""
    data = {"history": [
        {"model_output": {"thinking": "start", "next_goal": "open the site", "action": [{"navigate": {"url": BASE + "/"}}]},
         "result": [{"is_done": False}], "state": {"url": "about:blank", "title": "", "tabs": [], "interacted_element": [None]},
         "metadata": {"step_start_time": 10.0, "step_end_time": 11.0, "input_tokens": 10, "step_number": 1}},
        {"model_output": {"next_goal": "open the store", "action": [{"click": {"index": 4}}]},
         "result": [{"is_done": False}],
         "state": {"url": BASE + "/", "title": "Home - Food", "tabs": [], "screenshot_path": None, "interacted_element": [
             {"node_type": 1, "node_value": "", "node_name": "A", "x_path": "html/body/main/a[2]",
              "attributes": {"data-testid": "store-card", "href": "/store/winstop", "data-name": "Winstop"}}]},
         "metadata": {"step_start_time": 12.0, "step_end_time": 13.5, "input_tokens": 10, "step_number": 2}},
        {"model_output": None, "result": [], "state": {"url": BASE + "/store/winstop", "title": "Winstop - Food",
                                                       "tabs": [], "interacted_element": []}, "metadata": None},
    ]}
    src = tmp_path / "new.json"
    src.write_text(json.dumps(data))
    trace = read_trace(import_history(src, tmp_path / "new.jsonl"))
    assert [s.action for s in trace.steps] == ["goto", "click"]
    click = trace.steps[1]
    assert click.goal == "open the store" and click.url_after == BASE + "/store/winstop"
    assert click.target is not None and click.target.tag == "a" and click.target.role == "link"
    assert (click.target.model_extra or {})["xpath"] == "html/body/main/a[2]"
    assert click.duration == pytest.approx(1.5)


def test_actions_that_never_ran_are_dropped(tmp_path: Path) -> None:
    """browser-use stops a step's actions after an error or a page change: fewer results."""
    data = _history()
    data["history"][1]["result"] = data["history"][1]["result"][:1]
    src = tmp_path / "short.json"
    src.write_text(json.dumps(data))
    _, steps = read_history(src)
    assert [s.action for s in steps][:3] == ["goto", "fill", "click"]
    assert steps[1].url_after == BASE + "/search?q=pizza"  # the last action that ran ends the step


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d.pop("history"), "history"),
    (lambda d: d["history"].__setitem__(2, "click"), "history[2]"),
    (lambda d: d["history"][1].pop("state"), "history[1].state"),
    (lambda d: d["history"][3]["model_output"].__setitem__("action", {"click_element_by_index": {"index": 7}}),
     "history[3].model_output.action"),
    (lambda d: d["history"][3]["model_output"]["action"].__setitem__(0, {"click_element_by_index": 7}),
     "history[3].model_output.action[0].click_element_by_index"),
    (lambda d: d["history"][0]["metadata"].__setitem__("step_start_time", "soon"), "history[0].metadata.step_start_time"),
    (lambda d: d["history"][2]["state"].__setitem__("url", 5), "history[2].state.url"),
    (lambda d: d["history"][4]["state"]["interacted_element"].__setitem__(0, "button"),
     "history[4].state.interacted_element[0]"),
    (lambda d: d["history"][5]["metadata"].__setitem__("step_end_time", 1.0), "history[5].metadata.step_end_time"),
])
def test_malformed_history_names_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    data = copy.deepcopy(_history())
    mutate(data)
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(data))
    dest = tmp_path / "bad.jsonl"
    with pytest.raises(TraceError) as info:
        import_history(src, dest)
    assert str(src) in str(info.value) and f"'{field}'" in str(info.value)
    assert info.value.path == str(src)
    assert not dest.exists()  # nothing half-written


def test_truncated_history_names_the_line(tmp_path: Path) -> None:
    text = HISTORY.read_text(encoding="utf-8")
    src = tmp_path / "cut.json"
    src.write_text(text[: len(text) // 2])
    with pytest.raises(TraceError, match=r"cut\.json:\d+: invalid JSON") as info:
        read_history(src)
    assert info.value.line is not None and info.value.line > 1


async def test_cli_import_then_build_labels_imported_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The imported trace goes through the builder next to recorded ones; its steps are labeled
    from their targets on the pages the recorded traces saw at the same URLs."""
    assert main(["import-browser-use", str(HISTORY), "-o", str(tmp_path / "imported"), "--site-name", "food"]) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written == tmp_path / "imported" / "browser_use_history.jsonl"
    recorded = [FOOD_TRACES / "search_click.jsonl", FOOD_TRACES / "add_item.jsonl"]
    _, alone = await build_cache(recorded, None)
    _, both = await build_cache([*recorded, written], None)
    assert both.traces == 3 and not both.bad_traces
    # fill, card click, menu item click, the add button twice: labeled; the Enter key press is not
    assert both.labeled - alone.labeled == 5
    assert main(["import-browser-use", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x")]) == 2
    assert "missing.json" in capsys.readouterr().err
