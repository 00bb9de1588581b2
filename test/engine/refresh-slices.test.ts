// A session's refresh is picture work in slices like the rest: it derives what its slice has time for
// and leaves the rest in line, so no turn of the bridge holds the thread for a whole surface's
// derivation (a 32-key deck's was up to 2.5 ms of CPU in one task under bench (i)'s load: under a 15 %
// quota that is more than a 10 ms period's share). On virtual time where work costs time
// (test/support/work-time.ts): here every read of the recorder's state costs 0.25 ms, so a refresh of
// 32 channel keys costs 8 ms. What is checked: no turn runs more than the budget and one control's
// derivation; every key ends showing what a derivation afresh shows, also when the state changes while
// the rest of a refresh waits; and a press in the middle is handled in its own turn, at once.
import { describe, expect, it } from 'vitest';
import type { ClientCall } from '../../src/engine/command-plan.js';
import { DEFAULT_DISK_TIME, DiskTimes } from '../../src/engine/disk-time.js';
import { DurationClock } from '../../src/engine/duration-clock.js';
import { samePicture, type Picture } from '../../src/engine/picture.js';
import { RecorderExtras } from '../../src/engine/recorder-extras.js';
import type { CallResult } from '../../src/engine/recorder-link.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import type { PictureRenderer, SessionServices } from '../../src/engine/session-services.js';
import { SurfaceSession } from '../../src/engine/surface-session.js';
import { keyGrid } from '../../src/engine/surface.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from '../support/bridge.js';
import { channelOf } from '../support/channels.js';
import { settle } from '../support/virtual-time.js';
import { WorkTime } from '../support/work-time.js';
import { WrittenStateLink } from '../support/written-state-link.js';

const READ_MS = 0.25;
const SLICE_MS = 1;
const KEYS = 32;

const PROFILE = `
name: slices
match: { kind: memory }
pages:
  - name: Main
    controls:
${Array.from({ length: KEYS }, (_, i) => `      key${i}: { show: { channel: ${(i % 16) + 1} }, press: { action: rec-start, channel: ${(i % 16) + 1} } }`).join('\n')}
`;

/** A recorder whose state costs READ_MS of work each time a picture reads it; commands are counted. */
class CostlyLink extends WrittenStateLink {
  readonly calls: string[] = [];

  constructor(
    private readonly time: WorkTime,
    state: RecorderState,
    private readonly readMs = READ_MS,
  ) {
    super(state);
  }

  override get state(): RecorderState {
    this.time.spend(this.readMs);
    return this.current;
  }

  call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    this.calls.push(call.method);
    return Promise.resolve(undefined as CallResult<C>);
  }
}

/** Draws a picture as its own JSON, so what a key shows can be read back. */
const renderer: PictureRenderer = {
  render: async (picture) => ({ width: 1, height: 1, data: Buffer.from(JSON.stringify(picture)) }),
  led: () => 'off',
  reasonPages: () => 1,
};

function recorderWith(time: WorkTime, recording: ReadonlySet<number>): RecorderState {
  const channels = Array.from({ length: 16 }, (_, index) => channelOf(index, { IsRecording: recording.has(index) }));
  const now = time.now();
  return { ...initialRecorderState('main', 250, 5000), channels, lastGoodAt: now, readAt: { channels: now, sync: now, dialog: now, sources: now, resources: now, schedule: now, conversion: now } };
}

function setUp(readMs = READ_MS) {
  const time = new WorkTime();
  const link = new CostlyLink(time, recorderWith(time, new Set([0, 1, 2])), readMs);
  const work = new WorkScheduler(time, {
    sliceMs: SLICE_MS,
    onError: (_priority, error) => {
      throw error;
    },
  });
  const extras = new RecorderExtras(link, { decodeThumbnail: async () => ({ width: 1, height: 1, data: Buffer.alloc(3) }), time });
  const services: SessionServices = {
    recorders: new Map([['main', { name: 'main', link, extras, durations: new DurationClock(), diskTimes: new DiskTimes(DEFAULT_DISK_TIME) }]]),
    defaultRecorder: 'main',
    groups: new Map(),
    renderer,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    audit: () => undefined,
    time,
    work,
  };
  const surface = new MemorySurface({ id: 'memory:slices', model: 'test-32', controls: keyGrid(4, 8, 72), time });
  const { profile, file } = parseTestProfile(PROFILE);
  const session = new SurfaceSession(surface, { name: profile.name, file, pages: profile.pages, groups: new Map() }, services);
  /** Work spent in each turn of the timers run so far. */
  const turns: number[] = [];
  /** Runs turns of the timers (and the promises they settle) until the session has drawn everything. */
  const drain = async (): Promise<void> => {
    for (let i = 0; i < 1000; i++) {
      await settle(() => true, 'the renderings'); // the renderings' promises of the turn before
      if (session.idle && !work.busy) return;
      const before = time.precise();
      time.turn();
      turns.push(time.precise() - before);
    }
    throw new Error('the session did not finish drawing within 1000 turns');
  };
  /** Keys whose image is not what a derivation afresh shows. */
  const wrong = (): string[] =>
    session
      .describeControls()
      .filter(({ control, picture }) => {
        const image = surface.images.get(control.id);
        return image === undefined || !samePicture(JSON.parse(image.data.toString()) as Picture, picture);
      })
      .map(({ control }) => control.id);
  return { time, link, work, surface, session, turns, drain, wrong };
}

