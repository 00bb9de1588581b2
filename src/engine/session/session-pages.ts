// Which page is in front of the operator and what each control is bound to there, derived from the
// session's chosen page, the profile and whether the recorder shows a dialog.
import type { Binding, Page } from '../../profiles/schema.js';
import type { ControlDefinition } from '../surface.js';

/** The profile as a session sees it. */
export interface SessionProfile {
  pages: readonly Page[];
  /** The page shown over the whole surface while the recorder shows a dialog. */
  dialogPage?: string;
}

/** What a transition needs to know of the world at the moment of an event. */
export interface SessionWorld {
  now: number;
  profile: SessionProfile;
  /** The default recorder shows a dialog, so the dialog overlay (if any) is in front. */
  dialogUp: boolean;
  controls: ReadonlyMap<string, ControlDefinition>;
  /** recdeck runs an alarm engine (an alarm-ack acknowledges its alarms); absent: none. */
  alarmEngine?: boolean;
}

/** Pages an operator can step through and name: all but overlays, which come and go by themselves. */
export function cyclePages(profile: SessionProfile): Page[] {
  return profile.pages.filter((page) => page.name !== profile.dialogPage);
}

/** The chosen page's name, kept when it still exists in the cycle, else the first page of the cycle. */
export function keptPage(profile: SessionProfile, wanted: string): string {
  const cycle = cyclePages(profile);
  return (cycle.find((page) => page.name === wanted) ?? cycle[0] ?? (profile.pages[0] as Page)).name;
}

export function effectivePage(world: Pick<SessionWorld, 'profile' | 'dialogUp'>, chosen: string): Page {
  const { profile } = world;
  if (world.dialogUp && profile.dialogPage !== undefined) {
    const overlay = profile.pages.find((page) => page.name === profile.dialogPage);
    if (overlay) return overlay;
  }
  return profile.pages.find((page) => page.name === chosen) ?? (profile.pages[0] as Page);
}

/** A control's binding on a page; an LCD cell with none of its own shows its encoder's. */
export function bindingOn(page: Page, control: string, controls: ReadonlyMap<string, ControlDefinition>): Binding | undefined {
  const own = page.controls[control];
  if (own) return own;
  return controls.get(control)?.kind === 'lcd' ? page.controls[encoderOf(control, controls) ?? ''] : undefined;
}

/** The encoder whose LCD cell this is. */
export function encoderOf(lcd: string, controls: ReadonlyMap<string, ControlDefinition>): string | undefined {
  for (const control of controls.values()) if (control.kind === 'encoder' && control.lcd === lcd) return control.id;
  return undefined;
}

/**
 * The page in front as the operator counts it: its name, its 1-based place in the page cycle and the
 * cycle's length. An overlay is not in the cycle: it carries the number of the page it covers.
 */
export function pageInfo(profile: SessionProfile, chosen: string, inFront: Page): { name: string; number: number; count: number } {
  const cycle = cyclePages(profile);
  const place = (name: string) => cycle.findIndex((page) => page.name === name) + 1;
  return { name: inFront.name, number: place(inFront.name) || place(chosen), count: cycle.length };
}
