"""Issue 21, the tools the first heal left broken, as classes, on the food site redesigned by the proxy in Chromium:
a navigating tool whose post_check names are on the page it lands on, and a WRITE healed without sending it (its
verification's request answered from the one its good call sent; the site's own cart says nothing was added).
And ``agentjit run`` healing by itself after a fallback (a loopback fake model answers the stepwise agent); the run
after a heal needs no fallback (``test_heal.py`` shows it with the runtime)."""

from __future__ import annotations

import json
import shutil
from html import escape
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.cli import main as agentjit_main
from agentjit.exceptions import ConfigError, ToolCallFailed
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime import Runtime
from agentjit.testing import FakeOpenAIServer, FakeReply
from toolcache.heal import _sign_in_params, heal_cache
from toolcache.recorded import request_params

from .pages import PageHandler, serve

pytestmark = pytest.mark.browser

TIMEOUT_MS = 3000


def fresh_cache(tmp_path: Path) -> Path:
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    return cache_dir


def cart(site) -> list[str]:
    return [line["item_name"] for line in site.state()["cart"]]


async def run(cache_dir: Path, url: str, pool, plan: str, **options):
    runtime = Runtime(ToolCache.load(cache_dir), url, pool=pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS,
                      **options)  # fmt: skip
    return await runtime.run(plan)


CATEGORY_PLAN = 'c = await goto_category(category="Mexican")\nresult = c.category'


async def test_a_navigating_tool_heals_on_the_page_it_lands_on(tmp_path, browser_pool, food_site) -> None:
    cache_dir = fresh_cache(tmp_path)
    assert (await run(cache_dir, food_site.url, browser_pool, CATEGORY_PLAN)).value == "Mexican"
    assert SuspectStore(cache_dir).good("goto_category")["after_url"].endswith("/category/mexican")
    with RedesignProxy(food_site.url, seed=3, only={"category-title"}) as proxy:
        with pytest.raises(ToolCallFailed) as info:  # it navigated; its post_check no longer finds the title
            await run(cache_dir, proxy.url, browser_pool, CATEGORY_PLAN)
        assert info.value.suspect.phase == "post_check"  # type: ignore[attr-defined]
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool)
        assert report.healed == ["goto_category"], report.failed
        new = proxy.redesign.new_name("category-title")
        assert report.changes["goto_category"] == {"[data-testid=category-title]": f'[data-testid="{new}"]'}
        assert ToolCache.load(cache_dir).tool("goto_category").version == 2
        assert (await run(cache_dir, proxy.url, browser_pool, CATEGORY_PLAN)).value == "Mexican"


WRITE_PLAN = 'await goto_store(name="Taqueria El Sol")\nadded = await add_to_cart(item_name="Horchata")\nresult = added.success'


async def test_a_write_heals_without_being_sent(tmp_path, browser_pool, food_site) -> None:
    cache_dir = fresh_cache(tmp_path)
    # the call that worked, on the site as it was: its request and the site's answer are kept
    assert (await run(cache_dir, food_site.url, browser_pool, WRITE_PLAN)).value is True
    [sent] = SuspectStore(cache_dir).good("add_to_cart")["writes"]
    assert sent["method"] == "POST" and sent["status"] == 200 and "Horchata" not in (sent["post_data"] or "x")
    food_site.reset()
    with RedesignProxy(food_site.url, seed=3, only={"add-to-cart-button", "menu-item"}) as proxy:
        with pytest.raises(ToolCallFailed) as info:
            await run(cache_dir, proxy.url, browser_pool, WRITE_PLAN)
        suspect = info.value.suspect  # type: ignore[attr-defined]
        assert suspect.tool == "add_to_cart" and suspect.write_sent is False and cart(food_site) == []
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool)
        assert report.healed == ["add_to_cart"], report.failed
        assert set(report.changes["add_to_cart"]) == {"[data-testid=add-to-cart-button]", "[data-testid=menu-item]"}
        assert report.writes_answered["add_to_cart"] and cart(food_site) == []  # verified, and never sent
        assert (await run(cache_dir, proxy.url, browser_pool, WRITE_PLAN)).value is True
        assert cart(food_site) == ["Horchata"]  # the healed tool's one write, once


