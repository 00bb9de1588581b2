// The session's rules without a device, a recorder or a clock: events in, state and effects out. Time is
// virtual (a number moved by the test); timers are run by a harness that does what the session would.
import { describe, expect, it } from 'vitest';
import { REASON_PAGE_MS, gestureOf, overlayOf } from '../../src/engine/session/session-overlays.js';
import { bindingOn, type SessionProfile } from '../../src/engine/session/session-pages.js';
import { initialSessionState, type SessionEffect, type SessionState } from '../../src/engine/session/session-state.js';
import { FLASH_MS, transition, type SessionEvent } from '../../src/engine/session/session-transition.js';
import { flashReason } from '../../src/engine/show.js';
import type { ControlDefinition, SurfaceInput } from '../../src/engine/surface.js';
import type { Binding, Page } from '../../src/profiles/schema.js';
import { parseTestProfile } from '../support/bridge.js';

const controls = new Map<string, ControlDefinition>(
  ['key0', 'key1', 'key2', 'key14'].map((id, i) => [id, { kind: 'key', id, row: 0, column: i, pixelSize: { width: 72, height: 72 } }]),
);

function profileOf(yaml: string): SessionProfile {
  const { profile } = parseTestProfile(yaml);
  return { pages: profile.pages, ...(profile.overlays ? { dialogPage: profile.overlays.dialog } : {}) };
}

/** A profile with one page, Main, of the given controls (YAML lines indented by six spaces). */
const mainPage = (controls: string) => `name: t\nmatch: { kind: memory }\npages:\n  - name: Main\n    controls:\n${controls}`;

/** Runs the transition as the session does: effects collected, timers kept and fired on virtual time. */
class Harness {
  now = 0;
  dialogUp = false;
  state: SessionState;
  readonly commands: Array<Extract<SessionEffect, { type: 'command' }>> = [];
  readonly warnings: string[] = [];
  private readonly timers = new Map<string, number>();

  constructor(public profile: SessionProfile) {
    this.state = initialSessionState(profile.pages[0]?.name ?? '', 70);
  }

  send(event: SessionEvent): void {
    const { state, effects } = transition(this.state, event, { now: this.now, profile: this.profile, dialogUp: this.dialogUp, controls });
    this.state = state;
    for (const effect of effects) {
      if (effect.type === 'command') this.commands.push(effect);
      else if (effect.type === 'start-timer') this.timers.set(effect.timer, this.now + effect.ms);
      else if (effect.type === 'cancel-timer') this.timers.delete(effect.timer);
      else if (effect.type === 'warn') this.warnings.push(effect.message);
    }
  }

  input(input: SurfaceInput): void {
    this.send({ type: 'input', input });
  }

  /** A press let go at once. */
  tap(control: string): void {
    this.input({ type: 'down', control });
    this.input({ type: 'up', control });
  }

  /** Moves virtual time on, firing due timers in order. */
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.timers].filter(([, at]) => at <= until).sort((a, b) => a[1] - b[1])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1];
      this.send({ type: 'timer', timer: due[0] });
    }
    this.now = until;
  }

  get timerCount(): number {
    return this.timers.size;
  }

  sent(): string[] {
    return this.commands.map((c) => `${c.action.action}${'channel' in c.action ? ` ${c.action.channel}` : ''}`);
  }
}

const MAIN_AND_DIALOG = `
name: t
match: { kind: memory }
overlays: { dialog: Dialog }
pages:
  - name: Main
    controls:
      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
      key1: { press: { action: page-next } }
      key2: { press: { action: new-session }, confirm: { hold: 800 } }
      key14: { press: { action: sync-on, channel: 1 } }
  - name: Second
    controls:
      key1: { press: { action: page-next } }
      key2: { press: { action: page, page: Dialog } }
  - name: Dialog
    controls:
      key0: { press: { action: dialog-cancel } }
      key14: { press: { action: dialog-ok } }
`;