describe("a session's refresh in slices", () => {
  it('derives a 32-key surface over several turns, none longer than the budget and one control, and every key ends right', async () => {
    const { time, session, turns, drain, wrong } = setUp();
    const started = time.precise();
    session.start(); // the first refresh starts its slice at once, in this turn
    const firstTurn = time.precise() - started;
    expect(session.stats.pictures).toBeGreaterThan(0);
    expect(session.stats.pictures).toBeLessThan(KEYS); // the rest waits in line
    await drain();
    const longest = Math.max(firstTurn, ...turns);
    // A control reads the state once or twice (its channel, the recorder's health): at most 2 reads past the budget.
    expect(longest).toBeLessThanOrEqual(SLICE_MS + 2 * READ_MS + 1e-9);
    // start() asks for a refresh twice (the surface seen, then started): the second takes the first's rest's place.
    expect(session.stats.pictures).toBeLessThanOrEqual(2 * KEYS);
    expect(wrong()).toEqual([]);
    session.stop();
  });

  it('a state change while the rest of a refresh waits: a whole refresh takes its place, and every key shows the new state', async () => {
    const { time, link, session, drain, wrong, surface } = setUp();
    session.start();
    expect(session.stats.pictures).toBeLessThan(KEYS);
    // Channels 0-2 stop and 10-12 start while most keys are still to be derived.
    link.set(recorderWith(time, new Set([10, 11, 12])));
    time.advance(10); // the session's coalescing of changes
    await drain();
    expect(wrong()).toEqual([]);
    const shown = (control: string) => (JSON.parse(surface.images.get(control)?.data.toString() ?? 'null') as Picture & { state?: string }).state;
    expect([shown('key0'), shown('key10'), shown('key26')]).toEqual([
      (session.describeControls()[0]?.picture as Picture & { state?: string }).state,
      (session.describeControls()[10]?.picture as Picture & { state?: string }).state,
      (session.describeControls()[26]?.picture as Picture & { state?: string }).state,
    ]);
    session.stop();
  });

  it('a steady stream of changes, each before a refresh can finish: no key waits for ever (what a cut-short refresh left goes first in the next)', async () => {
    // A read costs 2 ms here, so a whole refresh (32 keys) is 64-128 ms of work, and a change comes every
    // 10 ms: a refresh that began again from the first key at each change would never reach the last
    // ones (seen as a Satellite deck of 15 keys never all drawn beside a second suite).
    const { time, link, session, surface, drain, wrong } = setUp(2);
    session.start();
    for (let i = 0; i < 48; i++) {
      link.set(recorderWith(time, new Set([i % 16])));
      time.advance(10); // the session's coalescing: a new refresh takes the place of the rest in line
      await settle(() => true, 'the renderings');
      time.turn();
      await settle(() => true, 'the renderings');
    }
    // While the changes still come, every key has been drawn.
    expect([...surface.images.keys()].length).toBe(KEYS);
    await drain();
    expect(wrong()).toEqual([]);
    session.stop();
  });

  it('a press while a refresh is under way is handled in the turn it arrives, its command sent before the rest of the pictures', async () => {
    const { link, surface, session, work, drain } = setUp();
    session.start();
    expect(work.busy).toBe(true); // the refresh's rest waits
    const derivedBefore = session.stats.pictures;
    surface.press('key5');
    // The tap fires on release, in this turn: the command is on its way before any more picture work.
    await Promise.resolve();
    expect(link.calls).toEqual(['recStart']);
    expect(session.stats.pictures).toBe(derivedBefore);
    await drain();
  });
});
