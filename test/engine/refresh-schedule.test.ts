// A surface session refreshes a picture when it can next change, not at a fixed frame rate. On many
// random recorders (takes running and paused, dialogs coming and going, polls lost, the recorder
// unreachable, meters read and gains written) and random presses (holds filling their ring, failures
// paging their reason, taps hinting HOLD, double presses), what the surface shows at every 10 ms of
// virtual time is what a fixed 10 ms tick would show there (each picture derived afresh at that
// moment), and the session derives far fewer pictures than that tick would.
//
// The recorder's answers come as the poller applies them, each state read on its own (channels, sync and
// dialog, each answered or not): the session draws them itself, within its coalescing of 10 ms, so
// they are checked at the next tick against a derivation afresh. A refresh that skipped a picture an
// answer changed (or a whole answer) shows there. Gain reads and writes, drawn up to a tenth of a
// second later by design, are drawn at once by the test instead (on ticks with no answer, so that this
// never covers the session's own drawing of an answer). What is checked besides is that nothing changes
// by time alone without being drawn at its moment.
//
// Each run also has a quiet stretch at a random moment: no polls, reads, writes or input, while data
// ages, takes count on, a dialog flashes, rings fill and reasons page. In a quarter of the runs it is
// stepped millisecond by millisecond: at each one, what is shown is what a derivation afresh shows, and
// the session derives exactly the pictures that differ from the millisecond before (none when none
// does): no change is missed, and no refresh is made that a picture's own next change did not ask for.
// In the others it is looked at every 10 ms and at each moment a timer is due and the millisecond
// before it (read from the clock, whoever set the timer): the session can refresh only when a timer
// runs, so every refresh it makes is still checked against the millisecond before, exactly; and a change
// its schedule missed still shows as a mismatch within 10 ms (only one that came and went again inside
// 10 ms with no timer due would not, and nothing shown changes that fast by time alone).
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/api/channel.js';
import { DEFAULT_DISK_TIME, DiskTimes } from '../../src/engine/disk-time.js';
import { DurationClock } from '../../src/engine/duration-clock.js';
import { samePicture, type Picture } from '../../src/engine/picture.js';
import { RecorderExtras } from '../../src/engine/recorder-extras.js';
import type { CallResult } from '../../src/engine/recorder-link.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import type { PictureRenderer, SessionServices } from '../../src/engine/session-services.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';
import { SurfaceSession } from '../../src/engine/surface-session.js';
import { keyGrid, type RgbImage } from '../../src/engine/surface.js';
import type { ClientCall } from '../../src/engine/command-plan.js';
import { seededRandom } from '../../src/simulator/random.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from '../support/bridge.js';
import { channelOf } from '../support/channels.js';
import { VirtualTime, settle } from '../support/virtual-time.js';
import { WrittenStateLink } from '../support/written-state-link.js';

const POLL_MS = 250;
const TICK_MS = 10;
const RUN_MS = 8000;
const QUIET_MS = 2000;
const SOURCES = ['Cam 1', 'Cam 2'];
/**
 * The session draws a gain read up to this long after it (surface-session.ts, FETCHED_MS): the quiet
 * stretch starts this long after the last read, so that drawing, of only the meters, is not taken for a
 * refresh nothing asked for.
 */
const FETCHED_MS = 100;

const PROFILE = `
name: schedule
match: { kind: memory }
pages:
  - name: Main
    controls:
      key0: { show: { channel: 1 }, press: { action: rec-start, channel: 1 } }
      key1: { show: { channel: 2 }, press: { action: rec-start, channel: 2 } }
      key2: { show: { channel: 3 }, press: { action: rec-pause, channel: 3 } }
      key3: { show: { channel: 4 }, press: { action: rec-stop, channel: 4 }, confirm: { hold: 600 } }
      key4: { show: { channel: 5 }, press: { action: rec-stop, channel: 5 }, confirm: { hold: 1000 } }
      key5: { show: { channel: 6 }, hold: { ms: 800, do: { action: rec-stop, channel: 6 } } }
      key6: { show: { channel: 7 } }
      key7: { show: { channel: 8 } }
      key8: { show: sync, press: { action: sync-rec-start } }
      key9: { show: dialog }
      key10: { press: { action: dialog-ok } }
      key11: { press: { action: dialog-cancel } }
      key12: { show: status }
      key13: { show: resources }
      key14: { show: schedule }
      key15: { show: page }
      key16: { show: { meter: 1 } }
      key17: { show: { meter: 2 } }
      key18: { press: { action: grid, size: 9 }, confirm: { double: 400 } }
      key19: { show: { label: GO }, press: { action: new-session }, confirm: { hold: 500 } }
      key20: { show: { channel: 9 } }
      key21: { show: { channel: 10 } }
      key22: { show: { channel: 11 } }
      key23: { show: { channel: 12 } }
`;
/**
 * Parsed once for the file, and frozen whole, as the product shares one parsed profile among its
 * sessions (parsed-profiles.ts): a run that changed it would throw, so no run sees another's. A parse
 * was 20-100 ms of CPU on this machine, twelve times over.
 */
