// The alarms key and the alarm-ack action, pure: the picture derived from an alarm book built by hand
// (count, worst, flashing while one waits, calm when none, not live when the book is not kept up), the
// tile drawn from it, and the action through the session's transition (its effect, its refusal without
// an alarm engine) as the action table says.
import { describe, expect, it } from 'vitest';
import type { Alarm } from '../../src/engine/alarms/alarm.js';
import { alarmsPicture, type AlarmReading } from '../../src/engine/alarms/alarm-picture.js';
import { ACTIONS } from '../../src/engine/actions/index.js';
import { NextChange } from '../../src/engine/next-change.js';
import type { AlarmsPicture, Picture } from '../../src/engine/picture.js';
import { initialSessionState, type SessionEffect } from '../../src/engine/session/session-state.js';
import { transition } from '../../src/engine/session/session-transition.js';
import { FLASH_PHASE_MS, pictureFor, showOf, type ShowInputs } from '../../src/engine/show.js';
import type { ControlDefinition } from '../../src/engine/surface.js';
import { ledStateOf } from '../../src/render/led.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';
import { parseTestProfile } from '../support/bridge.js';

const POLL = 250;
/** A whole number of flash phases, so the first phase is the bright one. */
const NOW = 1_000_000;

function alarm(over: Partial<Alarm> & Pick<Alarm, 'kind'>): Alarm {
  const channel = over.channel === undefined ? 3 : over.channel;
  return { id: `${over.kind}:main${channel === null ? '' : `:ch${channel}`}`, recorder: 'main', channel, disk: null, severity: 'critical', text: 'something is wrong', firstSeen: NOW - 1000, lastSeen: NOW, raisedAt: NOW - 500, ackedAt: null, ackedBy: null, clearedAt: null, ...over };
}

const reading = (active: Alarm[], judgedAt: number | null = NOW - 100): AlarmReading => ({ active, judgedAt, judgeEveryMs: POLL });

function pictureAt(value: AlarmReading | null, now = NOW): { picture: AlarmsPicture; next: number | null } {
  const changes = new NextChange(now);
  const picture = alarmsPicture(value, now, changes, FLASH_PHASE_MS);
  return { picture, next: changes.moment };
}

