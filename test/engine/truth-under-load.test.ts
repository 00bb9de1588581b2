// Keys tell the truth under load: the real bridge on virtual time against the simulator over real HTTP,
// with answers delayed on virtual time (so requests overlap as over a network) and the simulator's
// fault rules. Reads cannot starve, a recorder that answers badly keeps its pace, no key shows live what
// is old, old data is shown as old, and the bridge checks that the recorder did what it said it did.
import { afterEach, describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

// Every test reads the keys' pictures, never their images: the keys are drawn as pictures (bridge.ts, draws).
let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const pictureOf = (fixture: BridgeFixture, control: string): Picture | undefined => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;
const profile = (controls: string) => `name: t\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n${controls}\n`;

describe('reads that cannot starve', () => {
  it('16 preview keys and a recorder 500 ms away: live more than 95 % of the time, never offline', async () => {
    const keys = Array.from({ length: 16 }, (_, i) => `      key${i}: { show: { channel: ${i + 1}, thumbnail: true } }`).join('\n');
    // Still previews (a camera on a still scene): they are fetched as often (the load on the reads), and
    // what they show is not read here; a moving one was encoded by the simulator at every fetch and
    // decoded by the bridge.
    f = await startBridgeFixture({ draws: 'pictures', simulator: { stillPreviews: true }, profile: profile(keys), pollMs: 250, controls: Array.from({ length: 16 }, (_, i) => ({ kind: 'key' as const, id: `key${i}`, row: Math.floor(i / 4), column: i % 4, pixelSize: { width: 72, height: 72 } })) });
    const fixture = f;
    fixture.requests.latencyMs = 500;
    await fixture.advance(3000);
    const seen = new Map<string, number>();
    for (let step = 0; step < 200; step++) {
      await fixture.advance(50);
      const picture = pictureOf(fixture, 'key0');
      const state = picture?.kind === 'channel' ? picture.state : 'missing';
      seen.set(state, (seen.get(state) ?? 0) + 1);
    }
    expect(seen.get('offline') ?? 0).toBe(0);
    expect((seen.get('idle') ?? 0) / 200).toBeGreaterThan(0.95);
    // Previews were fetched meanwhile, and the polls kept their pace: one every 500 ms (the latency).
    expect(fixture.sim.log.list().filter((r) => r.path.endsWith('/preview')).length).toBeGreaterThan(16);
  });

  it('a streak of 500 answers does not slow the poll: stale with the error, live again at the first good answer', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { show: { channel: 1 } }') });
    const fixture = f;
    await fixture.advance(300);
    fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/channels', status: 500, probability: 1, latencyMs: 0, count: 15 }]);
    const mark = fixture.mark();
    await fixture.advance(1000);
    // Every 100 ms as before, not backing off.
    expect(fixture.sim.log.list().filter((r) => r.seq > mark && r.path === '/api/channels').length).toBeGreaterThanOrEqual(10);
    expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'channel', state: 'stale' });
    expect(fixture.bridge.recorderStates()[0]?.lastError).toMatch(/500|injected fault/);
    await fixture.advance(600); // the streak ends within 5 more polls
    expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'channel', state: 'idle' });
  });

  it('no key shows live what is older than 3 polls: a slow dialog read ages the dialog keys only', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { show: { channel: 1 } }\n      key1: { show: dialog }') });
    const fixture = f;
    fixture.requests.latencyByPath.set('/api/app/dialog', 1000);
    await fixture.advance(2000);
    for (let step = 0; step < 60; step++) {
      await fixture.advance(50);
      const state = fixture.bridge.recorderStates()[0];
      const now = fixture.now();
      const channel = pictureOf(fixture, 'key0');
      const dialog = pictureOf(fixture, 'key1');
      const channelsAge = now - (state?.readAt.channels ?? -Infinity);
      const dialogAge = now - (state?.readAt.dialog ?? -Infinity);
      if (channel?.kind === 'channel' && channel.state === 'idle') expect(channelsAge).toBeLessThanOrEqual(300);
      if (dialogAge > 300) expect(dialog).toMatchObject({ kind: 'dialog', flashPhase: false });
      if (dialogAge > 1000) expect((dialog as { ageS: number | null }).ageS).not.toBeNull();
    }
    // The channels, read quickly, stayed live all along while the dialog lagged.
    expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'channel', state: 'idle' });
  });

  it('a meter is as old as its own reads: slowed down (backed off) they age it, however fresh the channels are', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { show: { channel: 1 } }\n      key1: { show: { meter: 1 } }') });
    const fixture = f;
    const LATENCY_MS = 500; // meters every 100 ms; backed off, a read leaves every 1000 ms and answers 500 ms later
    fixture.requests.latencyByPath.set('/api/sources/{index}', LATENCY_MS);
    await fixture.advance(3000);
    const freshness = new Map<string, number>();
    for (let step = 0; step < 60; step++) {
      await fixture.advance(50);
      const now = fixture.now();
      const answered = fixture.sim.log.list().filter((r) => r.path === '/api/sources/0' && r.at + LATENCY_MS <= now);
      const meterAge = now - ((answered.at(-1)?.at ?? -Infinity) + LATENCY_MS);
      const meter = pictureOf(fixture, 'key1');
      if (meter?.kind !== 'meter') throw new Error('no meter');
      freshness.set(meter.freshness, (freshness.get(meter.freshness) ?? 0) + 1);
      if (meter.freshness === 'live') expect(meterAge).toBeLessThanOrEqual(300);
      else expect(meter).toMatchObject({ freshness: 'stale', levels: null, ageS: Math.floor(meterAge / 1000) });
      expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'channel', state: 'idle' });
    }
    expect(freshness.get('stale')).toBeGreaterThan(30);
  });
});

