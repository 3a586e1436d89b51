"""What repeats on a page: tables and record lists, plain link lists, link groups, label/value pairs; and what is chrome."""


from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

from ..dom import Node, camel
from ..literal import css_ident
from ..pages import page_name
from .elements import _is_control, _name_prop, _readable_class, _selector
from .schema import Element, Prop, _type_of

_CHROME_TAGS = {"nav", "header", "footer", "aside"}


_GENERIC_CLASSES = {"list", "table", "data", "grid", "form", "striped", "condensed", "bordered", "hover", "responsive", "listing"}


_LAYOUT_WORDS = {"full", "nice", "padding", "margin", "wrapper", "wrap", "container", "inner", "outer", "content", "layout",
                 "clearfix", "row", "col", "dialog", "body", "box", "block", "section", "panel", "main", "flex", "grid",
                 "listing", "dropdown", "popup", "popover", "tooltip", "overlay", "modal", "hidden", "visible", "auto",
                 "width", "height", "fluid", "responsive"}


_UTILITY_CLASS = re.compile(r"[a-z]{1,3}-(\d+|full|auto|screen|px|none)", re.I)


def is_layout_class(c: str) -> bool:
    """A class that says how a box is laid out (``w-full``, ``nice-padding``, ``w-dialog``, ``p-4``),
    not what it holds: no name for a list."""
    if _UTILITY_CLASS.fullmatch(c):
        return True
    words = [w for w in re.split(r"[-_]+", c.lower()) if w]
    return bool(words) and all(w in _LAYOUT_WORDS or len(w) <= 1 for w in words)


UNRENDERED = "data-aj-unrendered"
"""The mark the recorder puts in a snapshot on an element the browser did not render (no box, or a
clipping box of zero size: ``toolcache/js/snapshot.js``), whatever hid it (often a stylesheet)."""


def _concealed(n: Node) -> bool:
    """Shown to nobody as the page arrives: ``hidden``, ``aria-hidden=true``, an inline ``display:
    none`` / ``visibility: hidden``, or not rendered when the recorder took the snapshot
    (:data:`UNRENDERED`), on it or an ancestor (a date picker's calendar)."""
    for a in (n, *n.ancestors()):
        if "hidden" in a.attrs or a.attrs.get("aria-hidden") == "true" or UNRENDERED in a.attrs:
            return True
        if re.search(r"(display\s*:\s*none|visibility\s*:\s*hidden)", a.attrs.get("style", ""), re.I):
            return True
    return False


def _heading_before(n: Node, depth: int = 4) -> str | None:
    """What names the box ``n``: within its ``depth`` nearest ancestors, the ``aria-label`` of one,
    or the last heading (``h1``-``h4``, a ``caption``, a ``legend``; or one inside a ``header``)
    among the children of one before the child holding ``n`` (a sibling section's own heading is
    not one); None when none is short."""
    child = n
    for i, wrap in enumerate(n.ancestors()):
        if i >= depth or wrap.tag in ("body", "html"):
            break
        label = " ".join(wrap.attrs.get("aria-label", "").split())
        if label and len(label) <= 40:
            return label
        last: str | None = None
        for c in wrap.children:
            if c is child:
                break
            head = c if c.tag in _HEADS else (c.find(lambda x: x.tag in _HEADS) if c.tag == "header" else None)
            words = " ".join(head.text.split()) if head is not None else ""
            if words and len(words) <= 40:
                last = words
        if last:
            return last
        child = wrap
    return None


_HEADS = ("h1", "h2", "h3", "h4", "caption", "legend")


_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary"}


def _is_chrome(n: Node) -> bool:
    """Inside site chrome (a ``nav``/``header``/``footer``/``aside`` landmark): the same on every page."""
    return any(a.tag in _CHROME_TAGS or a.attrs.get("role") in _CHROME_ROLES for a in (n, *n.ancestors()))


def _is_decoration(n: Node) -> bool:
    """Hidden from assistive technology or stripped of its role (``aria-hidden``, a ``div`` with
    ``role=presentation``: a code editor's line and measuring boxes); a layout table keeps its rows."""
    return n.attrs.get("aria-hidden") == "true" or (n.tag != "table" and n.attrs.get("role") in ("presentation", "none"))


def _is_skip_link(n: Node) -> bool:
    return n.tag == "a" and n.attrs.get("href", "").startswith("#") and "skip" in n.text.lower()


