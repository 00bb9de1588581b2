// The surface session's rules as one pure function: an event and the state before it give the state
// after it and the effects to carry out (commands, timers, brightness, warnings). No clock, no timer,
// no I/O here: the session feeds in time and answers as events, so every rule is testable on its own.
//
// Rules that keep a press doing what the key showed:
// - A control's binding is resolved at its down and kept until its up. When the page in front changes
//   under a held control (a page key, a dialog overlay coming or going, a profile reload), the hold is
//   cancelled and nothing fires, not even on release.
// - A held control whose source can no longer report its release (a web client gone, a surface
//   unplugged, the session stopped) is let go without firing.
// - Overlay pages are never entered by page keys; they come and go with the dialog.
import type { Action, Binding, BridgeAction, Page, RecorderAction } from '../../profiles/schema.js';
import { isBridgeAction, performBridgeAction } from '../actions/index.js';
import { resolveSelected } from '../actions/parameters.js';
import type { SurfaceInput } from '../surface.js';
import { bindingOn, cyclePages, effectivePage, keptPage, type SessionWorld } from './session-pages.js';
import type { Armed, Flash, Held, RunningMacro, SessionEffect, SessionState } from './session-state.js';

/** How long a failed or refused command marks its key. */
export const FLASH_MS = 1500;
/** How long "HOLD" shows on a key tapped when it wanted a hold: long enough to read, short enough to retry. */
export const HINT_MS = 1000;

export type SessionEvent =
  | { type: 'input'; input: SurfaceInput }
  | { type: 'timer'; timer: string }
  /** A command the session asked for has been answered (or refused before it was sent). */
  | {
      type: 'command-done';
      control: string;
      page: string;
      macro: number | null;
      outcome: 'ok' | 'failed' | 'refused';
      reason?: string;
      /** How long the reason takes to read on its key (all its pages); the flash stays up at least that long. */
      readMs?: number;
    }
  /** The recorder's state or the clock moved: the page in front may have changed. */
  | { type: 'observe' }
  /** The profile was replaced (file reloaded); the world carries the new one, this its brightness. */
  | { type: 'profile'; brightness?: number }
  | { type: 'stop' };

export interface Transition {
  state: SessionState;
  effects: SessionEffect[];
}

type InputAmount = { amount: number; position: number | null };
const ONE: InputAmount = { amount: 1, position: null };

export function transition(state: SessionState, event: SessionEvent, world: SessionWorld): Transition {
  const draft = new Draft(state, world);
  switch (event.type) {
    case 'input':
      draft.input(event.input);
      break;
    case 'timer':
      draft.timer(event.timer);
      break;
    case 'command-done':
      draft.commandDone(event);
      break;
    case 'observe':
      break;
    case 'profile':
      draft.profileReplaced(event.brightness);
      break;
    case 'stop':
      draft.stop();
      return draft.result();
  }
  draft.followPage();
  return draft.result();
}

/** The hold a control waits for on down: a hold-to-confirm, or a long-press action of its own. */
export function holdMsOf(binding: Binding): number | null {
  const { confirm, hold } = binding;
  if (confirm && 'hold' in confirm) return confirm.hold;
  return hold?.ms ?? null;
}

/** A state being changed by one event: copies of the maps it changes, and the effects so far. */
class Draft {
  private readonly held: Map<string, Held>;
  private readonly armed: Map<string, Armed>;
  private readonly flashes: Map<string, Flash>;
  private readonly macros: Map<number, RunningMacro>;
  private page: string;
  private selectedChannel: number;
  private brightness: number;
  private nextId: number;
  private readonly effects: SessionEffect[] = [];

  constructor(
    state: SessionState,
    private readonly world: SessionWorld,
  ) {
    this.held = new Map(state.held);
    this.armed = new Map(state.armed);
    this.flashes = new Map(state.flashes);
    this.macros = new Map(state.macros);
    this.page = state.page;
    this.selectedChannel = state.selectedChannel;
    this.brightness = state.brightness;
    this.nextId = state.nextId;
  }