describe('old data is shown as old', () => {
  it('the last known dialog stays on its keys and its overlay when the dialog reads fail, marked with its age', async () => {
    f = await startBridgeFixture({
      draws: 'pictures',
      profile: `name: t\nmatch: { kind: memory }\noverlays: { dialog: Dialog }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n  - name: Dialog\n    controls:\n      key1: { show: dialog }\n`,
    });
    const fixture = f;
    await fixture.raw('POST', '/_sim/dialog', { body: JSON.stringify({ content: 'Disk D: almost full', buttons: 'OK' }) });
    await fixture.until(() => fixture.bridge.session('memory:test')?.currentPage.name === 'Dialog', 'the overlay');
    fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/app/dialog', status: 500, probability: 1, latencyMs: 0 }]);
    await fixture.advance(2000);
    expect(fixture.bridge.session('memory:test')?.currentPage.name).toBe('Dialog');
    expect(pictureOf(fixture, 'key1')).toMatchObject({ kind: 'dialog', active: true, text: 'Disk D: almost full', flashPhase: false, ageS: 2 });
  });

  it('a take\'s duration freezes at the last confirmed value when the data is old, and counts on when it is live again', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { show: { channel: 1 } }') });
    const fixture = f;
    await fixture.client.recStart(0);
    // Three seconds live, two old: each figure differs from the others, so which one is shown says why.
    await fixture.advance(3000);
    const live = pictureOf(fixture, 'key0');
    expect(live).toMatchObject({ kind: 'channel', state: 'recording', durationS: 3 });
    fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/channels', status: 500, probability: 1, latencyMs: 0 }]);
    await fixture.advance(2000);
    const frozen = pictureOf(fixture, 'key0');
    expect(frozen).toMatchObject({ kind: 'channel', state: 'stale', durationS: 3, ageS: 2 });
    fixture.sim.faults.set([]);
    await fixture.advance(200);
    expect(pictureOf(fixture, 'key0')).toMatchObject({ kind: 'channel', state: 'recording', durationS: 5 });
  });
});

describe('toggles and writes checked against fresh data', () => {
  it('schedule-toggle reads the schedule at the press: an outside change a moment ago is not undone', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { press: { action: schedule-toggle } }') });
    const fixture = f;
    await fixture.client.setSchedule({ StartTime: '23:00', StopTime: '23:30', IsEnabled: false });
    await fixture.advance(600); // the slow group has read it disabled
    await fixture.client.setSchedule({ IsEnabled: true }); // someone else enables it
    const mark = fixture.mark();
    const record = fixture.nextCommand('key0');
    fixture.surface.press('key0');
    expect(await record).toMatchObject({ result: 'ok', request: 'PUT /api/app/schedule' });
    expect(fixture.writesSince(mark)).toEqual(['PUT /api/app/schedule {"IsEnabled":false}']);
  });

  it('a recorder that answers OK and does not do it: the key flashes failed with the reason', async () => {
    f = await startBridgeFixture({ draws: 'pictures', profile: profile('      key0: { press: { action: schedule-on } }\n      key1: { press: { action: rec-start, channel: 2 } }') });
    const fixture = f;
    await fixture.advance(600);
    fixture.sim.faults.set([{ kind: 'ignore', method: 'PUT', probability: 1, latencyMs: 0, status: 500 }]);
    for (const [control, missing] of [
      ['key0', 'the schedule is still disabled'],
      ['key1', 'channel 2 is not recording'],
    ] as const) {
      const record = fixture.nextCommand(control);
      fixture.surface.press(control);
      await fixture.advance(1000);
      expect(await record).toMatchObject({ result: 'failed', message: `the recorder answered OK, but ${missing}` });
      expect(pictureOf(fixture, control)?.overlay?.flash).toBe('failed');
    }
    fixture.sim.faults.set([]);
    const record = fixture.nextCommand('key1');
    fixture.surface.press('key1');
    await fixture.advance(100);
    expect(await record).toMatchObject({ result: 'ok' });
  });
});