def _cells(tr: Node) -> list[Node]:
    return [c for c in tr.children if c.tag in ("td", "th")]


def _rows(table: Node) -> list[Node]:
    """The table's own rows (not a nested table's)."""
    out: list[Node] = []
    for c in table.children:
        if c.tag == "tr":
            out.append(c)
        elif c.tag in ("thead", "tbody", "tfoot"):
            out.extend(r for r in c.children if r.tag == "tr")
    return out


def _column_header(n: Node) -> str | None:
    """For a form control with an id in a table cell (an inline formset's ``#id_books-0-price``,
    labeled only by its column): the column's header text; None for anything else (a row's
    checkbox shared by every row has no id of its own)."""
    if not (_is_control(n) and n.attrs.get("id")):
        return None
    cell = next((a for a in n.ancestors() if a.tag in ("td", "th")), None)
    row = cell.parent if cell is not None else None
    table = next((a for a in row.ancestors() if a.tag == "table"), None) if row is not None and row.tag == "tr" else None
    if cell is None or row is None or table is None:
        return None
    head = next((r for r in _rows(table) if r is not row and _cells(r) and all(c.tag == "th" for c in _cells(r))), None)
    i = _cells(row).index(cell)
    if head is None or i >= len(_cells(head)):
        return None
    return _label(_cells(head)[i].text) or None


def _is_checkbox_cell(cell: Node) -> bool:
    """A cell holding only a checkbox (a row's select box, a header's select-all): no column of data."""
    boxes = cell.find_all(lambda x: x.tag == "input" and x.attrs.get("type") == "checkbox")
    return bool(boxes) and not cell.text.strip() and cell.find(lambda x: x.tag in ("a", "select", "textarea", "button")) is None \
        and all(x.attrs.get("type") == "checkbox" for x in cell.find_all(lambda x: x.tag == "input"))


def _is_data_row(tr: Node, in_thead: bool) -> bool:
    """A row of data: all ``td`` cells, or ``td`` cells beside a row header (``th scope=row``, or a
    ``th`` among ``td`` under a ``thead`` of column headers: the row's title, often its link). A
    ``th`` + ``td`` row of a table without column headers is a label and its value, not a row."""
    cells = [c for c in _cells(tr) if not _is_checkbox_cell(c)]
    if not cells or not any(c.tag == "td" for c in cells):
        return False
    ths = [c for c in cells if c.tag == "th"]
    return not ths or in_thead or all(c.attrs.get("scope") == "row" for c in ths)


def _is_head_cell(c: Node) -> bool:
    """A cell that says it heads its column: a ``th``, or any cell with ``role=columnheader``."""
    return c.tag == "th" or c.attrs.get("role") == "columnheader"


_DATA_TEXT = re.compile(r"\d")
"""A cell text with a digit is a value (a number, a date, an item's id), never a column's name."""


def _is_label_cell(c: Node) -> bool:
    """A ``td`` that reads as a column's name: short text (at most 40 characters, 5 words) with no digit,
    no link but one that stays on the page (``?sort=x``, ``#x``) and no control, image or nested table."""
    text = " ".join(c.text.split())
    if not text or len(text) > 40 or len(text.split()) > 5 or _DATA_TEXT.search(text):
        return False
    if c.find(lambda x: x.tag in ("input", "select", "textarea", "button", "img", "table")) is not None:
        return False
    return all(a.attrs.get("href", "").startswith(("?", "#")) for a in c.iter() if a.tag == "a" and "href" in a.attrs)


def _is_data_like(tr: Node) -> bool:
    """A row showing values: a cell with a digit or a link to another page."""
    return any(_DATA_TEXT.search(c.text) or c.find(lambda x: x.tag == "a" and x.attrs.get("href", "")
                                                   and not x.attrs["href"].startswith(("?", "#"))) is not None
               for c in _cells(tr))  # fmt: skip