  result(): Transition {
    return {
      state: {
        page: this.page,
        selectedChannel: this.selectedChannel,
        brightness: this.brightness,
        held: this.held,
        armed: this.armed,
        flashes: this.flashes,
        macros: this.macros,
        nextId: this.nextId,
      },
      effects: this.effects,
    };
  }

  // Events ---------------------------------------------------------------------------------------

  input(input: SurfaceInput): void {
    switch (input.type) {
      case 'down':
        return this.down(input.control, input.origin ?? null);
      case 'up':
        return this.up(input.control);
      case 'lost':
        return this.lost(input.origin ?? null, input.control ?? null);
      case 'rotate': {
        const { binding, page } = this.bindingInFront(input.control);
        if (binding?.turn) this.perform(binding.turn, binding, input.control, page, { amount: input.amount, position: null });
        return;
      }
      case 'fader': {
        const { binding, page } = this.bindingInFront(input.control);
        if (binding?.fader) this.perform(binding.fader, binding, input.control, page, { amount: 1, position: input.position });
        return;
      }
      case 'touch': {
        const { binding, page } = this.bindingInFront(input.control);
        const action = binding?.touch?.[input.gesture];
        if (binding && action) this.perform(action, binding, input.control, page, ONE);
        return;
      }
    }
  }

  timer(timer: string): void {
    const [kind, idText] = timer.split(':');
    const id = Number(idText);
    switch (kind) {
      case 'hold':
        return this.holdCompleted(id);
      case 'armed':
        for (const [control, armed] of this.armed) if (armed.id === id) this.armed.delete(control);
        return;
      case 'flash':
        for (const [control, flash] of this.flashes) if (flash.id === id) this.flashes.delete(control);
        return;
      case 'macro': {
        const macro = this.macros.get(id);
        if (macro) this.continueMacro(id, { ...macro, next: macro.next + 1 });
        return;
      }
    }
  }

  commandDone(event: Extract<SessionEvent, { type: 'command-done' }>): void {
    if (event.outcome !== 'ok') this.flash(event.control, event.outcome, event.page, event.reason ?? null, event.readMs ?? 0);
    if (event.macro === null) return;
    const macro = this.macros.get(event.macro);
    if (!macro) return; // the session stopped meanwhile
    if (event.outcome === 'ok') this.continueMacro(event.macro, { ...macro, next: macro.next + 1 });
    else this.macros.delete(event.macro); // a failed step stops the rest
  }

  profileReplaced(brightness: number | undefined): void {
    this.page = keptPage(this.world.profile, this.page);
    if (brightness !== undefined && brightness !== this.brightness) {
      this.brightness = brightness;
      this.effects.push({ type: 'brightness', percent: brightness });
    }
    for (const [control, holding] of this.held) this.cancelHold(control, holding);
    for (const control of [...this.armed.keys()]) this.disarm(control);
  }

  stop(): void {
    for (const holding of this.held.values()) this.cancelHoldTimers(holding);
    for (const { id } of this.armed.values()) this.cancelTimer(`armed:${id}`);
    for (const { id } of this.flashes.values()) this.cancelTimer(`flash:${id}`);
    for (const id of this.macros.keys()) this.cancelTimer(`macro:${id}`);
    this.held.clear();
    this.armed.clear();
    this.flashes.clear();
    this.macros.clear();
  }

  /** After every event: whatever is held or armed on a page no longer in front is cancelled. */
  followPage(): void {
    if (!cyclePages(this.world.profile).some((p) => p.name === this.page)) this.page = keptPage(this.world.profile, this.page);
    const inFront = this.pageInFront().name;
    for (const [control, holding] of this.held) if (holding.page !== inFront && !holding.cancelled) this.cancelHold(control, holding);
    for (const [control, armed] of this.armed) if (armed.page !== inFront) this.disarm(control);
  }

  // Presses --------------------------------------------------------------------------------------

