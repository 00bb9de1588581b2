// What a poller says about the commands it refuses, bounded whatever arrives: a member's first few
// refusals of an interval are logged and audited in full, with why (a fault's few refused presses are
// each on record, as exactly-once checks need); the rest are counted by kind, and
// once per interval each member that had any gets one summary line in the log and one record in the
// audit ("desk-1: 29,999 more refused in the last 60 s: not allowed to call newSession (29,999)"). So a
// flood of refusals costs a few lines, and the audit's rotation never pushes a command that ran out.
import type { CommandRecord } from '../engine/log.js';
import type { Refusal } from './admission.js';

/** Refusals of one member logged and audited in full per interval, before they are only counted. */
export const REFUSALS_IN_FULL = 5;

interface Counted {
  since: number;
  inFull: number;
  total: number;
  byKind: Map<string, number>;
}

export interface RefusalDetail {
  /** The command's id, when it had one. */
  id: string | null;
  /** Its method, when it had one. */
  method: string | null;
  /** "PUT /api/app/new" or the method, as the log names it. */
  request: string;
}

export class RefusalReport {
  /** Members refused since their last line, with their counts; a member absent was quiet. */
  private readonly counting = new Map<string, Counted>();

  constructor(
    private readonly recorder: string,
    private readonly write: (line: string) => void,
    private readonly audit: ((record: CommandRecord) => void) | undefined,
    private readonly intervalMs: number,
  ) {}

  /** A refused command from `member` (a signature said so) at `now`. */
  refused(member: string, refusal: Refusal, detail: RefusalDetail, now: number): void {
    let counted = this.counting.get(member);
    if (counted === undefined) {
      counted = { since: now, inFull: 0, total: 0, byKind: new Map() };
      this.counting.set(member, counted);
    }
    if (counted.inFull < REFUSALS_IN_FULL) {
      counted.inFull += 1;
      this.write(`recorder "${this.recorder}": ${detail.request} for "${member}"${detail.id === null ? '' : ` (command ${detail.id})`}: refused: ${refusal.why}`);
      this.audit?.({ at: now, surface: `bus:${member}`, control: detail.id === null ? 'command' : `command ${detail.id}`, action: detail.method ?? '?', recorder: this.recorder, request: null, result: 'refused', message: refusal.why, requestAfterMs: null, latencyMs: 0 });
      return;
    }
    counted.total += 1;
    counted.byKind.set(refusal.kind, (counted.byKind.get(refusal.kind) ?? 0) + 1);
    if (now - counted.since >= this.intervalMs) this.summarise(member, counted, now);
  }

  /** A refusal only counted, never logged on its own (commands dropped in a cool-down, which was logged). */
  counted(member: string, kind: string, now: number): void {
    const counted = this.counting.get(member) ?? { since: now, inFull: REFUSALS_IN_FULL, total: 0, byKind: new Map<string, number>() };
    this.counting.set(member, counted);
    counted.total += 1;
    counted.byKind.set(kind, (counted.byKind.get(kind) ?? 0) + 1);
    if (now - counted.since >= this.intervalMs) this.summarise(member, counted, now);
  }

  /**
   * Sums up every member whose interval is over (the poller calls this on a timer, so a flood that stops
   * is summed up too); `all`: every member with refusals only counted, however short its interval so far
   * (a poller stopping: counts never summed up would be refusals no audit line tells of).
   */
  flush(now: number, all = false): void {
    for (const [member, counted] of this.counting) if (all || now - counted.since >= this.intervalMs) this.summarise(member, counted, now);
  }

  private summarise(member: string, counted: Counted, now: number): void {
    if (counted.total === 0) {
      // Nothing only counted in a whole interval: its next refusals are said in full again.
      this.counting.delete(member);
      return;
    }
    const seconds = Math.round((now - counted.since) / 1000);
    const kinds = [...counted.byKind].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} (${count.toLocaleString('en-US')})`);
    const message = `${counted.total.toLocaleString('en-US')} more refused in the last ${seconds} s: ${kinds.join(', ')}`;
    this.write(`recorder "${this.recorder}": "${member}": ${message}`);
    this.audit?.({ at: now, surface: `bus:${member}`, control: 'refusals', action: 'summary', recorder: this.recorder, request: null, result: 'refused', message, requestAfterMs: null, latencyMs: 0 });
    this.counting.set(member, { since: now, inFull: REFUSALS_IN_FULL, total: 0, byKind: new Map() });
  }
}
