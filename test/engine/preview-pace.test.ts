// Previews follow what the bridge can afford: while pictures take more than their share of its time
// (the work scheduler's measured busy share, through its pace of what only moves), the bridge fetches
// each preview less often, and as often as before once it is calm again; the state polls keep their
// pace throughout, and the key still shows its preview, live (its age is judged by the pace it is
// fetched at). Sync and dialog too, read every other poll while it is busy, never shown stale (each
// value is judged by the interval it was read at). The real bridge against the
// simulator, on virtual time where picture work can be said to cost time (the scheduler measures its
// slices on `precise`, which here also moves by what the test's load spends). A preview's decode is
// picture work on the scheduler's line, so the share sees it.
import { afterEach, describe, expect, it } from 'vitest';
import { interval } from 'rxjs';
import type { Picture } from '../../src/engine/picture.js';
import { METER_SLOWEST, PREVIEW_SLOWEST } from '../../src/engine/picture-pace.js';
import { liveForMs } from '../../src/engine/recorder-state.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { WorkTime } from '../support/work-time.js';

let f: BridgeFixture | null = null;
afterEach(async () => {
  await f?.close();
  f = null;
});

const THUMBNAIL_MS = 500; // the fixture's
const POLL_MS = 250;

describe('previews at the pace the bridge can afford', () => {
  it('a busy picture line spaces the previews out, the polls keep their pace, and a calm one brings the previews back', async () => {
    const time = new WorkTime();
    // The smallest grid the keys fit (they show channels 1 and 2), polled every 250 ms: the polls' pace is checked at that.
    // Drawn as pictures (bridge.ts, draws): what is drawn is read from the renderer's calls, never an
    // image, and drawing costs no virtual time here (only the test's load and what WorkTime is told).
    f = await startBridgeFixture({
      time,
      draws: 'pictures',
      pollMs: POLL_MS,
      simulator: { grid: 4 },
      profile: `
name: previews
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1, thumbnail: true } }
      key1: { show: { channel: 2 } }
`,
    });
    const fixture = f;
    // What goes on the scheduler's lines: a preview's decode must be picture work (after input and state,
    // and in the busy share the pace follows), or the pace would not see most of a preview's cost.
    const posted: string[] = [];
    const post = fixture.bridge.work.post.bind(fixture.bridge.work);
    fixture.bridge.work.post = (priority, key, work, atTurnEnd) => {
      posted.push(`${priority} ${key}`);
      post(priority, key, work, atTurnEnd);
    };
    const previews: number[] = [];
    const channelReads: number[] = [];
    const stopObserving = fixture.bridge.observeRequests((_, record) => {
      if (record.method === 'GET' && /\/preview$/.test(record.path)) previews.push(fixture.now());
      if (record.method === 'GET' && /\/channels$/.test(record.path)) channelReads.push(fixture.now());
    });
    const thumbnail = () => {
      const picture = fixture.bridge.surfaceSessions()[0]?.describeControls().find((c) => c.control.id === 'key0')?.picture as Picture | undefined;
      return picture?.kind === 'channel' ? picture.thumbnail : null;
    };
    const within = (list: number[], from: number, to: number) => list.filter((at) => at >= from && at < to).length;
    await fixture.until(() => thumbnail() !== null, 'the first preview on key0');
    expect(posted.filter((what) => what.includes('preview-decode'))).toEqual(['pictures preview-decode:1']);
    // Calm: a preview every interval.
    const calmFrom = fixture.now();
    await fixture.advance(4000);
    expect(within(previews, calmFrom, calmFrom + 4000)).toBeGreaterThanOrEqual(4000 / THUMBNAIL_MS - 1);

    // Busy: picture work worth 150 ms of every 100 ms (a page's pictures on a held bridge), posted on the
    // scheduler's picture line as a session's are. Its pace climbs within a few seconds; then previews
    // come PREVIEW_SLOWEST intervals apart, while the channel list is still read every poll.
    const load = interval(100, time.scheduler).subscribe(() => fixture.bridge.work.post('pictures', 'test-load', () => time.spend(150)));
    await fixture.advance(4000);
    expect(fixture.bridge.work.paceMs()).toBeGreaterThan(0);
    const busyFrom = fixture.now();
    // A preview fetched at the slower pace is judged by that pace: never drawn stale while it keeps it
    // (previewLiveForMs). Every picture the sessions draw goes through the renderer.
    const staleDrawn: number[] = [];
    const render = fixture.renderer.render.bind(fixture.renderer);
    fixture.renderer.render = (picture, size) => {
      if (picture.kind === 'channel' && picture.previewAgeS !== undefined) staleDrawn.push(fixture.now());
      return render(picture, size);
    };
    await fixture.advance(8000);
    expect(staleDrawn).toEqual([]);
    const busyPreviews = within(previews, busyFrom, busyFrom + 8000);
    expect(busyPreviews).toBeLessThanOrEqual(Math.ceil(8000 / (PREVIEW_SLOWEST * THUMBNAIL_MS)) + 1);
    expect(busyPreviews).toBeGreaterThanOrEqual(2); // slowed, never stopped
    expect(thumbnail()).not.toBeNull(); // the key still shows its preview (the channel's state is live)
    expect(within(channelReads, busyFrom, busyFrom + 8000)).toBeGreaterThanOrEqual(8000 / POLL_MS - 2); // polls: every POLL_MS
    load.unsubscribe();

    // Calm again: the pace eases (by a fifth a second) and previews come every interval once more.
    const easeBy = fixture.now() + 20_000;
    while (fixture.bridge.work.paceMs() > 0) {
      expect(fixture.now(), 'the pace eased within 20 s').toBeLessThan(easeBy);
      await fixture.advance(100);
    }
    const againFrom = fixture.now();
    await fixture.advance(4000);
    expect(within(previews, againFrom, againFrom + 4000)).toBeGreaterThanOrEqual(4000 / THUMBNAIL_MS - 1);
    stopObserving();
  });

  it("a busy picture line halves the meters' reads: the meter stays live, and a dial's step builds on its read without one of its own", async () => {
    const time = new WorkTime();
    const meterMs = 100; // the fixture's
    f = await startBridgeFixture({
      time,
      draws: 'pictures',
      pollMs: POLL_MS,
      profile: 'name: dial\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      dial0: { show: { meter: 1 }, turn: { action: gain-step, channel: 1, db: 1 } }\n',
      controls: [{ kind: 'encoder', id: 'dial0', pressable: false, ring: true }],
    });
    const fixture = f;
    const sourceReads: number[] = [];
    const gainWrites: number[] = [];
    const stopObserving = fixture.bridge.observeRequests((_, record) => {
      if (record.method === 'GET' && /\/sources\/\d+$/.test(record.path)) sourceReads.push(fixture.now());
      if (record.method !== 'GET' && /\/sources\//.test(record.path)) gainWrites.push(fixture.now());
    });
    // Every meter picture the session draws goes through the renderer: none may show the read as old.
    const meterStaleDrawn: number[] = [];
    const render = fixture.renderer.render.bind(fixture.renderer);
    fixture.renderer.render = (picture, size) => {
      if (picture.kind === 'meter' && picture.source !== null && (picture.levels === null || picture.freshness !== 'live')) meterStaleDrawn.push(fixture.now());
      return render(picture, size);
    };
    const within = (list: number[], from: number, to: number) => list.filter((at) => at >= from && at < to).length;
    await fixture.until(() => sourceReads.length > 2 && fixture.bridge.recorderStates()[0]?.sources !== null, 'the first meter reads');
    await fixture.advance(500);
    meterStaleDrawn.length = 0; // before the first read, the meter had nothing to show
    const calmFrom = fixture.now();
    await fixture.advance(2000);
    expect(within(sourceReads, calmFrom, calmFrom + 2000)).toBeGreaterThanOrEqual(2000 / meterMs - 1);

    // Busy as above: the pace climbs, then the meter is read every other interval.
    const load = interval(100, time.scheduler).subscribe(() => fixture.bridge.work.post('pictures', 'test-load', () => time.spend(150)));
    await fixture.advance(3000);
    expect(fixture.bridge.work.paceMs()).toBeGreaterThan(0);
    const busyFrom = fixture.now();
    await fixture.advance(3000);
    const busyReads = within(sourceReads, busyFrom, busyFrom + 3000);
    // Half as many (METER_SLOWEST is 2: said here as a number, so that the test cannot follow a change of it).
    expect(METER_SLOWEST).toBe(2);
    expect(busyReads).toBeLessThanOrEqual(Math.ceil(3000 / (2 * meterMs)) + 1);
    expect(busyReads).toBeGreaterThanOrEqual(3000 / (2 * meterMs) - 2);
    expect(meterStaleDrawn).toEqual([]);
    // A step now starts from the meter's last read (live for three of the slower intervals): its write
    // leaves without a read of its own first.
    const readsBefore = sourceReads.length;
    const stepAt = fixture.now();
    fixture.surface.rotate('dial0', 1);
    await fixture.until(() => gainWrites.some((at) => at >= stepAt), "the step's write");
    expect(sourceReads.filter((at, i) => i >= readsBefore && at <= (gainWrites.at(-1) as number)).length, 'reads between the step and its write').toBe(0);
    expect(fixture.commands.find((c) => c.control === 'dial0')?.result).toBe('ok');
    load.unsubscribe();
    stopObserving();
  });

  it('a busy picture line halves the reads of sync and dialog, channels keep their pace, and neither key is ever drawn stale', async () => {
    const time = new WorkTime();
    f = await startBridgeFixture({
      time,
      draws: 'pictures',
      pollMs: POLL_MS,
      simulator: { grid: 4 },
      profile: 'name: held\nmatch: { kind: memory }\npages:\n  - name: one\n    controls:\n      key0: { show: sync }\n      key1: { show: dialog }\n      key2: { show: { channel: 1 } }\n',
    });
    const fixture = f;
    const reads = { channels: [] as number[], sync: [] as number[], dialog: [] as number[] };
    const stopObserving = fixture.bridge.observeRequests((_, record) => {
      if (record.method !== 'GET') return;
      if (/\/channels$/.test(record.path)) reads.channels.push(fixture.now());
      if (/\/app\/sync$/.test(record.path)) reads.sync.push(fixture.now());
      if (/\/app\/dialog$/.test(record.path)) reads.dialog.push(fixture.now());
    });
    // Every sync or dialog picture the session draws goes through the renderer: none may show its data stale.
    const staleDrawn: string[] = [];
    const render = fixture.renderer.render.bind(fixture.renderer);
    fixture.renderer.render = (picture, size) => {
      if ((picture.kind === 'sync' && (picture.state === 'stale' || picture.ageS !== null)) || (picture.kind === 'dialog' && picture.ageS !== null)) staleDrawn.push(`${picture.kind} at ${fixture.now()}`);
      return render(picture, size);
    };
    const within = (list: number[], from: number, to: number) => list.filter((at) => at >= from && at < to).length;
    await fixture.until(() => reads.sync.length > 2 && reads.dialog.length > 2, 'the first sync and dialog reads');
    await fixture.advance(500);
    staleDrawn.length = 0; // before the first reads, the keys had nothing live to show
    const calmFrom = fixture.now();
    await fixture.advance(2000);
    for (const part of ['channels', 'sync', 'dialog'] as const) expect(within(reads[part], calmFrom, calmFrom + 2000), `${part} calm`).toBeGreaterThanOrEqual(2000 / POLL_MS - 1);

    const load = interval(100, time.scheduler).subscribe(() => fixture.bridge.work.post('pictures', 'test-load', () => time.spend(150)));
    await fixture.advance(3000);
    expect(fixture.bridge.work.paceMs()).toBeGreaterThan(0);
    const busyFrom = fixture.now();
    await fixture.advance(4000);
    const state = fixture.bridge.recorderStates()[0];
    expect(state?.pollEvery).toEqual({ channels: 1, sync: 2, dialog: 2 });
    expect(state && liveForMs(state, 'sync')).toBe(6 * POLL_MS); // three of the slower intervals
    for (const part of ['sync', 'dialog'] as const) {
      // Every other poll (2 is SLOWEST_POLL_EVERY, said as a number so that the test cannot follow a change of it).
      expect(within(reads[part], busyFrom, busyFrom + 4000), `${part} held`).toBeLessThanOrEqual(4000 / (2 * POLL_MS) + 1);
      expect(within(reads[part], busyFrom, busyFrom + 4000), `${part} held`).toBeGreaterThanOrEqual(4000 / (2 * POLL_MS) - 1);
    }
    expect(within(reads.channels, busyFrom, busyFrom + 4000), 'channels held').toBeGreaterThanOrEqual(4000 / POLL_MS - 2);
    load.unsubscribe();

    // Calm again: once the pace has eased, every poll once more.
    const easeBy = fixture.now() + 20_000;
    while (fixture.bridge.work.paceMs() > 0) {
      expect(fixture.now(), 'the pace eased within 20 s').toBeLessThan(easeBy);
      await fixture.advance(100);
    }
    await fixture.advance(POLL_MS * 2);
    const againFrom = fixture.now();
    await fixture.advance(2000);
    for (const part of ['sync', 'dialog'] as const) expect(within(reads[part], againFrom, againFrom + 2000), `${part} calm again`).toBeGreaterThanOrEqual(2000 / POLL_MS - 1);
    expect(staleDrawn).toEqual([]);
    stopObserving();
  });
});
