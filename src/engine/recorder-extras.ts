// Previews and audio meters are costly to fetch, so they are fetched only for what a visible control
// shows (the demand), each at its own rate, with a bound on fetches in flight. Thumbnails are decoded
// off the key-press path by an injected decoder and kept in a store the renderer reads by key.
import { BehaviorSubject, Subscription, from, mergeMap, timer, type Observable } from 'rxjs';
import type { RgbImage } from './surface.js';
import type { RecorderPoller } from './recorder-poller.js';
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
  /** Fetches in flight at once; default 4. */
  concurrency?: number;
  /** Decodes a preview PNG into a small image. */
  decodeThumbnail: (png: Uint8Array) => Promise<RgbImage>;
}

export interface MeterReading {
  levels: number[];
  gainDb: number;
  sourceIndex: number;
}

export class RecorderExtras {
  private readonly thumbnails = new Map<number, { key: string; image: RgbImage }>();
  private readonly meters = new Map<string, MeterReading>();
  private readonly demands = new Map<string, ExtrasDemand>();
  private readonly changes = new BehaviorSubject<number>(0);
  private subscription: Subscription | null = null;
  private sequence = 0;

  constructor(
    private readonly poller: RecorderPoller,
    private readonly options: ExtrasOptions,
  ) {}

  /** Emits whenever a thumbnail or meter changed. */
  get changed$(): Observable<number> {
    return this.changes.asObservable();
  }

  /** Each surface states what it currently shows; the union is fetched. */
  setDemand(owner: string, demand: ExtrasDemand | null): void {
    if (demand === null) this.demands.delete(owner);
    else this.demands.set(owner, demand);
  }

  start(): void {
    if (this.subscription) return;
    const concurrency = this.options.concurrency ?? 4;
    const thumbnails$ = timer(0, this.options.thumbnailMs ?? 1000).pipe(mergeMap(() => from(this.wanted('thumbnails')), 1), mergeMap((index) => from(this.fetchThumbnail(index as number)), concurrency));
    const meters$ = timer(0, this.options.meterMs ?? 250).pipe(mergeMap(() => from(this.wanted('meters')), 1), mergeMap((name) => from(this.fetchMeter(name as string)), concurrency));
    this.subscription = new Subscription();
    this.subscription.add(thumbnails$.subscribe());
    this.subscription.add(meters$.subscribe());
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

  meter(sourceName: string): MeterReading | null {
    return this.meters.get(sourceName) ?? null;
  }

  /** Last known gain by source index (from meter reads and from gains this bridge just sent). */
  knownGain(sourceIndex: number): number | null {
    for (const reading of this.meters.values()) if (reading.sourceIndex === sourceIndex) return reading.gainDb;
    return null;
  }

  /** A gain the bridge has just set: the next dial step builds on it before the recorder is read again. */
  noteGain(sourceIndex: number, db: number): void {
    const name = this.poller.state.sources?.[sourceIndex]?.Name;
    if (name === undefined) return;
    const reading = this.meters.get(name);
    this.meters.set(name, { levels: reading?.levels ?? [], gainDb: db, sourceIndex });
  }

  private wanted(kind: keyof ExtrasDemand): Array<number | string> {
    if (freshnessOf(this.poller.state, Date.now()) === 'offline') return [];
    const all = new Set<number | string>();
    for (const demand of this.demands.values()) for (const item of demand[kind]) all.add(item);
    return [...all];
  }

  private async fetchThumbnail(index: number): Promise<void> {
    try {
      const png = await this.poller.client.getChannelPreview(index);
      const image = await this.options.decodeThumbnail(png);
      this.thumbnails.set(index, { key: `${this.poller.name}/${index}/${++this.sequence}`, image });
      this.changes.next(this.sequence);
    } catch {
      // A missing preview leaves the last one (or none) in place; the channel's own state still shows.
    }
  }

  private async fetchMeter(sourceName: string): Promise<void> {
    const sourceIndex = this.poller.state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
    if (sourceIndex < 0) return;
    try {
      const source = await this.poller.client.getSource(sourceIndex);
      if (source.Name !== sourceName) return; // the list moved under us; the next slow poll fixes it
      this.meters.set(sourceName, { levels: source.AudioMeters, gainDb: source.AudioGain, sourceIndex });
      this.changes.next(++this.sequence);
    } catch {
      // Meters are best effort; a failed read shows the last levels until the data goes stale.
    }
  }
}
