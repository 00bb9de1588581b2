// Issue 34: a refused command costs nothing. The poller's admission (admission.ts) as a pure decision
// on given moments: the order of its checks, the arguments each operation takes (from the operation
// table), the rate every signed command counts against and the cool-down after it; the bounded
// de-duplication memory (recent-commands.ts), the bounded report of refusals (refusal-report.ts) and
// the slices that read commands after the lease (work-slices.ts), on virtual time.
import { describe, expect, it } from 'vitest';
import { admit, MemberRates, type Admission } from '../../src/bus/admission.js';
import { argumentError, commandArgsOf, isClientCall } from '../../src/bus/command-args.js';
import { COOL_DOWN_MS, MAX_DEADLINE_AHEAD_MS, MESSAGE_RATE, WRITE_RATE } from '../../src/bus/limits.js';
import { OPERATION_GROUP } from '../../src/bus/operation-groups.js';
import { RecentCommands } from '../../src/bus/recent-commands.js';
import { RefusalReport } from '../../src/bus/refusal-report.js';
import { WorkSlices } from '../../src/bus/work-slices.js';
import type { CommandMessage } from '../../src/bus/topics.js';
import type { CommandRecord } from '../../src/engine/log.js';
import { timer } from 'rxjs';
import { VirtualTime } from '../support/virtual-time.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
/** desk-1 may read and control; gallery may only read. */
const mayCall = (member: string, method: CommandMessage['call']['method']) => (member === 'desk-1' ? OPERATION_GROUP[method] !== 'admin' : OPERATION_GROUP[method] === 'read');
const command = (call: CommandMessage['call'], deadline = T0 + 2000, id = 'command-0001'): CommandMessage => ({ id, call, term: 'term-0001', sentAt: T0, deadline });
const verdictOf = (a: Admission) => (a.verdict === 'admit' ? 'admit' : `${a.verdict}: ${a.refusal.kind}`);

