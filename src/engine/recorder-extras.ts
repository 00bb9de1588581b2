// Previews and audio meters are costly to fetch, so they are fetched only for what a visible control
// shows (the demand), each at its own rate, with a bound on fetches in flight. Thumbnails are decoded
// off the key-press path by an injected decoder and kept in a store the renderer reads by key.
//
// A gain the bridge writes has one owner, here: it is the gain until a read that started after that
// write ended comes back, so a meter read already under way never undoes a dial step, and writes to one
// source leave in the order they were decided.
import { createHash } from 'node:crypto';
import { EMPTY, Subject, Subscription, distinctUntilChanged, map, startWith, switchMap, timer, type Observable } from 'rxjs';
import { realTime, type EngineTime } from './engine-time.js';
import { FetchPacer } from './fetch-pacer.js';
import type { RgbImage } from './surface.js';
import type { RecorderLink } from './recorder-link.js';
import { freshnessOf } from './recorder-state.js';

export interface ExtrasDemand {
  /** 0-based channel indexes whose preview a visible key shows. */
  thumbnails: ReadonlySet<number>;
  /** Source names whose meters or gain a visible control shows or steps. */
  meters: ReadonlySet<string>;
}

export interface ExtrasOptions {
  /** Default 1000 ms: one preview per channel per second. */
  thumbnailMs?: number;
  /** Default 250 ms. */
  meterMs?: number;
  /** Fetches of each kind under way at once; default 2 (half the client's read connections). */
  concurrency?: number;
  /** Decodes a preview PNG into a small image. */
  decodeThumbnail: (png: Uint8Array) => Promise<RgbImage>;
  /** The clock and scheduler of every fetch; real time by default. */
  time?: EngineTime;
}

export interface MeterReading {
  levels: number[];
  gainDb: number;
  sourceIndex: number;
}

/** A gain this bridge wrote and still owns. */
interface WrittenGain {
  db: number;
  /** Writes sent and not answered yet. */
  inFlight: number;
  /** The order number at which the last write was answered: only a read started after it may replace the gain. */
  settledAt: number;
  /** The last write to this source, so the next one leaves after it. */
  tail: Promise<void>;
}