def _is_label_row(tr: Node, least: int, thead: Node | None, later: list[Node]) -> bool:
    """A header row written in ``td`` cells (Roundup's jinja2 template, a ``thead`` of plain cells): every
    cell a column's name (:func:`_is_label_cell`) but blank ones and a select-all box, ``least`` names at
    least; in the table's ``thead``, or its first row above a row of values (:func:`_is_data_like`)."""
    cells = [c for c in _cells(tr) if not _is_checkbox_cell(c)]
    named = [c for c in cells if c.text.strip()]
    if len(named) < least or not all(_is_label_cell(c) for c in named):
        return False
    if any(c.children for c in cells if not c.text.strip()):
        return False  # a blank cell with an element in it (an icon, a control): no header's
    if thead is not None and tr.parent is thead:
        return True
    # two columns, names all the way down the first: a record's keys ("Title | Owls", "Year | 2001"), not a
    # list under its header (a wider list may have a column of words: a priority, a status)
    if len(_cells(tr)) == 2 and later and all(_is_label_cell(_cells(r)[0]) for r in later if _cells(r)):
        return False
    return any(len(_cells(r)) == len(_cells(tr)) and _is_data_like(r) for r in later)


def _is_header_row(tr: Node, least: int, thead: Node | None) -> bool:
    """A row of column headers: ``th`` cells (or cells of ``role=columnheader``; at least ``least``),
    beside which only empty ``td`` cells may stand (an actions column's head left blank, as Wagtail's
    page listing has); in the table's ``thead``, one ``th`` is enough beside blank cells that hold no
    control."""
    cells = _cells(tr)
    heads = [c for c in cells if _is_head_cell(c)]
    if len(heads) >= least and all(_is_head_cell(c) or not c.text.strip() and not c.children for c in cells):
        return True
    return (thead is not None and tr.parent is thead and len(cells) >= least and bool(heads)
            and all(_is_head_cell(c) or not c.text.strip()
                    and not c.find(lambda x: x.tag in ("a", "input", "button", "select")) for c in cells))


def _header_row(table: Node) -> Node | None:
    """A table's header row: the first of its own rows that is one (:func:`_is_header_row`), two
    ``th`` at least, one in a table with its own ``thead``; else a row of ``td`` cells that name the
    columns (:func:`_is_label_row`): in the ``thead``, or the table's first row. ``__headRow`` in
    prelude.js is the same rule for the page a tool reads (``tests/toolcache/test_header_rows.py``
    holds them to it)."""
    thead = next((c for c in table.children if c.tag == "thead"), None)
    least = 1 if thead is not None else 2
    rows = _rows(table)
    head = next((r for r in rows if _is_header_row(r, least, thead)), None)
    if head is not None or not rows:
        return head
    first = next((r for r in rows if thead is not None and r.parent is thead), rows[0])
    return first if _is_label_row(first, least, thead, rows[rows.index(first) + 1:]) else None


def _is_menu(data: list[Node]) -> bool:
    """Rows headed by links to pages of different types (an admin's index: "Books", "Loans"): a
    menu set out as a table, whose links are the site's navigation, not items of one list."""
    heads = [c for r in data for c in _cells(r) if c.tag == "th"]
    hrefs = [a.attrs["href"] for c in heads for a in c.iter() if a.tag == "a" and a.attrs.get("href")]
    kinds = {page_name(h) for h in hrefs}
    return len(heads) >= 2 and len(kinds) >= 2 and not any("{" in k for k in kinds)


def _label(text: str) -> str:
    return text.strip().rstrip(":").strip()


_SORT_MARK = re.compile(r"[\s\u2190-\u21ff\u25b2-\u25c5\u2b06\u2b07]+$")
"""Arrows and triangles at the end of a column header: the sort order it shows."""


def _header_link(cell: Node) -> Node | None:
    """The link that names a column header (its sort link), beside any text-less sort widgets."""
    return next((a for a in cell.iter() if a.tag == "a" and "href" in a.attrs and a.text), None)


def _header_label(cell: Node) -> str:
    """A column header's name: its link's text when it has one (a sorted column adds a priority
    number and remove/toggle links beside it), else its text, without a sort arrow."""
    link = _header_link(cell)
    return _label(_SORT_MARK.sub("", (link if link is not None else cell).text))


_ASCENDING = re.compile(r"(^|[-_\s])(asc|ascending|sorted-asc)($|[-_\s])|[\u25b2\u2191\u2b06]", re.I)


_DESCENDING = re.compile(r"(^|[-_\s])(desc|descending|sorted-desc)($|[-_\s])|[\u25bc\u2193\u2b07]", re.I)


