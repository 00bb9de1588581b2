// The order of work (docs/design.md, "The order of work"), on virtual time where work costs time
// (WorkTime): input and state run before any picture or page frame that waits, pictures and frames run in
// slices that hand the thread back when their budget is spent, the newest per key, none lost; and a
// painter under load lowers the rate of what only moves, never of a change of meaning, while input still
// runs at once.
import { describe, expect, it } from 'vitest';
import type { ChannelPicture } from '../../src/engine/picture.js';
import { PicturePainter } from '../../src/engine/picture-painter.js';
import { MAX_STRETCH_MS, PREVIEW_MS, TARGET_SHARE, nextStretchMs, onlyPreviewMoved, sameMeaning } from '../../src/engine/picture-pace.js';
import type { PictureRenderer } from '../../src/engine/session-services.js';
import { keyGrid } from '../../src/engine/surface.js';
import { CpuBudget, MAX_WAIT_MS } from '../../src/engine/cpu-budget.js';
import { FRAMES_WAIT_MS, PICTURES_WAIT_MS, WorkScheduler } from '../../src/engine/work-scheduler.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { settle } from '../support/virtual-time.js';
import { WorkTime } from '../support/work-time.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function scheduler(time: WorkTime, errors: unknown[] = []): WorkScheduler {
  return new WorkScheduler(time, { sliceMs: 2, onError: (_priority, error) => void errors.push(error) });
}