DETAILS_PLAN = 'await goto_store(name="Taqueria El Sol")\nd = await get_store_details()\nresult = d.name'
DETAILS = {"name": "Taqueria El Sol", "slug": "taqueria-el-sol", "category": "Mexican", "cuisine": "Mexican",
           "rating": 4.6, "review_count": 1, "delivery": True, "pickup": True, "delivery_fee": 2.49,
           "eta_minutes": 30}  # fmt: skip


@pytest.mark.parametrize("in_run", [True, False])
def test_run_heals_by_itself(tmp_path, food_site, monkeypatch, capsys, in_run) -> None:
    """``agentjit run --cache DIR --model``: by default the broken tool is healed in the run (no model call) and the
    run goes on; with ``--no-heal-in-run`` the call falls back to the agent and the tool is healed after the run."""
    cache_dir = fresh_cache(tmp_path)
    plan = tmp_path / "plan.py"
    plan.write_text(DETAILS_PLAN)
    done = json.dumps({"action": "done", "answer": DETAILS})
    with FakeOpenAIServer([FakeReply(text=done)] * 4) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        argv = ["run", str(plan), "--cache", str(cache_dir), "--model", "openai:fake", "--json"]
        argv += [] if in_run else ["--no-heal-in-run"]
        assert agentjit_main([*argv, "--site", food_site.url]) == 0  # as it was: good pages kept, no model call
        assert json.loads(capsys.readouterr().out)["fallbacks"] == [] and server.requests == []
        with RedesignProxy(food_site.url, seed=7, only={"store-header"}) as proxy:
            assert agentjit_main([*argv, "--site", proxy.url]) == 0
            first = json.loads(capsys.readouterr().out)
            assert first["value"] == "Taqueria El Sol" and [f["tool"] for f in first["fallbacks"]] == ["get_store_details"]
            if in_run:
                assert first["fallbacks"][0]["how"] == "heal" and first["healed"] is None and server.requests == []
            else:
                assert first["healed"]["healed"] == ["get_store_details"] and len(server.requests) == 1
                assert first["healed"]["revision"] == 1
            assert SuspectStore(cache_dir).suspects() == {}
            assert ToolCache.load(cache_dir).tool("get_store_details").version == 2


class SignInSite(PageHandler):
    """A sign-in form whose page puts a token of its own in it (a hidden CSRF input) in design 1; design 2 has a
    renamed button and no token (Roundup's jinja2 template has none in its login form). A sign-in sets a session
    cookie; the welcome shows only to a session the site knows. Every post is counted."""

    design = 1
    posts: list[str] = []
    sessions: set[str] = set()

    def do_GET(self) -> None:
        cookie = (self.headers.get("Cookie") or "").removeprefix("session=")
        if cookie in self.sessions:
            self.send_html(f'<body><p class="welcome">Welcome {escape(cookie.split("-")[0])}</p></body>')
            return
        token = f'<input type="hidden" name="csrf" value="tok-{len(self.posts)}">' if self.design == 1 else ""
        button = "sign-in" if self.design == 1 else "log-in"
        self.send_html(f'<body><form method="post" action="/login">{token}<input name="user">'
                       f'<input name="password" type="password"><button id="{button}">Sign in</button></form></body>')  # fmt: skip

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).posts.append(body)
        session = f"{parse_qs(body)['user'][0]}-{len(self.posts)}"
        self.sessions.add(session)
        self.send_response(303)
        self.send_header("Location", "/")
        self.send_header("Set-Cookie", f"session={session}; Path=/")
        self.send_header("Content-Length", "0")
        self.end_headers()


SIGN_IN = ToolManifest(
    name="sign_in", description="Sign in as user.", type=ToolType.SET_FIELDS, effect=Effect.WRITE, navigates=True,
    input_schema={"type": "object", "required": ["user", "password"], "properties": {
        "user": {"type": "string"}, "password": {"type": "string", "writeOnly": True}}},
    output_schema={"type": "object", "properties": {"success": {"type": "boolean"}}},
    pre_check="return document.querySelector('#sign-in') ? true : [false, 'no sign-in button'];",
    execute="document.querySelector('input[name=user]').value = inputs.user;\n"
            "document.querySelector('input[name=password]').value = inputs.password;\n"
            "const b = document.querySelector('#sign-in');\nif (!b) throw new Error('no sign-in button here');\n"
            "setTimeout(() => b.click(), 0);\nreturn {success: true};",
    post_check="return document.querySelector('.welcome') ? true : [false, 'not signed in'];",
)  # fmt: skip