def _sort_state(cell: Node) -> str | None:
    """Which way a header cell says its column is sorted (``aria-sort``, an asc/desc class on it or
    inside it, an arrow in its text): ``ascending``, ``descending`` or None (``sortState`` in prelude.js)."""
    aria = cell.attrs.get("aria-sort", "")
    if aria in ("ascending", "descending"):
        return aria
    marks = " ".join([" ".join(c.attrs.get("class", "") for c in cell.iter()), cell.text])
    if _ASCENDING.search(marks):
        return "ascending"
    if _DESCENDING.search(marks):
        return "descending"
    return None


_GROUP_HEADS = {"h1", "h2", "h3", "h4", "h5", "h6", "summary", "legend", "caption", "dt", "label"}


PAGER_WORDS = re.compile(r"^(next|previous|prev|older|newer|more|load more|show more)\b|^[\u2039\u203a\u00ab\u00bb<>]+$", re.I)
"""The text of a link that moves a list along (``Next page``, ``Older``, ``\u00bb``): a pager, never a
filter link nor one of a group's choices (``__PAGER`` in nav.js)."""


_COUNT_HEAD = re.compile(r"^\d[\d,.]*(\s|$)")
"""A heading that starts with a number ("320 rows", "12 results") counts the list; it names no group."""


def _lead_strong(n: Node) -> Node | None:
    """A paragraph or box led by a bold text (``<p><strong>genre <span>7</span></strong> <a>x</a></p>``,
    a facet's title): the bold element, when it holds no link."""
    if n.tag not in ("p", "div", "span", "header"):
        return None
    first = next(iter(n.children), None)
    if first is None or first.tag not in ("strong", "b") or first.find(lambda x: x.tag == "a") or any(t.strip() for t in n.texts):
        return None
    return first


def _is_group_head(n: Node) -> bool:
    """A heading over a group of links: a heading tag, a summary or legend, ``role=heading``, a
    short text ending in a colon ("Genre:"), or a box led by a bold title (:func:`_lead_strong`)."""
    return n.tag in _GROUP_HEADS or n.attrs.get("role") == "heading" or _lead_strong(n) is not None or (
        n.tag not in ("a", "ul", "ol", "li") and 0 < len(n.text) <= 40 and n.text.endswith(":") and not n.find(lambda x: x.tag == "a"))


def _head_name(head: Node) -> str:
    """What a group head calls its group: its text (a lead bold title's alone, less a trailing
    count), empty for a count ("320 rows")."""
    lead = _lead_strong(head)
    text = re.sub(r"(\s+\d[\d,.]*)+$", "", lead.text) if lead is not None else head.text
    return "" if _COUNT_HEAD.match(text) else text


def _groups_with(a: Node, x: Node, url: str | None) -> bool:
    """``x`` is another same-page link that could share a group with ``a`` (no pager link does)."""
    return x.tag == "a" and x is not a and is_same_page_href(x.attrs.get("href", ""), url) and not PAGER_WORDS.match(x.text)


def is_same_page_href(href: str, url: str | None) -> bool:
    """``href`` only changes the query of ``url``'s page (``?genre=x``, ``/books?genre=x`` on
    ``/books``), and the page stays of its type (:func:`toolcache.pages.page_name`)."""
    if not href or href.startswith(("#", "javascript:")):
        return False
    full = urljoin(url or "", href)
    target = urlparse(full)
    here = urlparse(url or "")
    return (bool(target.query) or href.startswith("?")) and target.path == here.path and (not target.netloc or target.netloc == here.netloc) \
        and page_name(full) == page_name(url)  # a query that names another page (``?@template=search``) leaves it


def link_group(a: Node, url: str | None) -> str | None:
    """The name of the group a same-page link sits in: the nearest ancestor (up to five levels)
    holding another same-page link, named by its heading (a heading before it or first in it,
    outside the link's own branch; a count is no name), else its ``aria-label``, ``id`` or first readable
    class. A pager link (:data:`PAGER_WORDS`) is in no group and counts for none.
    ``__linkGroup`` in prelude.js is the same rule for the page the tool runs on."""
    if PAGER_WORDS.match(a.text):
        return None
    branch: Node = a
    for anc in list(a.ancestors())[:5]:
        if anc.tag in ("body", "form", "table", "tr"):
            return None
        if any(_groups_with(a, x, url) for x in anc.iter()):
            head = None
            for sib in anc.children[:anc.children.index(branch)]:
                if _is_group_head(sib):
                    head = sib
            if head is None and anc.parent is not None:
                sibs = anc.parent.children
                head = next((x for x in reversed(sibs[:sibs.index(anc)]) if _is_group_head(x)), None)
            name = (_head_name(head) if head is not None else "") or anc.attrs.get("aria-label") or anc.attrs.get("id") \
                or _readable_class(anc) or ""
            return _label(name) or None
        branch = anc
    return None