const PARSED = deepFrozen(parseTestProfile(PROFILE));

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFrozen(inner);
  }
  return value;
}
const TAPPED = ['key0', 'key1', 'key2', 'key5', 'key8', 'key10', 'key18', 'key18', 'key19'];
const HELD = ['key3', 'key4', 'key5', 'key19'];

/** A recorder link whose state the test writes; commands fail with a long reason, source reads answer at once. */
class TestLink extends WrittenStateLink {
  call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    if (call.method === 'getSource') {
      const name = SOURCES[call.args[0] as number] ?? '';
      return Promise.resolve({ Name: name, AudioGain: -3, AudioMeters: [-20 - Math.round(this.state.failures), -30] } as unknown as CallResult<C>);
    }
    return Promise.reject(new Error(`the recorder refuses ${call.method}: the disk it records to is being checked and takes no new work for now`));
  }
}

/** Draws a picture as its own JSON, so what a key shows can be read back. */
const renderer: PictureRenderer = {
  render: async (picture) => ({ width: 1, height: 1, data: Buffer.from(JSON.stringify(picture)) }),
  led: () => 'off',
  reasonPages: (reason) => Math.ceil(reason.length / 30),
};

/** A control's picture as a tick derives it, the image the key showed then, and whether that image was of it. */
interface Checked {
  picture: Picture;
  image: RgbImage | undefined;
  showsIt: boolean;
}

/**
 * Whether what a tick derives for a control changed from one check to the next. When the key showed the
 * same image at both and that image was of the picture derived at both, the two pictures are the same
 * as that image's (samePicture is an equality), so they need no comparing: in the quiet stretch nearly
 * every key is so at nearly every millisecond.
 */
function changedBetween(before: Checked, now: Checked): boolean {
  if (before.showsIt && now.showsIt && before.image === now.image) return false;
  return !samePicture(now.picture, before.picture);
}

interface Take {
  startedAt: number;
  paused: boolean;
}

/** One random recorder, its polls and extras, a 32-key surface and its session, run against a 10 ms tick. */
class Scenario {
  readonly time = new VirtualTime();
  readonly link: TestLink;
  readonly durations = new DurationClock();
  readonly extras: RecorderExtras;
  readonly surface = new MemorySurface({ id: 'memory:schedule', model: 'test-32', controls: keyGrid(4, 8, 72), time: this.time });
  readonly session: SurfaceSession;
  private readonly start = this.time.now();
  private readonly takes = new Map<number, Take>();
  /** When the test last read a gain (see FETCHED_MS). */
  private lastReadAt = -Infinity;
  private readonly outage: { from: number; to: number; unreachable: boolean };
  private readonly released = new Map<string, number>();
  private readonly pendingWrites: Array<{ settle: (ok: boolean) => void }> = [];
  private dialogUp = false;
  readonly mismatches: string[] = [];
  /** Quiet milliseconds at which the session derived other pictures than the ones that changed. */
  readonly wasted: string[] = [];
  /** Quiet milliseconds covered, the moments looked at in them, and at how many of those some picture changed. */
  readonly quiet = { steps: 0, looks: 0, changes: 0 };
  /** The refreshes this test makes itself, to draw its changes at once. */
  readonly forced = { refreshes: 0, pictures: 0 };

