// (i) A small machine at the desk: the real `recdeck run` (shipped profiles, poll 250 ms) with 16 channels
// recording on a simulator in a process of its own, a page open in Debian's chromium at desk size (every
// deck on screen, the 32-key one fetching 16 previews a second), and the bridge optionally held to a
// share of one core by a cgroup CPU quota (cpu-quota.ts), as a Raspberry Pi's core or a busy host would.
// Measured from outside the bridge, as an operator meets it:
// - press → request: a tap on a channel key of the 15-key web deck (rec-start on a channel already
//   recording, which the recorder answers and leaves as it is), sent over the web deck's socket as the
//   page sends it, timed from the release (the key also has a hold, so the tap fires on release) to the
//   write's arrival at the simulator, read from its request log (desk-match.ts);
// - recorder change → key image: a channel stopped or started inside the simulator (a write from the
//   bench, which the bridge sees only by polling) until the key's image on the page's socket shows it,
//   read from its band (key-frames.ts);
// - how often a key showed the healthy recorder as not live: the same keys' images, sampled;
// - the bridge's CPU (from /proc) and, under a quota, how often and how long the kernel held it (cpu.stat).
// The bench process itself is not under the quota: it stands for the world outside the small machine.
// So does chromium, which stands for the operator's desk computer, so it runs at the lowest priority
// (nice 19, its own processes inherit it): on this 2-core host its renderer and compositor take most of
// a core in bursts, and at equal priority a runnable bridge waited for a core behind them, which showed
// as press delays even without a quota (p99 8-176 ms unlimited in the same runs, docs/performance.md).
// A Pi beside the desk does not share its core with the desk's browser; the quota alone models it. For the
// same reason the bridge runs on a core of its own and the rest on the other (cpu-pinning.ts).
import { once } from 'node:events';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { messageOf } from '../api/errors.js';
import { expandPath, operations } from '../api/operations.js';
import type { LoggedRequest } from '../simulator/request-log.js';
import { affinityOf, cpuSplit, pinProcess } from './cpu-pinning.js';
import { QUOTA_PERIOD_US, createCpuQuota, findCpuCgroup, throttlingSince, type CpuQuotaGroup, type Throttling } from './cpu-quota.js';
import { matchPresses, writesOf, type SentPress } from './desk-match.js';
import type { PressTraceSummary } from './press-trace.js';
import { summarizeLumps, threadKinds, type LumpSummary } from './press-lumps.js';
import { pressTraceChild, profileTasks, readPressTrace, sampleScheduling } from './press-trace-run.js';
import { DeckLink } from './deck-link.js';
import { channelKeyState, type ShownState } from './key-frames.js';
import { LeanHttp } from './lean-http.js';
import { startChildSimulator } from './load.js';
import { measureWhile } from './proc.js';
import { startRunChild } from './run-child.js';
import { percentile, preciseNow, sleep } from './stats.js';

export interface DeskRun {
  /** Percent of one core, or null without a quota. */
  quotaPercent: number | null;
  pollMs: number;
  seconds: number;
  /** 1-minute load average of the machine at the start and the end of the measured window. */
  loadAverage: [number, number];
  presses: number;
  pressP50: number;
  pressP95: number;
  pressP99: number;
  /** Presses for which no write reached the recorder. */
  unanswered: number;
  changes: number;
  changeP50: number;
  changeP99: number;
  /** Changes the key had not shown 5 s later. */
  changesNotShown: number;
  cpuPercent: number;
  rssMb: number;
  /** Over the measured window; null without a quota. */
  throttling: Throttling | null;
  keySamples: number;
  notLiveSamples: number;
  /** Where the bridge's CPU profile went (--cpu-prof), if one was asked for. */
  cpuProfile: string | null;
  /** Requests the recorder saw in the window, a second, by operation (the bridge's reads and the bench's writes), most first. */
  requestsPerS: Array<[string, number]>;
  /** Frames (and kB) a second the page in chromium received on its sockets in the window: what the bridge sent it. */
  pageFramesPerS: number;
  pageKbPerS: number;
  /** With --press-trace: each press's latency split into hops (press-trace.ts), and where the bridge's stamps are. */
  pressTrace: (PressTraceSummary & { file: string }) | null;
  /** With a trace under a quota: the held stretches and what ran in them (press-lumps.ts). */
  lumps: LumpSummary | null;
}