def _table_list(table: Node, page: str) -> Element | None:
    """A data table (a header row of ``th``, two or more rows of ``td``) as a list whose fields are the header cells."""
    rows = _rows(table)
    # a table with its own <thead> is data even with one column or one row (a query's result)
    thead = next((c for c in table.children if c.tag == "thead"), None)
    least = 1 if thead is not None else 2
    head = _header_row(table)
    if head is None:
        return None
    in_thead = thead is not None and head.parent is thead
    data = [r for r in rows if r is not head and _is_data_row(r, in_thead)]
    data = [r for r in data if len(_cells(r)) == len(_cells(head))]
    # links in a header row make it a record's heading (a message list), unless the row is the
    # table's own <thead>: column headers that sort the table when clicked; a select-all box
    # heads a column of row checkboxes, not a form
    if _is_menu(data):
        return None
    if len(data) < least or any(c.find(lambda x: x.tag in ("form", "input") or (x.tag == "a" and not in_thead))
                                for c in _cells(head) if not _is_checkbox_cell(c)):
        return None
    # a sorted column's header carries an arrow ("id ▼") or a priority: the column is still "id"
    headers = [_header_label(c) for c in _cells(head)]
    props: dict[str, Prop] = {}
    linked: list[tuple[int, str]] = []
    col_of: dict[str, int] = {}
    for i, h in enumerate(headers):
        if not h:
            continue
        name = camel(h)
        vals = [_cells(r)[i].text for r in data if len(_cells(r)) > i]
        props[name] = Prop(name, "cell", h, _type_of(vals))  # by header text: columns move between views
        col_of.setdefault(name, i)
        if any(len(_cells(r)) > i and _cells(r)[i].find(lambda x: x.tag == "a" and "href" in x.attrs) for r in data):
            linked.append((i, name))
    if not props:
        return None
    link_col, link_sel = _title_link(data, linked)
    if thead is not None:
        # columns that change with what was asked (a query shell): every cell by its header, live
        props["cells"] = Prop("cells", "row", "", "object")
    href = next((a.attrs["href"] for r in data for a in r.iter() if a.tag == "a" and a.attrs.get("href")), None)
    caption = next((" ".join(c.text.split()) for c in table.children if c.tag == "caption" and c.text.strip()), "")
    own = caption or " ".join(table.attrs.get("aria-label", "").split()) or table.attrs.get("id") or next(
        (c for c in table.classes if c.lower() not in _GENERIC_CLASSES and not c.startswith("table-") and not is_layout_class(c)), "")
    if not own and any(c.lower() in _GENERIC_CLASSES or is_layout_class(c) for c in table.classes):
        own = _heading_before(table) or ""  # ``table.listing``: the heading it sits under names it ("Pages")
    noun = _one(own) if own else (_linked_noun(href) if href else "")
    if not noun or noun == "home":
        noun = "row"
    tsig = ("#" + css_ident(table.attrs["id"])) if table.attrs.get("id") else table.signature
    # a header row with blank td cells is no row of the list: in a thead, leave the thead out; outside
    # one, every data row's th is a row header (``scope=row``, :func:`_is_data_row`), the header's are not
    rows_sel = f"{tsig} tr:has(> td)"
    if any(c.tag == "td" for c in _cells(head)):
        rows_sel += ":not(thead > tr)" if in_thead else ":not(:has(> th:not([scope=row])))"
    el = Element(
        name=camel(noun), page=page, kind="card", selector=rows_sel, repeated=True, props=props,
        name_prop=link_col or _name_prop(props), visible_count=len(data), clickable=False,
        member_sig="tr", container_sig=tsig, link_selector=link_sel,
        sort_selector=f"{tsig} thead th a[href]" if in_thead and head.find(lambda x: x.tag == "a" and "href" in x.attrs) else None,
    )
    if el.sort_selector:
        el.sort_columns = [h for c, h in zip(_cells(head), headers, strict=True) if h and _header_link(c) is not None]
        el.sort_marks = any(_sort_state(c) for c in _cells(head))
    if el.name_prop:
        col = col_of.get(el.name_prop, 0)
        # a row's name is its title link's text where the column links it, not the cell's whole text
        # (a title cell that holds the row's menu too: "Chess Notes Edit View Delete ...")
        el.samples = [_cell_name(_cells(r)[col], el.name_prop == link_col) for r in data[:50] if len(_cells(r)) > col]
    return el


