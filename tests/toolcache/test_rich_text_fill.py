"""Filling a rich-text editor that keeps its text in a model of its own and draws it (Draft.js,
Wagtail's Draftail): the fill must reach the model, whether the editor is empty or holds text.

The editor here is a small one of that kind, in Chromium: it draws its model as Draft.js does (a
block, a leaf, the text in a ``span[data-text]``, an empty block's leaf holding a ``<br>``); text
typed at its caret (a ``textInput`` event) goes into the model; a change of its DOM is read back
from a block that held text, and one in an empty block (its leaf a ``<br>``) or outside a block is thrown away
by drawing the model again; the model is written to the form's hidden field 250 ms after an edit."""

from __future__ import annotations

import html
from typing import Any

import pytest

from .pages import DRAFT_EDITOR_JS

pytestmark = pytest.mark.browser

EDITOR = ("""<body><form method="post"><input type="hidden" name="body" value="%s">
<div class="editor" contenteditable="true" role="textbox" aria-label="Body"></div>
<button type="submit">Save</button></form>
<script>""" + DRAFT_EDITOR_JS + "</script></body>")


@pytest.mark.parametrize("old", ["", "Old text of the page."])
async def test_a_fill_reaches_the_model_of_an_editor_that_draws_its_own_text(page: Any, old: str) -> None:
    from toolcache.codegen import PRELUDE

    await page.set_content(EDITOR % html.escape(old))
    saved = await page.evaluate("async () => {" + PRELUDE + """
        const before = __hiddenNow();
        __setValue(document.querySelector('.editor'), 'Pigeons find their way home.');
        await __editorSaved(before);
        return [document.querySelector('input[name=body]').value, __clean(document.querySelector('.editor').innerText)];
    }""")
    assert saved == ["Pigeons find their way home.", "Pigeons find their way home."]


async def test_an_empty_plain_contenteditable_takes_the_text_too(page: Any) -> None:
    """No handler takes the typed text: it is inserted as before, once."""
    from toolcache.codegen import PRELUDE

    await page.set_content('<body><div class="note" contenteditable="true"></div></body>')
    text = await page.evaluate("() => {" + PRELUDE + """
        const el = document.querySelector('.note');
        __setValue(el, 'A note');
        return el.innerText;
    }""")
    assert text.strip() == "A note"


async def test_a_form_tools_post_check_reads_an_editors_text(page: Any) -> None:
    """After the save the editor page comes back showing the body (Wagtail's): the post_check's
    "the page shows what was typed" reads a contenteditable editor's text, which has no ``value``."""
    from toolcache.codegen import PRELUDE
    from toolcache.codegen.forms import _shows_typed_js
    from toolcache.extract import Element

    editor = Element(name="body", page="edit", kind="input", selector="div.editor")
    title = Element(name="title", page="edit", kind="input", selector="#title")
    await page.set_content('<body><input id="title" value="Owls Guide"><div class="editor" contenteditable="true">'
                           '<div data-block="true"><span><span data-text="true">Pigeons find their way home.</span></span></div></div></body>')
    check = "(inputs) => {" + PRELUDE + _shows_typed_js(editor, "body") + _shows_typed_js(title, "title") + "return true; }"
    assert await page.evaluate(check, {"body": "Pigeons find their way home.", "title": "Owls Guide"}) is True
    assert await page.evaluate(check, {"body": "Other text", "title": "Owls Guide"}) == [False, 'body shows "Pigeons find their way home."']
    assert await page.evaluate(check, {"body": "Pigeons find their way home.", "title": "Bees"}) == [False, 'title shows "Owls Guide"']


# The same editor on a page of tabs: the form's fields spread over tab panels, those not shown
# `hidden` (Wagtail's "Content" / "Promote"). A panel's tab shows it when its script runs (`tabs`);
# a page whose tab script never started (a redesign that renamed what it keys on) shows none.
TABS = """<div role="tablist"><a role="tab" id="tab-label-meta" href="#tab-meta" aria-controls="tab-meta" aria-selected="true">Promote</a>
<a role="tab" id="tab-label-content" href="#tab-content" aria-controls="tab-content" aria-selected="false">Content</a></div>
<section id="tab-meta" role="tabpanel" aria-labelledby="tab-label-meta"><input name="slug"></section>
<section id="tab-content" role="tabpanel" aria-labelledby="tab-label-content" hidden>%s</section>
<script>
if (%s) for (const tab of document.querySelectorAll('[role=tab]')) tab.addEventListener('click', (e) => {
  e.preventDefault();
  for (const t of document.querySelectorAll('[role=tab]')) {
    t.setAttribute('aria-selected', String(t === tab));
    document.getElementById(t.getAttribute('aria-controls')).hidden = t !== tab;
  }
});
</script>"""


@pytest.mark.parametrize("tabs", [True, False], ids=["tab_shows_it", "nothing_shows_it"])
@pytest.mark.parametrize("old", ["", "Old text of the page."])
async def test_a_fill_reaches_an_editor_in_a_hidden_tab_panel(page: Any, old: str, tabs: bool) -> None:
    """An editor the page does not draw takes no focus and no typed text: its script never hears of
    the fill, and the form is sent with its old text. The fill shows it first, as a person opens its
    tab; when no tab shows it, it is shown while the text is typed and hidden again."""
    from toolcache.codegen import PRELUDE

    body = EDITOR % html.escape(old)
    form_start = body.index("<div class=\"editor\"")
    form_end = body.index("<button")
    page_html = body[:form_start] + TABS % (body[form_start:form_end], "true" if tabs else "false") + body[form_end:]
    await page.set_content(page_html)
    saved = await page.evaluate("async () => {" + PRELUDE + """
        const ed = document.querySelector('.editor');
        const before = __hiddenNow();
        __setValue(ed, 'Pigeons find their way home.', true);
        await __editorSaved(before);
        return [document.querySelector('input[name=body]').value, __clean(ed.innerText),
                document.getElementById('tab-content').hidden];
    }""")
    assert saved == ["Pigeons find their way home.", "Pigeons find their way home.", not tabs]


async def test_a_tab_that_would_send_the_form_is_not_clicked_to_show_an_editor(page: Any) -> None:
    """A tab that is a submit button of the editor's form (a ``<button>`` without a type) would send the form
    half filled: the editor is shown while the text is typed instead, and the form is not sent."""
    from toolcache.codegen import PRELUDE

    await page.set_content("""<form onsubmit="window.sent = (window.sent || 0) + 1; return false;">
        <button role="tab" aria-controls="panel">Content</button>
        <section id="panel" role="tabpanel" hidden><div class="note" contenteditable="true">Old</div></section></form>""")
    out = await page.evaluate("() => {" + PRELUDE + """
        const el = document.querySelector('.note');
        __setValue(el, 'A note', true);
        return [__clean(el.textContent), window.sent || 0, document.getElementById('panel').hidden];
    }""")
    assert out == ["A note", 0, True]