async def test_a_sign_in_heals_when_the_redesign_drops_the_pages_own_token(tmp_path, browser_pool) -> None:
    """The request a sign-in sent while it worked carried a hidden input of its page (a CSRF token); the redesigned
    page has none. That token was never the tool's: heal matches the request without it, never sending it. The
    session the recorded answer sets is gone (the site forgot its sessions), so the answer lands back on the form:
    the request, the recorded one, is what verifies a sign-in then."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="signin"), [SIGN_IN]).save(cache_dir)
    plan = 'r = await sign_in(user="alice", password="pass-1")\nresult = r.success'
    SignInSite.design, SignInSite.posts, SignInSite.sessions = 1, [], set()
    with serve(SignInSite) as url:
        assert (await run(cache_dir, url, browser_pool, plan)).value is True
        [sent] = SuspectStore(cache_dir).good("sign_in")["writes"]
        assert "csrf=tok-0" in sent["post_data"] and len(SignInSite.posts) == 1
        SignInSite.design, SignInSite.sessions = 2, set()
        with pytest.raises(ToolCallFailed) as info:
            await run(cache_dir, url, browser_pool, plan)
        assert info.value.suspect.phase == "pre_check"  # type: ignore[attr-defined]
        report = await heal_cache(cache_dir, url, pool=browser_pool)
        assert report.healed == ["sign_in"], report.failed
        assert report.changes["sign_in"] == {"#sign-in": "#log-in"} and report.page_params == {"sign_in": ["csrf"]}
        assert len(SignInSite.posts) == 1  # verified against the recorded answer, never sent
        assert (await run(cache_dir, url, browser_pool, plan)).value is True
        assert SignInSite.posts[1:] == ["user=alice&password=pass-1"]  # the healed tool's one post, the form as it is


class AccountSite(SignInSite):
    """:class:`SignInSite` whose signed-in home page shows the account's balance (``.balance``; ``.amount`` in
    design 2): a page only a session sees."""

    posts: list[str] = []
    sessions: set[str] = set()

    def do_GET(self) -> None:
        cookie = (self.headers.get("Cookie") or "").removeprefix("session=")
        if cookie not in self.sessions:
            super().do_GET()
            return
        kind = "balance" if self.design == 1 else "amount"
        self.send_html(f'<body><p class="welcome">Welcome</p><p class="{kind}">42 EUR</p></body>')


BALANCE = ToolManifest(
    name="read_balance", description="The signed-in account's balance.", type=ToolType.GET_FIELDS,
    output_schema={"type": "object", "required": ["balance"], "properties": {"balance": {"type": "string"}}},
    pre_check="return document.querySelector('.balance') ? true : [false, 'no balance on this page'];",
    execute="return {balance: document.querySelector('.balance').textContent};",
)  # fmt: skip


async def test_heal_signs_in_first_and_stores_no_secret(tmp_path, browser_pool) -> None:
    """A page behind a sign-in changed: heal signed out sees only the sign-in form and cannot heal the tool that
    reads it; ``heal --sign-in`` heals the sign-in first (from its recorded request, unsent), sends it once with
    the secret given, and heals the read on the page the session sees. The password is in no file of the cache
    (the run's suspects, its good calls, their requests)."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    plan = 'await sign_in(user="alice", password="pass-1")\nb = await read_balance()\nresult = b.balance'
    AccountSite.design, AccountSite.posts, AccountSite.sessions = 1, [], set()
    with serve(AccountSite) as url:
        assert (await run(cache_dir, url, browser_pool, plan, trace_dir=cache_dir / "traces")).value == "42 EUR"
        AccountSite.design, AccountSite.sessions = 2, set()
        with pytest.raises(ToolCallFailed):
            await run(cache_dir, url, browser_pool, plan)
        signed_out = await heal_cache(cache_dir, url, pool=browser_pool, tools=["sign_in"])
        assert signed_out.healed == ["sign_in"] and signed_out.signed_in is None
        SuspectStore(cache_dir).add("read_balance", {"tool": "read_balance", "phase": "pre_check", "url": url + "/"})
        report = await heal_cache(cache_dir, url, pool=browser_pool, tools=["read_balance"])
        assert "asks to sign in" in report.failed["read_balance"], report.changes  # signed out: the sign-in form, no false heal
        assert len(AccountSite.posts) == 1
        report = await heal_cache(cache_dir, url, pool=browser_pool, sign_in={"password": "pass-1"})
        assert report.signed_in == {"tool": "sign_in", "ok": True, "reason": None}, report.signed_in
        assert report.healed == ["read_balance"] and report.changes["read_balance"] == {".balance": ".amount"}
        assert AccountSite.posts[1:] == ["user=alice&password=pass-1"]  # heal's one request: the sign-in
        assert (await run(cache_dir, url, browser_pool, plan)).value == "42 EUR"
    [trace] = (cache_dir / "traces").iterdir()
    assert '"password":"<redacted>"' in trace.read_text().replace(" ", "")  # the run's trace keeps the call, not the secret
    leaked = [p.name for p in cache_dir.rglob("*") if p.is_file() and "pass-1" in p.read_text(errors="replace")]
    assert leaked == []


class BalanceSite(AccountSite):
    """:class:`AccountSite` whose sign-in form stays as it was while the balance's class changes with the design."""

    posts: list[str] = []
    sessions: set[str] = set()

    def do_GET(self) -> None:
        design, type(self).design = type(self).design, 1  # the sign-in form of design 1 ...
        try:
            cookie = (self.headers.get("Cookie") or "").removeprefix("session=")
            if cookie not in self.sessions:
                super().do_GET()
                return
        finally:
            type(self).design = design
        super().do_GET()  # ... and the balance of the design in force


def test_a_run_that_fell_back_behind_a_sign_in_heals_signed_in(tmp_path, monkeypatch, capsys) -> None:
    """``agentjit run --model`` on a cache directory: the balance's page changed, the stepwise agent answered that
    call, and the automatic heal signs in first with the password the plan gave (handed to ``toolcache heal`` on
    stdin, never in its argv or a file), so it heals the read on the page only a session sees. Then the next run
    needs no model."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    plan = tmp_path / "plan.py"
    plan.write_text('await sign_in(user="alice", password="pass-1")\nb = await read_balance()\nresult = b.balance')
    done = json.dumps({"action": "done", "answer": {"balance": "42 EUR"}})
    BalanceSite.design, BalanceSite.posts, BalanceSite.sessions = 1, [], set()
    with serve(BalanceSite) as url, FakeOpenAIServer([FakeReply(text=done)] * 4) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        argv = ["run", str(plan), "--cache", str(cache_dir), "--model", "openai:fake", "--json", "--site", url,
                "--no-heal-in-run"]  # fmt: skip
        assert agentjit_main(argv) == 0 and json.loads(capsys.readouterr().out)["fallbacks"] == []
        BalanceSite.design = 2
        assert agentjit_main(argv) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["value"] == "42 EUR" and [f["tool"] for f in first["fallbacks"]] == ["read_balance"]
        assert first["healed"]["signed_in"] == {"tool": "sign_in", "ok": True, "reason": None}, first["healed"]
        assert first["healed"]["healed"] == ["read_balance"], first["healed"]
        assert len(BalanceSite.posts) == 3  # the two runs' sign-ins and heal's one
        calls = len(server.requests)
        assert agentjit_main(argv) == 0
        second = json.loads(capsys.readouterr().out)
        assert second["value"] == "42 EUR" and second["fallbacks"] == [] and len(server.requests) == calls
    leaked = [p.name for p in cache_dir.rglob("*") if p.is_file() and "pass-1" in p.read_text(errors="replace")]
    assert leaked == []


def test_a_run_behind_a_sign_in_heals_in_its_own_session(tmp_path, capsys) -> None:
    """``agentjit run --cache DIR`` with no model: the balance's page changed; the heal in the run starts from the
    run's own session (its cookie handed over on stdin), so it sees the page only a session sees without signing in
    again, and the run goes on. Nothing but the runs' own sign-ins reached the site."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    plan = tmp_path / "plan.py"
    plan.write_text('await sign_in(user="alice", password="pass-1")\nb = await read_balance()\nresult = b.balance')
    BalanceSite.design, BalanceSite.posts, BalanceSite.sessions = 1, [], set()
    with serve(BalanceSite) as url:
        argv = ["run", str(plan), "--cache", str(cache_dir), "--json", "--site", url]
        assert agentjit_main(argv) == 0 and json.loads(capsys.readouterr().out)["fallbacks"] == []
        BalanceSite.design = 2
        assert agentjit_main(argv) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["value"] == "42 EUR"
        assert [(f["tool"], f["how"], f["model_calls"]) for f in first["fallbacks"]] == [("read_balance", "heal", 0)]
        assert len(BalanceSite.posts) == 2  # the two runs' sign-ins: the heal signed in as the run was
        assert agentjit_main(argv) == 0
        second = json.loads(capsys.readouterr().out)
        assert second["value"] == "42 EUR" and second["fallbacks"] == []
    leaked = [p.name for p in cache_dir.rglob("*") if p.is_file() and "pass-1" in p.read_text(errors="replace")]
    assert leaked == []


def test_heal_reads_its_secrets_from_stdin_as_a_json_object(tmp_path, monkeypatch, capsys) -> None:
    """``--secrets-stdin`` takes a JSON object of names to strings; anything else is a usage error that does not
    echo what it read."""
    import io

    from toolcache.cli import main as toolcache_main

    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    for text in ("password=pass-1", '["pass-1"]', '{"password": 1}'):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        assert toolcache_main(["heal", "--cache", str(cache_dir), "--site", "http://127.0.0.1:9/", "--sign-in",
                               "--secrets-stdin"]) == 2  # fmt: skip
        err = capsys.readouterr().err
        assert "--secrets-stdin" in err and "pass-1" not in err, err
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    assert toolcache_main(["heal", "--cache", str(cache_dir), "--site", "http://127.0.0.1:9/", "--secrets-stdin"]) == 2
    assert "are for --sign-in" in capsys.readouterr().err


def test_heal_signs_in_with_the_parameters_that_carried_its_arguments() -> None:
    """Classic Roundup's login box sits beside the issue list and posts its columns with the name and password;
    the jinja2 template's posts none: only what carried the arguments (and the secret) is the sign-in's."""
    recorded = [{"method": "POST", "url": "http://x.test/", "post_data":
                 "__login_name=alice&__login_password=<redacted>&@action=Login&@csrf=t0&@columns=id,title"}]
    [kept] = _sign_in_params(recorded, {"__login_name": "alice", "__login_password": "<redacted>"})
    assert request_params(kept["post_data"]) == {"__login_name": ["alice"], "__login_password": ["<redacted>"]}
    assert kept["method"] == "POST" and kept["url"] == "http://x.test/"


async def test_heal_sign_in_needs_the_secret(tmp_path, browser_pool) -> None:
    """``--sign-in`` without the secret the sign-in needs is a usage error naming the input, before any page."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    AccountSite.design, AccountSite.posts, AccountSite.sessions = 1, [], set()
    with serve(AccountSite) as url:
        await run(cache_dir, url, browser_pool, 'await sign_in(user="alice", password="pass-1")\nresult = 1')
        SuspectStore(cache_dir).add("read_balance", {"tool": "read_balance", "phase": "pre_check", "url": url + "/"})
        with pytest.raises(ConfigError, match="password"):
            await heal_cache(cache_dir, url, pool=browser_pool, sign_in={})
        assert len(AccountSite.posts) == 1


async def test_the_helpers_selectors_are_never_broken_names(page, food_cache) -> None:
    """Every built tool starts with the builder's helpers, whose selectors (error markup, ``[hidden]``, a code
    editor) most pages lack: only the tool's own names that match nothing are broken."""
    from toolcache.heal import _Healer

    tool = food_cache.tool("get_store_details")
    await page.set_content("<body><h1>Taqueria El Sol</h1></body>")
    broken = await _Healer(None, "http://127.0.0.1:1")._missing(page, [tool.pre_check, tool.execute])  # type: ignore[arg-type]
    assert broken and all("testid" in b for b in broken), broken  # its own data-testid names, nothing of the helpers'