describe('WorkScheduler', () => {
  it('a press that arrives behind N pictures waiting is handled before them; the pictures go on in slices after it', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const order: string[] = [];
    // A refresh of 32 keys, each rendering a millisecond of CPU.
    for (let key = 0; key < 32; key++) {
      work.post('pictures', `picture:${key}`, () => {
        time.spend(1);
        order.push(`p${key}`);
      });
    }
    // The slice that started at once ran its budget (2 ms) and handed the thread back.
    expect(order).toEqual(['p0', 'p1']);
    expect(work.stats.yields).toBe(1);
    // A press comes in on a socket (I/O between slices): it runs now, not after the 30 pictures waiting.
    work.post('input', '', () => void order.push('press'));
    expect(order).toEqual(['p0', 'p1', 'press']);
    for (let turn = 0; turn < 20 && work.busy; turn++) time.turn();
    expect(order.slice(3)).toEqual(Array.from({ length: 30 }, (_, i) => `p${i + 2}`));
    expect(work.stats.slices).toBeGreaterThanOrEqual(16); // 2 ms of pictures each: the burst spread over 16 turns
  });

  it('input and state posted while a picture is being made run right after it, before the next picture and any frame', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const order: string[] = [];
    work.post('frames', 'frames:page', () => void order.push('frames'), true);
    work.post('pictures', 'picture:a', () => {
      order.push('picture a');
      work.post('state', '', () => void order.push('state'));
      work.post('input', '', () => void order.push('press'));
      work.post('pictures', 'picture:b', () => void order.push('picture b'));
    });
    time.turn();
    expect(order).toEqual(['picture a', 'state', 'press', 'picture b', 'frames']);
  });

  it('pictures all arrive, the newest of each key, each made once per turn it waited', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const made = new Map<string, number[]>();
    const post = (key: string, version: number) =>
      work.post('pictures', key, () => {
        time.spend(0.5);
        made.set(key, [...(made.get(key) ?? []), version]);
      });
    for (let version = 1; version <= 5; version++) {
      for (let key = 0; key < 32; key++) post(`k${key}`, version);
      time.turn();
    }
    for (let turn = 0; turn < 40 && work.busy; turn++) time.turn();
    expect(work.busy).toBe(false);
    for (let key = 0; key < 32; key++) {
      const versions = made.get(`k${key}`) ?? [];
      expect(versions.at(-1)).toBe(5); // the newest arrives
      expect(versions).toEqual([...versions].sort((a, b) => a - b)); // never an older one after a newer
    }
    // Latest wins: far fewer made than asked for (160), while every key got its newest.
    expect([...made.values()].reduce((sum, v) => sum + v.length, 0)).toBeLessThan(80);
  });

  it('the order of work: input, state, a change of meaning, what only moves, page frames; the newest task of a key, in one line', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const order: string[] = [];
    const task = (name: string, ms = 1) => () => void (time.spend(ms), order.push(name));
    // A second's clocks on 8 keys wait, and a page's frames.
    for (let key = 0; key < 8; key++) work.post('pictures', `picture:${key}`, task(`clock ${key}`));
    work.post('frames', 'frames:page', task('frames'), true);
    expect(order).toEqual(['clock 0', 'clock 1']); // the slice that started at once
    // Then a recorder's answer: its refresh finds key 5 stopped (a change of meaning) and key 6's clock moved.
    work.post('state', '', () => {
      order.push('state');
      work.post('meaning', 'refresh:deck', () => {
        order.push('refresh');
        work.post('meaning', 'picture:5', task('stopped 5'));
        work.post('pictures', 'picture:6', task('clock 6 again'));
      });
    });
    work.post('input', '', task('press', 0));
    expect(order).toEqual(['clock 0', 'clock 1', 'state', 'press']);
    for (let turn = 0; turn < 20 && work.busy; turn++) time.turn();
    // The refresh and the change it found go before the clocks that waited; key 5 is drawn once (its
    // moving part left the second line); key 6's newer task took its place there; frames last.
    expect(order).toEqual(['clock 0', 'clock 1', 'state', 'press', 'refresh', 'stopped 5', 'clock 2', 'clock 3', 'clock 4', 'clock 6 again', 'clock 7', 'frames']);
  });

  it('a moving part posted for a key whose change of meaning waits stays in the first line, and replaces it there (it draws the newest picture)', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const order: string[] = [];
    const task = (name: string) => () => void (time.spend(1), order.push(name));
    for (let key = 0; key < 4; key++) work.post('pictures', `picture:${key}`, task(`clock ${key}`));
    work.post('meaning', 'picture:9', task('stopped 9'));
    work.post('pictures', 'picture:9', task('stopped 9, its clock moved'));
    for (let turn = 0; turn < 20 && work.busy; turn++) time.turn();
    expect(order).toEqual(['clock 0', 'clock 1', 'stopped 9, its clock moved', 'clock 2', 'clock 3']);
    // A cancelled key leaves both lines.
    work.post('pictures', 'picture:a', task('a'));
    work.post('meaning', 'picture:b', task('b'));
    work.post('pictures', 'picture:c', task('c'));
    work.cancel('picture:b');
    work.cancel('picture:c');
    for (let turn = 0; turn < 20 && work.busy; turn++) time.turn();
    expect(order.slice(5)).toEqual(['a']);
  });

  it('pictures that never stop (a saturated bridge) do not starve a page: its frames get a turn within FRAMES_WAIT_MS', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const sent: number[] = [];
    // Every key's rendering costs 1 ms and asks for the next at once: there are always pictures waiting.
    let key = 0;
    const picture = (): void => {
      time.spend(1);
      work.post('pictures', `picture:${key++ % 32}`, picture);
    };
    for (let k = 0; k < 32; k++) work.post('pictures', `picture:${k}`, picture);
    const postedAt = time.precise();
    work.post('frames', 'frames:page', () => void sent.push(time.precise()), true);
    for (let turn = 0; turn < 200 && sent.length === 0; turn++) time.turn();
    expect(sent).toHaveLength(1);
    // Within the bound plus the slice that was running when it came due (2 ms, and one task of 1 ms).
    expect((sent[0] ?? Infinity) - postedAt).toBeLessThanOrEqual(FRAMES_WAIT_MS + 3);
    // And pictures still come first otherwise: the frame did not jump the line before its time.
    expect((sent[0] ?? 0) - postedAt).toBeGreaterThanOrEqual(FRAMES_WAIT_MS);
  });

  it('changes of meaning that never stop do not stop what only moves: a clock gets a turn within PICTURES_WAIT_MS, a frame within FRAMES_WAIT_MS', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const moved: number[] = [];
    const sent: number[] = [];
    // Every change costs 1 ms and brings the next at once (a recorder whose channels all change at every read).
    let key = 0;
    const change = (): void => {
      time.spend(1);
      work.post('meaning', `picture:${key++ % 16}`, change);
    };
    for (let k = 0; k < 16; k++) work.post('meaning', `picture:${k}`, change);
    const postedAt = time.precise();
    work.post('pictures', 'picture:clock', () => void moved.push(time.precise()));
    work.post('frames', 'frames:page', () => void sent.push(time.precise()), true);
    for (let turn = 0; turn < 600 && moved.length === 0; turn++) time.turn();
    expect(moved).toHaveLength(1);
    expect(sent).toHaveLength(1);
    // Each within its bound plus the slice running when it came due (2 ms, and one task of 1 ms), the frame first (its bound is shorter).
    expect(sent[0] as number).toBeLessThan(moved[0] as number);
    expect((sent[0] as number) - postedAt).toBeGreaterThanOrEqual(FRAMES_WAIT_MS);
    expect((sent[0] as number) - postedAt).toBeLessThanOrEqual(FRAMES_WAIT_MS + 3);
    expect((moved[0] as number) - postedAt).toBeGreaterThanOrEqual(PICTURES_WAIT_MS);
    expect((moved[0] as number) - postedAt).toBeLessThanOrEqual(PICTURES_WAIT_MS + 3);
    // And changes still come first otherwise: the line's wait starts again after its turn (a clock posted now waits its bound again).
    const again = time.precise();
    work.post('pictures', 'picture:clock', () => void moved.push(time.precise()));
    for (let turn = 0; turn < 600 && moved.length === 1; turn++) time.turn();
    expect((moved[1] as number) - again).toBeGreaterThanOrEqual(PICTURES_WAIT_MS);
  });

  it('a task that fails is said, and the work goes on', () => {
    const time = new WorkTime();
    const errors: unknown[] = [];
    const work = scheduler(time, errors);
    const order: string[] = [];
    work.post('pictures', 'a', () => {
      throw new Error('no font');
    });
    work.post('pictures', 'b', async () => {
      await Promise.resolve();
      throw new Error('sharp said no');
    });
    work.post('pictures', 'c', () => void order.push('c'));
    work.post('input', '', () => {
      throw new Error('bad press');
    });
    work.post('input', '', () => void order.push('press'));
    expect(errors.map((e) => (e as Error).message)).toContain('no font');
    expect(errors.map((e) => (e as Error).message)).toContain('bad press');
    expect(order).toContain('press');
  });

  it('measures the share of its time spent on pictures: high while they cost, back to 0 when idle', () => {
    const time = new WorkTime();
    const work = scheduler(time);
    for (let ms = 0; ms < 2000; ms += 10) {
      work.post('pictures', 'k', () => time.spend(5));
      time.advance(10);
    }
    expect(work.busyShare()).toBeGreaterThan(0.25);
    time.advance(3000);
    expect(work.busyShare()).toBe(0);
  });
});

