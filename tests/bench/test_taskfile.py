"""User task files (JSONL and TOML), their judges, answer normalisation, and the open app registry."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentjit.exceptions import ConfigError
from agentjit.tasks.apps import App, app_names, get_app, register_app
from agentjit.tasks.task import JudgeResult, answers_match, select_tasks
from agentjit.tasks.taskfile import load_tasks

JUDGES = """
def accept(task, result, site_url):
    return True

def reasoned(task, result, site_url):
    return result.value == 42, f"{task.id} on {site_url} got {result.value}"

def verdict(task, result, site_url):
    from agentjit.tasks.task import JudgeResult
    return JudgeResult(False, "never")

def garbage(task, result, site_url):
    return "yes"

def boom(task, result, site_url):
    raise RuntimeError("storage unreadable")
"""


def _result(value):
    return SimpleNamespace(value=value, calls=[])


def _jsonl(tmp_path: Path, *rows: object, name: str = "tasks.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_jsonl_with_answers_plans_and_judges(tmp_path):
    (tmp_path / "checks.py").write_text(JUDGES)
    (tmp_path / "p.py").write_text("result = 42\n")
    path = _jsonl(
        tmp_path,
        "# comments and blank lines are skipped",
        {"id": "a", "task": "answer", "plan": "p.py", "answer": 42},
        "",
        {"id": "b", "task": "module judge", "plan": "result = 42", "judge": "checks:reasoned", "kind": "write"},
        {"id": "c", "task": "file judge", "judge": "checks.py:verdict"},
        {"id": "d", "task": "nothing to compare"},
    )
    a, b, c, d = load_tasks(path)
    assert a.reference_plan == (tmp_path / "p.py").resolve() and a.plan_source() == "result = 42\n"
    assert b.plan_text == "result = 42" and b.plan_source() == "result = 42" and b.kind == "write"
    assert a.origin == "tasks.jsonl, line 2" and a.app == "tasks"
    assert a.evaluate(_result(42), {}, {}, "http://x").ok
    assert not a.evaluate(_result(41), {}, {}, "http://x").ok
    ok = b.evaluate(_result(42), {}, {}, "http://site")
    assert ok == JudgeResult(True, "b on http://site got 42")
    assert not b.evaluate(_result(7), {}, {}, "http://site").ok
    assert c.evaluate(_result(1), {}, {}, "u") == JudgeResult(False, "never")
    assert d.evaluate(_result(None), {}, {}, "u").ok
    with pytest.raises(ConfigError, match="no reference plan"):
        c.plan_source()


def test_toml_and_both_answer_and_judge_must_accept(tmp_path):
    (tmp_path / "j.py").write_text(JUDGES)
    path = tmp_path / "tasks.toml"
    path.write_text(
        '[[task]]\nid = "t1"\ntask = "count"\nanswer = "3 open issues."\njudge = "j.py:reasoned"\n\n'
        '[[task]]\nid = "t2"\ntask = "inline"\nplan = """\nx = 1\nresult = x\n"""\n'
    )
    t1, t2 = load_tasks(path, app="mine")
    assert t1.app == "mine" and t2.plan_text == "x = 1\nresult = x\n"
    # the answer judge rejects first; then the site judge
    assert t1.evaluate(_result("3 Open  Issues"), {}, {}, "u") == JudgeResult(False, "t1 on u got 3 Open  Issues")
    assert "is not" in t1.evaluate(_result(4), {}, {}, "u").reason


@pytest.mark.parametrize(
    "judge, ok, reason",
    [
        ("accept", True, "judge accepted"),
        ("garbage", False, "judge returned 'yes', not a bool or (bool, reason)"),
        ("boom", False, "judge raised RuntimeError: storage unreadable"),
    ],
)
def test_judge_return_values(tmp_path, judge, ok, reason):
    (tmp_path / "j.py").write_text(JUDGES)
    (task,) = load_tasks(_jsonl(tmp_path, {"id": "a", "task": "t", "judge": f"j.py:{judge}"}))
    assert task.evaluate(_result(None), {}, {}, "u") == JudgeResult(ok, reason)


def test_an_installed_module_judge(tmp_path):
    (task,) = load_tasks(_jsonl(tmp_path, {"id": "a", "task": "t", "judge": "json:dumps"}))
    assert task.site_judge is json.dumps


@pytest.mark.parametrize(
    "rows, message",
    [
        (['{"id": "a", "task": "x"', ], r"tasks.jsonl: line 1: invalid JSON"),
        ([{"id": "a", "task": "x"}, {"id": "b"}], r"tasks.jsonl: line 2: field 'task': required"),
        ([{"id": "", "task": "x"}], r"line 1: field 'id': required"),
        ([{"id": "a", "task": "x", "anwser": 1}], r"line 1: field 'anwser': unknown field"),
        ([{"id": "a", "task": "x"}, {"id": "a", "task": "y"}], r"line 2: field 'id': duplicate id 'a' \(first at line 1\)"),
        ([{"id": "a", "task": "x", "plan": "missing.py"}], r"line 1: field 'plan': no plan file"),
        ([{"id": "a", "task": "x", "plan": 3}], r"line 1: field 'plan': must be a string"),
        ([{"id": "a", "task": "x", "kind": "delete"}], r"field 'kind': 'delete' is not read or write"),
        ([{"id": "a", "task": "x", "judge": "nocolon"}], r"field 'judge': 'nocolon' is not module:function"),
        ([{"id": "a", "task": "x", "judge": "no_such_module_xyz:f"}], r"field 'judge': cannot import no_such_module_xyz"),
        ([{"id": "a", "task": "x", "judge": "json:no_such_function"}], r"field 'judge': json has no function"),
        ([{"id": "a", "task": "x", "judge": "gone.py:f"}], r"field 'judge': no judge file"),
        (["[1, 2]"], r"line 1: a task is an object"),
        (["# only a comment"], r"tasks.jsonl: no tasks in the file"),
    ],
)
def test_bad_jsonl_files_name_file_line_and_field(tmp_path, rows, message):
    with pytest.raises(ConfigError, match=message):
        load_tasks(_jsonl(tmp_path, *rows))


@pytest.mark.parametrize(
    "text, message",
    [
        ('[[task]]\nid = "a"\ntask = ', r"tasks.toml: invalid TOML"),
        ('[[task]]\nid = "a"\n', r"tasks.toml: task #1: field 'task': required"),
        ('[[task]]\nid = "a"\ntask = "x"\n[[task]]\nid = "b"\ntask = "y"\nplan = ""\n', r"task #2: field 'plan': empty"),
        ('[tasks]\nid = "a"\n', r"unknown top-level key\(s\) \['tasks'\]"),
        ('task = "x"\n', r"'task' must be an array of tables"),
    ],
)
def test_bad_toml_files(tmp_path, text, message):
    path = tmp_path / "tasks.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_tasks(path)


def test_a_judge_file_that_fails_to_load(tmp_path):
    (tmp_path / "broken.py").write_text("import no_such_module_xyz\n")
    with pytest.raises(ConfigError, match=r"field 'judge': loading .*broken.py failed: ModuleNotFoundError"):
        load_tasks(_jsonl(tmp_path, {"id": "a", "task": "t", "judge": "broken.py:f"}))
    # a module judge next to the file whose own import fails says so too
    with pytest.raises(ConfigError, match=r"field 'judge'"):
        load_tasks(_jsonl(tmp_path, {"id": "a", "task": "t", "judge": "broken:f"}))


def test_not_a_task_file(tmp_path):
    with pytest.raises(ConfigError, match=r"\.jsonl or \.toml"):
        load_tasks(tmp_path / "tasks.csv")
    with pytest.raises(ConfigError, match="cannot read"):
        load_tasks(tmp_path / "absent.jsonl")


@pytest.mark.parametrize(
    "expected, answer, ok",
    [
        ("Stonemill Matcha", "  stonemill   matcha. ", True),
        ("Stonemill Matcha", "\u201cStonemill Matcha\u201d", True),
        ("Stonemill Matcha", "Stonemill", False),
        (3, 3.0, True),
        (3, "3", True),
        (12.5, "$12.50", True),
        (3, "3 of 4", False),
        (3, True, False),
        ("3", 3, True),
        (True, "Yes", True),
        (False, "true", False),
        (True, True, True),
        (["a", 2], ["A", "2"], True),
        (["a", 2], ["a"], False),
        ({"name": "X", "n": 1}, {"name": "x", "n": 1.0}, True),
        ({"name": "X"}, {"name": "X", "more": 1}, False),
        (None, None, True),
    ],
)
def test_answers_match_after_normalisation(expected, answer, ok):
    assert answers_match(expected, answer) is ok


def test_select_tasks_rejects_unknown_ids_and_empty_selections(tmp_path):
    tasks = load_tasks(_jsonl(tmp_path, {"id": "a", "task": "t"}, {"id": "b", "task": "u"}))
    assert [t.id for t in select_tasks(tasks, ["b", "a"])] == ["b", "a"]
    with pytest.raises(ConfigError, match="unknown task id.*zz.*have: a, b"):
        select_tasks(tasks, ["a", "zz"])
    with pytest.raises(ConfigError, match="no tasks"):
        select_tasks([], None)


def test_registered_profiles_load_lazily(tmp_path):
    (tmp_path / "tasks.toml").write_text('[[task]]\nid = "x"\ntask = "t"\nanswer = 1\n')
    broken = register_app(App("needs-extra", "no_such_package_xyz", "Site", extra="xyz"), replace=True)
    from_file = register_app(App("from-file", "json", cache=str(tmp_path / "cache"), task_source=str(tmp_path / "tasks.toml")), replace=True)
    try:
        assert {"food", "needs-extra", "from-file"} <= set(app_names())
        with pytest.raises(ConfigError, match=r"needs-extra.*no_such_package_xyz.*agentjit\[xyz\]"):
            broken.tasks()
        with pytest.raises(ConfigError, match="no site of its own"):
            from_file.site()
        assert [t.id for t in get_app("from-file").tasks()] == ["x"]
        assert get_app("from-file").cache_dir == tmp_path / "cache"
        # the others still work
        assert len(get_app("food").tasks()) >= 12
        with pytest.raises(ConfigError, match="already registered"):
            register_app(App("food", "elsewhere", "Site"))
    finally:
        from agentjit.tasks import apps

        apps._APPS.pop("needs-extra", None)
        apps._APPS.pop("from-file", None)
