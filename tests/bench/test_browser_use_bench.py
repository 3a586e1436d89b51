"""The browser-use baseline: the oracle as a browser-use chat model, token counting, the missing-extra message.

The adapter test drives real browser-use (the optional extra) through one
food task and is skipped where browser-use is not importable; the rest runs
everywhere.
"""

from __future__ import annotations

import base64
import struct
import sys
import zlib
from types import SimpleNamespace

import pytest

from agentjit.bench import browser_use_bench as bub
from agentjit.exceptions import ConfigError


def _png(width: int, height: int) -> str:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode()


def test_image_tokens_follow_openais_tile_price():
    assert bub.image_tokens(1920, 1080) == 85 + 170 * 6  # fitted to 1365x768: 3 x 2 tiles
    assert bub.image_tokens(512, 512) == 85 + 170
    assert bub.image_tokens(4096, 1024) == 85 + 170 * 4  # fitted to 2048x512; its short side is under 768
    assert bub.image_tokens(1920, 1080, detail="low") == 85


def test_prompt_counting_reads_text_and_screenshot_sizes():
    text = SimpleNamespace(type="text", text="x" * 400)
    shot = SimpleNamespace(type="image_url", image_url=SimpleNamespace(url=_png(1024, 768), detail="auto"))
    messages = [SimpleNamespace(content="y" * 40), SimpleNamespace(content=[text, shot])]
    assert bub._image_size(_png(1024, 768)) == (1024, 768)
    assert bub.count_prompt(messages) == (10 + 100, bub.image_tokens(1024, 768))


def test_oracle_actions_map_onto_browser_use_actions():
    to = bub.OracleChatModel._to_browser_use
    base = "http://127.0.0.1:8000/store/1"
    assert to(None, {"action": "click", "index": 7}, base) == [{"click": {"index": 7}}]  # type: ignore[arg-type]
    assert to(None, {"action": "type", "index": 3, "text": "matcha", "submit": True}, base) == [  # type: ignore[arg-type]
        {"input": {"index": 3, "text": "matcha", "clear": True}}, {"send_keys": {"keys": "Enter"}}]
    assert to(None, {"action": "goto", "url": "/cart"}, base) == [  # type: ignore[arg-type]
        {"navigate": {"url": "http://127.0.0.1:8000/cart", "new_tab": False}}]
    assert to(None, {"action": "done", "answer": ["a", "b"]}, base) == [  # type: ignore[arg-type]
        {"done": {"text": '["a", "b"]', "success": True}}]


def test_a_missing_browser_use_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "browser_use", None)  # import browser_use now raises ImportError
    with pytest.raises(ConfigError, match=r"optional extra 'browser-use'.*agentjit\[browser-use\]"):
        bub.require_browser_use()
    assert bub.main(["--app", "food"]) == 2
    assert "pip install 'agentjit[browser-use]'" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore")  # browser-use's own dependencies warn on import
async def test_browser_use_replays_a_food_task_through_the_oracle(food_site):
    pytest.importorskip("browser_use", reason="browser-use (the optional extra 'browser-use') is not installed here")
    from agentjit.bench.food import CACHE_DIR
    from agentjit.cache import ToolCache
    from agentjit.llm.latency import get_profile
    from agentjit.runtime.browser import chromium_executable
    from agentjit.tasks.apps import get_app
    from agentjit.tasks.task import select_tasks

    bub.require_browser_use()
    task = select_tasks(get_app("food").tasks(), ["food-custom-10"])[0]  # search (type + Enter), then read
    start = food_site.url.rstrip("/") + ToolCache.load(CACHE_DIR).info.start_path
    run = await bub._browser_use_run(task, 0, site=food_site, start_url=start, profile=get_profile("none"),
                                     executable=chromium_executable(), use_vision=True, max_steps=8)  # fmt: skip
    assert run.ok, (run.reason, run.error)
    assert run.error is None and run.model_calls == run.steps >= 2
    assert run.actions >= run.steps + 1  # the search was typed and submitted with Enter in one step
    assert run.image_tokens > 0 and run.input_tokens > run.image_tokens  # screenshots and browser-use's prompt
    assert 0 < run.model_s < run.latency_s and run.outside_model_per_step_s > 0