describe('admission', () => {
  it('refuses in order: rate, permission, deadline bound, deadline past, arguments; admits what passes', () => {
    const context = (rates = new MemberRates()) => ({ recorder: 'main', mayCall, rates, now: T0 });
    // Not allowed, far deadline, wrong arguments all at once: the permission is what is said.
    expect(verdictOf(admit('gallery', command({ method: 'newSession', args: [{}] }, T0 + 3_600_000), context()))).toBe('refuse: not allowed to call newSession');
    expect(verdictOf(admit('desk-1', command({ method: 'recStart', args: [{ x: 1 }] }, T0 + MAX_DEADLINE_AHEAD_MS + 1), context()))).toBe('refuse: deadline too far ahead');
    expect(verdictOf(admit('desk-1', command({ method: 'recStart', args: [{ x: 1 }] }, T0), context()))).toBe('refuse: arrived after its deadline');
    expect(verdictOf(admit('desk-1', command({ method: 'recStart', args: [{ x: 1 }] }), context()))).toBe('refuse: wrong arguments to recStart');
    expect(admit('desk-1', command({ method: 'recStart', args: [0] }, T0 + MAX_DEADLINE_AHEAD_MS), context())).toEqual({ verdict: 'admit', call: { method: 'recStart', args: [0] } });
    // The rate comes first: a member without tokens is refused for that, whatever else is wrong.
    const rates = new MemberRates();
    for (let i = 0; i < WRITE_RATE.burst; i++) admit('gallery', command({ method: 'newSession', args: [] }), context(rates));
    expect(verdictOf(admit('gallery', command({ method: 'newSession', args: [] }, T0 + 3_600_000), context(rates)))).toBe('refuse: more than 20 writes a second');
  });

  it("checks each operation's arguments as the operation table has them, naming what is wrong", () => {
    expect(isClientCall({ method: 'recStart', args: [3] })).toBe(true);
    expect(isClientCall({ method: 'setChannelSource', args: [0, 'Camera 1'] })).toBe(true);
    expect(isClientCall({ method: 'saveProject', args: ['C:/shows/one.proj'] })).toBe(true);
    expect(isClientCall({ method: 'setChannelCount', args: [9] })).toBe(true);
    expect(isClientCall({ method: 'syncRecStart', args: [] })).toBe(true);
    expect(argumentError({ method: 'recStart', args: [{}] })).toMatch(/^argument 0: .*number.* \(recStart takes index\)$/);
    expect(argumentError({ method: 'recStart', args: [-1] })).toMatch(/^argument 0: /);
    expect(argumentError({ method: 'recStart', args: [] })).toBe('recStart takes index, got 0 arguments (recStart takes index)');
    expect(argumentError({ method: 'recStart', args: [0, 1] })).toMatch(/recStart takes index/);
    expect(argumentError({ method: 'setChannelCount', args: [5] })).toMatch(/^argument 0: /);
    expect(argumentError({ method: 'setChannelSource', args: [0, 7] })).toMatch(/^argument 1: /);
    expect(argumentError({ method: 'saveProject', args: [{ Path: 'x' }] })).toMatch(/^argument 0: /);
    expect(argumentError({ method: 'updateSource', args: [0, { AudioGain: 'loud' }] })).toMatch(/^argument 1\.AudioGain: /);
    expect(argumentError({ method: 'updateSource', args: [0, { AudioGain: -6 }] })).toBeNull();
  });

  it("a panel's call as a command carries it: the operation's arguments only (its request options stay), or what is wrong, before anything is sent", () => {
    const signal = new AbortController().signal;
    expect(commandArgsOf({ method: 'recStart', args: [3, { signal }] })).toEqual({ ok: true, args: [3] });
    expect(commandArgsOf({ method: 'syncRecStart', args: [{ signal }] })).toEqual({ ok: true, args: [] });
    expect(commandArgsOf({ method: 'updateSource', args: [0, { AudioGain: -6 }] })).toEqual({ ok: true, args: [0, { AudioGain: -6 }] });
    expect(commandArgsOf({ method: 'recStart', args: [-1] })).toEqual({ ok: false, error: expect.stringMatching(/^argument 0: .*\(recStart takes index\)$/) as unknown });
  });

  it('a member over its rate is refused for a burst, then ignored for the cool-down, then answered again', () => {
    const rates = new MemberRates();
    const at = (now: number) => verdictOf(admit('gallery', command({ method: 'newSession', args: [] }), { recorder: 'main', mayCall, rates, now }));
    const verdicts = Array.from({ length: 3 * WRITE_RATE.burst }, () => at(T0));
    expect(verdicts.filter((v) => v === 'refuse: not allowed to call newSession')).toHaveLength(WRITE_RATE.burst);
    expect(verdicts.filter((v) => v === 'refuse: more than 20 writes a second')).toHaveLength(WRITE_RATE.burst);
    expect(verdicts[2 * WRITE_RATE.burst]).toBe('cool-down: more than 20 writes a second');
    expect(rates.coolingDown('gallery', T0 + COOL_DOWN_MS - 1)).toBe(true);
    expect(rates.coolingDown('desk-1', T0)).toBe(false);
    expect(rates.coolingDown('gallery', T0 + COOL_DOWN_MS)).toBe(false);
    expect(at(T0 + COOL_DOWN_MS)).toBe('refuse: not allowed to call newSession');
  });

  it('a member back from a cool-down has no burst: a flood that goes on is cooled down again at its second message; one that calmed down has its bursts back', () => {
    const rates = new MemberRates();
    while (rates.arrive('gallery', T0)?.verdict !== 'cool-down');
    const back = T0 + COOL_DOWN_MS;
    // The flood goes on the moment its topic is subscribed again: its first message is read, its second starts the next cool-down.
    expect([rates.arrive('gallery', back), rates.arrive('gallery', back)?.verdict]).toEqual([null, 'cool-down']);
    expect(rates.coolingDown('gallery', back + COOL_DOWN_MS - 1)).toBe(true);
    // Answered again after it, its first command read and judged.
    const again = back + COOL_DOWN_MS;
    expect(verdictOf(admit('gallery', command({ method: 'newSession', args: [] }), { recorder: 'main', mayCall, rates, now: again }))).toBe('refuse: not allowed to call newSession');
    // Calm for as long as its bursts take to refill (2 s of messages): a whole burst read again, then refusals before a cool-down.
    const calm = again + (1000 * MESSAGE_RATE.burst) / MESSAGE_RATE.perS;
    const verdicts = Array.from({ length: MESSAGE_RATE.burst + 1 }, () => rates.arrive('gallery', calm)?.verdict ?? 'read');
    expect(verdicts.filter((v) => v === 'read')).toHaveLength(MESSAGE_RATE.burst);
    expect(verdicts.at(-1)).toBe('refuse');
  });

  it("a message on a member's command topic counts before anything is read of it: over a burst refused unread, then the cool-down; a desk at its full rates never comes near it", () => {
    const rates = new MemberRates();
    const verdicts = Array.from({ length: 2 * MESSAGE_RATE.burst + 1 }, () => rates.arrive('gallery', T0)?.verdict ?? 'read');
    expect(verdicts.filter((v) => v === 'read')).toHaveLength(MESSAGE_RATE.burst);
    expect(verdicts.filter((v) => v === 'refuse')).toHaveLength(MESSAGE_RATE.burst);
    expect(verdicts.at(-1)).toBe('cool-down');
    expect(rates.coolingDown('gallery', T0 + COOL_DOWN_MS - 1)).toBe(true);
    expect(rates.arrive('desk-1', T0)).toBeNull();
    // A desk at its full read and write rates together never comes near it.
    const desk = new MemberRates();
    const refused = Array.from({ length: 10 * MESSAGE_RATE.perS }, (_, i) => desk.arrive('desk-1', T0 + Math.floor((i * 1000) / MESSAGE_RATE.perS))).filter((a) => a !== null);
    expect(refused).toEqual([]);
  });
});