describe('a press does what the key showed', () => {
  it('a press on the dialog overlay fires the overlay binding, not the main page one', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.tap('key14');
    h.dialogUp = true;
    h.send({ type: 'observe' });
    h.tap('key14');
    expect(h.sent()).toEqual(['sync-on 1', 'dialog-ok']);
  });

  it('a hold under way is cancelled when the dialog overlay comes up: nothing fires, not even on release', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key0' }); // long-press rec-stop after 1 s, short press rec-start
    h.advance(500);
    h.dialogUp = true;
    h.send({ type: 'observe' });
    h.advance(2000);
    h.input({ type: 'up', control: 'key0' });
    expect(h.sent()).toEqual([]);
    expect(h.timerCount).toBe(0);
    // Released, the key acts on the overlay page.
    h.tap('key0');
    expect(h.sent()).toEqual(['dialog-cancel']);
  });

  it('the binding resolved at the down is the one released: a dialog going away does not make a release act on the main page', () => {
    const h = new Harness(profileOf(`
name: t
match: { kind: memory }
overlays: { dialog: Dialog }
pages:
  - name: Main
    controls:
      key0: { release: { action: rec-stop, channel: 1 } }
  - name: Dialog
    controls:
      key1: { press: { action: dialog-ok } }
`));
    h.dialogUp = true;
    h.input({ type: 'down', control: 'key0' }); // nothing bound on the overlay
    h.dialogUp = false;
    h.send({ type: 'observe' });
    h.input({ type: 'up', control: 'key0' });
    expect(h.sent()).toEqual([]);
  });

  it('a hold-to-confirm fires once held long enough; let go early it fires nothing', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key2' });
    h.advance(799);
    h.input({ type: 'up', control: 'key2' });
    expect(h.sent()).toEqual([]);
    h.input({ type: 'down', control: 'key2' });
    h.advance(800);
    expect(h.sent()).toEqual(['new-session']);
    h.input({ type: 'up', control: 'key2' });
    expect(h.sent()).toEqual(['new-session']);
  });

  it('a long-press binding: released early it is a short press, held it is the long press', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key0' });
    h.advance(300);
    h.input({ type: 'up', control: 'key0' });
    h.input({ type: 'down', control: 'key0' });
    h.advance(1000);
    h.input({ type: 'up', control: 'key0' });
    expect(h.sent()).toEqual(['rec-start 1', 'rec-stop 1']);
  });

  it('a double press: the second press within the window sends, a late one only arms again', () => {
    const h = new Harness(profileOf(mainPage(`
      key0: { press: { action: rec-start, channel: 2 }, confirm: { double: 400 } }
`)));
    h.tap('key0');
    h.advance(500);
    h.tap('key0');
    expect(h.sent()).toEqual([]);
    expect(h.state.armed.has('key0')).toBe(true);
    h.advance(100);
    h.tap('key0');
    expect(h.sent()).toEqual(['rec-start 2']);
    expect(h.state.armed.size).toBe(0);
  });
});

describe('a lost release never fires the hold', () => {
  it('a web client gone while holding: the hold is dropped, nothing fires', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key0', origin: 'client-7' });
    h.advance(300);
    h.input({ type: 'lost', origin: 'client-7' });
    h.advance(5000);
    expect(h.sent()).toEqual([]);
    expect(h.state.held.size).toBe(0);
    expect(h.timerCount).toBe(0);
  });

  it('a touch that turned into a scroll lets go of that key only; the client\'s other hold fires', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key0', origin: 'client-7' });
    h.input({ type: 'down', control: 'key2', origin: 'client-7' });
    h.input({ type: 'lost', origin: 'client-7', control: 'key2' });
    h.advance(1000);
    expect(h.sent()).toEqual(['rec-stop 1']);
    expect([...h.state.held.keys()]).toEqual(['key0']);
  });

  it('another client going away leaves this one\'s hold alone', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key0', origin: 'client-7' });
    h.input({ type: 'lost', origin: 'client-8' });
    h.advance(1000);
    expect(h.sent()).toEqual(['rec-stop 1']);
  });

  it('the session stopping drops holds, armed presses, flashes and macros with their timers', () => {
    const h = new Harness(profileOf(mainPage(`
      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
      key1: { press: { action: macro, steps: [ { action: sync-on, channel: 1 }, { wait: 500 }, { action: sync-rec-start } ] } }
`)));
    h.tap('key1');
    const first = h.commands[0];
    expect(first?.macro).not.toBeNull();
    h.send({ type: 'command-done', control: 'key1', page: 'Main', macro: first?.macro ?? null, outcome: 'ok' });
    h.input({ type: 'down', control: 'key0' });
    h.send({ type: 'stop' });
    h.advance(5000);
    expect(h.sent()).toEqual(['sync-on 1']);
    expect(h.timerCount).toBe(0);
    expect(h.state.macros.size + h.state.held.size).toBe(0);
  });
});