  /** `everyMs`: the quiet stretch is looked at every millisecond, not at its timers' moments and every 10 ms. */
  constructor(
    private readonly random: () => number,
    private readonly everyMs: boolean,
  ) {
    const { start } = this;
    for (let index = 0; index < 12; index++) {
      const draw = random();
      // Takes began at any millisecond, some paused; a third of the channels do not record.
      if (draw < 0.66) this.takes.set(index, { startedAt: start - Math.floor(random() * 60_000), paused: draw < 0.15 });
    }
    const outageFrom = start + Math.floor(random() * (RUN_MS - 3000));
    this.outage = { from: outageFrom, to: outageFrom + 1000 + Math.floor(random() * 2000), unreachable: random() < 0.5 };
    this.dialogUp = random() < 0.5;
    const slowAt = start - Math.floor(random() * 20_000);
    this.link = new TestLink({
      ...initialRecorderState('main', POLL_MS, 5000),
      readAt: { channels: null, sync: null, dialog: null, sources: slowAt, resources: slowAt, schedule: slowAt, conversion: slowAt },
      sources: SOURCES.map((Name, Index) => ({ Index, Name, Device: 'SDI' })),
      resources: { CurrentCPU: 10, TotalCPU: 12, CurrentRAM: 4, TotalRAM: 16, DiskInfo: [{ Key: 'D:', Value: 40 }] },
    });
    this.extras = new RecorderExtras(this.link, { decodeThumbnail: async () => ({ width: 1, height: 1, data: Buffer.alloc(3) }), meterMs: POLL_MS, time: this.time });
    const services: SessionServices = {
      recorders: new Map([['main', { name: 'main', link: this.link, extras: this.extras, durations: this.durations, diskTimes: new DiskTimes(DEFAULT_DISK_TIME) }]]),
      defaultRecorder: 'main',
      groups: new Map(),
      renderer,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      audit: () => undefined,
      time: this.time,
      work: new WorkScheduler(this.time, { onError: (_priority, error) => { throw error; } }),
    };
    const { profile, file } = PARSED;
    this.session = new SurfaceSession(this.surface, { name: profile.name, file, pages: profile.pages, groups: new Map() }, services);
  }

  async run(): Promise<{ ticks: number }> {
    const { start } = this;
    this.poll(start);
    this.session.start();
    await this.settle();
    let ticks = 0;
    const quietFrom = start + 500 + Math.floor(this.random() * (RUN_MS - QUIET_MS - 1000));
    let quietDone = false;
    // The checks fall at any phase of the second, the polls and the flash.
    for (let t = start + 1 + Math.floor(this.random() * TICK_MS); t < start + RUN_MS; t += TICK_MS) {
      await this.advanceTo(t);
      this.check(t);
      ticks++;
      if (!quietDone && t >= quietFrom && t - this.lastReadAt > FETCHED_MS) {
        quietDone = true;
        await this.stayQuiet(t, QUIET_MS, this.everyMs);
        t += QUIET_MS;
        ticks += QUIET_MS / TICK_MS;
        continue;
      }
      await this.act(t);
    }
    this.session.stop();
    return { ticks };
  }

  /**
   * Moves the clock to `t` and lets what ran there finish. When no timer was due by `t`, nothing ran: the
   * session is as idle as the last settle left it (every check and move is followed by one), so there
   * is nothing to wait for. In the quiet stretch that is most of its milliseconds.
   */
  private async advanceTo(t: number): Promise<void> {
    const due = this.time.nextDue();
    this.time.advanceTo(t);
    if (due !== null && due <= t) await this.settle();
  }

  private settle(): Promise<void> {
    return settle(() => this.session.idle, 'the session');
  }

  /** The picture an image was drawn from, read once per image (a key keeps its image until it is drawn again). */
  private readonly drawnPictures = new WeakMap<RgbImage, Picture>();
  private pictureIn(image: RgbImage): Picture {
    let picture = this.drawnPictures.get(image);
    if (picture === undefined) {
      picture = JSON.parse(image.data.toString()) as Picture;
      this.drawnPictures.set(image, picture);
    }
    return picture;
  }

