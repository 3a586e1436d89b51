"""Site text never becomes code: generated tools hold it only inside string literals.

A site names its pages, controls and texts as it likes; the builder reads all of
them. These tests put hostile text (quotes, backticks, ``${}``, ``</script>``,
U+2028, ``|``, ``*``, ``$x``, backslashes, very long text) everywhere the builder
reads from a page and check the tools it makes:

* every generated body parses (V8, and acorn's tokenizer) and a marker carried
  in the text never shows up outside a string literal (hypothesis, over a
  recorded demonstration whose texts are replaced);
* the literal encoder's output means the text it was given, in JS, in CSS
  selectors, and as page names the browser computes the same way as Python;
* end to end in Chromium: a site whose text calls ``fetch('/x')`` when spliced
  into code is recorded, built and run with a plan: ``/x`` is never requested,
  and no tool's ``pre``/``post`` holds a wildcard or an alternative from the site.
"""

from __future__ import annotations

import base64
import html
import json
import re
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentjit.bench.sandbox.hostile_site import DIALOG_OPENER, INJECTED_PAGE, SCRIPT, HostileSite
from agentjit.cache.store import ToolCache
from agentjit.planner.checker import check
from agentjit.protocol.manifest import ToolType
from agentjit.runtime.runner import run_plan
from toolcache.build import build_cache
from toolcache.dom import Node as DomNode
from toolcache.extract import page_key
from toolcache.literal import css_attr, css_ident, js, state_value
from toolcache.pages import PAGE_JS, page_name
from toolcache.record import record_script
from toolcache.script import Script

NODE = shutil.which("node")

MARK = "zqxj"
"""Carried in every hostile text: outside a string literal of a generated body, it is code."""

_PIECES = ["'", '"', "`", "${", "}", "\\", "</script>", "<!--", "-->", "\u2028", "\u2029", "|", "*", "$x", "+",
           "(", ")", ";", "//", "/*", "\n", " ", MARK, "fetch('/x')", ">> text=", "{id}", "\x00", "é"]
hostile = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=12).map("".join)
"""Text of quotes, code and pattern characters, mixed with any Unicode."""

PAYLOADS = ["'+zqxj+'", '"+zqxj+"', "`+${zqxj}+`", "\\'+zqxj//", "</script><script>zqxj</script>", "\u2028zqxj\u2029",
            "'+(fetch('/x'),'')+'", "x" * 3000 + "'+zqxj+'"]
"""Hand-made break-outs: in code spliced from strings, each one leaves ``zqxj`` outside a literal."""

# -- checking generated JavaScript with node ---------------------------------------------------

_SERVER_JS = r"""
const acorn = require('internal/deps/acorn/acorn/dist/acorn');
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const check = (mark, body) => {
  try {
    new AsyncFunction('inputs', 'output', body);  // V8 compiles it (nothing runs)
    const src = '(async function (inputs, output) {\n' + body + '\n})';
    const comments = [];
    const leaks = [];
    for (const tok of acorn.tokenizer(src, {ecmaVersion: 'latest', onComment: comments})) {
      const raw = src.slice(tok.start, tok.end);
      if (tok.type.label !== 'string' && tok.type.label !== 'template' && raw.toLowerCase().includes(mark)) leaks.push(raw);
    }
    for (const c of comments) if (c.value.toLowerCase().includes(mark)) leaks.push('comment: ' + c.value);
    return leaks.length ? 'marker outside a string literal: ' + leaks.slice(0, 3).join(' | ') : '';
  } catch (e) {
    return 'does not parse: ' + e.message;
  }
};
// one request a line: ["check", mark, [body, ...]] or ["eval", [expression, ...]]
require('readline').createInterface({input: process.stdin}).on('line', (line) => {
  const [op, ...args] = JSON.parse(line);
  const out = op === 'check' ? args[1].map((b) => check(args[0], b)) : args[0].map((e) => (0, eval)(e));
  process.stdout.write(JSON.stringify(out) + '\n');
});
"""