async def test_a_locator_by_name_is_healed_by_its_css_part(page) -> None:
    """The builder's ``CSS >> text=Name`` locator (a button without an id) is no CSS: it counts by the elements its
    CSS matches that have that name, so a renamed class breaks it; its candidates keep the name."""
    from agentjit.runtime.healing import missing_selectors
    from toolcache.heal import _HANDLES_JS, _candidates

    await page.set_content('<form><span class="rd-wrap"><button class="btn-new">Submit</button></span>'
                           '<button class="btn-new">Cancel</button></form>')  # fmt: skip
    source = '__q("button.btn-old >> text=Submit"); __q("button.btn-new >> text=Submit"); __q("button.btn-new >> text=Delete")'
    assert await missing_selectors(page, source) == ["button.btn-old >> text=Submit", "button.btn-new >> text=Delete"]
    made = _candidates("button.btn-old >> text=Submit", await page.evaluate(_HANDLES_JS))
    assert made[:2] == ["button >> text=Submit", "button.btn-new >> text=Submit"]  # the name dropped, then changed
    assert all(c.endswith(" >> text=Submit") for c in made)


async def test_a_write_held_to_another_good_call_is_judged_by_its_request_not_the_unsent_state(page) -> None:
    """A healed WRITE held to its other good call (a priority set) sends that call's request, which heal answers
    from the record without sending it: the page after the answer shows the site as the unsent write left it
    (the priority not set), so a post_check that failed on values alone passes on the request. A post_check that
    reads a name the page lost, a failure before the post_check, or a call that sent nothing, still fail."""
    from toolcache.heal import _Healer

    write = ToolManifest(
        name="set_priority", description="Set the priority.", type=ToolType.SET_FIELDS, effect=Effect.WRITE,
        input_schema={"type": "object", "properties": {"priority": {"type": "string"}}},
        execute="return {success: true};",
        post_check="const s = document.querySelector('select#priority'); "
                   "return s && s.value === args.priority ? true : [false, 'priority shows ' + (s && s.value)];",
    )  # fmt: skip
    healer = _Healer(None, "http://127.0.0.1:1")  # type: ignore[arg-type]
    problem = "post_check: priority shows feature, not critical"
    await page.set_content('<form><select id="priority"><option>feature</option><option>critical</option></select></form>')
    healer._answered = 1
    assert await healer._state_unseen(page, write, problem)
    assert not await healer._state_unseen(page, write, "pre_check: no form")
    assert not await healer._state_unseen(page, write.model_copy(update={"effect": Effect.READ}), problem)
    healer._answered = 0  # nothing answered from the record: the post_check saw the site after no request at all
    assert not await healer._state_unseen(page, write, problem)
    healer._answered = 1
    await page.set_content('<form><select id="rd-priority"><option>feature</option></select></form>')
    assert not await healer._state_unseen(page, write, problem)  # the name is gone: a name to heal