/**
 * A scheduler under a CPU quota of 25 % of a core (10 ms periods) with the default budget (0.1875 ms of CPU
 * a ms, 1.875 ms at most), and the process's CPU: `cpu(ms)` is work on the main thread (the clock's
 * precise timer moves too), `cpu.elsewhere(ms)` CPU on other threads (libvips, the collector's helpers).
 */
function underQuota(share: number | null = 0.25) {
  const time = new WorkTime();
  let usedMs = 0;
  const cpu = Object.assign(
    (ms: number) => {
      time.spend(ms);
      usedMs += ms;
    },
    { elsewhere: (ms: number) => void (usedMs += ms) },
  );
  const cpuBudget = new CpuBudget(time, { meter: { usedMs: () => usedMs }, quota: () => (share === null ? null : { share, periodMs: 10 }) });
  const work = new WorkScheduler(time, { sliceMs: 2, onError: (_priority, error) => { throw error; }, cpuBudget });
  return { time, work, cpu };
}

describe('WorkScheduler under a CPU budget', () => {
  it('once the budget is spent the next slice waits the bucket\'s time on the clock, while a press posted meanwhile runs at once', () => {
    const { time, work, cpu } = underQuota();
    const order: string[] = [];
    for (let key = 0; key < 8; key++) {
      work.post('pictures', `picture:${key}`, () => {
        cpu(1.5);
        order.push(`p${key}`);
      });
    }
    // The first slice ran its 2 ms (two pictures, 3 ms of CPU): the bucket owes 1.875 + 3 x 0.1875 - 3 = -0.5625, 3 ms of refill.
    expect(order).toEqual(['p0', 'p1']);
    expect(work.stats.budgetWaits).toBe(1);
    time.turn();
    expect(order).toEqual(['p0', 'p1']); // not on the next turn, as without a budget: the CPU is left unused
    work.post('input', '', () => void order.push('press'));
    expect(order).toEqual(['p0', 'p1', 'press']); // input never asks the budget
    time.advance(2);
    expect(order).toHaveLength(3);
    time.advance(1); // the 3 ms: the next slice
    expect(order).toEqual(['p0', 'p1', 'press', 'p2', 'p3']);
    // It spent 3 ms with nothing in the bucket: 3 - 0.5625 = 2.4375 owed, 13 ms.
    time.advance(12);
    expect(order).toHaveLength(5);
    time.advance(1);
    expect(order).toHaveLength(7);
    // From here 3 ms of CPU every 16 ms (13 waited, 3 run): 0.1875 of the time, the budget's rate.
    time.advance(12);
    expect(order).toHaveLength(7);
    time.advance(1);
    expect(order.filter((o) => /^p\d/.test(o))).toHaveLength(8);
    expect(work.busy).toBe(false);
  });

  it('a change of meaning posted while moving parts wait for the budget is the first picture made when the wait ends', () => {
    const { time, work, cpu } = underQuota();
    const order: string[] = [];
    for (let key = 0; key < 30; key++) work.post('pictures', `picture:${key}`, () => void (cpu(1.5), order.push(`clock ${key}`)));
    expect(order).toEqual(['clock 0', 'clock 1']);
    expect(work.stats.budgetWaits).toBe(1);
    work.post('meaning', 'picture:17', () => void (cpu(1.5), order.push('stopped 17')));
    expect(order).toHaveLength(2); // within the budget: it waits too, and input still finds the quota's rest
    time.advance(3); // the bucket's wait (as in the test above)
    expect(order.slice(2, 3)).toEqual(['stopped 17']);
    for (let ms = 0; ms < 2000 && work.busy; ms++) time.advance(1);
    expect(order.filter((o) => o === 'clock 17' || o === 'stopped 17')).toEqual(['stopped 17']); // one drawing of key 17
    expect(order).toHaveLength(30);
  });

  it('without a quota the line runs as it always did: the next slice on the next turn', () => {
    const { time, work, cpu } = underQuota(null);
    const order: string[] = [];
    for (let key = 0; key < 4; key++) work.post('pictures', `picture:${key}`, () => void (cpu(1.5), order.push(`p${key}`)));
    expect(order).toEqual(['p0', 'p1']);
    time.turn();
    expect(order).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(work.stats.budgetWaits).toBe(0);
  });

  it('CPU used off the thread by a task that awaited (a preview\'s decode on libvips) puts the next picture off', async () => {
    const { time, work, cpu } = underQuota();
    const order: string[] = [];
    work.post('pictures', 'preview-decode:1', async () => {
      await Promise.resolve();
      cpu.elsewhere(4); // sharp's decode on its own threads
      order.push('decoded');
    });
    work.post('pictures', 'picture:a', () => void order.push('a'));
    await settle(() => true, 'the decode');
    expect(order).toEqual(['decoded']);
    expect(work.stats.budgetWaits).toBe(1);
    // 1.875 - 4 = -2.125: 11.3 ms at 0.1875, so 12.
    time.advance(11);
    expect(order).toEqual(['decoded']);
    time.advance(1);
    expect(order).toEqual(['decoded', 'a']);
  });

  it('a burst of the collector does not hold input, and holds pictures at most MAX_WAIT_MS', () => {
    const { time, work, cpu } = underQuota();
    const order: string[] = [];
    work.post('pictures', 'picture:warm', () => void order.push('first'));
    cpu.elsewhere(300); // a long mark-compact
    work.post('input', '', () => void order.push('press'));
    work.post('pictures', 'picture:a', () => void order.push('a'));
    expect(order).toEqual(['first', 'press']);
    time.advance(MAX_WAIT_MS - 1);
    expect(order).toEqual(['first', 'press']);
    time.advance(1);
    expect(order).toEqual(['first', 'press', 'a']);
  });

  it('the time pictures wait for the budget counts as busy (the pace eases what they are asked for); pictures that fit count only their own time', () => {
    const run = (costMs: number) => {
      const { time, work, cpu } = underQuota();
      for (let ms = 0; ms < 3000; ms += 10) {
        for (let key = 0; key < 4; key++) work.post('pictures', `k${key}`, () => cpu(costMs));
        time.advance(10);
      }
      return { share: work.busyShare(), waits: work.stats.budgetWaits };
    };
    // 4 x 1 ms every 10 ms (40 % of the clock) against a budget of 18.75 %: held most of the time.
    const over = run(1);
    expect(over.waits).toBeGreaterThan(100);
    expect(over.share).toBeGreaterThan(0.5);
    // 4 x 0.25 ms every 10 ms (10 %): within the budget, never held, the share what the work took.
    const within = run(0.25);
    expect(within.waits).toBe(0);
    expect(within.share).toBeLessThan(0.15);
  });
});

