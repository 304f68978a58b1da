"""The elements of an HTML page as the standard library's parser reads them: each start tag with its
attributes, and the text inside each element that has an id (for checking what a page shows)."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Elements(HTMLParser):
    def __init__(self, page: str):
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self._open: list[tuple[str, list[str]]] = []
        self.text_of: dict[str, str] = {}
        """Element id -> the text inside it."""
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        values = {k: v or "" for k, v in attrs}
        self.elements.append((tag, values))
        if tag not in VOID:
            self._open.append((values.get("id", ""), []))

    def handle_endtag(self, tag):
        if tag in VOID or not self._open:
            return
        element_id, chunks = self._open.pop()
        text = "".join(chunks)
        if element_id:
            self.text_of[element_id] = text
        if self._open:
            self._open[-1][1].append(text)

    def handle_data(self, data):
        if self._open:
            self._open[-1][1].append(data)

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        """Elements of ``tag`` (any tag when None) whose attributes include ``attrs`` (``data_x`` is ``data-x``;
        ``class_`` matches one of the classes)."""
        want = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        found = []
        for name, values in self.elements:
            if tag is not None and name != tag:
                continue
            if all((v in values.get(k, "").split()) if k == "class" else values.get(k) == v for k, v in want.items()):
                found.append(values)
        return found

    def links(self) -> list[str]:
        return [v[attr] for _, v in self.elements for attr in ("href", "src") if attr in v]