class Node:
    """One node process for the module's checks (a process per example would be slow)."""

    def __init__(self) -> None:
        assert NODE is not None
        self.proc = subprocess.Popen([NODE, "--expose-internals", "-e", _SERVER_JS], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, *request: Any) -> list[Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return list(json.loads(self.proc.stdout.readline()))

    def problems(self, bodies: list[str]) -> list[str]:
        """For each body: "" when it parses and holds :data:`MARK` only in string literals, else why not."""
        return [str(p) for p in self.ask("check", MARK, bodies)]

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    if NODE is None:
        pytest.skip("needs node (the JS syntax checks)")
    n = Node()
    try:
        yield n
    finally:
        n.close()


def bodies_of(cache: ToolCache) -> dict[str, str]:
    return {f"{t.name}.{k}": getattr(t, k) for t in cache.tools.values()
            for k in ("pre_check", "execute", "post_check") if getattr(t, k)}


_SAFE_VALUE = re.compile(r"[A-Za-z0-9_{}]+")


def unsafe_patterns(cache: ToolCache) -> list[str]:
    """The pre/post pattern values that hold anything but the builder's own alternatives of safe values."""
    bad = []
    for t in cache.tools.values():
        for key, pat in [*t.pre.items(), *t.post.items()]:
            if pat and not all(_SAFE_VALUE.fullmatch(alt) for alt in str(pat).split("|")):
                bad.append(f"{t.name}.{key}={pat!r}")
    return bad


# -- the literal encoder -------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(hostile, st.text()), min_size=1, max_size=20))
def test_a_js_literal_means_its_text(node: Node, texts: list[str]) -> None:
    assert node.ask("eval", [js(t) for t in texts]) == texts
    assert all("<" not in js(t) and "\u2028" not in js(t) and "\u2029" not in js(t) for t in texts)


def test_a_lone_surrogate_is_an_escape_not_a_character() -> None:
    assert js("a\ud800b") == '"a\\ud800b"'
    js("a\ud800b").encode("utf-8")  # writable


@settings(max_examples=200, deadline=None)
@given(st.one_of(hostile, st.text()))
def test_a_state_value_is_never_a_pattern(text: str) -> None:
    v = state_value(text)
    assert v == "" or _SAFE_VALUE.fullmatch(v)
    assert "|" not in v and "*" not in v and not v.startswith("$") and len(v) <= 100
    assert state_value(v) == v
    for name in (page_name("http://h/" + quote(text)), page_key(DomNode("body", {"data-page": text}), "http://h/x")):
        assert _SAFE_VALUE.fullmatch(name), name


_AGREE_JS = "(cases) => {" + PAGE_JS + """
  const out = [];
  for (const [data, path] of cases) {
    const href = new URL(path, 'http://h.test/').href;
    document.body.dataset.page = data;
    const named = __page();
    delete document.body.dataset.page;
    out.push([href, named, __pageOf(href)]);
  }
  return out;
}"""


@pytest.mark.browser
async def test_the_page_names_pages_as_python_does_on_hostile_text(page: Any) -> None:
    """``__page()`` / ``__pageOf`` (page.js) and ``page_key`` / ``page_name`` agree, on data-page
    values and URLs of hostile text (the browser's own URL normalisation first)."""
    cases = _agreement_cases()
    await page.set_content("<html><body></body></html>")
    got = await page.evaluate(_AGREE_JS, cases)
    for (data, _path), (href, named, by_url) in zip(cases, got, strict=True):
        assert by_url == page_name(href), (href, by_url, page_name(href))
        assert named == page_key(DomNode("body", {"data-page": data}), "about:blank"), (data, named)


def _agreement_cases() -> list[tuple[str, str]]:
    """Data-page values and paths: the pieces, their mixes, and URL forms of ids, values and views."""
    texts = [*_PIECES, *PAYLOADS, INJECTED_PAGE, "Issue-12", "a-b-12", "٣", "12\n", "x\u00a0y", "\ufeff1", "\x1c",
             "K\u212a", "İ", "%E0%A4%A", "%C3%41", "a;b", "{id}x{name}", "x" * 300, "_a_", "${x}", "@me"]
    texts += ["".join(_PIECES[i:i + 4]) for i in range(len(_PIECES))]
    cases = []
    for t in texts:
        cases.append((t, "/" + quote(t, safe="") + "/7"))
        cases.append((t, "/p/" + t.replace("?", "").replace("#", "")))  # (not "//host": a path of the site)
        cases.append((t, "/items?view=" + quote(t, safe="") + "&view=other"))
        cases.append((t, "/p/" + quote(t) + "?tab=" + t.replace("#", "")))
    return cases


@pytest.mark.browser
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(hostile, st.text(min_size=1)).filter(bool), min_size=1, max_size=12))
@example(texts=["I", "'", "i"])  # two ids that differ in case only
async def test_css_escapes_find_the_element_the_text_names(page: Any, texts: list[str]) -> None:
    texts = list(dict.fromkeys(t.replace("\x00", "") for t in texts if t.replace("\x00", "")))  # (a NUL is no name in the DOM)
    if not texts:
        return
    if await page.evaluate("document.compatMode") != "CSS1Compat":
        # a page with a doctype, as sites have: about:blank is in quirks mode, where ids match
        # regardless of case (#i finds id="I"), which hypothesis found by chance now and then
        await page.set_content("<!doctype html><html><body></body></html>")
    found = await page.evaluate("""([texts, attrs, ids]) => {
      document.body.innerHTML = '';
      const out = [];
      texts.forEach((t, i) => {
        const el = document.createElement('div');
        el.setAttribute('data-v', t); el.id = t; el.className = 'k' + i;
        document.body.appendChild(el);
      });
      texts.forEach((t, i) => {
        const a = document.querySelectorAll(attrs[i]), b = document.querySelectorAll(ids[i]);
        out.push([a.length === 1 && a[0].className === 'k' + i, b.length >= 1 && b[0].id === t]);
      });
      return out;
    }""", [texts, [css_attr("data-v", t) for t in texts], ["#" + css_ident(t) for t in texts]])
    assert all(a and b for a, b in found), [t for t, f in zip(texts, found, strict=True) if not all(f)]