describe('pages', () => {
  it('page-next never enters an overlay page, and naming the overlay is refused', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    const pages: string[] = [];
    for (let i = 0; i < 4; i++) {
      h.tap('key1');
      pages.push(h.state.page);
    }
    expect(pages).toEqual(['Second', 'Main', 'Second', 'Main']);
    h.tap('key1');
    h.tap('key2');
    expect(h.state.page).toBe('Second');
    expect(h.state.flashes.get('key2')?.kind).toBe('refused');
    expect(h.warnings.join()).toContain('dialog overlay');
  });

  it('a turn of a page dial steps by its sign; a reloaded profile without the page goes to the first', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.profile = profileOf(MAIN_AND_DIALOG.replace('key1: { press: { action: page-next } }', 'key1: { turn: { action: page-next } }'));
    h.send({ type: 'profile' });
    h.input({ type: 'rotate', control: 'key1', amount: -3 });
    expect(h.state.page).toBe('Second');
    h.profile = profileOf(MAIN_AND_DIALOG.replace('name: Second', 'name: Other'));
    h.send({ type: 'profile' });
    expect(h.state.page).toBe('Main');
  });

  it('a profile reload cancels a hold under way', () => {
    const h = new Harness(profileOf(MAIN_AND_DIALOG));
    h.input({ type: 'down', control: 'key2' });
    h.advance(400);
    h.send({ type: 'profile' });
    h.advance(1000);
    h.input({ type: 'up', control: 'key2' });
    expect(h.sent()).toEqual([]);
  });
});

describe('the selected channel', () => {
  it('is resolved onto each command when it is made: the command names the channel the key acted on', () => {
    const h = new Harness(
      profileOf(
        mainPage(`      key0: { press: { action: select-channel, channel: 3 } }
      key1: { press: { action: rec-start, channel: selected } }
      key2: { press: { action: macro, steps: [ { action: select-channel, channel: 7 }, { action: gain-step, channel: selected, db: 1 } ] } }
`),
      ),
    );
    h.tap('key1'); // channel 1 is selected at first
    h.tap('key0');
    h.tap('key1');
    h.tap('key2');
    expect(h.sent()).toEqual(['rec-start 1', 'rec-start 3', 'gain-step 7']);
    expect(h.state.selectedChannel).toBe(7);
  });
});

describe('macros', () => {
  const MACRO = `
name: t
match: { kind: memory }
pages:
  - name: Main
    controls:
      key0: { press: { action: macro, steps: [ { action: sync-on, channel: 1 }, { wait: 200 }, { action: select-channel, channel: 3 }, { action: sync-rec-start } ] } }
`;
  it('runs its steps in order, each after the previous one was answered and its waits', () => {
    const h = new Harness(profileOf(MACRO));
    h.input({ type: 'down', control: 'key0' });
    const done = (outcome: 'ok' | 'failed') => h.send({ type: 'command-done', control: 'key0', page: 'Main', macro: h.commands.at(-1)?.macro ?? null, outcome });
    expect(h.sent()).toEqual(['sync-on 1']);
    done('ok');
    h.advance(199);
    expect(h.sent()).toEqual(['sync-on 1']);
    h.advance(1);
    expect(h.sent()).toEqual(['sync-on 1', 'sync-rec-start']);
    expect(h.state.selectedChannel).toBe(3);
    done('ok');
    expect(h.state.macros.size).toBe(0);
  });

  it('a failed step stops the rest and marks the key', () => {
    const h = new Harness(profileOf(MACRO));
    h.input({ type: 'down', control: 'key0' });
    h.send({ type: 'command-done', control: 'key0', page: 'Main', macro: h.commands[0]?.macro ?? null, outcome: 'failed' });
    h.advance(1000);
    expect(h.sent()).toEqual(['sync-on 1']);
    expect(h.state.flashes.get('key0')?.kind).toBe('failed');
    h.advance(1500);
    expect(h.state.flashes.size).toBe(0);
  });
});

it('an LCD cell without a binding of its own shows its encoder\'s', () => {
  const withStrip = new Map<string, ControlDefinition>([
    ['dial0', { kind: 'encoder', id: 'dial0', pressable: true, ring: true, lcd: 'strip0' }],
    ['strip0', { kind: 'lcd', id: 'strip0', pixelSize: { width: 200, height: 100 }, touch: true }],
  ]);
  const profile = profileOf(mainPage(`
      dial0: { turn: { action: gain-step, channel: 1, db: 0.5 } }
`));
  expect(bindingOn(profile.pages[0] as never, 'strip0', withStrip)?.turn?.action).toBe('gain-step');
});

