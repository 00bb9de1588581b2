// A panel's acknowledgement of alarms at the poller, as decisions on given moments (no socket, no
// timer): what the holder's engine does with each alarm (src/bus/bus-alarm-ack.ts, over the alarm
// engine's own acknowledge decision), what the facility lets a panel acknowledge (control on the
// recorder), the admission's checks in order (admission.ts: admitAck), and the bounds of the message.
// End to end over Mosquitto (the panel's web API and key, the lease, forgeries, replays): alarms-bus.test.ts.
import { describe, expect, it } from 'vitest';
import { generatedFacility } from '../../src/bench/generated-facility.js';
import { admitAck, MemberRates } from '../../src/bus/admission.js';
import { acknowledgeFromBus, type AckableAlarms } from '../../src/bus/bus-alarm-ack.js';
import { MAX_DEADLINE_AHEAD_MS, MAX_PAYLOAD_BYTES, WRITE_RATE } from '../../src/bus/limits.js';
import { AlarmAckMessage, MAX_ACKED_ALARMS } from '../../src/bus/topics.js';
import type { Alarm } from '../../src/engine/alarms/alarm.js';
import { EMPTY_BOOK, acknowledge, type AlarmBook } from '../../src/engine/alarms/alarm-decision.js';

const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);

const alarm = (id: string, recorder: string, more: Partial<Alarm> = {}): Alarm => ({ id, kind: 'channel-fault', recorder, channel: 3, disk: null, severity: 'critical', text: `a fault on ${recorder}`, firstSeen: T0, lastSeen: T0, raisedAt: T0, ackedAt: null, ackedBy: null, clearedAt: null, ...more });

/** An engine over the alarm decision's own acknowledge (what AlarmMonitor.ackJudgedHere runs). */
function engine(active: Alarm[], cleared: Alarm[] = []): AckableAlarms & { book: AlarmBook } {
  const holder = {
    book: { ...EMPTY_BOOK, active: new Map(active.map((a) => [a.id, a])), cleared } as AlarmBook,
    activeJudgedHere: () => [...holder.book.active.values()],
    cleared: () => holder.book.cleared,
    ackJudgedHere: (id: string, by: string) => {
      const decision = acknowledge(holder.book, id, by, T0 + 500);
      if ('error' in decision) return { ok: false as const, reason: decision.error };
      holder.book = decision.book;
      return { ok: true as const, alarm: holder.book.active.get(id) as Alarm };
    },
  };
  return holder;
}

describe("the holder's engine acknowledges what a panel asks for", () => {
  it('acknowledges the raise the panel showed, naming the panel and who; answers done for one acknowledged or cleared already; leaves a raise it did not show, another recorder\'s and an unknown one', () => {
    const engineNow = engine(
      [alarm('channel-fault:main:ch3', 'main'), alarm('disk-time:main:D', 'main', { ackedAt: T0 + 100, ackedBy: 'bus:desk-2: memory:desk-2 key0' }), alarm('channel-fault:main:ch4', 'main', { raisedAt: T0 + 200 }), alarm('channel-fault:backup:ch3', 'backup')],
      [alarm('channel-fault:main:ch5', 'main', { clearedAt: T0 + 300 })],
    );
    const acks = acknowledgeFromBus(engineNow, 'main', 'desk-1', {
      by: '10.0.0.7 (remote API)',
      alarms: [
        { id: 'channel-fault:main:ch3', raisedAt: T0 },
        { id: 'disk-time:main:D', raisedAt: T0 },
        { id: 'channel-fault:main:ch5', raisedAt: T0 },
        // Raised again (at T0 + 200) since the raise the panel showed.
        { id: 'channel-fault:main:ch4', raisedAt: T0 },
        // Another recorder's alarm, active in the same engine: not this poller's to acknowledge for a panel of main.
        { id: 'channel-fault:backup:ch3', raisedAt: T0 },
        { id: 'channel-fault:main:ch9', raisedAt: T0 },
      ],
    });
    expect(acks.map((a) => [a.id, a.outcome, a.alarm?.state ?? null, a.alarm?.ackedBy ?? null])).toEqual([
      ['channel-fault:main:ch3', 'acked', 'acked', 'bus:desk-1: 10.0.0.7 (remote API)'],
      ['disk-time:main:D', 'already-acked', 'acked', 'bus:desk-2: memory:desk-2 key0'],
      ['channel-fault:main:ch5', 'cleared', 'cleared', null],
      ['channel-fault:main:ch4', 'raised-again', 'raised', null],
      ['channel-fault:backup:ch3', 'not-active', null, null],
      ['channel-fault:main:ch9', 'not-active', null, null],
    ]);
    // In the engine: only the one acknowledged now changed.
    expect([...engineNow.book.active.values()].map((a) => [a.id, a.ackedBy])).toEqual([
      ['channel-fault:main:ch3', 'bus:desk-1: 10.0.0.7 (remote API)'],
      ['disk-time:main:D', 'bus:desk-2: memory:desk-2 key0'],
      ['channel-fault:main:ch4', null],
      ['channel-fault:backup:ch3', null],
    ]);
    // The same again (a copy, a second press): the same outcome as done, nothing changed.
    const again = acknowledgeFromBus(engineNow, 'main', 'desk-1', { by: '10.0.0.7 (remote API)', alarms: [{ id: 'channel-fault:main:ch3', raisedAt: T0 }] });
    expect(again).toMatchObject([{ outcome: 'already-acked', alarm: { ackedBy: 'bus:desk-1: 10.0.0.7 (remote API)', ackedAt: new Date(T0 + 500).toISOString() } }]);
  });
});