# -- the builder on hostile text: a recorded demonstration, its texts replaced --------------------

TEMPLATE = "Tq9"
"""The text the template demonstration is recorded with; each example replaces it."""


@pytest.fixture(scope="module")
async def template_trace(browser_pool: Any, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The demonstration of the hostile site, recorded once with :data:`TEMPLATE` as its text."""
    out = tmp_path_factory.mktemp("template") / "hostile.jsonl"
    with HostileSite(TEMPLATE) as site:
        await record_script(browser_pool, Script.model_validate(SCRIPT), site.url, out)
    return [json.loads(line) for line in out.read_text().splitlines()]


def _replace(value: Any, text: str, in_url: bool = False) -> Any:
    if isinstance(value, str):
        return value.replace(TEMPLATE, quote(text, safe="") if in_url else text)
    if isinstance(value, list):
        return [_replace(v, text) for v in value]
    if isinstance(value, dict):
        return {k: _replace(v, text, in_url=k in ("url", "url_after", "start_url") or (k == "value" and value.get("action") == "goto"))
                for k, v in value.items()}
    return value


def with_text(trace: list[dict[str, Any]], text: str) -> str:
    """The template trace with ``text`` where the site showed :data:`TEMPLATE` (HTML-escaped in snapshots)."""
    lines = []
    for rec in trace:
        if rec.get("kind") == "snapshot":
            page = zlib.decompress(base64.b64decode(rec["data"])).decode("utf-8")
            page = page.replace(TEMPLATE, html.escape(text, quote=True))
            rec = {**rec, "data": base64.b64encode(zlib.compress(page.encode("utf-8"))).decode("ascii")}
        else:
            rec = _replace(rec, text)
        lines.append(json.dumps(rec, ensure_ascii=False))
    return "\n".join(lines) + "\n"


async def _build_with(trace: list[dict[str, Any]], text: str, tmp: Path) -> ToolCache:
    src = tmp / "traces"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    (src / "hostile.jsonl").write_text(with_text(trace, text), encoding="utf-8")
    cache, _report = await build_cache([src], None)
    return cache


_KINDS = {ToolType.LIST_ITEMS, ToolType.GOTO_ITEM, ToolType.GET_FIELDS, ToolType.GOTO_FIELD, ToolType.SET_FILTER,
          ToolType.SET_FIELDS, ToolType.OBSERVE}


@pytest.mark.browser
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile)
@example("")
@example("'+(fetch('/x'),'')+'")
@example("\u2028\u2029</script>${`")
async def test_hostile_text_in_every_field_stays_inside_string_literals(node: Node, template_trace: Any, tmp_path: Path, text: str) -> None:
    """The texts of every field the builder reads (page names, test ids, ids, classes, data values,
    hrefs, input names, placeholders, labels, options, headings, table headers, card texts, a
    dialog's title) are ``zqxj<hostile>zqxj``: no generated body lets the marker out of a literal."""
    cache = await _build_with(template_trace, MARK + text + MARK, tmp_path)
    assert {t.type for t in cache.tools.values()} == _KINDS  # every kind of tool was made from the hostile page
    bodies = bodies_of(cache)
    problems = {name: p for name, p in zip(bodies, node.problems(list(bodies.values())), strict=True) if p}
    assert not problems
    assert not unsafe_patterns(cache)


@pytest.mark.browser
@pytest.mark.parametrize("payload", PAYLOADS)
async def test_known_break_outs_stay_inside_string_literals(node: Node, template_trace: Any, tmp_path: Path, payload: str) -> None:
    cache = await _build_with(template_trace, payload, tmp_path)
    bodies = bodies_of(cache)
    assert len(bodies) >= 15
    problems = {name: p for name, p in zip(bodies, node.problems(list(bodies.values())), strict=True) if p}
    assert not problems
    assert not unsafe_patterns(cache)


# -- end to end: record, build and run on a hostile site ---------------------------------------------

KITCHEN_SINK = ("Q'\"`${fetch('/x/t')}</script><script>fetch('/x/s')</script>|*$x\u2028\u2029\\\\' -->"
                + "long " * 400)
"""Every kind of trouble at once (with the page's ``data-page`` and the dialog opener's name)."""
SPLICE = "T'+(fetch('/x/t'),'')+'"
"""Text that is valid code when spliced into a single-quoted JS string: it would call ``fetch``."""


def _find(cache: ToolCache, type_: ToolType, **want: Any) -> str:
    for t in sorted(cache.tools.values(), key=lambda t: t.name):
        if t.type == type_ and all(getattr(t, k) == v for k, v in want.items()):
            return t.name
    raise AssertionError(f"no {type_} tool with {want} in {sorted(cache.tools)}")


@pytest.mark.browser
@pytest.mark.slow
# the recorder keeps 200 characters of an attribute: the two controls named by the kitchen sink's
# 2000-character id and input name are not found again (not labeled), so no semantic tool acts on
# their steps; three workflow tools replay them (toolcache.workflow), verified like the rest. The list page the
# demonstration opened by its address has its goto_<page>() too (its name from the hostile text, a state value)
@pytest.mark.parametrize(("text", "tools"), [(SPLICE, 15), (KITCHEN_SINK, 13 + 3)], ids=["splice", "kitchen-sink"])
async def test_a_hostile_site_is_built_and_run_without_running_its_text(browser_pool: Any, tmp_path: Path, text: str, tools: int) -> None:
    with HostileSite(text) as site:
        await record_script(browser_pool, Script.model_validate(SCRIPT), site.url, tmp_path / "traces" / "hostile.jsonl")
        assert site.injected == []
        cache, report = await build_cache([tmp_path / "traces"], tmp_path / "built", base_url=site.url, pool=browser_pool)
        print("injected requests while building:", len(site.injected))
        assert site.injected == []
        # every tool made is verified (none broken by the text); under load one workflow segment may merge with another
        assert not report.rejected and tools - 1 <= len(report.verified) <= tools
        assert not unsafe_patterns(cache)
        home = cache.info.initial_state["page"]
        assert home == state_value(INJECTED_PAGE + text)
        assert any(t.type == ToolType.GOTO_FIELD and t.post.get("dialog") for t in cache.tools.values())
        opener = _find(cache, ToolType.GOTO_FIELD, pre={"page": home, "dialog": ""})
        assert DIALOG_OPENER.split("'")[0] in str(cache.tools[opener].pre_check)  # its name, in a literal

        # a plan the checker accepts: list the cards, open one, read it, come back, open the dialog
        listing = _find(cache, ToolType.LIST_ITEMS, pre={"page": home})
        opens = _find(cache, ToolType.GOTO_ITEM)
        item_page = cache.tools[opens].post["page"]
        details = _find(cache, ToolType.GET_FIELDS, pre={"page": item_page})
        name_param = next(iter(cache.tools[opens].input_schema["properties"]))
        plan = (f"cards = await {listing}()\n"
                f"await {opens}({name_param}=cards['items'][1]['{name_param}'])\n"
                f"facts = await {details}()\n"
                f"result = [len(cards['items']), facts]\n")
        assert check(plan, cache).valid
        async with browser_pool.page() as page:
            res = await run_plan(plan, ToolCache.load(tmp_path / "built"), page=page, base_url=site.url)
        assert res.value[0] == 3 and res.value[1]
        # calling a home-page tool on the item page: the site's "*" no longer widens the precondition
        assert not check(f"await {opens}({name_param}='x')\nresult = await {listing}()\n", cache).valid
        assert site.injected == []