describe('the de-duplication memory', () => {
  it('keeps an id until its deadline second is over, forgets whole seconds, and is capped', () => {
    const time = new VirtualTime(T0);
    const recent = new RecentCommands<string>(1000);
    let runs = 0;
    const take = (id: string, deadline: number) => recent.once(id, deadline, time.now(), () => `ran ${id} (${++runs})`);
    // 10 commands a second for 60 s, each with a deadline 10 s ahead (the bound): the memory never holds more than 11 s of them.
    let most = 0;
    for (let i = 0; i < 600; i++) {
      expect(take(`c${i}`, time.now() + MAX_DEADLINE_AHEAD_MS)?.duplicate).toBe(false);
      most = Math.max(most, recent.size);
      time.advance(100);
    }
    expect(most).toBeLessThanOrEqual(120);
    // A copy within its deadline gets the same answer and does not run again.
    expect(take('c599', time.now() + 1000)).toEqual({ result: 'ran c599 (600)', duplicate: true });
    expect(runs).toBe(600);
    // Full: a new command is not taken (and does not run); nothing is forgotten before its time.
    const full = new RecentCommands<string>(3);
    for (const id of ['a', 'b', 'c']) full.once(id, T0 + 5000, T0, () => id);
    expect(full.once('d', T0 + 5000, T0, () => 'd')).toBeNull();
    expect(full.once('a', T0 + 5000, T0 + 4000, () => 'again')).toEqual({ result: 'a', duplicate: true });
    expect(full.once('d', T0 + 9000, T0 + 6000, () => 'd')).toEqual({ result: 'd', duplicate: false });
    expect(full.size).toBe(1);
  });
});