describe('picture pace', () => {
  const clock = (durationS: number, state: ChannelPicture['state'] = 'recording'): ChannelPicture => ({
    kind: 'channel',
    channel: 1,
    state,
    lastSeen: state === 'stale' ? 'recording' : null,
    source: 'CAM 1',
    durationS,
    fps: 25,
    drops: 0,
    warning: null,
    buffered: 0,
    audioPreview: false,
    thumbnail: null,
    ageS: state === 'stale' ? 2 : null,
  });

  it('only what moves is slowed, and only under load', () => {
    expect(sameMeaning(clock(10), clock(11))).toBe(true);
    expect(sameMeaning(clock(10), clock(10, 'stale'))).toBe(false);
    expect(sameMeaning(clock(10), { ...clock(10), overlay: { flash: 'failed' } })).toBe(false);
    expect(nextStretchMs(0, 0.1)).toBe(0);
    expect(nextStretchMs(0, 0.7)).toBe(40); // grows from a frame, at most doubling
    expect(nextStretchMs(200, 0.95)).toBe(MAX_STRETCH_MS);
    expect(nextStretchMs(100, TARGET_SHARE * 0.75)).toBe(100); // between half the target and the target it holds
    expect(nextStretchMs(100, 0.05)).toBe(75); // eases off
    let stretch = MAX_STRETCH_MS;
    for (let second = 0; second < 30; second++) stretch = nextStretchMs(stretch, 0);
    expect(stretch).toBe(0);
  });

  async function run(renderMs: number): Promise<{ perKey: number; staleDrawnAfterMs: number; pressWaited: boolean; busyShare: number }> {
    const time = new WorkTime();
    const work = scheduler(time);
    const surface = new MemorySurface({ id: 'memory:pace', model: 'test-32', controls: keyGrid(4, 8, 72), time });
    const drawnAt = new Map<string, number[]>();
    let staleAt: number | null = null;
    let staleDrawnAt: number | null = null;
    const renderer: PictureRenderer = {
      render: (picture, size) => {
        time.spend(renderMs);
        if (picture.kind === 'channel' && picture.state === 'stale' && staleDrawnAt === null) staleDrawnAt = time.now();
        return Promise.resolve({ width: size.width, height: size.height, data: Buffer.from(JSON.stringify(picture)) });
      },
      led: () => 'off',
      reasonPages: () => 1,
    };
    const painter = new PicturePainter(surface, renderer, { faderRange: () => null }, { work, time, log: silent });
    surface.output.drawn$.subscribe((item) => {
      if (item.type === 'image') drawnAt.set(item.control, [...(drawnAt.get(item.control) ?? []), time.now()]);
    });
    const quiet = () => !work.busy && painter.idle;
    let pressWaited = false;
    // Every key's clock changes every 20 ms (a worst case: a meter a key), for 3 s.
    for (let step = 1; step <= 150; step++) {
      const stale = step === 120;
      if (stale) staleAt = time.now();
      for (const { id } of surface.controls) painter.show(id, clock(step, step >= 120 && id === 'key0' ? 'stale' : 'recording'));
      let pressed = false;
      work.post('input', '', () => void (pressed = true));
      if (!pressed) pressWaited = true;
      await settle(() => true, 'the renderings'); // what the slice awaits finishes before the clock moves
      time.advance(20);
      // The slices that yielded run on the clock's next turns (at this same virtual moment).
      for (let turn = 0; turn < 200 && !quiet(); turn++) {
        time.turn();
        await settle(() => true, 'the renderings');
      }
      expect(quiet()).toBe(true);
    }
    const late = (drawnAt.get('key5') ?? []).filter((at) => at > time.now() - 2000).length;
    
    return { perKey: late, staleDrawnAfterMs: (staleDrawnAt ?? Infinity) - (staleAt ?? 0), pressWaited, busyShare: work.busyShare() };
  }

  it('under a budget the picture rate drops (a change of meaning still drawn at once), and no press waits', async () => {
    const calm = await run(0);
    const loaded = await run(0.5); // 32 keys x 0.5 ms every 20 ms: most of the time on pictures
    expect(calm.perKey).toBeGreaterThanOrEqual(95); // every change drawn: 100 in 2 s
    expect(loaded.perKey).toBeLessThanOrEqual(50); // what only moves is redrawn at most half as often (100 changes)
    expect(loaded.perKey).toBeGreaterThanOrEqual(2000 / MAX_STRETCH_MS - 1); // but it still moves, 4 times a second at least
    expect(loaded.busyShare).toBeLessThan(0.5); // and pictures leave the bridge most of its time (0.98 without the pace)
    expect(loaded.staleDrawnAfterMs).toBeLessThanOrEqual(20); // a key going stale is not held back
    expect(calm.pressWaited || loaded.pressWaited).toBe(false);
  });

  it('a key going stale is drawn ahead of the clocks that wait in line, each key once', async () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const surface = new MemorySurface({ id: 'memory:meaning', model: 'test-8', controls: keyGrid(1, 8, 72), time });
    const renderer: PictureRenderer = {
      render: (picture, size) => {
        time.spend(1);
        return Promise.resolve({ width: size.width, height: size.height, data: Buffer.from(JSON.stringify(picture)) });
      },
      led: () => 'off',
      reasonPages: () => 1,
    };
    const painter = new PicturePainter(surface, renderer, { faderRange: () => null }, { work, time, log: silent });
    const drawn: string[] = [];
    surface.output.drawn$.subscribe((item) => {
      if (item.type === 'image') drawn.push(`${item.control} ${(JSON.parse(item.image.data.toString()) as ChannelPicture).state}`);
    });
    const drain = async () => {
      for (let turn = 0; turn < 100 && !(!work.busy && painter.idle); turn++) {
        await settle(() => true, 'the drawings');
        time.turn();
      }
      await settle(() => !work.busy && painter.idle, 'the drawings');
    };
    for (const { id } of surface.controls) painter.show(id, clock(1));
    await drain();
    time.advance(1000);
    drawn.length = 0;
    // The next second on every key (what only moves), then key7 goes stale while they wait.
    for (const { id } of surface.controls) painter.show(id, clock(2));
    painter.show('key7', clock(2, 'stale'));
    await drain();
    expect(drawn[0]).toBe('key0 recording'); // the slice under way when the clocks were posted
    expect(drawn.indexOf('key7 stale')).toBeLessThanOrEqual(2);
    expect(drawn.filter((d) => d.startsWith('key7'))).toEqual(['key7 stale']);
    expect(drawn).toHaveLength(8);
  });

  it('a new preview alone goes with the key\'s next clock second: one drawing a second, not two; the first preview and other changes at once', async () => {
    const time = new WorkTime();
    const work = scheduler(time);
    const surface = new MemorySurface({ id: 'memory:previews', model: 'test-2', controls: keyGrid(1, 2, 72), time });
    const drawn: Array<{ at: number; control: string; picture: ChannelPicture }> = [];
    const renderer: PictureRenderer = {
      render: (picture, size) => Promise.resolve({ width: size.width, height: size.height, data: Buffer.from(JSON.stringify(picture)) }),
      led: () => 'off',
      reasonPages: () => 1,
    };
    const painter = new PicturePainter(surface, renderer, { faderRange: () => null }, { work, time, log: silent });
    surface.output.drawn$.subscribe((item) => {
      if (item.type === 'image') drawn.push({ at: time.now(), control: item.control, picture: JSON.parse(item.image.data.toString()) as ChannelPicture });
    });
    const step = async (ms: number) => {
      for (let t = 0; t < ms; t += 10) {
        time.advance(10);
        await settle(() => !work.busy && painter.idle, 'the drawings');
      }
    };
    // key0 records (its clock ticks each second), key1 is idle (no clock); previews come at +400 ms of each second.
    const recording = (second: number, frame: number | null): ChannelPicture => ({ ...clock(second), thumbnail: frame === null ? null : `f${frame}` });
    const idle = (frame: number | null): ChannelPicture => ({ ...clock(0), state: 'idle', durationS: null, fps: null, thumbnail: frame === null ? null : `f${frame}` });
    expect(onlyPreviewMoved(recording(1, 1), recording(1, 2))).toBe(true);
    expect(onlyPreviewMoved(recording(1, 1), recording(2, 2))).toBe(false);
    expect(onlyPreviewMoved(recording(1, null), recording(1, 1))).toBe(false); // the first preview
    painter.show('key0', recording(0, null));
    painter.show('key1', idle(null));
    await step(400);
    painter.show('key0', recording(0, 0));
    painter.show('key1', idle(0));
    await step(10);
    // The first preview is drawn at once on both.
    expect(drawn.filter((d) => d.picture.thumbnail === 'f0').map((d) => d.control).sort()).toEqual(['key0', 'key1']);
    const from = drawn.length;
    for (let second = 1; second <= 5; second++) {
      await step(590); // to the second
      painter.show('key0', recording(second, second - 1));
      await step(400); // to +400 ms: the next preview
      painter.show('key0', recording(second, second));
      painter.show('key1', idle(second));
    }
    await step(1200);
    const key0 = drawn.slice(from).filter((d) => d.control === 'key0');
    // One drawing a second (the clock), each with the preview that came before it; never one for a preview alone.
    expect(key0.map((d) => [d.picture.durationS, d.picture.thumbnail])).toEqual([[1, 'f0'], [2, 'f1'], [3, 'f2'], [4, 'f3'], [5, 'f4'], [5, 'f5']]);
    // The last preview, with no clock second after it, still came, PREVIEW_MS after the last drawing.
    expect((key0[5]?.at ?? 0) - (key0[4]?.at ?? 0)).toBeLessThanOrEqual(PREVIEW_MS + 10);
    // A key without a clock shows a new preview at most every PREVIEW_MS, the newest each time.
    const key1 = drawn.slice(from).filter((d) => d.control === 'key1');
    for (let i = 1; i < key1.length; i++) expect((key1[i]?.at ?? 0) - (key1[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(PREVIEW_MS);
    expect(key1.at(-1)?.picture.thumbnail).toBe('f5');
    // A change of meaning is not held by a waiting preview.
    painter.show('key0', recording(6, 6));
    await step(10);
    const stopped: ChannelPicture = { ...recording(6, 6), state: 'idle', durationS: null };
    painter.show('key0', stopped);
    await step(10);
    expect(drawn.at(-1)?.picture.state).toBe('idle');
  });
});