  /**
   * What each key shows now against what a tick would derive now; returns what a tick derives, each with
   * the image shown and whether it showed that picture.
   */
  private check(t: number): Map<string, Checked> {
    const shown = this.surface.images;
    const derived = new Map<string, Checked>();
    for (const { control, picture } of this.session.describeControls()) {
      const image = shown.get(control.id);
      const drawn = image === undefined ? null : this.pictureIn(image);
      const showsIt = drawn !== null && samePicture(drawn, picture);
      derived.set(control.id, { picture, image, showsIt });
      if (!showsIt) this.mismatches.push(`${control.id} at +${t - this.start} ms: shows ${JSON.stringify(drawn)}, a tick would show ${JSON.stringify(picture)}`);
    }
    return derived;
  }

  /**
   * `ms` of nothing but time from `from`, looked at every millisecond (`everyMs`) or at the moments
   * nextLook gives: each look is checked, and where the session's own state stayed the same since the
   * look before (its timers change it: a hold firing, a flash ending, and then it derives everything,
   * rightly), the pictures it derived must be the ones that changed.
   */
  private async stayQuiet(from: number, ms: number, everyMs: boolean): Promise<void> {
    let before = this.check(from);
    for (let at = from; at < from + ms; ) {
      const t = everyMs ? at + 1 : this.nextLook(at, from + ms);
      const state = this.session.sessionState;
      const { pictures } = this.session.stats;
      await this.advanceTo(t);
      const now = this.check(t);
      const changed = [...now].filter(([id, checked]) => changedBetween(before.get(id) as Checked, checked)).map(([id]) => id);
      const derived = this.session.stats.pictures - pictures;
      this.quiet.steps += t - at;
      this.quiet.looks++;
      if (changed.length > 0) this.quiet.changes++;
      if (this.session.sessionState === state && derived !== changed.length) this.wasted.push(`+${t - this.start} ms: ${derived} pictures derived, ${changed.length} changed (${changed.join(', ')})`);
      before = now;
      at = t;
    }
  }

  /**
   * The next moment after `at` to look at in a quiet stretch ending at `end`: the millisecond before the
   * next timer is due, then its own, or 10 ms on, whichever is first. No timer runs between two looks, so
   * the session refreshes nothing there: what it derives at a timer's moment is compared with what a
   * derivation afresh showed the millisecond before.
   */
  private nextLook(at: number, end: number): number {
    const due = this.time.nextDue();
    const timer = due === null ? Infinity : due - 1 > at ? due - 1 : at + 1;
    return Math.min(timer, at + TICK_MS, end);
  }

  /**
   * Between checks: polls (drawn by the session itself, by the next check), reads, writes and presses
   * (reads and writes drawn at once by the test).
   */
  private async act(t: number): Promise<void> {
    let changed = false;
    /** Something reached the session (a poll, a press, a release): settled before the next check. */
    let moved = false;
    const polled = (t - this.start) % POLL_MS < TICK_MS;
    if (polled) this.poll(t);
    moved ||= polled;
    if (!polled && this.random() < 0.03) {
      await this.extras.readGain(SOURCES[Math.floor(this.random() * SOURCES.length)] as string);
      this.lastReadAt = t;
      changed = true;
    }
    if (!polled && this.random() < 0.01) {
      const source = SOURCES[Math.floor(this.random() * SOURCES.length)] as string;
      void this.extras
        .writeGain(source, Math.round(this.random() * 20) - 10, () => new Promise<void>((resolve, reject) => this.pendingWrites.push({ settle: (ok) => (ok ? resolve() : reject(new Error('refused'))) })))
        .catch(() => undefined);
      changed = true;
    }
    if (!polled && this.pendingWrites.length > 0 && this.random() < 0.05) {
      this.pendingWrites.shift()?.settle(this.random() < 0.7);
      changed = true;
    }
    if (this.random() < 0.015) {
      const control = TAPPED[Math.floor(this.random() * TAPPED.length)] as string;
      if (!this.released.has(control)) {
        this.surface.inject({ type: 'down', control });
        this.surface.inject({ type: 'up', control });
        moved = true;
      }
    }
    if (this.random() < 0.01) {
      const control = HELD[Math.floor(this.random() * HELD.length)] as string;
      if (!this.released.has(control)) {
        this.surface.inject({ type: 'down', control });
        this.released.set(control, t + Math.floor(this.random() * 1500));
        moved = true;
      }
    }
    for (const [control, at] of this.released) {
      if (at > t) continue;
      this.surface.inject({ type: 'up', control });
      this.released.delete(control);
      moved = true;
    }
    // Nothing reached the session since the settle before this tick's check: it is idle still.
    if (!moved && !changed) return;
    await this.settle();
    if (changed) {
      // Drawn at once for the check (the session's own refresh follows, coalesced): not counted as its work.
      const { refreshes, pictures } = this.session.stats;
      this.session.refresh();
      this.forced.refreshes += this.session.stats.refreshes - refreshes;
      this.forced.pictures += this.session.stats.pictures - pictures;
    }
    await this.settle();
  }

