// Finds Stream Decks and keeps them: scans on start, on USB hot-plug events, and every few seconds as a
// fallback; opens what appeared, closes what went away or failed. A device that failed is reopened by a
// later scan as a new surface with the same id, so the bridge binds it again and redraws everything.
import { Subject, Subscription, interval, type Observable } from 'rxjs';
import { messageOf } from '../../api/errors.js';
import { realTime, type EngineTime } from '../../engine/engine-time.js';
import { SaidOnce } from '../../engine/log-limit.js';
import type { Logger } from '../../engine/log.js';
import type { SurfaceSource } from '../../engine/surface.js';
import type { StreamDeckBackend, StreamDeckListing } from './backend.js';
import { watchUsbHotplug, type WatchHotplug } from './hotplug.js';
import { ELGATO_VENDOR_ID, hasOwnControls, shortModelId } from './models.js';
import { describeDevice, explainOpenError } from './problems.js';
import { StreamDeckSurface } from './streamdeck-surface.js';

export type StreamDeckSurfaceEvent = { type: 'added'; surface: StreamDeckSurface } | { type: 'removed'; id: string };

export interface StreamDeckManagerOptions {
  backend: StreamDeckBackend;
  log: Logger;
  /** The fallback scan, for when hot-plug events are missing or missed. */
  scanIntervalMs?: number;
  /** How often to scan anyway while USB hot-plug events are heard (a safety net); default 30 s. */
  hotplugScanIntervalMs?: number;
  /** null: no hot-plug events, periodic scans only. */
  watchHotplug?: WatchHotplug | null;
  /** After a plug event, wait this long before scanning: the HID node and its permissions appear a moment after the USB device. */
  hotplugSettleMs?: number;
  /** The clock and scheduler of its scans and of its surfaces (real time by default). */
  time?: EngineTime;
}

export class StreamDeckManager implements SurfaceSource {
  readonly name = 'Stream Deck';
  private readonly events = new Subject<StreamDeckSurfaceEvent>();
  /** Subscribe before start(): surfaces opened before subscribing are not told again (see `surfaces`). */
  readonly surfaces$: Observable<StreamDeckSurfaceEvent> = this.events.asObservable();
  /** Open devices by HID path. */
  private readonly open = new Map<string, StreamDeckSurface>();
  /** Problems already told, by what they are about, so a problem that persists is said once. */
  private readonly told = new SaidOnce();
  /** What the last scan listed, so that the debug log tells a device found or lost, not every scan. */
  private lastListed: string | null = null;
  private running = false;
  private scanning: Promise<void> | null = null;
  private scanAgain = false;
  /** The periodic scan. */
  private scans: Subscription | null = null;
  /** The scan that follows a plug event once the device has settled. */
  private settling: Subscription | null = null;
  private unwatch: (() => void) | null = null;
  private readonly time: EngineTime;

  constructor(private readonly options: StreamDeckManagerOptions) {
    this.time = options.time ?? realTime;
  }

  /** The surfaces open now. */
  get surfaces(): StreamDeckSurface[] {
    return [...this.open.values()];
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.scan();
    this.scanEvery(this.options.scanIntervalMs ?? 5000);
    void this.watchHotplug();
  }

  /** Closes every device (each is reported removed) and stops scanning. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.scans?.unsubscribe();
    this.settling?.unsubscribe();
    this.scans = this.settling = null;
    this.unwatch?.();
    this.unwatch = null;
    await this.scanning; // a scan half-way through opening a device finishes (and then closes it) first
    await Promise.all([...this.open.keys()].map((path) => this.drop(path)));
  }

  /** Scans now; a request during a scan runs one more scan after it. Resolves when done. */
  scan(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.scanning) {
      this.scanAgain = true;
      return this.scanning;
    }
    this.scanning = this.scanUntilSettled().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private async scanUntilSettled(): Promise<void> {
    do {
      this.scanAgain = false;
      try {
        await this.scanOnce();
      } catch (error) {
        this.options.log.error(`Stream Deck scan failed: ${messageOf(error)}`);
      }
    } while (this.scanAgain && this.running);
  }

