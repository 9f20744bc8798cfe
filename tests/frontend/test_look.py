"""The looks, measured in Chromium: every kind of button is readable when hovered,
focused and disabled (computed colours, WCAG AA 4.5:1 for text, 3:1 for the focus ring),
a tap on a phone leaves no hover style behind, and the email-verified page is styled like the
site with a way back to the lobby."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from tests.frontend.conftest import Mailbox
from tests.frontend.players import Player
from tests.frontend.table_kit import api, register

KINDS = [
    "btn",
    "btn primary",
    "btn ghost",
    "btn danger",
    "btn small",
    "btn small ghost",
    "btn act act-fold",
    "btn act act-call",
    "btn act act-raise",
]

SAMPLES_JS = """(kinds) => {
  const box = document.createElement("div");
  box.id = "samples";
  box.style.cssText = "display:flex;flex-wrap:wrap;gap:12px;padding:12px";
  kinds.forEach((kind, i) => {
    for (const disabled of [false, true]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = kind;
      b.id = `sample-${i}-${disabled ? "off" : "on"}`;
      b.textContent = "Complete to $1";
      b.disabled = disabled;
      box.append(b);
    }
  });
  document.querySelector("main").prepend(box);
}"""

# WCAG relative luminance and contrast; a gradient counts by each of its colour stops, a
# see-through background by what is behind it
MEASURE_JS = """async (id) => {
  const el = document.getElementById(id);
  await Promise.all(el.getAnimations({subtree: true}).map((a) => a.finished));
  const rgb = (text) =>
    [...text.matchAll(/rgba?\\(([^)]+)\\)/g)].map((m) => m[1].split(",").map(Number));
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const backs = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const s = getComputedStyle(n);
      const stops = rgb(s.backgroundImage).filter((c) => c.length < 4 || c[3] > 0.5);
      if (stops.length) return stops;
      const [c] = rgb(s.backgroundColor);
      if (c && (c.length < 4 || c[3] > 0.5)) return [c];
    }
    return [[255, 255, 255]];
  };
  const s = getComputedStyle(el);
  const [text] = rgb(s.color);
  const text_min = Math.min(...backs(el).map((b) => contrast(text, b)));
  const [ring] = rgb(s.outlineColor);
  const behind = backs(el.parentElement);
  return {
    text: text_min,
    ring_style: s.outlineStyle,
    ring_width: parseFloat(s.outlineWidth),
    ring: ring ? Math.min(...behind.map((b) => contrast(ring, b))) : 0,
    focus_visible: el.matches(":focus-visible"),
    background: s.backgroundImage + " " + s.backgroundColor,
  };
}"""


def measure(page: Any, element_id: str) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(MEASURE_JS, element_id)
    return result


def test_every_button_is_readable_hovered_focused_and_disabled(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    me = Player(f"lk{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        page = me.page
        page.evaluate(SAMPLES_JS, KINDS)
        for i, kind in enumerate(KINDS):
            on, off = f"sample-{i}-on", f"sample-{i}-off"
            page.mouse.move(0, 0)
            assert measure(page, on)["text"] >= 4.5, (kind, "normal", measure(page, on))
            normal = measure(page, on)["background"]
            page.hover(f"#{on}")
            hovered = measure(page, on)
            assert hovered["text"] >= 4.5, (kind, "hover", hovered)
            assert hovered["background"] != normal, (kind, "hover shows no change")
            page.mouse.move(0, 0)
            page.evaluate("(id) => document.getElementById(id).focus({focusVisible: true})", on)
            # the ring is drawn once the focus has landed (a busy renderer may be a frame late)
            page.wait_for_function(
                "(id) => document.getElementById(id).matches(':focus-visible')", arg=on
            )
            focused = measure(page, on)
            assert focused["focus_visible"], kind
            assert focused["ring_style"] != "none" and focused["ring_width"] >= 2, (kind, focused)
            assert focused["ring"] >= 3, (kind, "focus ring", focused)
            assert focused["text"] >= 4.5, (kind, "focus", focused)
            page.evaluate("(id) => document.getElementById(id).blur()", on)
            disabled = measure(page, off)
            assert disabled["text"] >= 4.5, (kind, "disabled", disabled)
            assert disabled["background"] != normal, (kind, "disabled looks enabled")
        me.shot("buttons")
        assert not me.errors, me.errors
    finally:
        context.close()


def test_a_tap_on_a_phone_leaves_no_hover_style(
    server_url: str, browser: Browser, shots_dir: Path
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    me = Player(f"tp{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url)
        page = me.page
        page.evaluate(SAMPLES_JS, KINDS)
        raise_on = f"sample-{KINDS.index('btn act act-raise')}-on"
        before = measure(page, raise_on)
        page.locator(f"#{raise_on}").tap()
        # a phone keeps the tapped element :hover until the next tap elsewhere: the pointer
        # stays on it here too
        page.hover(f"#{raise_on}")
        assert page.evaluate("(id) => document.getElementById(id).matches(':hover')", raise_on)
        page.evaluate("(id) => document.getElementById(id).blur()", raise_on)
        after = measure(page, raise_on)
        assert after["background"] == before["background"]
        assert after["text"] >= 4.5
    finally:
        context.close()


def test_the_email_verified_page_looks_like_the_site(
    server_url: str, browser: Browser, shots_dir: Path, mailbox: Mailbox
) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 760}, locale="nl-NL")
    me = Player(f"vf{secrets.token_hex(3)}", context.new_page(), shots_dir)
    try:
        register(me, server_url, language="nl")
        api(me.page, "POST", "/api/mail/verification")
        mail = mailbox.wait_for("bevestig je e-mailadres")
        body = mail.get_body(preferencelist=("plain",))
        assert body is not None
        found = re.search(r"http://\S+/api/mail/verify\?token=\S+", body.get_content())
        assert found, body.get_content()
        page = me.page
        page.goto(found.group(0))
        expect(page.locator("h1")).to_have_text("Adres bevestigd")
        expect(page.locator("main")).to_contain_text(f"{me.name}@example.com is bevestigd.")
        look = page.evaluate(
            """() => { const body = getComputedStyle(document.body);
                       const panel = getComputedStyle(document.querySelector('.panel'));
                       return {body: body.backgroundImage, color: body.color,
                               font: body.fontFamily, panel: panel.backgroundColor}; }"""
        )
        assert "gradient" in look["body"], look  # the site's felt-green background
        assert look["color"] != "rgb(0, 0, 0)" and look["font"].split(",")[0] != "serif", look
        assert look["panel"] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"), look
        me.shot("email-verified")
        page.get_by_role("link", name="Terug naar de lobby").click()
        expect(page.locator("section.lobby")).to_be_visible()
        page.goto(found.group(0).split("token=")[0] + "token=not-a-token")
        expect(page.locator("h1")).to_have_text("Niet bevestigd")
        expect(page.locator(".verify-failed")).to_be_visible()
    finally:
        context.close()
