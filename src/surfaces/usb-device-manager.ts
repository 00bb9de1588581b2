// Finds the USB devices of one family (Stream Decks, X-keys) and keeps them: scans on start, on USB
// hot-plug events of the family's vendor, and every few seconds as a fallback; opens what appeared,
// closes what went away or failed. A device that failed is reopened by a later scan as a new surface
// with the same id, so the bridge binds it again and redraws everything. What differs between families
// (how to list and open one, how to name it, what went wrong) is the family's; the keeping is here.
import { Subject, Subscription, interval, type Observable } from 'rxjs';
import type { EngineTime } from '../engine/engine-time.js';
import { SaidOnce } from '../engine/log-limit.js';
import type { Logger } from '../engine/log.js';
import type { Surface, SurfaceSource } from '../engine/surface.js';
import { messageOf } from '../api/errors.js';
import { watchUsbEvents } from './usb-events.js';

export type HotplugEvent = 'attach' | 'detach';

/** Starts watching one USB vendor; resolves with a function that stops. Rejects when it cannot watch. */
export type WatchHotplug = (vendorId: number, onEvent: (event: HotplugEvent) => void) => Promise<() => void>;

/** Prompt notice of one vendor's devices plugged in or out (optional: the periodic scan finds every change, later). */
export const watchUsbHotplug: WatchHotplug = (vendorId, onEvent) =>
  watchUsbEvents((event) => {
    if (event.vendorId === vendorId) onEvent(event.type);
  });

/** A device as listed: the path it is opened by (e.g. /dev/hidraw3), which changes with the USB port. */
export interface UsbListing {
  path: string;
}

/** A surface over a device the manager opened; closing it closes the device. */
export interface DeviceSurface extends Surface {
  close(): Promise<void>;
}

export type DeviceSurfaceEvent<S extends DeviceSurface> = { type: 'added'; surface: S } | { type: 'removed'; id: string };

/** One family of devices, as the manager needs to know it. */
export interface DeviceFamily<L extends UsbListing, S extends DeviceSurface> {
  /** "Stream Deck" */
  name: string;
  /** "Stream Decks" */
  plural: string;
  vendorId: number;
  /** The devices plugged in now. Rejects with a clear reason when none can be seen at all. */
  list(): Promise<L[]>;
  /** Opens one as a surface; the surface tells `onFailure` once, when the device fails. */
  open(listing: L, onFailure: (surface: S) => void): Promise<S>;
  /** Why a listed device is not used (it has no controls of its own), or null. */
  unused?(listing: L): string | null;
  /** What a per-device problem is told under, so it is said once: stable across USB ports where it can be. */
  about(listing: L): string;
  /** "Stream Deck mk2 CL12K1 at /dev/hidraw3" */
  describe(listing: L, surface?: S): string;
  /** Why a listed device could not be opened, and what to do. */
  explainOpenError(listing: L, error: unknown): string;
  /** What two devices sharing one surface id share, and what to do: "the same serial number". */
  twin: string;
}

export interface UsbDeviceManagerOptions {
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
  time: EngineTime;
}

export class UsbDeviceManager<L extends UsbListing, S extends DeviceSurface> implements SurfaceSource {
  readonly name: string;
  private readonly events = new Subject<DeviceSurfaceEvent<S>>();
  /** Subscribe before start(): surfaces opened before subscribing are not told again (see `surfaces`). */
  readonly surfaces$: Observable<DeviceSurfaceEvent<S>> = this.events.asObservable();
  /** Open devices by path. */
  private readonly open = new Map<string, S>();
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
  protected readonly time: EngineTime;

  constructor(
    private readonly family: DeviceFamily<L, S>,
    private readonly options: UsbDeviceManagerOptions,
  ) {
    this.name = family.name;
    this.time = options.time;
  }

  /** The surfaces open now. */
  get surfaces(): S[] {
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
        this.options.log.error(`${this.family.name} scan failed: ${messageOf(error)}`);
      }
    } while (this.scanAgain && this.running);
  }

  private async scanOnce(): Promise<void> {
    let listings: L[];
    try {
      listings = await this.family.list();
    } catch (error) {
      // Devices already open keep working: a failed listing says nothing about them.
      this.tell('list', 'warn', messageOf(error));
      return;
    }
    this.settled('list', `${this.family.name} support is working again`);
    const listed = listings.length === 0 ? 'none found' : listings.map((l) => l.path).join(', ');
    if (listed !== this.lastListed) this.options.log.debug?.(`${this.family.name} scan: ${listed}`);
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
      const unused = this.family.unused?.(listing) ?? null;
      if (unused !== null) {
        this.tell(`skip:${listing.path}`, 'info', `${this.family.describe(listing)}: ${unused}; not used`);
        continue;
      }
      await this.openOne(listing);
    }
  }

  private async openOne(listing: L): Promise<void> {
    const about = `open:${this.family.about(listing)}`;
    let surface: S;
    try {
      surface = await this.family.open(listing, (failed) => void this.failed(listing.path, failed));
    } catch (error) {
      this.tell(about, 'warn', `${this.family.explainOpenError(listing, error)}; trying again at every scan`);
      return;
    }
    if (!this.running) {
      await surface.close();
      return;
    }
    if ([...this.open.values()].some((s) => s.id === surface.id)) {
      // Two devices with one id would share one profile binding, and a press on one would act as the other.
      this.tell(about, 'warn', `${this.family.describe(listing, surface)}: another open ${this.family.name} has ${this.family.twin}; not used`);
      await surface.close();
      return;
    }
    this.told.forget(about);
    this.open.set(listing.path, surface);
    this.options.log.info(`${surface.id} (${surface.name}): connected at ${listing.path}`);
    this.events.next({ type: 'added', surface });
  }

  /** The surface has closed itself after a device error; a later scan reopens the device if it is still there. */
  private async failed(path: string, surface: S): Promise<void> {
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
      const unwatch = await watch(this.family.vendorId, () => this.scanSoon());
      if (!this.running) return unwatch();
      this.unwatch = unwatch;
      // Plugs are told by events now: the periodic scan is only a safety net, and costs a USB listing each time.
      this.scanEvery(this.options.hotplugScanIntervalMs ?? 30_000);
    } catch (error) {
      this.options.log.info(`USB hot-plug events unavailable (${messageOf(error)}): ${this.family.plural} are found by scanning every ${Math.round((this.options.scanIntervalMs ?? 5000) / 1000)} s`);
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