  private async scanOnce(): Promise<void> {
    let listings: StreamDeckListing[];
    try {
      listings = await this.options.backend.list();
    } catch (error) {
      // Devices already open keep working: a failed listing says nothing about them.
      this.tell('list', 'warn', messageOf(error));
      return;
    }
    this.settled('list', 'Stream Deck support is working again');
    const listed = listings.length === 0 ? 'none found' : listings.map((l) => l.path).join(', ');
    if (listed !== this.lastListed) this.options.log.debug?.(`Stream Deck scan: ${listed}`);
    this.lastListed = listed;
    if (!this.running) return;
    const present = new Set(listings.map((l) => l.path));
    for (const [path, surface] of this.open) {
      if (present.has(path)) continue;
      this.options.log.info(`${surface.id} (${surface.name}): unplugged`);
      await this.drop(path);
    }
    for (const listing of listings) {
      if (!this.running) return;
      if (this.open.has(listing.path)) continue;
      if (!hasOwnControls(listing.model)) {
        this.tell(`skip:${listing.path}`, 'info', `${describeDevice(listing, shortModelId(listing.model))}: has no controls of its own; not used`);
        continue;
      }
      await this.openOne(listing);
    }
  }

  private async openOne(listing: StreamDeckListing): Promise<void> {
    // Said per device: by serial when known, so it survives a change of USB port.
    const about = `open:${listing.serialNumber ?? listing.path}`;
    let surface: StreamDeckSurface;
    try {
      const deck = await this.options.backend.open(listing.path);
      let serial: string;
      try {
        // The path is the last resort: it names the device until it is plugged in elsewhere.
        serial = listing.serialNumber || (await deck.getSerialNumber()).trim() || listing.path;
      } catch (error) {
        await deck.close().catch(() => undefined);
        throw error;
      }
      surface = new StreamDeckSurface(deck, { serial, log: this.options.log, time: this.time, onFailure: (failed) => void this.failed(listing.path, failed) });
    } catch (error) {
      this.tell(about, 'warn', `${explainOpenError(listing, error, shortModelId(listing.model))}; trying again at every scan`);
      return;
    }
    if (!this.running) {
      await surface.close();
      return;
    }
    const twin = [...this.open.values()].find((s) => s.id === surface.id);
    if (twin) {
      // Two devices claiming one serial number would share one id and one profile binding.
      this.tell(about, 'warn', `${describeDevice(listing, surface.model)}: another open Stream Deck has the same serial number; not used`);
      await surface.close();
      return;
    }
    this.told.forget(about);
    this.open.set(listing.path, surface);
    this.options.log.info(`${surface.id} (${surface.name}): connected at ${listing.path}`);
    this.events.next({ type: 'added', surface });
  }

  /** The surface has closed itself after a device error; a later scan reopens the device if it is still there. */
  private async failed(path: string, surface: StreamDeckSurface): Promise<void> {
    if (this.open.get(path) !== surface) return;
    await this.drop(path);
  }

  private async drop(path: string): Promise<void> {
    const surface = this.open.get(path);
    if (!surface) return;
    this.open.delete(path);
    this.events.next({ type: 'removed', id: surface.id });
    await surface.close();
  }

  private async watchHotplug(): Promise<void> {
    const watch = this.options.watchHotplug === undefined ? watchUsbHotplug : this.options.watchHotplug;
    if (watch === null) return;
    try {
      const unwatch = await watch(ELGATO_VENDOR_ID, () => this.scanSoon());
      if (!this.running) return unwatch();
      this.unwatch = unwatch;
      // Plugs are told by events now: the periodic scan is only a safety net, and costs a USB listing each time.
      this.scanEvery(this.options.hotplugScanIntervalMs ?? 30_000);
    } catch (error) {
      this.options.log.info(`USB hot-plug events unavailable (${messageOf(error)}): Stream Decks are found by scanning every ${Math.round((this.options.scanIntervalMs ?? 5000) / 1000)} s`);
    }
  }

  private scanEvery(ms: number): void {
    this.scans?.unsubscribe();
    this.scans = interval(ms, this.time.scheduler).subscribe(() => void this.scan());
  }

  private scanSoon(): void {
    if (!this.running || this.settling) return;
    this.settling = this.time.scheduler.schedule(() => {
      this.settling = null;
      void this.scan();
    }, this.options.hotplugSettleMs ?? 300);
  }

  private tell(about: string, level: 'info' | 'warn', message: string): void {
    this.told.say(about, message, (text) => this.options.log[level](text));
  }

  /** A problem told before is gone: say so once. */
  private settled(about: string, message: string): void {
    if (!this.told.forget(about)) return;
    this.options.log.info(message);
  }
}