def _cell_name(cell: Node, linked: bool) -> str:
    """What names a row in ``cell``: the text of its first link with text when the column is the
    rows' linked title, else the cell's text."""
    link = next((a for a in cell.iter() if a.tag == "a" and a.attrs.get("href") and a.text.strip()), None) if linked else None
    return link.text if link is not None else cell.text


_ID_TEXT = re.compile(r"#?[A-Za-z]{0,4}[-#]?[0-9]+")
"""A cell text that is an item's number (``#3``, ``r12``, ``PROJ-7``), not its title."""


def _title_link(data: list[Node], linked: list[tuple[int, str]]) -> tuple[str | None, str | None]:
    """The column whose link names a row (its title) and the selector of that link in a row.

    The first linked column, unless its links read as numbers (``#3``) and a later linked column's
    do not: a ticket list links the row's own page from its number and from its summary, and a
    person names (and clicks) the summary. The first column's link is ``a[href]``; a later one is
    addressed by its cell's position (``:scope > :nth-child(k) a[href]``), the same in every row.
    """
    if not linked:
        return None, None

    def texts(i: int) -> list[str]:
        return [_cells(r)[i].text.strip() for r in data if len(_cells(r)) > i and _cells(r)[i].text.strip()]

    first_i, first = linked[0]
    if not all(_ID_TEXT.fullmatch(t) for t in texts(first_i)):
        return first, "a[href]"
    for i, name in linked[1:]:
        vals = texts(i)
        if not vals or all(_ID_TEXT.fullmatch(t) for t in vals):
            continue
        pos = {r.children.index(_cells(r)[i]) for r in data if len(_cells(r)) > i}
        if len(pos) == 1:
            return name, f":scope > :nth-child({pos.pop() + 1}) a[href]"
    return first, "a[href]"


_LABELED = re.compile(r"^([A-Za-z][\w .-]{0,30}):\s*(.*)$")


_ACTION_WORDS = {"edit", "change", "view", "show", "detail", "details", "update", "open"}


def _linked_noun(href: str) -> str:
    """What a row's link opens, as a noun: its page's name (``library_books``), or, for a link to
    an action on the item (``/admin/pages/7/edit/``), the word before the action (``pages``)."""
    words = [w for w in page_name(href).replace("{id}", "").split("_") if w]
    if len(words) > 1 and words[-1] in _ACTION_WORDS:
        return _one(next((w for w in reversed(words) if w not in _ACTION_WORDS), ""))
    return "_".join(words)