async def test_a_row_whose_script_drew_its_menu_into_it_is_still_shown(page) -> None:
    """The probe tells a renamed list (heal it) from a page in another state (nothing to heal) by whether the page
    still shows what the lost names matched. A row whose menu the site's scripts drew into it since the good page was
    saved shows every word it showed and a few more, and one whose relative time reads otherwise now shows all its
    words but that one: still shown. A list emptied since, or only a wrapper of the whole page holding those words
    among many others, is not."""
    from toolcache.heal import _LIKE_JS

    old = ("<table class='listing full-width'><tr><th>Title</th><th>Status</th></tr>"
           "<tr><td>Wool History</td><td>3 hours ago</td><td>draft</td></tr>"
           "<tr><td>Wool Notes</td><td>3 hours ago</td><td>live</td></tr></table>")  # fmt: skip
    sels = ["table.listing.full-width tr:has(> td)"]
    menu = "<td><ul><li>Edit</li><li>View</li><li>Add child page</li><li>Move</li><li>Delete</li></ul></td>"
    await page.set_content(f"<table class='listing rd-1'><tr><td>Wool History</td>{menu}<td>4 hours ago</td>"
                           f"<td>draft</td></tr></table>")  # fmt: skip
    assert await page.evaluate(_LIKE_JS, [old, sels]) == [True]
    # the time it was updated, told relative to now, reads otherwise an hour later: still that row
    await page.set_content("<table class='listing rd-1'><tr><td>Wool History</td><td>1 minute ago</td><td>draft</td></tr></table>")
    assert await page.evaluate(_LIKE_JS, [old, sels]) == [True]
    await page.set_content("<table class='listing rd-1'><tr><td>No pages yet</td></tr></table>")
    assert await page.evaluate(_LIKE_JS, [old, sels]) == [False]
    filler = " ".join(f"word{i}" for i in range(80))
    await page.set_content(f"<table><tr><td>Wool History {filler} hours ago draft</td></tr></table>")
    assert await page.evaluate(_LIKE_JS, [old, sels]) == [False]  # the words, among far more: not that row