export class RecorderExtras {
  private readonly thumbnails = new Map<number, { key: string; image: RgbImage }>();
  /** Last meter reads by source name, as the recorder answered them. */
  private readonly meters = new Map<string, MeterReading>();
  /** Gains written by the bridge, by source index. */
  private readonly writtenGains = new Map<number, WrittenGain>();
  /** Orders read starts and write answers (a counter, not a clock: two events in one millisecond still have an order). */
  private order = 0;
  private readonly time: EngineTime;
  private readonly demands = new Map<string, ExtrasDemand>();
  private readonly gainWrites = new Subject<void>();
  private readonly demandChanged = new Subject<void>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly link: RecorderLink,
    private readonly options: ExtrasOptions,
  ) {
    this.time = options.time ?? realTime;
  }

  /**
   * Emits when this bridge writes a gain: the controls showing it are drawn again at once (a dial's
   * steps must show as they are turned). Fetched previews and levels change many times a second and
   * nobody waits for them: they are drawn at the sessions' next frame.
   */
  get gainWritten$(): Observable<void> {
    return this.gainWrites.asObservable();
  }

  /** Each surface states what it currently shows; the union is fetched. */
  setDemand(owner: string, demand: ExtrasDemand | null): void {
    if (demand === null) this.demands.delete(owner);
    else this.demands.set(owner, demand);
    this.demandChanged.next();
  }

  start(): void {
    if (this.subscription) return;
    // Each kind takes at most half the read connections, so the slow group always finds one free.
    const concurrency = this.options.concurrency ?? 2;
    const now = () => this.time.now();
    const thumbnailMs = this.options.thumbnailMs ?? 1000;
    const meterMs = this.options.meterMs ?? 250;
    const thumbnails = new FetchPacer<number>({ intervalMs: thumbnailMs, concurrency, now, wanted: () => this.wanted('thumbnails') as number[], fetch: (index) => this.fetchThumbnail(index) });
    const meters = new FetchPacer<string>({ intervalMs: meterMs, concurrency, now, wanted: () => this.wanted('meters') as string[], fetch: (name) => this.fetchMeter(name) });
    const { scheduler } = this.time;
    // Ticks at the interval look for due items; a backed-off item simply waits for a later tick. A kind
    // nothing shows has no ticks at all (an idle bridge wakes only for its state reads); the first
    // demand for it ticks at once.
    const ticks = (kind: keyof ExtrasDemand, intervalMs: number) =>
      this.demandChanged.pipe(
        startWith(undefined),
        map(() => [...this.demands.values()].some((demand) => demand[kind].size > 0)),
        distinctUntilChanged(),
        switchMap((demanded) => (demanded ? timer(0, intervalMs, scheduler) : EMPTY)),
      );
    this.subscription = new Subscription();
    this.subscription.add(ticks('thumbnails', thumbnailMs).subscribe(() => thumbnails.pump()));
    this.subscription.add(ticks('meters', meterMs).subscribe(() => meters.pump()));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  thumbnailKey(index: number): string | null {
    return this.thumbnails.get(index)?.key ?? null;
  }

  thumbnailImage(key: string): RgbImage | undefined {
    for (const entry of this.thumbnails.values()) if (entry.key === key) return entry.image;
    return undefined;
  }

  /** A source's levels as last read, and its gain: the one this bridge wrote while it owns it, else the read one. */
  meter(sourceName: string): MeterReading | null {
    const reading = this.meters.get(sourceName);
    const sourceIndex = reading?.sourceIndex ?? this.link.state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
    const written = this.writtenGains.get(sourceIndex);
    if (written) return { levels: reading?.levels ?? [], gainDb: written.db, sourceIndex };
    return reading ?? null;
  }

  /** The gain a step starts from: the last one written while this bridge owns it, else the last read. */
  knownGain(sourceIndex: number): number | null {
    const written = this.writtenGains.get(sourceIndex);
    if (written) return written.db;
    for (const reading of this.meters.values()) if (reading.sourceIndex === sourceIndex) return reading.gainDb;
    return null;
  }

  /**
   * Writes a gain (`send` makes the request) after any earlier write to the same source, and owns it
   * from now on: the next step builds on it, and reads that started before this write was answered
   * do not replace it. Rejects as `send` does.
   */
  async writeGain(sourceIndex: number, db: number, send: () => Promise<unknown>): Promise<void> {
    const written = this.writtenGains.get(sourceIndex) ?? { db, inFlight: 0, settledAt: 0, tail: Promise.resolve() };
    written.db = db;
    written.inFlight++;
    this.writtenGains.set(sourceIndex, written);
    this.gainWrites.next();
    const request = written.tail.then(send);
    written.tail = request.then(
      () => undefined,
      () => undefined,
    );
    try {
      await request;
    } finally {
      written.inFlight--;
      written.settledAt = ++this.order;
    }
  }

  private wanted(kind: keyof ExtrasDemand): Array<number | string> {
    // Stopped (a fetch ending after stop() asks again), or nobody to fetch from.
    if (!this.subscription || freshnessOf(this.link.state, this.time.now()) === 'offline') return [];
    const all = new Set<number | string>();
    for (const demand of this.demands.values()) for (const item of demand[kind]) all.add(item);
    return [...all];
  }

  /** Resolves with how long the recorder took to answer. */
  private async fetchThumbnail(index: number): Promise<number> {
    const sentAt = this.time.now();
    let answeredAt = sentAt;
    try {
      const png = await this.link.call({ method: 'getChannelPreview', args: [index] });
      answeredAt = this.time.now();
      // Named by content: an unchanged preview keeps its key, so nothing is decoded, rendered or sent again.
      const key = `${this.link.name}/${index}/${createHash('sha1').update(png).digest('hex').slice(0, 16)}`;
      if (this.thumbnails.get(index)?.key !== key) {
        const image = await this.options.decodeThumbnail(png);
        this.thumbnails.set(index, { key, image });
      }
    } catch {
      // A missing preview leaves the last one (or none) in place; the channel's own state still shows.
      answeredAt = this.time.now();
    }
    return answeredAt - sentAt;
  }

  /** Reads a source's gain (and levels) now, for a step that finds it unknown. */
  async readGain(sourceName: string): Promise<void> {
    await this.fetchMeter(sourceName);
  }

  /** Resolves with how long the recorder took to answer. */
  private async fetchMeter(sourceName: string): Promise<number> {
    const sourceIndex = this.link.state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
    if (sourceIndex < 0) return 0;
    const startedAt = ++this.order;
    const sentAt = this.time.now();
    try {
      const source = await this.link.call({ method: 'getSource', args: [sourceIndex] });
      if (source.Name === sourceName) {
        const written = this.writtenGains.get(sourceIndex);
        // The recorder's gain becomes the truth again once a read started after the last write was answered.
        if (written && written.inFlight === 0 && startedAt > written.settledAt) this.writtenGains.delete(sourceIndex);
        this.meters.set(sourceName, { levels: source.AudioMeters, gainDb: source.AudioGain, sourceIndex });
      } // else the list moved under us; the next slow poll fixes it
    } catch {
      // Meters are best effort; a failed read shows the last levels until the data goes stale.
    }
    return this.time.now() - sentAt;
  }
}