export interface DeskOptions {
  seconds: number;
  warmUpMs: number;
  /** Write the bridge's CPU profile (node --cpu-prof) into this folder. */
  cpuProfileFolder?: string;
  /** The bridge's --render-thread (pictures on a thread of their own, or on its main thread); absent: its default. */
  renderThread?: 'on' | 'off';
  /** --press-trace: the bridge runs with press-trace-preload.ts writing its stamps to this file, read after the row. */
  pressTraceFile?: string;
}

const TOKEN = 'perm:00000000-0000-4000-8000-00000000desk';
const POLL_MS = 250;
const CHROMIUM = process.env.RECDECK_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
/** The deck the bench presses and reads: channel keys 0-7 show channels 1-8 without previews, so their band is plain. */
const DECK = 'web:web-15';
/** Channels (0-based) tapped; rec-start on a channel that records already is answered and changes nothing. */
const PRESSED = [0, 1, 2, 3];
/**
 * Presses about four a second (a gap of 150-350 ms, then the 40 ms tap), each key about once a second:
 * a p99 needs a hundred presses or more to be more than the slowest one or two (at one a second, a
 * 20 s row had 25 and the same tree gave a p99 of 6.5 and 264 ms in two runs). A press costs the bridge
 * one request and its answer, a small part of its load beside the page's.
 */
const PRESS_GAP_MS = [150, 350] as const;
/** Channels (0-based) stopped and started inside the recorder; their keys are the ones sampled. */
const CHANGED = [4, 5, 6, 7];
const CHANGE_SHOWN_MS = 5000;
/**
 * The simulator keeps its last 2000 requests: with a page open that is under a minute (polls, 16 previews
 * and the meters' sources a second), so its log is read this often.
 */
const LOG_READ_MS = 15_000;

/** The little of the DOM pageKeyState uses (it runs in the browser, not in Node). */
declare const document: {
  querySelector(selector: string): { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null } | null;
};

/** What a key's canvas on the page shows (the image as the page drew it), or null before it has one. */
async function pageKeyState(page: Page, control: string): Promise<ShownState | null> {
  // The selector is built here: the deck's and key's ids are the bench's own constants, plain words.
  const selector = `canvas[data-surface="${DECK}"][data-control="${control}"]`;
  const drawn = await page.evaluate((selector) => {
    const canvas = document.querySelector(selector);
    const rgba = canvas === null || canvas.width === 0 || canvas.height === 0 ? undefined : canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    if (canvas === null || rgba === undefined) return null;
    const rgb: number[] = [];
    for (let i = 0; i < rgba.length; i += 4) rgb.push(rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number);
    return { width: canvas.width, height: canvas.height, rgb };
  }, selector);
  return drawn === null ? null : channelKeyState({ width: drawn.width, height: drawn.height, data: Buffer.from(drawn.rgb) });
}

/** The page's key state once it is `state`, looked at every 200 ms for up to `ms`; what it showed last otherwise. */
async function pageShows(page: Page, control: string, state: ShownState, ms: number): Promise<ShownState | null> {
  const until = preciseNow() + ms;
  for (;;) {
    const shown = await pageKeyState(page, control);
    if (shown === state || preciseNow() >= until) return shown;
    await sleep(200);
  }
}

/** Reads the simulator's request log as it goes, keeping every request since the start (it holds only its last 2000). */
class LogReader {
  private seen = 0;
  readonly requests: LoggedRequest[] = [];
  constructor(private readonly http: LeanHttp) {}