describe('the refusal report', () => {
  it("logs and audits a member's first few refusals, then one counted summary per interval, and starts again after a quiet interval", () => {
    const time = new VirtualTime(T0);
    const lines: string[] = [];
    const audit: CommandRecord[] = [];
    const report = new RefusalReport('main', (line) => lines.push(line), (record) => audit.push(record), 60_000);
    const refusal = { kind: 'not allowed to call newSession', why: 'the facility file does not let "gallery" call newSession on "main"' };
    for (let i = 0; i < 30_000; i++) {
      report.refused('gallery', refusal, { id: `c${i}`, method: 'newSession', request: 'PUT /api/app/new' }, time.now());
      time.advance(2); // 30,000 in 60 s
      report.flush(time.now());
    }
    report.flush(time.now() + 60_000);
    const full = (i: number) => `recorder "main": PUT /api/app/new for "gallery" (command c${i}): refused: the facility file does not let "gallery" call newSession on "main"`;
    expect(lines).toEqual([...[0, 1, 2, 3, 4].map(full), 'recorder "main": "gallery": 29,995 more refused in the last 60 s: not allowed to call newSession (29,995)']);
    expect(audit.map((r) => [r.control, r.result, r.message])).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => [`command c${i}`, 'refused', refusal.why]),
      ['refusals', 'refused', '29,995 more refused in the last 60 s: not allowed to call newSession (29,995)'],
    ]);
    // Quiet for an interval: the next refusal is a first again, in full.
    report.flush(time.now() + 120_000);
    report.refused('gallery', refusal, { id: 'later', method: 'newSession', request: 'PUT /api/app/new' }, time.now() + 130_000);
    expect(lines.at(-1)).toContain('(command later): refused');
    expect(lines).toHaveLength(7);
  });

  it('sums up, when told to (a poller stopping), every member with refusals only counted, however short its interval so far', () => {
    const time = new VirtualTime(T0);
    const audit: CommandRecord[] = [];
    const report = new RefusalReport('main', () => undefined, (record) => audit.push(record), 60_000);
    const refusal = { kind: 'arrived after its deadline', why: 'it arrived 5 ms after its deadline' };
    for (let i = 0; i < 7; i++) report.refused('gallery', refusal, { id: `c${i}`, method: 'recStart', request: 'PUT /api/channels/0/rec-start' }, time.now());
    report.counted('desk-2', 'ignored in a cool-down', time.now());
    time.advance(10_000);
    report.flush(time.now());
    expect(audit).toHaveLength(5);
    report.flush(time.now(), true);
    expect(audit.slice(5).map((r) => [r.surface, r.control, r.message])).toEqual([
      ['bus:gallery', 'refusals', '2 more refused in the last 10 s: arrived after its deadline (2)'],
      ['bus:desk-2', 'refusals', '1 more refused in the last 10 s: ignored in a cool-down (1)'],
    ]);
    report.flush(time.now(), true);
    expect(audit).toHaveLength(7);
  });
});

describe('the work slices', () => {
  /** Virtual time whose precise clock each piece of work moves on by the CPU it stands for. */
  const slicedTime = () => {
    const time = new VirtualTime(T0);
    let cpu = 0;
    return { time, spend: (ms: number) => void (cpu += ms), engine: { now: time.now, scheduler: time.scheduler, precise: () => time.now() + cpu } };
  };

  it('does the work in later turns, at most a slice at a time, with what else is due (a lease renewal) between slices', () => {
    const { time, spend, engine } = slicedTime();
    const failures: unknown[] = [];
    const slices = new WorkSlices(engine, (error) => failures.push(error), 5, 100);
    const done: string[] = [];
    for (let i = 0; i < 10; i++) expect(slices.add(() => (spend(2), void done.push(`command ${i}`)))).toBe(true);
    // Nothing on the receive path: all of it in later turns.
    expect(done).toEqual([]);
    // A renewal falls due while the flood waits: it runs after the first slice, not after the flood.
    timer(0, time.scheduler).subscribe(() => done.push('renewal'));
    time.advance(0);
    // 2 ms a command, slices of 5 ms: three a slice (the third starts at 4 ms), then the renewal's turn.
    expect(done).toEqual(['command 0', 'command 1', 'command 2', 'renewal', 'command 3', 'command 4', 'command 5', 'command 6', 'command 7', 'command 8', 'command 9']);
    expect(slices.size).toBe(0);
    expect(failures).toEqual([]);
  });

  it('refuses work past its bound, says what threw and goes on, and drops what waits when cleared', () => {
    const { time, engine } = slicedTime();
    const failures: unknown[] = [];
    const slices = new WorkSlices(engine, (error) => failures.push(error), 5, 3);
    const done: number[] = [];
    const work = (i: number) => () => {
      if (i === 1) throw new Error('a bug');
      done.push(i);
    };
    expect([0, 1, 2, 3].map((i) => slices.add(work(i)))).toEqual([true, true, true, false]);
    time.advance(0);
    expect(done).toEqual([0, 2]);
    expect(failures.map(String)).toEqual(['Error: a bug']);
    slices.add(() => void done.push(4));
    expect(slices.clear()).toBe(1);
    time.advance(10);
    expect(done).toEqual([0, 2]);
  });
});