describe('who may acknowledge', () => {
  const { authority } = generatedFacility('main', ['poller-main'], ['desk-1', 'gallery', 'starter'], { gallery: ['read'] });
  const poller = authority('poller-main');

  it('a panel the facility lets call every control operation on the recorder; not one that may only read, nor a poller', () => {
    expect([poller.mayAckAlarms('desk-1', 'main'), poller.mayAckAlarms('gallery', 'main'), poller.mayAckAlarms('desk-1', 'backup'), poller.mayAckAlarms('poller-main', 'main')]).toEqual([true, false, false, false]);
  });

  it('admits in order: rate (a write), leave, deadline', () => {
    const ack = (deadline: number): AlarmAckMessage => ({ id: 'command-0001', ack: { alarms: [{ id: 'channel-fault:main:ch3', raisedAt: T0 }], by: 'memory:desk-1 key0' }, term: 'term-0001', sentAt: T0, deadline });
    const context = (rates = new MemberRates()) => ({ recorder: 'main', mayAck: (member: string) => poller.mayAckAlarms(member, 'main'), rates, now: T0 });
    const verdict = (member: string, deadline: number, rates?: MemberRates) => {
      const a = admitAck(member, ack(deadline), context(rates));
      return a.verdict === 'admit' ? 'admit' : `${a.verdict}: ${a.refusal.why}`;
    };
    expect(verdict('gallery', T0 - 1)).toBe('refuse: the facility file does not let "gallery" acknowledge the alarms of "main" (it needs control there)');
    expect(verdict('desk-1', T0 + MAX_DEADLINE_AHEAD_MS + 1)).toMatch(/^refuse: its deadline is 10001 ms ahead/);
    expect(verdict('desk-1', T0)).toBe('refuse: it arrived 0 ms after its deadline');
    expect(verdict('desk-1', T0 + 2000)).toBe('admit');
    const rates = new MemberRates();
    for (let i = 0; i < WRITE_RATE.burst; i++) verdict('desk-1', T0 + 2000, rates);
    expect(verdict('desk-1', T0 + 2000, rates)).toBe('refuse: "desk-1" sends more than 20 writes a second');
  });
});

describe('the acknowledgement on the wire', () => {
  it('carries at most MAX_ACKED_ALARMS alarms, which fit a command even with the longest ids; who acknowledged is one line', () => {
    const longest = Array.from({ length: MAX_ACKED_ALARMS }, (_, i) => ({ id: `${String(i).padStart(3, '0')}${'x'.repeat(197)}`, raisedAt: T0 }));
    const body = { id: 'f'.repeat(100), ack: { alarms: longest, by: 'b'.repeat(200) }, term: 't'.repeat(64), sentAt: T0, deadline: T0 + 2000 };
    expect(AlarmAckMessage.safeParse(body).success).toBe(true);
    // The envelope adds its from, at and an Ed25519 signature (88 base64 characters) to the body.
    expect(Buffer.byteLength(JSON.stringify({ from: 'x'.repeat(64), at: T0, body, sig: 's'.repeat(88) }))).toBeLessThan(MAX_PAYLOAD_BYTES.cmd);
    expect(AlarmAckMessage.safeParse({ ...body, ack: { ...body.ack, alarms: [...longest, { id: 'one-more', raisedAt: T0 }] } }).success).toBe(false);
    expect(AlarmAckMessage.safeParse({ ...body, ack: { ...body.ack, by: 'desk\nforged line' } }).error?.issues[0]?.message).toBe('who acknowledged is named without control characters');
  });
});