  async read(): Promise<void> {
    const log = (await this.http.send('GET', '/_sim/requests')) as LoggedRequest[];
    if (this.seen > 0 && (log[0]?.seq ?? 0) > this.seen + 1) throw new Error("the simulator's request log moved on past requests not yet read: read it more often");
    this.requests.push(...log.filter((r) => r.seq > this.seen));
    this.seen = log.at(-1)?.seq ?? this.seen;
  }
}

const write = (http: LeanHttp, operation: 'recStart' | 'recStop', channel: number) => http.send(operations[operation].method as 'PUT', expandPath(operations[operation].path, { index: channel }));

/** The quota's cgroup, or an error saying why there can be none. */
async function quotaGroup(percent: number): Promise<CpuQuotaGroup> {
  const root = await findCpuCgroup('/sys/fs/cgroup');
  if ('unusable' in root) throw new Error(`--cpu-quota ${percent}: ${root.unusable}`);
  return createCpuQuota(root, `recdeck-bench-${process.pid}-${percent}`, percent);
}

/** Chromium at nice 19 (see the head of this file): a script that execs it under `nice`, in a folder of its own. */
async function nicedChromium(): Promise<{ executable: string; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-bench-chromium-'));
  const executable = join(folder, 'chromium');
  // The path is quoted for the shell: RECDECK_CHROMIUM may hold a space; a quote in it is refused.
  if (CHROMIUM.includes("'")) throw new Error(`RECDECK_CHROMIUM: a path with a single quote is not supported (${CHROMIUM})`);
  await writeFile(executable, `#!/bin/sh\nexec nice -n 19 '${CHROMIUM}' "$@"\n`);
  await chmod(executable, 0o755);
  return { executable, folder };
}

