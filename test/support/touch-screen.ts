// A page's touch screen as the browser tests drive it: where a control is (scrolled into view first: a
// touch lands where the finger is), a finger put down, moved and lifted as real browser touches (CDP
// Input.dispatchTouchEvent, so the browser's own scrolling and pointercancel are part of what is tested),
// and the deck picker of a narrow page.
import type { CDPSession, Locator, Page } from 'playwright-core';

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
declare const document: { querySelector(selector: string): { value: string; dispatchEvent(event: unknown): void } | null };
/** An element as the page function of `middle` uses it. */
interface ScrolledElement {
  scrollIntoViewIfNeeded(centreIfNeeded: boolean): void;
  getBoundingClientRect(): { x: number; y: number; width: number; height: number };
}
declare class Event {
  constructor(type: string);
}

/** The page and its CDP session are asked for when used: tests open them in beforeAll. */
export function touchScreen(page: () => Page, cdp: () => CDPSession) {
  const key = (surface: string, control: string) => page().locator(`canvas[data-surface="${surface}"][data-control="${control}"]`);
  // Scrolled to and measured in one call in the page: playwright's scrollIntoViewIfNeeded then boundingBox
  // sent 32 CDP messages where this sends 11 (counted with DEBUG=pw:protocol, 2026-11-29), and beside a
  // second suite each round trip through the run's one chromium took seconds (paired runs 103, 107: 14-32 s
  // for one drag's set-up in readable-deck's dial test).
  const middle = async (locator: Locator) => {
    const at = await locator.evaluate((element: ScrolledElement) => {
      // Chromium's own: scrolled only when not wholly in view, and then centred, as playwright's was.
      element.scrollIntoViewIfNeeded(true);
      const box = element.getBoundingClientRect();
      return box.width === 0 || box.height === 0 ? null : { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    });
    if (!at) throw new Error('the control is not on the page (not laid out: a deck not picked or not shown)');
    return at;
  };
  return {
    key,
    middle,
    centre: (surface: string, control: string) => middle(key(surface, control)),
    touch: (type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }) =>
      cdp().send('Input.dispatchTouchEvent', { type, touchPoints: at ? [{ x: at.x, y: at.y, id: 1 }] : [] }),
    pick: (surface: string) =>
      page().evaluate((surface) => {
        const picker = document.querySelector('#deck-picker');
        if (!picker) throw new Error('no deck picker');
        picker.value = surface;
        picker.dispatchEvent(new Event('change'));
      }, surface),
  };
}