describe('the alarms key', () => {
  it('is calm with no alarm: 0, not flashing, and changes only when the book would turn stale', () => {
    const { picture, next } = pictureAt(reading([]));
    expect(picture).toEqual({ kind: 'alarms', count: 0, waiting: 0, worst: null, flashing: false, flashPhase: false, freshness: 'live', ageS: null });
    expect(next).toBe(NOW - 100 + 3 * POLL + 1);
    expect(ledStateOf(picture)).toBe('idle');
  });

  it('shows the count and the worst alarm (kind, recorder, channel), flashing each half second while one waits', () => {
    const worst = alarm({ kind: 'channel-fault', channel: 3 });
    const other = alarm({ kind: 'drops-rising', channel: 5, severity: 'warning' });
    const bright = pictureAt(reading([worst, other]));
    expect(bright.picture).toMatchObject({ count: 2, waiting: 2, worst: { word: 'FAULT', recorder: 'main', channel: 3, severity: 'critical', acked: false }, flashing: true, flashPhase: true, freshness: 'live' });
    expect(bright.next).toBe(NOW + FLASH_PHASE_MS);
    const dark = pictureAt(reading([worst, other]), NOW + FLASH_PHASE_MS);
    expect(dark.picture).toMatchObject({ flashing: true, flashPhase: false });
    expect([ledStateOf(bright.picture), ledStateOf(dark.picture)]).toEqual(['wrong', 'off']);
  });

  it('stops flashing once every alarm is acknowledged, and still counts them', () => {
    const acked = alarm({ kind: 'unexpected-stop', channel: 2, ackedAt: NOW - 10, ackedBy: 'memory:x key0' });
    const { picture, next } = pictureAt(reading([acked]));
    expect(picture).toMatchObject({ count: 1, waiting: 0, worst: { word: 'STOPPED', channel: 2, acked: true }, flashing: false, flashPhase: false });
    expect(next).toBe(NOW - 100 + 3 * POLL + 1); // no flash phase to wait for
    expect(ledStateOf(picture)).toBe('wrong');
  });

  it('names a whole-recorder alarm without a channel', () => {
    expect(pictureAt(reading([alarm({ kind: 'recorder-offline', channel: null })])).picture.worst).toEqual({ word: 'OFFLINE', recorder: 'main', channel: null, severity: 'critical', acked: false });
  });

  it('is not live when the book has not been judged for three of its intervals: its age, no flashing', () => {
    const judgedAt = NOW - 3 * POLL - 1;
    const { picture, next } = pictureAt(reading([alarm({ kind: 'channel-fault' })], judgedAt));
    expect(picture).toMatchObject({ count: 1, freshness: 'stale', flashing: false, flashPhase: false, ageS: 0 });
    expect(next).toBe(judgedAt + 1000); // the age's next second (and a judgement again is picked up then)
    expect(ledStateOf(picture)).toBe('stale');
  });

  it('is offline, with no count, where there is no alarm engine or it has never judged', () => {
    for (const value of [null, reading([], null)]) {
      const { picture, next } = pictureAt(value);
      expect(picture).toMatchObject({ count: null, freshness: 'offline', flashing: false, ageS: null });
      expect(next).toBeNull();
    }
  });

  it('is drawn: calm, both flash phases, acknowledged and stale all look different', async () => {
    const renderer = new KeyRenderer();
    const size = { width: 72, height: 72 };
    const waiting = reading([alarm({ kind: 'channel-fault' })]);
    const pictures: Picture[] = [
      pictureAt(reading([])).picture,
      pictureAt(waiting).picture,
      pictureAt(waiting, NOW + FLASH_PHASE_MS).picture,
      pictureAt(reading([alarm({ kind: 'channel-fault', ackedAt: NOW })])).picture,
      pictureAt(reading([alarm({ kind: 'channel-fault' })], NOW - 5000)).picture,
      pictureAt(null).picture,
    ];
    const images = await Promise.all(pictures.map((picture) => renderer.render(picture, size)));
    const texts = images.map((image) => Buffer.from(image.data).toString('base64'));
    expect(new Set(texts).size).toBe(pictures.length);
  });

  it('is what `show: alarms` and an alarm-ack binding show, whatever recorder the binding names', () => {
    const inputs = { recorder: undefined, recorderName: 'nowhere', now: NOW, changes: new NextChange(NOW), alarms: () => reading([]) } as unknown as ShowInputs;
    expect(showOf({ show: 'alarms' })).toBe('alarms');
    expect(showOf({ press: { action: 'alarm-ack' } })).toBe('alarms');
    expect(pictureFor('alarms', inputs)).toMatchObject({ kind: 'alarms', count: 0, freshness: 'live' });
  });
});

describe('the alarm-ack action', () => {
  const controls = new Map<string, ControlDefinition>([['key0', { kind: 'key', id: 'key0', row: 0, column: 0, pixelSize: { width: 72, height: 72 } }]]);
  const { profile } = parseTestProfile('name: t\nmatch: { kind: memory }\npages:\n  - name: Main\n    controls:\n      key0: { press: { action: alarm-ack } }\n');
  const tap = (alarmEngine: boolean): SessionEffect[] => {
    const world = { now: NOW, profile: { pages: profile.pages }, dialogUp: false, controls, alarmEngine };
    const down = transition(initialSessionState('Main', 70), { type: 'input', input: { type: 'down', control: 'key0' } }, world);
    return [...down.effects, ...transition(down.state, { type: 'input', input: { type: 'up', control: 'key0' } }, world).effects];
  };

  it('is an action of the bridge\'s own: it asks the alarm engine to acknowledge every alarm, by this control', () => {
    expect(ACTIONS['alarm-ack'].kind).toBe('bridge');
    expect(tap(true)).toEqual([{ type: 'ack-alarms', control: 'key0' }]);
  });

  it('without an alarm engine it is refused: the key flashes why and the log says it', () => {
    const effects = tap(false);
    expect(effects.some((e) => e.type === 'ack-alarms')).toBe(false);
    expect(effects).toContainEqual({ type: 'warn', message: 'key0: alarm-ack: this recdeck runs no alarm engine' });
  });
});