export async function measureDesk(quotaPercent: number | null, options: DeskOptions): Promise<DeskRun> {
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    // The bridge on a core of its own, the world on the others (cpu-pinning.ts): the bench moves itself
    // first, so that the simulator and chromium it starts next inherit the world's cores.
    const split = cpuSplit();
    if (split !== null) {
      const before = await affinityOf(process.pid);
      await pinProcess(process.pid, split.world);
      cleanup.push(() => pinProcess(process.pid, before));
    }
    const sim = await startChildSimulator(TOKEN);
    cleanup.push(async () => {
      sim.child.kill('SIGTERM');
      if (sim.child.exitCode === null && sim.child.signalCode === null) await once(sim.child, 'exit');
    });
    const http = new LeanHttp(sim.url, TOKEN, 2);
    cleanup.push(async () => http.close());
    for (let channel = 0; channel < 16; channel++) await write(http, 'recStart', channel);

    const group = quotaPercent === null ? null : await quotaGroup(quotaPercent);
    if (group) cleanup.push(() => group.remove());
    const profileFolder = options.cpuProfileFolder ?? null;
    const traceFile = options.pressTraceFile ?? null;
    const trace = traceFile === null ? null : pressTraceChild(traceFile);
    const run = await startRunChild(sim.url, TOKEN, {
      args: ['--poll-ms', String(POLL_MS), ...(options.renderThread === undefined ? [] : ['--render-thread', options.renderThread])],
      nodeFlags: [...(profileFolder === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileFolder}`]), ...(trace?.nodeFlags ?? [])],
      ...(trace === null ? {} : { env: trace.env }),
      ...(split === null ? {} : { cpus: split.bridge }),
      started: group ? (pid) => group.add(pid) : undefined,
    });
    const pid = run.child.pid as number;
    const stopBridge = async () => {
      if (run.child.exitCode !== null || run.child.signalCode !== null) return;
      const exited = once(run.child, 'exit');
      run.child.kill('SIGTERM');
      await exited;
    };
    // Stopped before the group is removed (cleanup runs last first); a profile (and a press trace's last lines) is written as it exits.
    cleanup.push(stopBridge);

    const niced = await nicedChromium();
    cleanup.push(() => rm(niced.folder, { recursive: true, force: true }));
    const browser: Browser = await chromium.launch({ executablePath: niced.executable, args: CHROMIUM_FLAGS });
    cleanup.push(() => browser.close());
    // Desk size: wide enough that every deck is on screen, as on a desk monitor beside the hardware.
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    // What the bridge sends the page, counted in the measured window only (a count, which load does not change much).
    const pageFrames = { counting: false, frames: 0, bytes: 0 };
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        if (!pageFrames.counting) return;
        pageFrames.frames++;
        pageFrames.bytes += typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      }),
    );
    await page.goto(run.web);
    await page.locator(`canvas[data-surface="${DECK}"][data-control="key0"]`).waitFor({ state: 'visible', timeout: 120_000 });
    const link = await DeckLink.open(run.web, DECK);
    cleanup.push(async () => link.close());

    await sleep(options.warmUpMs);
    for (const channel of CHANGED) {
      if ((await link.shows(`key${channel}`, 'recording', 10_000)) !== null) continue;
      link.check(); // a frame the link could not apply says more than the key it left behind
      throw new Error(`(i): key${channel} of ${DECK} does not show channel ${channel + 1} recording after the warm-up (it shows ${link.shown(`key${channel}`) ?? 'no image'}; ${link.describe()})`);
    }
    // The page itself, as the operator sees it: its canvases hold the key images as drawn (putImageData),
    // read back and judged as the bench's link judges its own copy.
    for (const channel of CHANGED) {
      const shown = await pageShows(page, `key${channel}`, 'recording', 5000);
      if (shown !== 'recording') throw new Error(`(i): the page in chromium shows key${channel} of ${DECK} as ${shown ?? 'no image'}, not channel ${channel + 1} recording, after the warm-up`);
    }

    const log = new LogReader(new LeanHttp(sim.url, TOKEN, 1));
    await log.read();
    const from = log.requests.at(-1)?.seq ?? 0;
    const end = preciseNow() + options.seconds * 1000;
    const presses: SentPress[] = [];
    const changes: number[] = [];
    let changesNotShown = 0;
    let keySamples = 0;
    let notLiveSamples = 0;

    const pressing = async () => {
      for (let i = 0; preciseNow() < end; i++) {
        await sleep(PRESS_GAP_MS[0] + Math.random() * (PRESS_GAP_MS[1] - PRESS_GAP_MS[0]));
        const channel = PRESSED[i % PRESSED.length] as number;
        link.press(`key${channel}`, 'down');
        await sleep(40);
        presses.push({ channel, at: preciseNow() });
        link.press(`key${channel}`, 'up');
      }
    };
    const changing = async () => {
      for (let i = 0; preciseNow() < end; i++) {
        const channel = CHANGED[i % CHANGED.length] as number;
        for (const [operation, state] of [['recStop', 'ready'], ['recStart', 'recording']] as const) {
          await sleep(Math.random() * POLL_MS); // any phase of the poll
          const t0 = preciseNow();
          await write(http, operation, channel);
          const shown = await link.shows(`key${channel}`, state, CHANGE_SHOWN_MS);
          if (shown === null) changesNotShown++;
          else changes.push(shown - t0);
        }
      }
    };
    const sampling = async () => {
      while (preciseNow() < end) {
        await sleep(200 + Math.random() * 100);
        for (const channel of CHANGED) {
          keySamples++;
          if (link.shown(`key${channel}`) !== 'recording' && link.shown(`key${channel}`) !== 'ready') notLiveSamples++;
        }
      }
    };
    const reading = async () => {
      while (preciseNow() < end) {
        await sleep(Math.min(LOG_READ_MS, Math.max(0, end - preciseNow())));
        await log.read();
      }
    };

    const load0 = loadavg()[0] as number;
    const throttling0 = group ? await group.throttling() : null;
    const windowStart = preciseNow();
    // With a trace, the kernel's counters for the bridge through the row (and a second past it, for the last presses).
    const schedSamples = traceFile === null ? null : sampleScheduling(pid, group, end);
    void schedSamples?.catch(() => undefined); // awaited after the row; if the row fails first, the bridge and its group go and so does the sampling
    pageFrames.counting = true;
    const [cost] = await measureWhile([pid], () => Promise.all([pressing(), changing(), sampling(), reading()]));
    pageFrames.counting = false;
    const windowEnd = preciseNow();
    const windowS = (windowEnd - windowStart) / 1000;
    const throttling1 = group ? await group.throttling() : null;
    const load1 = loadavg()[0] as number;
    link.check();
    await sleep(2000); // the last presses' writes
    await log.read();
    const window = log.requests.filter((r) => r.seq > from);
    const byOperation = new Map<string, number>();
    for (const r of window) {
      if (r.receivedAt < windowStart || r.receivedAt > windowEnd) continue;
      const operation = r.operation ?? `${r.method} ${r.path}`;
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + 1);
    }
    const pressWrites = writesOf(window, 'recStart', PRESSED);
    const matched = matchPresses(presses, pressWrites);
    if (matched.unexplained > 0) throw new Error(`(i): ${matched.unexplained} rec-start writes on channels ${PRESSED.map((c) => c + 1).join(', ')} that no press explains`);
    let pressTrace: DeskRun['pressTrace'] = null;
    let lumps: LumpSummary | null = null;
    if (traceFile !== null) {
      const sampled = schedSamples === null ? undefined : await schedSamples; // done a second after the window: before the bridge stops
      const sched = sampled?.samples;
      await stopBridge(); // the preload writes its last lines as the bridge exits
      const { path: recStartPath, method } = operations.recStart;
      const summary = await readPressTrace(traceFile, {
        presses,
        writes: pressWrites,
        surface: DECK,
        controlOf: (channel) => `key${channel}`,
        method,
        pathOf: (index) => expandPath(recStartPath, { index }),
        ...(sched === undefined ? {} : { sched }),
      });
      pressTrace = { ...summary, file: traceFile };
      if (group !== null && sampled !== undefined) {
        // The bridge's profile, written as it exited: the newest in its folder (one bridge per row).
        const profile = profileFolder === null ? null : await newestProfile(profileFolder);
        const inWindow = sampled.samples.filter((s) => s.from >= windowStart && s.to <= windowEnd);
        // Kept beside the trace for a closer look (a few MB): every sample, and the threads' names.
        await writeFile(`${traceFile}.sched.json`, JSON.stringify({ pid, names: [...sampled.threadNames], samples: inWindow.map((s) => ({ ...s, threads: [...(s.threads ?? [])] })) }));
        lumps = summarizeLumps(inWindow, threadKinds(pid, sampled.threadNames), QUOTA_PERIOD_US / 1000, profile === null ? undefined : await profileTasks(profile));
      }
    }

    return {
      quotaPercent,
      pollMs: POLL_MS,
      seconds: options.seconds,
      loadAverage: [load0, load1],
      presses: presses.length,
      pressP50: percentile(matched.latencies, 50),
      pressP95: percentile(matched.latencies, 95),
      pressP99: percentile(matched.latencies, 99),
      unanswered: matched.unanswered,
      changes: changes.length,
      changeP50: percentile(changes, 50),
      changeP99: percentile(changes, 99),
      changesNotShown,
      cpuPercent: cost?.cpuPercent ?? Number.NaN,
      rssMb: cost?.rssMb ?? Number.NaN,
      throttling: throttling0 && throttling1 ? throttlingSince(throttling0, throttling1) : null,
      keySamples,
      notLiveSamples,
      cpuProfile: profileFolder,
      requestsPerS: [...byOperation].map(([operation, n]): [string, number] => [operation, n / windowS]).sort((a, b) => b[1] - a[1]),
      pageFramesPerS: pageFrames.frames / windowS,
      pageKbPerS: pageFrames.bytes / 1024 / windowS,
      pressTrace,
      lumps,
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((error: unknown) => process.stderr.write(`(i) cleanup: ${messageOf(error)}\n`));
  }
}

/** The newest .cpuprofile in a folder, or null when it has none. */
async function newestProfile(folder: string): Promise<string | null> {
  const files = (await readdir(folder)).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(folder, f));
  const times = await Promise.all(files.map(async (f) => [f, (await stat(f)).mtimeMs] as const));
  return times.sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}