describe('keys say how to use them', () => {
  const GESTURES = `
name: t
match: { kind: memory }
pages:
  - name: Main
    controls:
      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
      key1: { hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
      key2: { press: { action: new-session }, confirm: { hold: 800 } }
      key14: { press: { action: new-session }, confirm: { double: 600 } }
`;

  it('a tap on a hold-to-confirm key marks it "hold" for a moment, through a timer on virtual time', () => {
    const h = new Harness(profileOf(GESTURES));
    h.input({ type: 'down', control: 'key2' });
    h.advance(200);
    h.input({ type: 'up', control: 'key2' });
    expect(h.sent()).toEqual([]);
    expect(overlayOf(h.state, 'key2', 'Main', h.now, undefined)).toEqual({ hint: 'hold' });
    h.advance(999);
    expect(overlayOf(h.state, 'key2', 'Main', h.now, undefined)?.hint).toBe('hold');
    h.advance(1);
    expect(overlayOf(h.state, 'key2', 'Main', h.now, undefined)).toBeNull();
    expect(h.timerCount).toBe(0);
  });

  it('a tap on a hold-only key is hinted too; a tap on a key with a short press does that press, no hint', () => {
    const h = new Harness(profileOf(GESTURES));
    for (const key of ['key1', 'key0']) {
      h.input({ type: 'down', control: key });
      h.advance(100);
      h.input({ type: 'up', control: key });
    }
    expect(h.sent()).toEqual(['rec-start 1']);
    expect(h.state.flashes.get('key1')?.kind).toBe('hint');
    expect(h.state.flashes.has('key0')).toBe(false);
  });

  it('a hold held to the end fires and leaves no hint', () => {
    const h = new Harness(profileOf(GESTURES));
    h.input({ type: 'down', control: 'key2' });
    h.advance(900);
    h.input({ type: 'up', control: 'key2' });
    expect(h.sent()).toEqual(['new-session']);
    expect(h.state.flashes.size).toBe(0);
  });

  it('a failed command marks its key with the reason it was given', () => {
    const h = new Harness(profileOf(GESTURES));
    h.tap('key0');
    h.send({ type: 'command-done', control: 'key0', page: 'Main', macro: null, outcome: 'failed', reason: 'Channel 1 has no source' });
    expect(overlayOf(h.state, 'key0', 'Main', h.now, undefined)).toEqual({ flash: 'failed', reason: 'Channel 1 has no source', reasonPage: 0 });
    h.advance(1500);
    expect(overlayOf(h.state, 'key0', 'Main', h.now, undefined)).toBeNull();
  });

  it('a reason that takes pages keeps the flash up to read them all; the page shown follows from when it began', () => {
    const h = new Harness(profileOf(GESTURES));
    h.advance(250);
    h.tap('key0');
    h.send({ type: 'command-done', control: 'key0', page: 'Main', macro: null, outcome: 'failed', reason: 'a long reason', readMs: 3 * REASON_PAGE_MS });
    expect(h.state.flashes.get('key0')?.at).toBe(250);
    const page = () => overlayOf(h.state, 'key0', 'Main', h.now, undefined)?.reasonPage;
    expect(page()).toBe(0);
    h.advance(REASON_PAGE_MS - 1);
    expect(page()).toBe(0);
    h.advance(1);
    expect(page()).toBe(1);
    h.advance(REASON_PAGE_MS);
    expect(page()).toBe(2);
    h.advance(REASON_PAGE_MS - 1);
    expect(page()).toBe(2);
    h.advance(1);
    expect(overlayOf(h.state, 'key0', 'Main', h.now, undefined)).toBeNull();
    // A short reading time never cuts the flash below its usual length.
    h.tap('key0');
    h.send({ type: 'command-done', control: 'key0', page: 'Main', macro: null, outcome: 'failed', reason: 'short', readMs: 10 });
    h.advance(FLASH_MS - 1);
    expect(overlayOf(h.state, 'key0', 'Main', h.now, undefined)?.flash).toBe('failed');
  });

  it('the corner mark follows the binding: hold for a hold or a hold-to-confirm, double for a double press, none for a plain press', () => {
    const page = profileOf(GESTURES).pages[0] as Page;
    const marks = ['key0', 'key1', 'key2', 'key14'].map((key) => gestureOf(page.controls[key] as Binding));
    expect(marks).toEqual(['hold', 'hold', 'hold', 'double']);
    expect(gestureOf({ press: { action: 'rec-start', channel: 1 } } as Binding)).toBeNull();
  });
});

describe('the reason a key shows', () => {
  it('is the recorder\'s message whole, on one line of words; only one longer than a flash should hold up is cut', () => {
    expect(flashReason('Synchronous recording is not running; there is nothing to pause')).toBe('Synchronous recording is not running; there is nothing to pause');
    expect(flashReason('  state is\nstale  (5s old) ')).toBe('state is stale (5s old)');
    const long = flashReason('word '.repeat(100));
    expect(long.length).toBe(240);
    expect(long.endsWith('…')).toBe(true);
  });
});