  private down(control: string, origin: string | null): void {
    if (this.held.has(control)) return; // a repeated down without an up changes nothing
    const { binding, page } = this.bindingInFront(control);
    const id = this.takeId();
    const holdMs = binding ? holdMsOf(binding) : null;
    // Held even when nothing is bound here: its release must not act on whatever page comes next.
    this.held.set(control, { origin, page: page.name, binding: binding ?? null, downAt: this.world.now, holdMs, holdFired: false, cancelled: false, id });
    if (!binding) return;
    if (holdMs !== null) {
      // The ring is drawn from the time held: the session redraws it at each of its steps (session-overlays.ts).
      this.startTimer(`hold:${id}`, holdMs);
      return;
    }
    this.shortPress(control, binding, page);
  }

  private up(control: string): void {
    const holding = this.held.get(control);
    if (!holding) return; // an up for a down this session never saw
    this.held.delete(control);
    this.cancelHoldTimers(holding);
    const { binding } = holding;
    if (holding.cancelled || !binding) return;
    const page = this.pageNamed(holding.page);
    // A hold that was only a confirmation does nothing when let go early; a long-press binding with a
    // press action takes the early release as a short press.
    if (this.waitingForHold(holding)) {
      if (binding.hold !== undefined && binding.press !== undefined) this.shortPress(control, binding, page);
      // Let go early and nothing happens: say so, or the operator thinks the key is dead.
      else this.flash(control, 'hint', page.name, null);
    }
    if (binding.release) this.perform(binding.release, binding, control, page, ONE);
  }

  /** Controls pressed by a source that is gone (or one control of it) are let go, firing nothing. */
  private lost(origin: string | null, only: string | null): void {
    for (const [control, holding] of this.held) {
      if ((origin !== null && holding.origin !== origin) || (only !== null && control !== only)) continue;
      this.cancelHoldTimers(holding);
      this.held.delete(control);
    }
  }

  private holdCompleted(id: number): void {
    const entry = [...this.held].find(([, h]) => h.id === id);
    if (!entry) return;
    const [control, holding] = entry;
    if (!this.waitingForHold(holding) || !holding.binding) return;
    this.held.set(control, { ...holding, holdFired: true });
    const { binding } = holding;
    const page = this.pageNamed(holding.page);
    const action = binding.confirm && 'hold' in binding.confirm ? binding.press : binding.hold?.do;
    if (action) this.perform(action, binding, control, page, ONE);
  }

  /** A press that is not (or no longer) a hold: at once, or as the second of a double press. */
  private shortPress(control: string, binding: Binding, page: Page): void {
    if (binding.press === undefined) return;
    const { confirm } = binding;
    if (confirm && 'double' in confirm) {
      const armed = this.armed.get(control);
      if (armed && armed.page === page.name) {
        this.disarm(control);
        this.perform(binding.press, binding, control, page, ONE);
      } else {
        const id = this.takeId();
        this.armed.set(control, { page: page.name, id });
        this.startTimer(`armed:${id}`, confirm.double);
      }
      return;
    }
    this.perform(binding.press, binding, control, page, ONE);
  }

  private waitingForHold(holding: Held): boolean {
    return holding.holdMs !== null && !holding.holdFired && !holding.cancelled;
  }

  private cancelHold(control: string, holding: Held): void {
    this.cancelHoldTimers(holding);
    this.held.set(control, { ...holding, cancelled: true });
  }

  private cancelHoldTimers(holding: Held): void {
    if (holding.holdMs === null || holding.holdFired || holding.cancelled) return;
    this.cancelTimer(`hold:${holding.id}`);
  }

  private disarm(control: string): void {
    const armed = this.armed.get(control);
    if (!armed) return;
    this.cancelTimer(`armed:${armed.id}`);
    this.armed.delete(control);
  }

  // Actions --------------------------------------------------------------------------------------

