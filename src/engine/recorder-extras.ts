// Previews and audio meters are costly to fetch, so they are fetched only for what a visible control
// shows (the demand), each at its own rate, with a bound on fetches in flight. Thumbnails are decoded
// off the key-press path by an injected decoder and kept in a store the renderer reads by key.
//
// A source's gain has one owner, here: what this bridge read of it and wrote to it, and when. What may
// be taken as the gain, and how current it is, is decided from those facts by gain-truth.ts, for the
// meters shown and the steps taken alike; writes to one source leave in the order they were decided.
import { createHash } from 'node:crypto';
import { EMPTY, Subject, Subscription, distinctUntilChanged, filter, map, startWith, switchMap, timer, type Observable } from 'rxjs';
import type { EngineTime } from './engine-time.js';
import { FetchPacer } from './fetch-pacer.js';
import { gainTruth, stepBasis, type GainRead, type GainTruth, type GainWrites } from './gain-truth.js';
import { endOf, stepAfter, type NextChange } from './next-change.js';
import { meterLiveForMs, previewLiveForMs } from './picture-pace.js';
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
  /**
   * How many `thumbnailMs` apart previews are fetched now (default 1): the bridge spaces them out while
   * it is short of time (picture-pace.ts previewEvery), asked at every tick.
   */
  thumbnailEvery?: () => number;
  /** Default 250 ms. */
  meterMs?: number;
  /**
   * How many `meterMs` apart a shown meter is read now (default 1): the bridge reads them at most half as
   * often while it is short of time (picture-pace.ts meterEvery), asked at every tick and whenever a
   * meter is judged, as a read is the gain and levels for three of the intervals it is read at.
   */
  meterEvery?: () => number;
  /** Fetches of each kind under way at once; default 2 (half the client's read connections). */
  concurrency?: number;
  /** Decodes a preview PNG into a small image. */
  decodeThumbnail: (png: Uint8Array) => Promise<RgbImage>;
  /** The clock and scheduler of every fetch; real time by default. */
  time: EngineTime;
}

/** The gains written to a source, and the last write, so the next one leaves after it. */
interface WrittenGain extends GainWrites {
  tail: Promise<void>;
}

/** A channel's preview as it may be shown now. */
export interface ShownPreview {
  /** Its content key in the thumbnail store (see ChannelPicture.thumbnail). */
  key: string;
  /** Whole seconds since it was fetched, when it is past the time it may be shown as live; else null. */
  ageS: number | null;
}

/** A channel's last preview, and how long it may be shown as live. */
interface HeldPreview {
  key: string;
  image: RgbImage;
  /** When the fetch that brought these bytes (or the same bytes again) was sent: what its age counts from. */
  fetchedAt: number;
  /** The last moment it is shown as live (previewLiveForMs of the pace it was fetched at). */
  liveUntil: number;
}

