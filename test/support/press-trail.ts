// What the bridge did with presses on one control, as it happened: the input its session was given, each
// command the control ran or had refused (the audit records, bridge.commands$), and the bridge's log lines
// meanwhile. A test that waits for the recorder alone can only say "channel 2 not recording" when a press
// misfires; under load a press can be refused (a toggle is never decided from state past its age), turn
// into a hold, go to another binding or never arrive, and the trail says which.
import type { Subscription } from 'rxjs';
import type { CommandRecord } from '../../src/engine/log.js';
import { ageSeconds, freshnessOf } from '../../src/engine/recorder-state.js';
import type { RemoteFixture } from './remote.js';

export interface PressTrail {
  /** The commands the control ran or had refused since the trail began, in order. */
  readonly commands: readonly CommandRecord[];
  /** Adds a line of the test's own (a click sent, what the page sent), stamped like the bridge's. */
  note(what: string): void;
  /** The whole trail, with the control's session and the recorder's freshness as they are now: for a failure's message. */
  told(): string;
  stop(): void;
}

export function pressTrail(f: RemoteFixture, surfaceId: string, control: string): PressTrail {
  const startedAt = Date.now();
  const lines: string[] = [];
  const commands: CommandRecord[] = [];
  const stamp = () => `+${Date.now() - startedAt} ms`;
  const session = () => f.running.bridge.session(surfaceId);
  /** The session's record of the press (its binding is told once, at the end). */
  const held = () => {
    const press = session()?.sessionState.held.get(control);
    return press === undefined ? 'nothing' : JSON.stringify({ page: press.page, origin: press.origin, holdMs: press.holdMs, holdFired: press.holdFired, cancelled: press.cancelled });
  };
  const logsBefore = f.logs.length;
  const subscriptions: Subscription[] = [];
  const input = session()?.surface.input;
  if (input === undefined) lines.push(`${stamp()} no session for ${surfaceId}: no input can reach it`);
  else {
    subscriptions.push(
      // Heard after the session has taken it (it subscribed first): `held` is the session's record of the press after this input.
      input.subscribe((event) => {
        if (!('control' in event) || event.control === control || event.type === 'lost') {
          lines.push(`${stamp()} input ${JSON.stringify(event)}; held now: ${held()}`);
        }
      }),
    );
  }
  subscriptions.push(
    f.running.bridge.commands$.subscribe((record) => {
      if (record.surface !== surfaceId || record.control !== control) return;
      commands.push(record);
      lines.push(`${stamp()} command ${record.action} ${record.result}${record.request === null ? '' : ` ${record.request}`}${record.message === null ? '' : `: ${record.message}`} (${Math.round(record.latencyMs)} ms after the input)`);
    }),
  );
  return {
    commands,
    note: (what) => lines.push(`${stamp()} ${what}`),
    stop: () => subscriptions.forEach((s) => s.unsubscribe()),
    told: () => {
      const now = Date.now();
      const s = session();
      const recorders = f.running.bridge.recorderStates();
      return [
        `what the bridge did with ${surfaceId} ${control} (times from the trail's start):`,
        ...lines,
        `${stamp()} the session holds: ${held()}; the binding in front: ${JSON.stringify(s?.describeControls().find((c) => c.control.id === control)?.binding ?? null)}`,
        ...recorders.map((r) => `${stamp()} recorder ${r.name}: ${freshnessOf(r, now)}, channels read ${ageSeconds(r, now, ['channels']) ?? '?'} s ago (live for ${3 * r.pollMs} ms)`),
        `bridge log since: ${f.logs.length === logsBefore ? '(nothing)' : ''}`,
        ...f.logs.slice(logsBefore).map((line) => `  ${line}`),
      ].join('\n');
    },
  };
}
