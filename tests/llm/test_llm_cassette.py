"""Record/replay of model exchanges to a JSONL cassette."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentjit.exceptions import ConfigError, ModelRequestError
from agentjit.llm import CassetteModel, Message, OpenAIModel, TestModel, messages_key
from agentjit.llm.fake_server import FakeOpenAIServer

PLAN = [Message(role="system", content="sys"), Message(role="user", content="task A")]
OTHER = [Message(role="system", content="sys"), Message(role="user", content="task B")]


async def test_record_then_replay_without_the_inner_model(tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "planner.jsonl"
    inner = TestModel(["first sample", "second sample", "other task"])
    recorder = CassetteModel(inner, path, mode="record")
    recorded = [
        await recorder.request(PLAN, temperature=0.8),
        await recorder.request(PLAN, temperature=0.8),
        await recorder.request(OTHER),
    ]
    assert len(inner.calls) == 3 and recorder.recorded == 3
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["key"] for line in lines] == [messages_key(PLAN)] * 2 + [messages_key(OTHER)]
    assert lines[0]["messages"][1] == {"role": "user", "content": "task A"}
    assert lines[0]["params"] == {"temperature": 0.8, "max_tokens": None}

    player = CassetteModel(None, path, mode="replay")
    replayed = [await player.request(OTHER), await player.request(PLAN), await player.request(PLAN)]
    assert replayed == [recorded[2], recorded[0], recorded[1]]  # per prompt, in recorded order
    assert player.replayed == 3
    with pytest.raises(ModelRequestError, match=r"planner\.jsonl: no recorded exchange.*task A"):
        await player.request(PLAN)
    with pytest.raises(ModelRequestError, match="'unseen'"):
        await player.request([Message(role="user", content="unseen")])


async def test_auto_mode_replays_hits_and_records_misses(tmp_path: Path) -> None:
    path = tmp_path / "auto.jsonl"
    first = CassetteModel(TestModel(["A1"]), path, mode="auto")
    assert (await first.request(PLAN)).text == "A1"
    inner = TestModel(["B1"])
    second = CassetteModel(inner, path, mode="auto")
    assert (await second.request(PLAN)).text == "A1"  # replayed
    assert (await second.request(OTHER)).text == "B1"  # recorded
    assert len(inner.calls) == 1
    assert (second.replayed, second.recorded) == (1, 1)
    assert len(path.read_text().splitlines()) == 2


async def test_record_a_real_sdk_exchange_and_replay_with_no_server(tmp_path: Path) -> None:
    path = tmp_path / "openai.jsonl"
    with FakeOpenAIServer(["served plan"], usage=(40, 8)) as srv:
        async with CassetteModel(
            OpenAIModel("m", base_url=srv.base_url), path, mode="record"
        ) as recorder:
            live = await recorder.request(PLAN)
    async with CassetteModel(None, path, mode="replay") as player:
        again = await player.request(PLAN)
    assert again == live
    assert (again.text, again.usage.input_tokens, again.usage.output_tokens) == (
        "served plan", 40, 8,
    )
    assert len(srv.requests) == 1


async def test_concurrent_records_stay_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    recorder = CassetteModel(TestModel(["x" * 5000], cycle=True), path, mode="record")
    await asyncio.gather(*(recorder.request(PLAN) for _ in range(20)))
    lines = path.read_text().splitlines()
    assert len(lines) == 20 and all(json.loads(line)["response"]["text"] for line in lines)


def test_bad_cassette_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"key": "k", "response": {"text": "t"}}
    path.write_text(json.dumps(good) + "\n\n" + "{broken\n")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:3: bad cassette line"):
        CassetteModel(None, path, mode="replay")
    path.write_text(json.dumps({"response": {"text": "t"}}) + "\n")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1: .*missing field 'key'"):
        CassetteModel(None, path, mode="replay")
    path.write_text(json.dumps({"key": "k", "response": {"usage": 3}}) + "\n")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1: "):
        CassetteModel(None, path, mode="replay")


def test_cassette_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        CassetteModel(None, tmp_path / "missing.jsonl", mode="replay")
    with pytest.raises(ConfigError, match="needs an inner model"):
        CassetteModel(None, tmp_path / "x.jsonl", mode="record")
    with pytest.raises(ConfigError, match="mode"):
        CassetteModel(TestModel(["a"]), tmp_path / "x.jsonl", mode="rewind")  # type: ignore[arg-type]


def test_messages_key_depends_on_roles_and_contents_only() -> None:
    same = [Message(role="system", content="sys"), Message(role="user", content="task A")]
    assert messages_key(PLAN) == messages_key(same)
    assert messages_key(PLAN) != messages_key(OTHER)
    swapped = [Message(role="user", content="sys"), Message(role="user", content="task A")]
    assert messages_key(PLAN) != messages_key(swapped)