  /**
   * A state poll at `t`: lost in the outage or failing there; else each of channels, sync and dialog
   * answered (mostly) and applied on its own, as the poller's three read loops apply theirs.
   */
  private poll(t: number): void {
    const before = this.link.state;
    if (t >= this.outage.from && t < this.outage.to) {
      if (!this.outage.unreachable) return; // no answer: the data ages
      this.link.set({ ...before, failures: before.failures + 1, unreachable: true, lastError: 'connect ECONNREFUSED' });
      return;
    }
    if (this.random() < 0.1) this.dialogUp = !this.dialogUp;
    const channels: Channel[] = Array.from({ length: 12 }, (_, index) => {
      const take = this.takes.get(index);
      if (take === undefined) return channelOf(index);
      return channelOf(index, { IsRecording: true, IsRecordingPause: take.paused, IsInSync: index < 3, IsInSyncRec: index < 3, RecordingDuration: Math.floor((t - take.startedAt) / 1000), RecordingFPS: 25 });
    });
    const answers = {
      channels,
      sync: { IsSyncRecording: channels.some((c) => c.IsInSyncRec), IsSyncRecordingPause: false },
      dialog: { IsDialog: this.dialogUp, DialogContent: 'Disk D: is almost full. Stop all the channels that record to it now?', Buttons: 'Yes_No' },
    };
    for (const part of ['channels', 'sync', 'dialog'] as const) {
      const state = this.link.state;
      if (this.random() >= 0.9 && state.readAt[part] !== null) continue; // this read was not answered
      const readAt = { ...state.readAt, [part]: t };
      const times = [readAt.channels, readAt.sync, readAt.dialog];
      const answered: RecorderState = {
        ...state,
        [part]: answers[part],
        readAt,
        lastGoodAt: times.every((at) => at !== null) ? Math.min(...(times as number[])) : null,
        failures: 0,
        unreachable: false,
        lastError: null,
      };
      // As the bridge does for each new channel read (bridge.ts, observeDurations), before the session sees it.
      if (part === 'channels') for (const channel of channels) if (channel.IsRecording) this.durations.observe(`${channel.Index}`, !channel.IsRecordingPause, channel.RecordingDuration, t);
      this.link.set(answered);
    }
  }
}

const SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);

describe('pictures refresh when they can next change', () => {
  it.each(SEEDS)('random recorder and presses %i: shown at every 10 ms (every 1 ms or every timer while quiet) is what a tick would show, from far fewer pictures', async (seed) => {
    const scenario = new Scenario(seededRandom(seed), seed % 4 === 0);
    const { ticks } = await scenario.run();
    expect(scenario.mismatches.slice(0, 3)).toEqual([]);
    expect(scenario.wasted.slice(0, 3)).toEqual([]);
    expect(scenario.quiet.steps).toBe(QUIET_MS);
    // Looked at more often than the 10 ms tick (the moments timers are due, and the millisecond before each).
    expect(scenario.quiet.looks).toBeGreaterThan(QUIET_MS / TICK_MS);
    // The quiet stretch had changes to miss (clocks, ages, flashes, rings), at a few moments a second.
    expect(scenario.quiet.changes).toBeGreaterThan(QUIET_MS / 1000);
    // A tick derives every control's picture each time; the session derives the due ones at their moments
    // (and all of them at each change, besides the test's own refreshes to draw its changes at once).
    const refreshes = scenario.session.stats.refreshes - scenario.forced.refreshes;
    const pictures = scenario.session.stats.pictures - scenario.forced.pictures;
    expect(refreshes).toBeLessThan(ticks / 3);
    expect(pictures).toBeLessThan((ticks * 32) / 5);
  });
});