class EditSite(PageHandler):
    """A page's edit form (``#intro``, ``#save``; ``#rd-intro``, ``#rd-save`` in design 2) whose save posts the form
    and sends the browser back to the form, showing what the site keeps. Every post is counted."""

    design = 1
    intro = "Old"
    posts: list[str] = []

    def do_GET(self) -> None:
        p = "" if self.design == 1 else "rd-"
        self.send_html(f'<body><form method="post" action="/page"><input id="{p}intro" name="intro" '
                       f'value="{escape(self.intro)}"><button id="{p}save">Save</button></form></body>')  # fmt: skip

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).posts.append(body)
        type(self).intro = parse_qs(body)["intro"][0]
        self.send_response(303)
        self.send_header("Location", "/page")
        self.send_header("Content-Length", "0")
        self.end_headers()


EDIT = ToolManifest(
    name="edit_intro", description="Save the page's intro.", type=ToolType.SET_FIELDS, effect=Effect.WRITE,
    navigates=True,
    input_schema={"type": "object", "required": ["intro"], "properties": {"intro": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"success": {"type": "boolean"}}},
    pre_check="return document.querySelector('#save') ? true : [false, 'no save button'];",
    execute="const f = document.querySelector('#intro');\nif (!f) throw new Error('no intro field');\n"
            "f.value = inputs.intro;\nconst b = document.querySelector('#save');\n"
            "setTimeout(() => b.click(), 0);\nreturn {success: true};",
    post_check="const el = document.querySelector('#intro');\n"
               "return !el || el.value === inputs.intro ? true : [false, 'intro shows ' + JSON.stringify(el.value)];",
)  # fmt: skip


