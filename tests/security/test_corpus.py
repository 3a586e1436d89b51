"""The hostile plan corpus (issue 8, item 6): headers, static verdicts, and a sampled run (see SAMPLE_EVERY).

``tests/security/corpus/<class>/NNN_name.py`` holds the plans; the runner is
:mod:`agentjit.bench.sandbox` (also ``agentjit bench sandbox``).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

from agentjit.bench.sandbox import (
    DEFAULT_CORPUS,
    CorpusPlan,
    load_corpus,
    parse_header,
    run_corpus,
    substitute,
)
from agentjit.exceptions import ConfigError
from agentjit.planner import check
from agentjit.tasks.apps import get_app

#: The classes of issue 8, each with many variations.
CLASSES = {
    "model_methods", "getattr_disguise", "foreign_assign", "format_strings", "frames", "builtins_misuse",
    "resources", "interrupts", "crash_inputs", "syntax", "lookalikes", "unicode_escapes",
}  # fmt: skip


def _concrete(plan: CorpusPlan) -> str:
    return substitute(plan.source, marker_path="/nonexistent/marker", canary_name="AGENTJIT_CANARY", listener_port=9)


def test_corpus_is_large_labelled_and_covers_every_class():
    plans = load_corpus()  # raises on a bad file name, header or class
    assert DEFAULT_CORPUS.is_dir()
    assert len(plans) >= 300, f"only {len(plans)} plans"
    per_class = Counter(p.cls for p in plans)
    assert set(per_class) == CLASSES, sorted(set(per_class) ^ CLASSES)
    thin = {c: n for c, n in per_class.items() if n < 15}
    assert not thin, f"classes with fewer than 15 plans: {thin}"
    expects = Counter(p.expect for p in plans)
    assert expects["ok"] >= 30 and expects["reject"] >= 100 and expects["stopped"] >= 100, expects
    for cls in CLASSES:  # every class has attacks and benign look-alikes
        kinds = {p.expect for p in plans if p.cls == cls}
        assert "ok" in kinds and kinds & {"reject", "stopped"}, (cls, kinds)
    assert len({p.source for p in plans}) == len(plans), "two corpus files are the same plan"


def test_every_reject_plan_is_refused_by_check_with_a_code():
    cache = get_app("food").load_cache()
    bad = []
    for plan in load_corpus():
        if plan.expect != "reject":
            continue
        try:
            res = check(_concrete(plan), cache)
        except BaseException as exc:  # a traceback from the checker is a finding too
            bad.append(f"{plan.id}: check raised {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if res.valid:
            bad.append(f"{plan.id}: check accepted it ({plan.why})")
        elif not res.diagnostics or not all(isinstance(d.code, str) and d.code for d in res.diagnostics):
            bad.append(f"{plan.id}: refused without a diagnostic code")
    assert not bad, f"{len(bad)} reject-labelled plans are not refused by `check`:\n" + "\n".join(bad)


def test_header_parser_refuses_bad_headers(tmp_path: Path):
    good = "# expect: ok\n# class: syntax\n# why: fine\n# result: [1, 'a']\nresult = [1, 'a']\n"
    assert parse_header(good)["result"] == "[1, 'a']"
    for text, msg in [
        ("# class: syntax\n# why: x\nresult = 1\n", "no '# expect:'"),
        ("# expect: maybe\n# class: syntax\n# why: x\n", "expect must be one of"),
        ("# expect: ok\n# class: syntax\n# why: x\n", "needs a '# result:'"),
        ("# expect: ok\n# class: syntax\n# why: x\n# result: open('f')\n", "not a Python literal"),
        ("# expect: reject\n# class: syntax\n# why: x\n# result: 1\n", "only 'ok' plans"),
        ("# expect: reject\n# class: syntax\nresult = 1\n", "no '# why:'"),
    ]:
        with pytest.raises(ConfigError, match=msg):
            parse_header(text)
    (tmp_path / "syntax").mkdir()
    (tmp_path / "syntax" / "001_x.py").write_text("# expect: reject\n# class: frames\n# why: x\nimport os\n")
    with pytest.raises(ConfigError, match="is not its directory"):
        load_corpus(tmp_path)
    (tmp_path / "syntax" / "001_x.py").rename(tmp_path / "syntax" / "X.py")
    with pytest.raises(ConfigError, match="NNN_name.py"):
        load_corpus(tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_corpus(tmp_path / "nowhere")


def test_placeholders_are_substituted():
    src = 'open("MARKER_PATH"); x = "CANARY_NAME"; u = "LISTENER_URL"; p = LISTENER_PORT\n'
    out = substitute(src, marker_path="/tmp/m1", canary_name="SECRET_X", listener_port=4242)
    assert out == 'open("/tmp/m1"); x = "SECRET_X"; u = "http://127.0.0.1:4242/"; p = 4242\n'


SAMPLE_EVERY = 12
"""The suite runs every twelfth plan of each (class, label) group, 59 of the 504 plans, so every
class keeps its attacks and its benign look-alikes (every sixth, 97, took 160-180 s of the suite's
15 minutes on 2 cores; every third, 180, 147 s before that). The whole corpus takes 6-11 minutes on
2 cores and is what `agentjit bench sandbox` runs; ``AGENTJIT_WHOLE_CORPUS=1`` runs all of it
here. The static verdict of every plan is still checked above (every ``reject`` plan refused by
``check``)."""


def corpus_sample(plans: list[CorpusPlan], every: int = SAMPLE_EVERY) -> list[CorpusPlan]:
    """Every ``every``-th plan of each (class, label) group, in corpus order: each class's attacks
    and benign look-alikes stay represented, and the same plans run every time."""
    groups: dict[tuple[str, str], list[CorpusPlan]] = {}
    for plan in plans:
        groups.setdefault((plan.cls, plan.expect), []).append(plan)
    return [p for group in groups.values() for i, p in enumerate(group) if i % every == 0]


def test_the_sample_keeps_every_class_and_label():
    plans = load_corpus()
    sample = corpus_sample(plans)
    assert {(p.cls, p.expect) for p in sample} == {(p.cls, p.expect) for p in plans}
    assert len(plans) / SAMPLE_EVERY <= len(sample) < len(plans) / SAMPLE_EVERY + 40


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(3600)
async def test_the_corpus_runs_without_escape_hang_crash_or_mismatch(food_site_session):
    """The sampled plans (all with ``AGENTJIT_WHOLE_CORPUS=1``) through the checker and the real
    runtime in Chromium; nothing may get through."""
    plans = load_corpus()
    if os.environ.get("AGENTJIT_WHOLE_CORPUS") != "1":
        plans = corpus_sample(plans)
    t0 = time.perf_counter()
    report = await run_corpus(plans=plans, site_url=food_site_session.url)
    totals = report.totals
    summary = (
        f"{totals['plans']} plans in {time.perf_counter() - t0:.0f} s (load average {os.getloadavg()[0]:.1f}): "
        f"{totals['escapes']} escapes, {totals['hangs']} hangs, {totals['crashes']} crashes, "
        f"{totals['mismatches']} mismatches"
    )
    assert totals["plans"] == len(plans)
    assert report.ok, summary + "\n" + report.failure_listing()
