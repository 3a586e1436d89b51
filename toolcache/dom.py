"""A small DOM tree over the standard library's ``html.parser``, for reading snapshots.

The builder only needs structure (tags, attributes, parents, siblings, text),
never layout, so a light tree is enough and keeps ``lxml`` out of the
dependencies. Script and style contents are dropped; ``hidden`` is inherited.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from .literal import css_attr, css_ident

__all__ = ["Node", "parse_html", "camel", "snake", "signature"]

_VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
}
_SKIP_TEXT = {"script", "style", "template", "noscript"}
_WS = re.compile(r"\s+")


@dataclass(eq=False)
class Node:
    """One element: tag, attributes, children, and its own text chunks."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    """Text directly inside this element (not its children's)."""
    chunks: list[str | Node] = field(default_factory=list)
    """Text and children in document order, for ``text``."""

    def iter(self) -> Iterator[Node]:
        """This node and all its descendants, in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    @property
    def testid(self) -> str | None:
        return self.attrs.get("data-testid")

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(self.attrs.get("class", "").split())

    @property
    def text(self) -> str:
        """Whitespace-normalized text content (script and style excluded)."""
        out: list[str] = []
        self._collect(out)
        return _WS.sub(" ", "".join(out)).strip()

    def _collect(self, out: list[str]) -> None:
        if self.tag in _SKIP_TEXT:
            return
        for chunk in self.chunks:
            if isinstance(chunk, str):
                out.append(chunk)
            else:
                chunk._collect(out)
                if chunk.tag in ("br", "p", "li", "div", "td", "th", "tr", "h1", "h2", "h3", "h4"):
                    out.append(" ")

    @property
    def hidden(self) -> bool:
        """True when this element or an ancestor carries ``hidden``."""
        node: Node | None = self
        while node is not None:
            if "hidden" in node.attrs:
                return True
            node = node.parent
        return False

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def data(self) -> dict[str, str]:
        """``data-*`` attributes other than ``data-testid``, by their attribute name."""
        return {k: v for k, v in self.attrs.items() if k.startswith("data-") and k != "data-testid"}

    def find(self, pred: object) -> Node | None:
        for node in self.iter():
            if callable(pred) and pred(node):
                return node
        return None

    def find_all(self, pred: object) -> list[Node]:
        return [node for node in self.iter() if callable(pred) and pred(node)]

    @property
    def signature(self) -> str:
        """What repeated siblings share: the test id, else the tag and its classes (a CSS selector)."""
        return signature(self.tag, self.testid, self.classes)

    @property
    def css_tag(self) -> str:
        """The tag name as a CSS type selector (an HTML parser takes odd characters in tag names)."""
        return css_ident(self.tag)

    def __repr__(self) -> str:
        return f"<{self.tag} {self.signature}>"


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.cur)
        self.cur.children.append(node)
        self.cur.chunks.append(node)
        if tag not in _VOID:
            self.cur = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, parent=self.cur)
        self.cur.children.append(node)
        self.cur.chunks.append(node)

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.cur = node.parent

    def handle_data(self, data: str) -> None:
        self.cur.texts.append(data)
        self.cur.chunks.append(data)


def parse_html(html: str) -> Node:
    """Parse ``html`` into a :class:`Node` tree; never raises on sloppy markup."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def camel(name: str) -> str:
    """``store-card`` / ``data-item-id`` / ``item_name`` -> ``storeCard`` / ``itemId`` / ``itemName``."""
    if name.startswith("data-"):
        name = name[5:]
    parts = [p.lower() if p.isupper() else p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    if not parts:
        return "element"
    head = parts[0][0].lower() + parts[0][1:]
    out = head + "".join(p[0].upper() + p[1:] for p in parts[1:])
    return out if out[0].isalpha() else "e" + out


def snake(name: str) -> str:
    """``storeCard`` / ``store-card`` -> ``store_card``."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", name)
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return name.strip("_").lower() or "x"


def signature(tag: str | None, testid: str | None, classes: Sequence[str]) -> str:
    """The CSS selector of an element's kind: ``[data-testid="x"]``, else ``tag.class1.class2``,
    every part escaped (:mod:`toolcache.literal`); the recorder's target chains are matched with it too."""
    if testid:
        return css_attr("data-testid", testid)
    return css_ident(tag or "") + "".join("." + css_ident(c) for c in classes)
