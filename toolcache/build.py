"""The whole offline pipeline: load traces, extract, label, fit, codegen, verify, save.

:func:`build_cache` is the async core (``toolcache build`` is a thin CLI over
it). Bad traces are reported in :class:`BuildReport.bad_traces` (file, line,
message) and the build goes on without them. Without a site (``base_url``
None) verification is skipped and every synthesized tool is written, marked
unverified in the report.

Verification never changes the site unless asked to (``writes="live"``; ``sign_in`` sends the
sign-in only): see :mod:`toolcache.verify`. A trace's saved session (``<name>.session.json``
beside it, written by the recorder) verifies the tools behind its sign-in. A WRITE tool that could not be verified in the mode
asked for (``--verify-writes none``, or a demonstration recorded before traces
kept responses) is written all the same and listed in ``unverified``.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from agentjit.cache import CacheInfo, SuspectStore, ToolCache
from agentjit.exceptions import CacheError, TraceError
from agentjit.llm.base import Model
from agentjit.protocol.trace import Trace, read_trace
from agentjit.runtime import BrowserPool
from agentjit.scheduler.distributions import Distribution, fit_latency, fits_to_json

from .codegen import Synth, synthesize
from .coverage import StepCoverage, count_coverage
from .dom import parse_html
from .extract import PageSchema, SiteSchema, extract_snapshot, merge_page, page_key, url_pattern
from .label import LabeledStep, label_step, label_with_model
from .literal import state_value
from .pages import VARIANT_MARK, learn_routes, page_name
from .record import session_path
from .rows import checked_row, is_row_check, looked_at_list
from .script import STEP_TIMEOUT_S
from .variants import learn_variants
from .verify import VerifyReport, verify_tools
from .workflow import workflow_tools

__all__ = ["BuildReport", "build_cache", "load_traces", "replace_cache_dir", "trace_files", "STAGES"]

log = logging.getLogger(__name__)

STAGES = ("load", "extract", "label", "codegen", "verify", "fit", "save")
"""The stages in the order they run (fit comes after verify: verified calls add latency samples)."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``."""


