// Where a toast goes: the free spot nearest the top of the window, so that it covers no
// control (header buttons, the action bar, links, fields) and no cards, plates, bets or pot.
// A fixed place could not do that: under the header it hid the table's buttons, at the foot
// of the window the action bar. A phone's table leaves no band free at your turn, so it keeps
// a slot of its own between the felt and the action bar (`.toast-slot`), used while in view.

const NEEDED = "a, button, input, select, textarea, label, .action-bar, .hole, .plate, .chipstack, .pots";
const MARGIN = 8;
const STEP = 8;

function neededRects(box) {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const rects = [];
  for (const el of document.querySelectorAll(NEEDED)) {
    if (box.contains(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.bottom < 0 || r.top > vh || r.right < 0 || r.left > vw) continue;
    rects.push(r);
  }
  return rects;
}

function covered(rects, left, top, w, h) {
  let area = 0;
  for (const r of rects) {
    const wide = Math.min(r.right, left + w) - Math.max(r.left, left) + MARGIN / 2;
    const high = Math.min(r.bottom, top + h) - Math.max(r.top, top) + MARGIN / 2;
    if (wide > 0 && high > 0) area += wide * high;
  }
  return area;
}

function search(rects, w, h) {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const xs = [(vw - w) / 2, MARGIN, vw - w - MARGIN].map((x) => Math.max(0, Math.round(x)));
  let best = { left: xs[0], top: MARGIN, area: Infinity };
  for (let top = MARGIN; top + h <= vh - MARGIN || top === MARGIN; top += STEP) {
    for (const left of xs) {
      const area = covered(rects, left, top, w, h);
      if (area < best.area) best = { left, top, area };
      if (area === 0) return best;
    }
  }
  return best;
}

/** Put the toasts' box where it covers nothing needed: as wide as it likes if it fits, else
 * narrower (a phone's felt leaves room between the seats), else where it covers least. */
export function placeToasts() {
  const box = document.getElementById("toasts");
  if (!box || !box.childElementCount) return;
  const vw = window.innerWidth;
  const slot = document.querySelector(".toast-slot")?.getBoundingClientRect();
  // in view, to the pixel: scrolling moves whole pixels, a box may end a fraction past the edge
  if (slot && slot.height >= 1 && slot.top >= -1 && slot.bottom <= window.innerHeight + 1) {
    box.style.width = `${Math.round(slot.width)}px`;
    // the slot holds the newest notices: older ones still showing make room for them
    while (box.offsetHeight > slot.height + 1 && box.childElementCount > 1) {
      box.firstElementChild.remove();
    }
    if (box.offsetHeight <= slot.height + 1) {
      box.style.left = `${Math.round(slot.left)}px`;
      box.style.top = `${Math.round(slot.top)}px`;
      return;
    }
  }
  const rects = neededRects(box);
  let best = null;
  for (const share of [1, 0.6, 0.45, 0.34]) {
    box.style.width = share === 1 ? "" : `${Math.round(vw * share)}px`;
    const spot = search(rects, box.offsetWidth, box.offsetHeight);
    if (!best || spot.area < best.area) best = { ...spot, width: box.style.width };
    if (spot.area === 0) break;
  }
  box.style.width = best.width;
  box.style.left = `${best.left}px`;
  box.style.top = `${best.top}px`;
}

let queued = false;
function placeSoon() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    placeToasts();
  });
}
// the page scrolls on your turn and redraws at every event: the spot is found again
window.addEventListener("scroll", placeSoon, { passive: true });
window.addEventListener("resize", placeSoon);
new MutationObserver(placeSoon).observe(document.documentElement, { childList: true, subtree: true });
