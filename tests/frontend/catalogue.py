"""Pages under a marked catalogue: every text the catalogue gives is wrapped in ⟦…⟧, so a
text on a page that is left with words once the marked texts and the page's data are taken
out was written into the page, not translated."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Route

OPEN, CLOSE = "⟦", "⟧"

TEXTS_JS = """() => {
  const out = [];
  // card faces, key caps and the commitment's hex are not words
  const skip = (el) => el.closest(".card, kbd, code, script, style, noscript");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.parentElement || skip(node.parentElement)) continue;
    const text = node.textContent.trim();
    if (text) out.push(text);
  }
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (skip(el)) continue;
    for (const name of ["aria-label", "title", "placeholder"]) {
      const value = el.getAttribute(name);
      if (value) out.push(value);
    }
  }
  out.push(document.title);
  return out;
}"""


def marked(route: Route) -> None:
    """Serve a catalogue whose every text is wrapped in ⟦…⟧ (the number format as it is)."""
    response = route.fetch()
    data = response.json()
    wrapped = {k: v if k.startswith("num.") else f"{OPEN}{v}{CLOSE}" for k, v in data.items()}
    route.fulfill(response=response, body=json.dumps(wrapped))


def unmarked(texts: list[str], data: list[str]) -> list[str]:
    """The texts with words left once every catalogue text and every piece of data (names,
    the table's name) is taken out."""
    left = []
    for text in texts:
        rest = text
        for item in sorted(data, key=len, reverse=True):
            rest = rest.replace(item, "")
        before = None
        while before != rest:
            before = rest
            rest = re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", "", rest)
        if re.search(r"[^\W\d_]", rest):
            left.append(text)
    return left
