"""``demo --model`` and ``batch --model``: a task that does not compile is that task's failure; the rest go on.

The model is the loopback fake OpenAI server: its first answer is a plan the checker refuses (a made-up
tool), its second a good plan for the next task.
"""

from __future__ import annotations

import json

import pytest

from agentjit.bench.food import PLANS_DIR
from agentjit.cli import main
from agentjit.testing import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "command",
    [["demo", "--tasks", "food-custom-1,food-v1-1"], ["batch", "--only", "food-custom-1,food-v1-1"]],
    ids=["demo", "batch"],
)
def test_a_task_that_did_not_compile_fails_alone(command: list[str], capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    good = (PLANS_DIR / "food-v1-1.py").read_text()
    replies = [FakeReply(text="```python\nresult = await open_shop(name='x')\n```"), FakeReply(text=f"```python\n{good}```")]
    with FakeOpenAIServer(replies) as srv:
        code = main([*command, "--app", "food", "--model", f"openai:m@{srv.base_url}", "-n", "1", "-k", "1",
                     "--repairs", "0", "--no-plan-cache", "--latency-scale", "0", "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 1 and len(srv.requests) == 2
    tasks = {t["id"]: t for t in data["tasks"]}
    assert list(tasks) == ["food-custom-1", "food-v1-1"] and data["summary"]["total"] == 2
    assert not tasks["food-custom-1"]["ok"] and tasks["food-custom-1"]["plan_origin"] == "none"
    assert tasks["food-custom-1"]["reason"].startswith("did not compile: NoValidPlan")
    assert tasks["food-v1-1"]["ok"], tasks["food-v1-1"]["reason"]
    assert data["summary"]["passed"] == 1