def _one(noun: str) -> str:
    """A class name for the collection as the name of one item: ``messages`` -> ``message``."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3 else noun


def _record_list(table: Node, page: str) -> Element | None:
    """Records of two rows each: a row of ``Label: value`` header cells, then one content cell
    (a message list: ``Author: dave | Date: ...`` over the text)."""
    rows = _rows(table)
    heads = []
    for a, b in zip(rows, rows[1:], strict=False):
        ac, bc = _cells(a), _cells(b)
        if ac and all(c.tag == "th" for c in ac) and len(bc) == 1 and bc[0].tag == "td" \
                and any(_LABELED.match(c.text) for c in ac):
            heads.append(a)
    if not heads:
        return None
    props: dict[str, Prop] = {}
    for c in _cells(heads[0]):
        m = _LABELED.match(c.text)
        if m:
            props[camel(m.group(1))] = Prop(camel(m.group(1)), "labeled", m.group(1))
    props["content"] = Prop("content", "next", "")
    own = table.attrs.get("id") or next((c for c in table.classes if c.lower() not in _GENERIC_CLASSES), "") or "record"
    tsig = ("#" + css_ident(table.attrs["id"])) if table.attrs.get("id") else table.signature
    return Element(
        name=camel(_one(own)), page=page, kind="card", selector=f"{tsig} tr:has(> th):has(+ tr > td)", repeated=True,
        props=props, name_prop="content", visible_count=len(heads), member_sig="tr", container_sig=tsig,
    )


_LIST_ROLES = {"navigation", "menu", "menubar", "tablist", "toolbar"}


def _link_items(ul: Node, url: str | None) -> list[Node] | None:
    """The items of a plain list of links (``<ul><li><a href>Title</a></li>...``, no class on the
    items): each ``li`` holds one link to another page, and nothing to fill; None for any other list
    (a menu, a pager, a row of filter links, a list whose items carry controls or several links)."""
    items = [c for c in ul.children if c.tag == "li"]
    if len(items) < 2 or len(items) != len([c for c in ul.children if c.tag not in ("script", "template")]):
        return None
    if ul.attrs.get("role") in _LIST_ROLES or _is_chrome(ul) or _is_decoration(ul):
        return None
    for li in items:
        if li.testid or li.classes or li.attrs.get("role"):
            return None
        links = li.find_all(lambda x: x.tag == "a" and "href" in x.attrs)
        if len(links) != 1 or li.find(lambda x: x.tag in ("input", "select", "textarea", "button", "ul", "ol")) is not None:
            return None
        href, text = links[0].attrs["href"], links[0].text
        if not text or text.isdigit() or PAGER_WORDS.match(text) or href.startswith(("#", "javascript:")) or is_same_page_href(href, url):
            return None
    return items


def _list_anchor(ul: Node) -> tuple[str, str] | None:
    """``(container, selector)`` of a plain list: the signature that names the list among a
    recorded click's ancestors (the labeler matches it there) and the CSS selector of its ``ul``:
    its own id or classes, else the nearest ancestor with a test id or an id, else the ``main``
    landmark; None when nothing tells this list from the page's other lists."""
    if ul.attrs.get("id"):
        return _selector(ul), _selector(ul)
    if _readable_class(ul):
        return ul.signature, ul.signature
    for a in ul.ancestors():
        if a.testid or a.attrs.get("id"):
            own = _selector(a)
            return own, own + " " + ul.css_tag
        if a.tag == "main":
            return "main", "main " + ul.css_tag
    return None


def _link_list(ul: Node, items: list[Node], page: str) -> Element | None:
    """A plain list of links as a list whose items are named by their link's text (and read whole)."""
    anchor = _list_anchor(ul)
    if anchor is None:
        return None
    container, selector = anchor
    # named after the path the links share (``/guide/alpha``, ``/guide/beta``: guide)
    paths = [[seg for seg in urlparse(urljoin("http://x/", a.attrs["href"])).path.split("/") if seg]
             for li in items for a in li.find_all(lambda x: x.tag == "a" and "href" in x.attrs)]
    shared = [segs[0] for segs in zip(*paths, strict=False) if len(set(segs)) == 1] if len(paths) > 1 else []
    words = [w for w in re.split(r"[^A-Za-z]+", shared[-1]) if w] if shared else []
    noun = _one(words[-1].lower()) if words else "link"
    props = {"name": Prop("name", "text", "a[href]", "string")}
    if any(li.text != li.find(lambda x: x.tag == "a").text for li in items):  # type: ignore[union-attr]
        props["text"] = Prop("text", "self", "", "string")  # the item says more than its title
    return Element(
        name=camel(noun), page=page, kind="card", selector=f"{selector} > li", repeated=True, props=props,
        name_prop="name", visible_count=len(items), clickable=True, member_sig="li",
        container_sig=container, link_selector="a[href]",
        samples=[li.text if "text" not in props else (li.find(lambda x: x.tag == "a") or li).text for li in items[:50]],
    )


def _pairs(scope: Node, skip: set[int]) -> tuple[dict[str, Prop], bool]:
    """Label/value pairs (``th`` + ``td`` cells of form-like tables, ``dt`` + ``dd``), and whether
    every value is a form control (an empty form to fill, not an item to read)."""
    out: dict[str, Prop] = {}
    controls = True
    for n in scope.iter():
        if id(n) in skip or _is_chrome(n):
            continue
        if n.tag == "tr":
            cells = _cells(n)
            for a, b in zip(cells, cells[1:], strict=False):
                if a.tag == "th" and b.tag == "td" and _label(a.text) and not b.find(lambda x: x.tag == "table"):
                    label = _label(a.text)
                    out.setdefault(camel(label), Prop(camel(label), "pair", label))
                    if b.find(lambda x: x.tag in ("input", "select", "textarea")) is None and b.text.strip():
                        controls = False  # a value shown as text: something to read
        elif n.tag == "dt" and _label(n.text):
            label = _label(n.text)
            out.setdefault(camel(label), Prop(camel(label), "pair", label))
            controls = False
    return out, controls