export class RecorderExtras {
  private readonly thumbnails = new Map<number, HeldPreview>();
  /** Last source reads (gain and levels) by source name, as the recorder answered them. */
  private readonly reads = new Map<string, GainRead>();
  /** Gains written by the bridge, by source name. */
  private readonly writtenGains = new Map<string, WrittenGain>();
  /** Orders read starts and write answers (a counter, not a clock: two events in one millisecond still have an order). */
  private order = 0;
  private readonly time: EngineTime;
  /** How often a shown meter is read (times meterEvery); a read stays live for 3 of those, however slow the reads get. */
  private readonly meterMs: number;
  private readonly demands = new Map<string, ExtrasDemand>();
  private readonly gainWrites = new Subject<void>();
  private readonly fetches = new Subject<void>();
  private readonly demandChanged = new Subject<void>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly link: RecorderLink,
    private readonly options: ExtrasOptions,
  ) {
    this.time = options.time;
    this.meterMs = options.meterMs ?? 250;
  }

  /**
   * Emits when this bridge writes a gain, and when the write is answered: the controls showing it are
   * drawn again at once (a dial's steps must show as they are turned, and a write the recorder refused
   * no longer stands).
   */
  get gainWritten$(): Observable<void> {
    return this.gainWrites.asObservable();
  }

  /**
   * Emits when a fetched preview or source read brings something new to show. They come many times a
   * second and nobody waits for them: sessions draw them together (see SurfaceSession).
   */
  get fetched$(): Observable<void> {
    return this.fetches.asObservable();
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
    const { meterMs } = this;
    const { thumbnailEvery, meterEvery } = this.options;
    const thumbnails: FetchPacer<number> = new FetchPacer<number>({ intervalMs: thumbnailMs, ...(thumbnailEvery ? { every: thumbnailEvery } : {}), concurrency, now, wanted: () => this.wanted('thumbnails') as number[], fetch: (index) => this.fetchThumbnail(index, (i, tookMs) => thumbnails.paceMs(i, tookMs)) });
    const meters = new FetchPacer<string>({ intervalMs: meterMs, ...(meterEvery ? { every: meterEvery } : {}), concurrency, now, wanted: () => this.wanted('meters') as string[], fetch: (name) => this.fetchMeter(name) });
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
    // Nothing is wanted while the recorder is out of reach (wanted()), so the ticks that fell then
    // fetched nothing: when it is first heard (at start-up, or back after a loss), what waits for it is
    // fetched at once, not an interval later.
    this.subscription.add(
      this.link.state$
        .pipe(
          map((state) => freshnessOf(state, this.time.now()) === 'offline'),
          distinctUntilChanged(),
          filter((offline) => !offline),
        )
        .subscribe(() => {
          thumbnails.pump();
          meters.pump();
        }),
    );
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  /**
   * A channel's preview as it may be shown now, or null when none has come: past the time it may be
   * shown as live (its pace when it was fetched, picture-pace.ts previewLiveForMs) it carries its age,
   * and is shown marked stale until a fetch brings it again. When that next changes by time alone (the
   * moment it turns stale, then each second of its age) is noted in `changes`.
   */
  preview(index: number, changes?: NextChange): ShownPreview | null {
    const held = this.thumbnails.get(index);
    if (held === undefined) return null;
    const now = this.time.now();
    if (now <= held.liveUntil) {
      changes?.at(endOf(held.liveUntil));
      return { key: held.key, ageS: null };
    }
    const ageS = Math.max(0, Math.floor((now - held.fetchedAt) / 1000));
    changes?.at(stepAfter(held.fetchedAt, 1000, ageS));
    return { key: held.key, ageS };
  }

  thumbnailImage(key: string): RgbImage | undefined {
    for (const entry of this.thumbnails.values()) if (entry.key === key) return entry.image;
    return undefined;
  }

  /**
   * A source's gain and levels as they may be shown now: each with its own age (see gain-truth.ts); when
   * that next changes by time alone is noted in `changes`.
   */
  meter(sourceName: string, changes?: NextChange): GainTruth {
    const now = this.time.now();
    const truth = gainTruth({
      read: this.reads.get(sourceName) ?? null,
      written: this.writtenGains.get(sourceName) ?? null,
      now,
      liveForMs: meterLiveForMs(this.meterMs, Math.max(1, this.options.meterEvery?.() ?? 1)),
      offline: freshnessOf(this.link.state, now) === 'offline',
    });
    changes?.at(truth.changesAt);
    return truth;
  }

  /** The gain a step may start from now, or null: then it must be read first (readGain). */
  liveGain(sourceName: string): number | null {
    return stepBasis(this.meter(sourceName));
  }

  /**
   * Writes a gain (`send` makes the request) after any earlier write to the same source. This bridge
   * owns it from now on: steps build on it while it is under way and for a while after its answer, and
   * reads sent before that answer do not replace it. Rejects as `send` does.
   */
  async writeGain(sourceName: string, db: number, send: () => Promise<unknown>): Promise<void> {
    const written = this.writtenGains.get(sourceName) ?? { db, inFlight: 0, answered: null, tail: Promise.resolve() };
    written.db = db;
    written.inFlight++;
    this.writtenGains.set(sourceName, written);
    this.gainWrites.next();
    const request = written.tail.then(send);
    written.tail = request.then(
      () => undefined,
      () => undefined,
    );
    let ok = false;
    try {
      await request;
      ok = true;
    } finally {
      written.inFlight--;
      // A write the recorder did not take (or whose fate is unknown) leaves no gain to build on.
      written.answered = { at: this.time.now(), order: ++this.order, ok };
      this.gainWrites.next();
    }
  }

  private wanted(kind: keyof ExtrasDemand): Array<number | string> {
    // Stopped (a fetch ending after stop() asks again), or nobody to fetch from.
    if (!this.subscription || freshnessOf(this.link.state, this.time.now()) === 'offline') return [];
    const all = new Set<number | string>();
    for (const demand of this.demands.values()) for (const item of demand[kind]) all.add(item);
    return [...all];
  }

  /**
   * Resolves with how long the recorder took to answer. `paceMs` is how far apart this preview's
   * fetches are meant to be now (the pacer's), which bounds how long it is shown as live.
   */
  private async fetchThumbnail(index: number, paceMs: (index: number, tookMs: number) => number): Promise<number> {
    const sentAt = this.time.now();
    let answeredAt = sentAt;
    try {
      const png = await this.link.call({ method: 'getChannelPreview', args: [index] });
      answeredAt = this.time.now();
      // Named by content: an unchanged preview keeps its key, so nothing is decoded, rendered or sent again.
      const key = `${this.link.name}/${index}/${createHash('sha1').update(png).digest('hex').slice(0, 16)}`;
      const held = this.thumbnails.get(index);
      // As old as its request: the recorder made the picture after it was sent. The pace is the one this
      // answer sets (twice its time, when the recorder is slow), as the next fetch will follow it.
      const fresh = { fetchedAt: sentAt, liveUntil: sentAt + previewLiveForMs(paceMs(index, answeredAt - sentAt)) };
      if (held?.key !== key) {
        const image = await this.options.decodeThumbnail(png);
        this.thumbnails.set(index, { key, image, ...fresh });
        this.fetches.next();
      } else {
        // The same picture again: nothing to decode or draw, but it is current again. A preview that
        // was shown stale is live again (a change its keys must show at once).
        const wasStale = this.time.now() > held.liveUntil;
        Object.assign(held, fresh);
        if (wasStale) this.fetches.next();
      }
    } catch {
      // A missing preview leaves the last one (or none) in place, ageing: past its time it is shown
      // stale with its age (preview()); the channel's own state still shows.
      answeredAt = this.time.now();
    }
    return answeredAt - sentAt;
  }

  /**
   * Reads a source's gain (and levels) now, for a step whose gain is not live; rejects with the reason
   * when it cannot be read.
   */
  async readGain(sourceName: string): Promise<void> {
    const sourceIndex = this.link.state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
    if (sourceIndex < 0) throw new Error(`source "${sourceName}" is not in the recorder's source list`);
    const order = ++this.order;
    const source = await this.link.call({ method: 'getSource', args: [sourceIndex] });
    // The list moved under the read (the next slow poll fixes it): this is another source's gain.
    if (source.Name !== sourceName) throw new Error(`the source at ${sourceIndex} is "${source.Name}" now`);
    // Two reads of one source may cross (a meter's and a press's): the one sent last is the newest.
    if ((this.reads.get(sourceName)?.order ?? 0) < order) {
      this.reads.set(sourceName, { db: source.AudioGain, levels: source.AudioMeters, at: this.time.now(), order });
      this.fetches.next();
    }
  }

  /** Resolves with how long the recorder took to answer. */
  private async fetchMeter(sourceName: string): Promise<number> {
    const sentAt = this.time.now();
    try {
      await this.readGain(sourceName);
    } catch {
      // Meters are best effort: a read that fails leaves the last one, which ages into stale.
    }
    return this.time.now() - sentAt;
  }
}