@dataclass
class BuildReport:
    traces: int = 0
    steps: int = 0
    bad_traces: list[dict[str, Any]] = field(default_factory=list)
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    elements: int = 0
    labeled: int = 0
    unlabeled: int = 0
    synthesized: list[str] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    relations: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    relation_tests: list[dict[str, Any]] = field(default_factory=list)
    distributions: dict[str, dict[str, Any]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    output: str | None = None
    previous: str | None = None
    """Where the cache that ``output`` replaced was kept (``OUT.prev``), if there was one."""
    good_calls: int = 0
    """Verified tools whose first passing call the cache keeps as their good call (``suspects.json``): heal
    probes those tools with it before any run has recorded one."""
    not_written: str | None = None
    """Why nothing was written (no readable trace, no tool): an existing cache stays as it was."""
    verify_calls: int = 0
    routes: list[str] = field(default_factory=list)
    """Route templates learned from the traces (``library/{name}``: see :func:`toolcache.pages.learn_routes`),
    and page variants (``admin_library_book#delete_multiple_objects``: see :mod:`toolcache.variants`)."""
    verify_writes: str | None = None
    """How WRITE tools were verified (:data:`toolcache.verify.WRITE_MODES`); None without a site."""
    writes: dict[str, str] = field(default_factory=dict)
    """Per tool that sends writes: how it was verified (``recorded``, ``live``, ``sign-in, live``),
    or why it was not (``not verified: ...``) or the reason it was rejected."""
    unverified: dict[str, str] = field(default_factory=dict)
    """Tools written to the cache without a passing call, and why (WRITE tools only)."""
    coverage: StepCoverage | None = None
    """Which demonstrated steps (``goto`` aside) a tool of the cache acts on, and the ones none does."""
    workflow: dict[str, list[str]] | None = None
    """The workflow tools ``made`` and ``kept`` (:mod:`toolcache.workflow`); None when turned off."""
    sent_live: list[dict[str, str]] = field(default_factory=list)
    """Every state-changing request verification sent to the site (``{tool, request, why}``): none
    by default; the sign-in with ``--sign-in``, the demonstrated writes with ``--verify-writes live``."""
    sessions_expired: dict[str, str] = field(default_factory=dict)
    """Trace -> the sign-in page the site sent where its demonstration was signed in: its saved
    session has expired (or it saved none), and the tools behind it are in ``unverified``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "steps": self.steps,
            "bad_traces": self.bad_traces,
            "pages": self.pages,
            "elements": self.elements,
            "steps_labeled": self.labeled,
            "steps_unlabeled": self.unlabeled,
            "tools": {
                "synthesized": len(self.synthesized),
                "verified": len(self.verified),
                "rejected": len(self.rejected),
                "verified_names": self.verified,
                "rejected_reasons": self.rejected,
                "unverified": self.unverified,
            },
            "verify_writes": self.verify_writes,
            "writes": self.writes,
            "sent_live": self.sent_live,
            "sessions_expired": self.sessions_expired,
            "relations": self.relations,
            "relation_tests": self.relation_tests,
            "distributions": self.distributions,
            "verify_calls": self.verify_calls,
            "routes": self.routes,
            "coverage": self.coverage.to_json() if self.coverage is not None else None,
            "workflow_tools": None if self.workflow is None else {
                "made": len(self.workflow["made"]), "kept": len(self.workflow["kept"]),
                "made_names": self.workflow["made"], "kept_names": self.workflow["kept"]},
            "timings_s": {k: round(v, 3) for k, v in self.timings.items()},
            "output": self.output,
            "previous": self.previous,
            "not_written": self.not_written,
            "good_calls": self.good_calls,
        }


def trace_files(paths: Sequence[str | Path]) -> list[Path]:
    """Expand directories to their ``*.jsonl`` files (sorted); keep files as given."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.glob("*.jsonl")))
        else:
            out.append(p)
    return out


_BUTTON_TYPES = ("submit", "reset", "button")
_FROM_CONTENT = frozenset({"button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option", "treeitem",
                           "heading", "cell", "gridcell", "columnheader", "rowheader", "switch", "tooltip"})
"""Roles whose accessible name is their content before their ``title`` (accname 1.2, step 2F)."""


def _named_buttons(trace: Trace) -> Trace:
    """``trace`` with every target's accessible name as the recorder's ``labelOf`` now reads it (an
    older recorder left an ``<input type=submit value=...>`` unnamed, and tools were named after the
    action: ``do_click``; it named a link by its ``title`` before its content, so every row link
    ``<a title="Edit this page">Owls Guide</a>`` had one name)."""
    for st in trace.steps:
        t = st.target
        if t is None:
            continue
        attrs = (t.model_extra or {}).get("attributes") or {}
        tag = (t.tag or "").lower()
        if not t.name and tag == "input":
            if str(attrs.get("type", "")).lower() in _BUTTON_TYPES and attrs.get("value"):
                t.name = " ".join(str(attrs["value"]).split())
            continue
        text = " ".join((t.text or "").split())
        if any(c.isalnum() for c in text) and (t.role in _FROM_CONTENT and tag not in ("input", "select", "textarea") and text and attrs.get("title")
                and " ".join((t.name or "").split()) == " ".join(str(attrs["title"]).split()) and not attrs.get("aria-label") and not attrs.get("aria-labelledby")):
            t.name = text[:120]
    return trace


def load_traces(paths: Sequence[str | Path], report: BuildReport, progress: Progress | None = None) -> list[Trace]:
    files = trace_files(paths)
    traces: list[Trace] = []
    for i, f in enumerate(files):
        try:
            traces.append(_named_buttons(read_trace(f)))
        except TraceError as exc:
            log.warning("skipping bad trace: %s", exc)
            report.bad_traces.append({"path": str(f), "line": exc.line, "error": str(exc)})
        if progress:
            progress("load", i + 1, len(files))
    report.traces = len(traces)
    report.steps = sum(len(t.steps) for t in traces)
    return traces


def load_sessions(traces: Sequence[Trace]) -> dict[str, dict[str, Any]]:
    """The storage state each trace saved (``<name>.session.json``), by trace path; a trace without
    one (recorded before sessions were saved, or imported) has none. The files are never printed."""
    out: dict[str, dict[str, Any]] = {}
    for tr in traces:
        if tr.path is None:
            continue
        path = session_path(tr.path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            log.warning("%s: not a saved session (%s): the tools behind its sign-in stay unverified", path, type(exc).__name__)
            continue
        if isinstance(data, dict):
            out[str(tr.path)] = data
    return out


def _extract(
    traces: list[Trace], progress: Progress | None, routes: Sequence[str] = (),
) -> tuple[SiteSchema, dict[int, PageSchema]]:
    """Two passes: find repeated signatures per page, then extract with them known."""
    snaps: list[tuple[int, str, str | None]] = []
    seen: set[tuple[str, str | None]] = set()
    for t in traces:
        for s in t.steps:
            if s.snapshot and s.snapshot in t.snapshots:
                snaps.append((id(s), t.snapshot_html(s) or "", s.url_after or s.url))
    known: dict[str, set[str]] = defaultdict(set)
    first: dict[str, PageSchema] = {}
    cache: dict[str, PageSchema] = {}
    for _, html, url in snaps:
        key = (html, url)
        if key in seen:
            continue
        seen.add(key)
        ps = extract_snapshot(html, url, routes=routes)
        for el in ps.elements.values():
            if el.repeated:
                known[ps.page].add(el.selector)
        first.setdefault(ps.page, ps)
    site = SiteSchema()
    per_step: dict[int, PageSchema] = {}
    for i, (sid, html, url) in enumerate(snaps):
        ck = f"{hash(html)}|{url}"
        hit = cache.get(ck)
        if hit is None:
            ps = extract_snapshot(html, url, known=known.get(_page_of(html, url, routes), set()), routes=routes)
            cache[ck] = ps
            if ps.page in site.pages:
                merge_page(site.pages[ps.page], _copy(ps))
            else:
                site.pages[ps.page] = _copy(ps)
        else:
            ps = hit
        per_step[sid] = ps
        if progress:
            progress("extract", i + 1, len(snaps))
    return site, per_step


def _page_by_url(site: SiteSchema, url: str | None) -> PageSchema | None:
    """The extracted page whose URL patterns include ``url``'s (``/store/*``), if any."""
    if not url:
        return None
    pat = url_pattern(url)
    return next((ps for _, ps in sorted(site.pages.items()) if pat in ps.url_patterns), None)


def _copy(ps: PageSchema) -> PageSchema:
    import copy

    return copy.deepcopy(ps)


def _page_of(html: str, url: str | None, routes: Sequence[str] = ()) -> str:
    import html as htmllib
    import re

    if any(VARIANT_MARK in r for r in routes):  # a variant is named by the document's heading
        return page_key(parse_html(html).find(lambda n: n.tag == "body"), url, routes)
    m = re.search(r"<body[^>]*\sdata-page=\"([^\"]+)\"", html)
    return (state_value(htmllib.unescape(m.group(1))) if m else "") or page_key(None, url, routes)


def _initial_state(labeled: dict[str, list[LabeledStep]], site: SiteSchema) -> dict[str, Any]:
    """Where a run starts: the page the demonstrations landed on when they opened the site's
    root (``/`` may redirect, e.g. Fava's to its income statement), else ``home`` if there is one."""
    landed: defaultdict[str, int] = defaultdict(int)
    for steps in labeled.values():
        for ls in steps:
            if ls.step.action == "goto" and ls.page_after and urlparse(str(ls.step.value or "")).path in ("", "/"):
                landed[ls.page_after] += 1
    if landed:
        return {"page": max(landed, key=lambda page: landed[page])}
    return {"page": "home"} if "home" in site.pages else {}


async def _label(
    traces: list[Trace], site: SiteSchema, per_step: dict[int, PageSchema], model: Model | None,
    report: BuildReport, progress: Progress | None,
) -> dict[str, list[LabeledStep]]:
    """Every step with its element and its page before and after (counted in ``report``)."""
    labeled: dict[str, list[LabeledStep]] = {}
    total = sum(len(tr.steps) for tr in traces)
    done = 0
    for tr in traces:
        prev: PageSchema | None = None
        prev_html: str | None = None
        out_steps: list[LabeledStep] = []
        for st in tr.steps:
            after = per_step.get(id(st))
            if st.snapshot is None:
                # no DOM (browser-use imports): the page types other traces saw at these URLs
                prev = _page_by_url(site, st.url) or prev
                after = _page_by_url(site, st.url_after)
            before_schema = site.pages.get(prev.page) if prev is not None else None
            el, action, card_name, via = label_step(st, before_schema)
            if el is not None and card_name is None and is_row_check(st, el):
                card_name = checked_row(prev_html, st, el)  # which row's box: read off the page before the step
            if el is None and before_schema is not None:
                # a scroll to (or hover on) a region that holds a list: the list is what was looked at
                # (on the page before the step, or as the step left it: a list that loads when shown)
                known = list(before_schema.elements.values())
                el = looked_at_list(prev_html, st, known) or looked_at_list(tr.snapshot_html(st) if st.snapshot else None, st, known)
                via = "region" if el is not None else via
            if el is None and st.target is None and model is not None and before_schema is not None and st.action not in ("goto",):
                el = await label_with_model(model, st, before_schema)
                via = "model" if el is not None else "none"
            ls = LabeledStep(
                trace=str(tr.path), step=st, page_before=prev.page if prev else None,
                page_after=after.page if after else None, element=el, action=action, card_name=card_name,
                modal_before=set(prev.open_modals) if prev else set(), modal_after=set(after.open_modals) if after else set(),
                via=via,
            )
            if el is not None:
                report.labeled += 1
                if ls.page_before and ls.page_after and ls.page_after != ls.page_before and st.action == "click":
                    el.opens_page.add(ls.page_after)
                    site.transitions[(ls.page_before, el.name, ls.page_after)] += 1
                opened = ls.modal_after - ls.modal_before
                if opened and st.action == "click":
                    el.opens_modal = sorted(opened)[0]
            elif st.action != "goto":
                report.unlabeled += 1
            out_steps.append(ls)
            prev = after or prev
            prev_html = (tr.snapshot_html(st) if st.snapshot else None) or prev_html
            done += 1
            if progress:
                progress("label", done, total)
        labeled[str(tr.path)] = out_steps
    return labeled


def _judge(synths: Sequence[Synth], vreport: VerifyReport, report: BuildReport) -> list[Synth]:
    """The tools of ``synths`` the verdicts keep (passed, or WRITEs left unverified), noting in
    ``report`` the ones rejected and how each write was verified."""
    kept: list[Synth] = []
    for s in synths:
        v = vreport.verdicts[s.manifest.name]
        if v.ok:
            rel = vreport.relations.get(s.manifest.name)
            if rel:
                s.manifest = s.manifest.model_copy(update={"pre_tools": {k: list(v_) for k, v_ in rel.items()}})
            kept.append(s)
        elif v.unverified:
            report.unverified[s.manifest.name] = v.unverified
            kept.append(s)
        else:
            report.rejected[s.manifest.name] = v.reason
        if v.how or v.unverified or (s.manifest.is_write and not v.ok):
            report.writes[s.manifest.name] = (v.how or "verified") if v.ok else (v.unverified or f"rejected: {v.reason}")
    return kept


def _snapshots(traces: list[Trace]) -> Callable[[LabeledStep], str | None]:
    """A labeled step's snapshot HTML (the page after it), looked up in the trace it came from."""
    by_path = {str(tr.path): tr for tr in traces}

    def html_of(ls: LabeledStep) -> str | None:
        tr = by_path.get(ls.trace)
        return tr.snapshot_html(ls.step) if tr is not None and ls.step.snapshot in tr.snapshots else None

    return html_of


def _opens_item(ls: LabeledStep) -> bool:
    """The click was on an item's own link (its text one of the items' names the list showed), not
    on one of a row's actions (a row menu's Delete, whose page is of another kind than the row's
    editor: no ``{name}`` of the two)."""
    def norm(x: object) -> str:
        return " ".join(str(x or "").split()).casefold()

    text = norm(ls.step.target.text if ls.step.target is not None else "")
    names = {norm(x) for x in (ls.element.samples if ls.element is not None else ())} - {""}
    return not text or not names or text in names


def _list_clicks(labeled: dict[str, list[LabeledStep]]) -> list[tuple[str, list[str | None]]]:
    """For each list (a card group on a page): the URLs its clicked items opened."""
    opened: dict[str, list[str | None]] = defaultdict(list)
    for steps in labeled.values():
        for ls in steps:
            if ls.element is not None and ls.element.repeated and ls.step.action == "click" and ls.step.ok and ls.action is None \
                    and ls.page_after == page_name(ls.step.url_after) and _opens_item(ls):  # a page named by its URL, not by data-page
                opened[f"{ls.page_before} {ls.element.selector}"].append(ls.step.url_after)
    return sorted(opened.items())


async def build_cache(
    paths: Sequence[str | Path],
    out: str | Path | None,
    *,
    base_url: str | None = None,
    app: str | None = None,
    pool: BrowserPool | None = None,
    model: Model | None = None,
    reset: Callable[[], Awaitable[None]] | None = None,
    progress: Progress | None = None,
    secrets: dict[str, str] | None = None,
    writes: str = "recorded",
    step_timeout_s: float = STEP_TIMEOUT_S,
    workflow: bool = True,
    sign_in: bool = False,
) -> tuple[ToolCache, BuildReport]:
    """Build a tool cache from trace files (or directories of them).

    ``writes`` says how WRITE tools are verified (:data:`toolcache.verify.WRITE_MODES`):
    ``recorded`` (the default) never changes the site; ``reset`` runs between traces only in
    ``live`` mode. A site that stops answering while verifying (a page unanswered for
    ``step_timeout_s``) raises :class:`~agentjit.exceptions.SiteUnreachable` before anything is
    written to ``out``. ``workflow`` (``--no-workflow-tools`` turns it off): the demonstrated steps
    no kept tool acts on become workflow tools (:mod:`toolcache.workflow`), verified in a second pass.
    ``sign_in`` (``--sign-in``, the user's consent): send the demonstrated sign-in to the site with
    the ``secrets`` given, instead of answering it from its recording and using the saved session.
    """
    report = BuildReport()
    clock = time.perf_counter
    t = clock()
    traces = load_traces(paths, report, progress)
    report.timings["load"] = clock() - t

    t = clock()
    # a POST answered at a page's URL with a document of another shape (a confirmation) is a page of its own
    variants = learn_variants(traces)
    site, per_step = _extract(traces, progress, variants)
    report.timings["extract"] = clock() - t

    # -- label -------------------------------------------------------------------
    t = clock()
    labeled = await _label(traces, site, per_step, model, report, progress)
    routes = learn_routes(_list_clicks(labeled))
    if routes:
        # a list's items open pages that differ in one path segment: that segment is data
        # (``/library/books``, ``/library/authors`` are one page, ``library_{name}``); again with it
        log.info("learned routes: %s", ", ".join(routes))
        routes += learn_variants(traces, routes)
        report.labeled = report.unlabeled = 0
        site, per_step = _extract(traces, None, routes)
        labeled = await _label(traces, site, per_step, model, report, progress)
    else:
        routes = variants
    if any(VARIANT_MARK in r for r in routes):
        log.info("learned page variants: %s", ", ".join(r for r in routes if VARIANT_MARK in r))
    report.routes = routes
    report.timings["label"] = clock() - t
    report.elements = sum(len(p.elements) for p in site.pages.values())
    for name, ps in sorted(site.pages.items()):
        report.pages[name] = {"elements": len(ps.elements), "fields": len(ps.fields), "snapshots": ps.snapshots,
                              "url_patterns": sorted(ps.url_patterns)}

    # -- codegen ---------------------------------------------------------------------
    t = clock()
    synths = synthesize(site, labeled, routes, _snapshots(traces))
    report.synthesized = [s.manifest.name for s in synths]
    if progress:
        progress("codegen", 1, 1)
    report.timings["codegen"] = clock() - t

    # -- verify ------------------------------------------------------------------------
    t = clock()
    vreport: VerifyReport | None = None
    if base_url is not None:
        done_traces = [0]

        def on_trace(_name: str) -> None:
            done_traces[0] += 1
            if progress:
                progress("verify", done_traces[0], len(labeled))

        report.verify_writes = writes
        options: dict[str, Any] = dict(reset=reset, on_trace=on_trace, secrets=secrets, routes=routes, writes=writes,
                                       recorded={str(tr.path): tr for tr in traces},
                                       step_timeout_s=step_timeout_s, sessions=load_sessions(traces), sign_in=sign_in)
        if pool is None:
            async with BrowserPool.from_spec() as own:
                vreport = await verify_tools(synths, labeled, own, base_url, **options)
        else:
            vreport = await verify_tools(synths, labeled, pool, base_url, **options)
        report.verify_calls = vreport.calls
        report.sent_live += vreport.sent_live
        report.sessions_expired.update(vreport.sessions_expired)
        kept = _judge(synths, vreport, report)
        report.relations = {k: {p: list(v) for p, v in r.items()} for k, r in vreport.relations.items()}
        report.relation_tests = vreport.relation_tests
        synths_final = kept
    else:
        synths_final = synths
    reasons: dict[tuple[str, int], str] = {}
    if workflow:
        # where no pattern fits: the demonstrated steps themselves, verified like the rest
        wf_synths = workflow_tools(labeled, [s.manifest for s in synths_final], _snapshots(traces), routes)
        report.workflow = {"made": [s.manifest.name for s in wf_synths], "kept": []}
        report.synthesized += report.workflow["made"]
        if wf_synths and vreport is not None:
            # the second pass replays only the traces with a workflow in them, each up to its last one
            starts = {id(s) for w in wf_synths for s in w.starts}
            replay = {k: steps[:max(i for i, ls in enumerate(steps) if id(ls) in starts) + 1]
                      for k, steps in labeled.items() if any(id(ls) in starts for ls in steps)}
            names = {w.manifest.name for w in wf_synths}
            options["on_trace"] = None
            t_wf = clock()
            if pool is None:
                async with BrowserPool.from_spec() as own:
                    wreport = await verify_tools([*synths_final, *wf_synths], replay, own, base_url or "", focus=names, **options)
            else:
                wreport = await verify_tools([*synths_final, *wf_synths], replay, pool, base_url or "", focus=names, **options)
            report.verify_calls += wreport.calls
            report.sent_live += wreport.sent_live
            report.sessions_expired.update(wreport.sessions_expired)
            report.timings["verify_workflow"] = clock() - t_wf  # part of verify
            vreport.verdicts.update({n: wreport.verdicts[n] for n in names})
            wf_kept = _judge(wf_synths, wreport, report)
        else:
            wf_kept = list(wf_synths)
        report.workflow["kept"] = [s.manifest.name for s in wf_kept]
        for w in wf_synths:
            if w.manifest.name in report.rejected:
                for ev in w.evidence:
                    reasons[(ev.trace, ev.step.index)] = f"its workflow tool {w.manifest.name} was rejected: {report.rejected[w.manifest.name]}"
        synths_final = [*synths_final, *wf_kept]
    report.verified = [s.manifest.name for s in synths_final if s.manifest.name not in report.unverified] if vreport is not None else []
    report.timings["verify"] = clock() - t
    report.coverage = count_coverage(labeled, [s.manifest for s in synths_final], reasons)

    # -- fit ------------------------------------------------------------------------------
    t = clock()
    samples: dict[str, list[float]] = defaultdict(list)
    for steps in labeled.values():
        for ls in steps:
            if ls.element is not None and ls.step.ok and ls.page_before:
                samples[f"{ls.page_before}.{ls.element.name}"].append(max(ls.duration, 0.0))
    for s in synths_final:
        mine: list[float] = []
        for ev in s.evidence:
            if ev.element is not None and ev.step.ok:
                mine.append(max(ev.duration, 0.0))
        if not mine and vreport is not None:
            mine = list(vreport.verdicts[s.manifest.name].latencies)
        if mine:
            samples[s.manifest.name].extend(mine)
            for e in s.manifest.elements[:1]:
                samples[f"{s.manifest.name}/{e}"].extend(mine)
    fits: dict[str, Distribution] = {}
    keys = sorted(samples)
    for i, key in enumerate(keys):
        try:
            fits[key] = fit_latency(samples[key])
        except ValueError as exc:
            log.info("no fit for %s: %s", key, exc)
        if progress:
            progress("fit", i + 1, len(keys))
    report.distributions = {k: {"family": d.family, "n": d.n, "mean": round(d.mean, 4), "p95": round(d.p95, 4)} for k, d in fits.items()}
    report.timings["fit"] = clock() - t

    # -- save -------------------------------------------------------------------------------
    t = clock()
    site_name = app or next((tr.session.site for tr in traces if tr.session.site), None) or "site"
    start = next((tr.session.start_url for tr in traces if tr.session.start_url), None)
    info = CacheInfo.model_validate(dict(
        app=site_name,
        url_pattern=(urlparse(base_url or start or "").netloc and "*") or "*",
        description=f"Built by toolcache from {report.traces} traces",
        start_path="/",
        initial_state=_initial_state(labeled, site),
        builder={
            "verified": vreport is not None,
            "verify_writes": report.verify_writes,
            **({"unverified": report.unverified} if report.unverified else {}),
            "traces": [str(tr.path) for tr in traces],
            "witnesses": {n: v.witness for n, v in (vreport.verdicts.items() if vreport else []) if v.witness is not None},
        },
    ))
    cache = ToolCache(info, [s.manifest for s in synths_final], latency=fits_to_json(fits), schemas=site.to_json())
    if out is not None and (report.traces == 0 or not synths_final):
        # a typo in the trace path must not empty a working cache
        report.not_written = "no readable trace" if report.traces == 0 else "no tool survived the build"
        log.warning("nothing written to %s: %s", out, report.not_written)
    elif out is not None:
        replaced = replace_cache_dir(cache, out)
        report.previous = str(replaced) if replaced is not None else None
        report.output = str(out)
        if vreport is not None:
            try:
                report.good_calls = keep_good_calls(Path(out), cache, vreport)
            except (OSError, CacheError) as exc:  # the cache stands; heal then probes only what runs record
                log.warning("the verified calls were not kept as good calls in %s: %s", out, exc)
    if progress:
        progress("save", 1, 1)
    report.timings["save"] = clock() - t
    report.timings["total"] = sum(v for k, v in report.timings.items() if k not in ("total", "verify_workflow"))
    cache.synths = synths_final  # type: ignore[attr-defined]
    cache.verify_report = vreport  # type: ignore[attr-defined]
    return cache, report


def keep_good_calls(root: Path, cache: ToolCache, vreport: VerifyReport) -> int:
    """Keep each verified tool's first passing call on the live site (:attr:`ToolVerdict.good`: a READ's output, a
    WRITE's demonstrated requests) as its good call in the cache at ``root``, as a run with ``record_suspects``
    keeps one: ``toolcache heal`` probes a tool with its good call (and signs in with the sign-in tool's), so a site
    that changes before any run is probed from the build's own calls. Returns how many."""
    store = SuspectStore(root)
    kept = 0
    for name, verdict in sorted(vreport.verdicts.items()):
        good, tool = verdict.good, cache.tools.get(name)
        if good is None or tool is None or not verdict.ok:
            continue
        store.save_good(name, tool.version, good["url"], good["html"], args=good["args"], output=good.get("output"),
                        after_url=good.get("after_url"), after_html=good.get("after_html"), writes=good.get("writes"))  # fmt: skip
        kept += 1
    return kept


def replace_cache_dir(cache: ToolCache, out: str | Path) -> Path | None:
    """Save ``cache`` as the directory ``out``, keeping the cache it replaces as ``out.prev``.

    The new cache is written whole to a sibling temporary directory first, so a
    failed save leaves ``out`` untouched; then ``out`` (if any) becomes
    ``out.prev`` (an older ``out.prev`` is dropped) and the new one takes its
    place, two renames on one file system. Returns the ``.prev`` path, or None
    when there was nothing to keep.
    """
    root = Path(out)
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.new-", dir=root.parent))
    try:
        cache.save(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    prev: Path | None = None
    if root.exists():
        prev = root.with_name(root.name + ".prev")
        if prev.is_dir() and not prev.is_symlink():
            shutil.rmtree(prev)
        elif prev.exists() or prev.is_symlink():
            prev.unlink()
        root.rename(prev)
    try:
        tmp.rename(root)
    except BaseException:
        if prev is not None:
            prev.rename(root)  # put the old cache back
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    cache.path = root
    return prev