  private perform(action: Action, binding: Binding, control: string, page: Page, input: InputAmount): void {
    if (action.action === 'macro') {
      const id = this.takeId();
      this.continueMacro(id, { control, binding, steps: action.steps, next: 0, page: page.name });
      return;
    }
    if (isBridgeAction(action)) {
      this.bridgeAction(action, control, page, input);
      return;
    }
    this.command(action, binding, control, page.name, input, null);
  }

  /** Runs a macro's steps from `macro.next` until one must be waited for (a wait, a command's answer). */
  private continueMacro(id: number, macro: RunningMacro): void {
    const page = this.pageNamed(macro.page);
    for (let next = macro.next; next < macro.steps.length; next++) {
      const step = macro.steps[next];
      if (step === undefined) break;
      if ('wait' in step) {
        this.macros.set(id, { ...macro, next });
        this.startTimer(`macro:${id}`, step.wait);
        return;
      }
      if (isBridgeAction(step)) {
        if (!this.bridgeAction(step, macro.control, page, ONE)) break;
        continue;
      }
      this.macros.set(id, { ...macro, next });
      this.command(step, macro.binding, macro.control, macro.page, ONE, id);
      return;
    }
    this.macros.delete(id);
  }

  /**
   * A recorder command, with "selected" resolved here, once, to the channel selected now: it runs on the
   * channel the key showed, whatever is selected by the time it is sent.
   */
  private command(action: RecorderAction, binding: Binding, control: string, page: string, input: InputAmount, macro: number | null): void {
    this.effects.push({ type: 'command', action: resolveSelected(action, this.selectedChannel), binding, control, page, input, macro });
  }

  /** The bridge's own actions (the table's), carried out on this state; false when refused. */
  private bridgeAction(action: BridgeAction, control: string, page: Page, input: InputAmount): boolean {
    const outcome = performBridgeAction(action, {
      page: this.page,
      pages: cyclePages(this.world.profile).map((p) => p.name),
      dialogPage: this.world.profile.dialogPage,
      brightness: this.brightness,
      amount: input.amount,
      alarmEngine: this.world.alarmEngine === true,
    });
    if ('refused' in outcome) {
      this.warn(`${control}: ${outcome.warning}`);
      this.flash(control, 'refused', page.name, outcome.refused);
      return false;
    }
    if ('acknowledgeAlarms' in outcome) this.effects.push({ type: 'ack-alarms', control });
    if ('page' in outcome) this.page = outcome.page;
    if ('selectedChannel' in outcome) this.selectedChannel = outcome.selectedChannel;
    if ('brightness' in outcome) {
      this.brightness = outcome.brightness;
      this.effects.push({ type: 'brightness', percent: this.brightness });
    }
    return true;
  }

  private flash(control: string, kind: Flash['kind'], page: string, reason: string | null, readMs = 0): void {
    const previous = this.flashes.get(control);
    if (previous) this.cancelTimer(`flash:${previous.id}`);
    const id = this.takeId();
    this.flashes.set(control, { kind, reason, id, page, at: this.world.now });
    this.startTimer(`flash:${id}`, kind === 'hint' ? HINT_MS : Math.max(FLASH_MS, readMs));
  }

  // Helpers --------------------------------------------------------------------------------------

  private pageInFront(): Page {
    return effectivePage(this.world, this.page);
  }

  private bindingInFront(control: string): { binding: Binding | undefined; page: Page } {
    const page = this.pageInFront();
    return { binding: bindingOn(page, control, this.world.controls), page };
  }

  private pageNamed(name: string): Page {
    return this.world.profile.pages.find((p) => p.name === name) ?? this.pageInFront();
  }

  private takeId(): number {
    return this.nextId++;
  }

  private startTimer(timer: string, ms: number): void {
    this.effects.push({ type: 'start-timer', timer, ms });
  }

  private cancelTimer(timer: string): void {
    this.effects.push({ type: 'cancel-timer', timer });
  }

  private warn(message: string): void {
    this.effects.push({ type: 'warn', message });
  }
}