async def test_a_write_whose_page_shows_the_state_before_it_is_healed_by_its_request(tmp_path, browser_pool) -> None:
    """A WRITE that lands back on its own form, whose post_check reads the field it filled: heal answers its
    request from the record, unsent, so the form it lands on shows the value the site still keeps, never the
    call's. Its renamed names found and its request the recorded one, it is healed (Wagtail's page editor behind a
    redesign); the site gets no request from heal, and the healed tool's one write when it runs."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="pages", start_path="/page"), [EDIT]).save(cache_dir)
    plan = 'r = await edit_intro(intro="New words")\nresult = r.success'
    EditSite.design, EditSite.intro, EditSite.posts = 1, "Old", []
    with serve(EditSite) as url:
        assert (await run(cache_dir, url, browser_pool, plan)).value is True
        assert EditSite.intro == "New words" and len(EditSite.posts) == 1
        EditSite.design, EditSite.intro = 2, "Old"
        with pytest.raises(ToolCallFailed) as info:
            await run(cache_dir, url, browser_pool, plan)
        assert info.value.suspect.write_sent is False and len(EditSite.posts) == 1  # type: ignore[attr-defined]
        report = await heal_cache(cache_dir, url, pool=browser_pool)
        assert report.healed == ["edit_intro"], report.failed
        assert report.changes["edit_intro"] == {"#intro": "#rd-intro", "#save": "#rd-save"}
        assert len(EditSite.posts) == 1 and EditSite.intro == "Old"  # verified by its request, never sent
        assert (await run(cache_dir, url, browser_pool, plan)).value is True
        assert EditSite.intro == "New words" and len(EditSite.posts) == 2
