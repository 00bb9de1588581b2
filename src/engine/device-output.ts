// One device's output, the one place that decides what is written to it: what the engine wants shown
// (an image per display, LED states, levels, brightness) goes through here to the adapter's transport.
// It knows no device (in the spirit of @elgato-stream-deck/core's HIDDevice seam); each adapter makes
// one over its own transport functions.
//
// - Latest wins: per control, only the newest content waits; a newer one takes the place in line of
//   the one it replaces, so a burst of changes never queues stale pictures behind the current one.
// - One writer: writes never overlap and reach the device in the order they were asked for (a Stream
//   Deck is one USB device; a report for one key must not cut into another's).
// - A display takes raw pixels, or a picture it draws itself from an encoding (the Stream Deck app
//   takes SVG, PNG and JPEG): each is its own kind of image, and a device names the kinds it takes.
// - One record of what the device shows, compared by content (images byte for byte, of the same kind;
//   levels as the device shows them): nothing it shows already is written again. A write that fails leaves that
//   control unknown (the next content is written, whatever it is), a clear leaves every control unknown,
//   and a device opened again is a new adapter with a new record.
// - A hand on a control (a fader or knob moved on the device) changes what it shows: the record takes
//   where the hand left it, and no level is written to it until the hand has been off it a while.
// - Mirrors (a page viewing a web deck, or mirroring a hardware deck) read `shown()` and follow
//   `drawn$` from the same moment: they hold what the device shows, every control of it, at all times.
import { Subject, map, type Observable, type Subscription } from 'rxjs';
import { messageOf } from '../api/errors.js';
import type { EngineTime } from './engine-time.js';
import { LatestWins } from './latest-wins.js';
import type { Logger } from './log.js';

/** Raw RGB, 3 bytes per pixel, row by row, at the control's native size. */
export interface RgbImage {
  width: number;
  height: number;
  data: Buffer;
}

/** The encodings a device may draw a picture from itself. */
export type ImageEncoding = 'svg' | 'png' | 'jpeg';

/**
 * A picture the device draws itself, from its encoding: an SVG document's UTF-8 text, a PNG or a JPEG
 * file; made for a display of this size.
 */
export interface EncodedImage {
  encoding: ImageEncoding;
  width: number;
  height: number;
  data: Buffer;
}

/** What a display can be given: raw pixels, or an encoded picture. */
export type DisplayImage = RgbImage | EncodedImage;

/** The kind of a display image: raw RGB, or its encoding. */
export type ImageKind = 'rgb' | ImageEncoding;

export function imageKind(image: DisplayImage): ImageKind {
  return 'encoding' in image ? image.encoding : 'rgb';
}

/** The item that shows `image` on a display, by its kind. */
export function imageItem(control: string, image: DisplayImage): OutputItem {
  return 'encoding' in image ? { type: 'encoded', control, image } : { type: 'image', control, image };
}

/** What an LED-only control shows; each surface maps it to its own colours, notes or bytes. */
export type LedState =
  | 'off'
  | 'idle'
  | 'active'
  | 'recording'
  | 'paused'
  | 'armed'
  | 'sync-recording'
  | 'wrong'
  | 'no-source'
  | 'stale'
  | 'offline'
  | 'dialog'
  | 'holding';

/** Something a device is to show: an image on a display, a light's state, a ring's or fader's level, the brightness. */
export type OutputItem =
  /** Raw pixels on a display. */
  | { type: 'image'; control: string; image: RgbImage }
  /** An encoded picture on a display (the same display's place as a raw image: it shows one or the other). */
  | { type: 'encoded'; control: string; image: EncodedImage }
  | { type: 'led'; control: string; state: LedState }
  /** 0..1: a ring's share, or a fader's place on its own travel. */
  | { type: 'level'; control: string; level: number }
  /** 0..100. */
  | { type: 'brightness'; percent: number };

// What a device can show, one small interface per capability (in the spirit of @elgato-stream-deck/core's
// services: a model has the services it has). A device offers the ones it has and leaves out the others:
// an X-keys panel has no displays, a MIDI controller no brightness, a pedal nothing at all. Each call is
// one write; a rejection is a write that did not happen.

/**
 * Draws images on the device's displays: keys with screens, LCD strips and their cells. A device offers
 * the kinds it takes: raw pixels, pictures in the encodings it draws itself, or both.
 */
export interface ImageCapability {
  /** Raw RGB at the display's size; absent: the device takes only encoded pictures. */
  image?(control: string, image: RgbImage): Promise<void>;
  /** Pictures the device draws itself, in the encodings it names; absent: raw pixels only. */
  readonly encoded?: EncodedImageCapability;
}

export interface EncodedImageCapability {
  readonly encodings: readonly ImageEncoding[];
  draw(control: string, image: EncodedImage): Promise<void>;
}

/** Lights a control's LED or backlight. */
export interface LightCapability {
  led(control: string, state: LedState): Promise<void>;
}

/** Shows a level on a control: an LED ring, a motorised fader, the target of a fader's soft takeover. */
export interface LevelCapability {
  /** 0..1. */
  level(control: string, level: number): Promise<void>;
  /**
   * A level as the device shows it (a ring's lit segments, a 7-bit value), so that two levels the device
   * cannot tell apart are one; the level itself when absent.
   */
  levelShown?(control: string, level: number): number;
}

/** Sets the brightness of the device's displays and lights. */
export interface BrightnessCapability {
  /** 0..100, whole. */
  brightness(percent: number): Promise<void>;
}

/** Blanks every display and light the device has. */
export interface ClearCapability {
  clear(): Promise<void>;
}

/**
 * How an adapter writes to its device: the capabilities it has, each absent where it has none. A device
 * with none (a pedal without lights) is written nothing; what it is asked to show is refused (see show).
 */
export interface DeviceTransport {
  readonly images?: ImageCapability;
  readonly lights?: LightCapability;
  readonly levels?: LevelCapability;
  readonly brightness?: BrightnessCapability;
  /** Absent: the device has nothing to blank; a clear only forgets what it showed. */
  readonly clearing?: ClearCapability;
}

/** The capability an output item needs. */
export type Capability = 'images' | 'lights' | 'levels' | 'brightness';

/** The capability each kind of item needs. */
export const CAPABILITY_OF: Readonly<Record<OutputItem['type'], Capability>> = {
  image: 'images',
  encoded: 'images',
  led: 'lights',
  level: 'levels',
  brightness: 'brightness',
};

/** A change of what the device shows: the item it shows now, and what that control showed before (undefined: unknown or nothing). */
export interface ShownChange {
  item: OutputItem;
  before: OutputItem | undefined;
}

/** What the device shows, as far as it is known. */
export interface DeviceShows {
  /** Displays showing raw pixels. */
  images: ReadonlyMap<string, RgbImage>;
  /** Displays showing an encoded picture. */
  encoded: ReadonlyMap<string, EncodedImage>;
  leds: ReadonlyMap<string, LedState>;
  levels: ReadonlyMap<string, number>;
  brightness: number | null;
}

export interface DeviceOutputOptions {
  /** Names the device in the log (its surface id). */
  name: string;
  log: Logger;
  /** Ends the holds a hand puts on a control. */
  time: EngineTime;
}

export class DeviceOutput {
  /** What waits to be written, by slot (see slotOf), in the order first asked for: the newest of each. */
  private readonly pending = new LatestWins<string, OutputItem>();
  /** What the device shows, by slot: the one "already shown". */
  private readonly record = new Map<string, OutputItem>();
  /** Slots a hand is on, with the timer that lets them go. */
  private readonly holds = new Map<string, Subscription>();
  /** Capabilities (and kinds of image) the device lacks that something was already refused for: each is logged once. */
  private readonly refused = new Set<Capability | ImageKind>();
  /** clear() calls waiting for the clearing to be written. */
  private clearsAsked: Array<() => void> = [];
  private readonly changes = new Subject<ShownChange>();
  private flushWaiters: Array<() => void> = [];
  private busy = false;
  /** The slot being written now. */
  private writingSlot: string | null = null;
  private draining: Promise<void> = Promise.resolve();
  private closed = false;
  /**
   * Every change of what the device shows, as it happens: a write it took, or a hand that moved a
   * control. With `shown()` read in the same turn, a mirror misses nothing.
   */
  readonly changed$: Observable<ShownChange> = this.changes.asObservable();
  /** changed$ without what the control showed before. */
  readonly drawn$: Observable<OutputItem> = this.changed$.pipe(map((change) => change.item));

  constructor(
    private readonly transport: DeviceTransport,
    private readonly options: DeviceOutputOptions,
  ) {}

  /** Whether the device has this capability (a painter asks before it derives a level no device would show). */
  offers(capability: Capability): boolean {
    return this.transport[capability] !== undefined;
  }

  /** Whether the device's displays take images of this kind (raw pixels, or an encoding). */
  takes(kind: ImageKind): boolean {
    const images = this.transport.images;
    if (images === undefined) return false;
    return kind === 'rgb' ? images.image !== undefined : images.encoded?.encodings.includes(kind) === true;
  }

  /**
   * Content for the device: written unless it shows it already; replaces older content still waiting.
   * Content for a capability the device lacks is refused: logged (once per capability, naming the device
   * and what it lacks), never thrown at the engine, nothing written and nothing else disturbed.
   */
  show(wanted: OutputItem): void {
    if (this.closed) return;
    const capability = CAPABILITY_OF[wanted.type];
    if (!this.offers(capability)) return this.refuse(capability, wanted);
    if ((wanted.type === 'image' || wanted.type === 'encoded') && !this.takes(imageKind(wanted.image))) return this.refuseKind(imageKind(wanted.image), wanted);
    const item = wanted.type === 'brightness' ? { type: 'brightness' as const, percent: Math.round(Math.min(100, Math.max(0, wanted.percent))) } : wanted;
    const slot = slotOf(item);
    // What the device shows already needs no write, unless a write of other content is under way there
    // or a clearing waits to blank it.
    if (slot !== this.writingSlot && this.clearsAsked.length === 0 && this.same(this.record.get(slot), item)) {
      this.pending.drop(slot);
      this.resolveFlushed();
      return;
    }
    this.pending.put(slot, item);
    this.kick();
  }

  /**
   * What the device shows now, every control whose content is known: each write it took, and where a
   * hand left a control. A write under way is not in it until the device has taken it; then it comes on
   * `drawn$`. Content that waits and is the same as this is never written, so is never on `drawn$`: this
   * is what the device goes on showing.
   */
  shown(): DeviceShows {
    const images = new Map<string, RgbImage>();
    const encoded = new Map<string, EncodedImage>();
    const leds = new Map<string, LedState>();
    const levels = new Map<string, number>();
    let brightness: number | null = null;
    for (const item of this.record.values()) {
      if (item.type === 'image') images.set(item.control, item.image);
      else if (item.type === 'encoded') encoded.set(item.control, item.image);
      else if (item.type === 'led') leds.set(item.control, item.state);
      else if (item.type === 'level') levels.set(item.control, item.level);
      else brightness = item.percent;
    }
    return { images, encoded, leds, levels, brightness };
  }

  /**
   * A hand moved a control on the device: it shows `level` there now (null: the bridge cannot tell), and
   * no level is written to it until `forMs` from now: a motor would fight the hand, and the levels that
   * come meanwhile are the echo of its moves. The newest one is written then, if the device shows another.
   */
  handOn(control: string, level: number | null, forMs: number): void {
    if (this.closed) return;
    const slot = slotOf({ type: 'level', control, level: 0 });
    if (level === null) this.record.delete(slot);
    else this.taken(slot, { type: 'level', control, level });
    this.holds.get(slot)?.unsubscribe();
    this.holds.set(
      slot,
      this.options.time.scheduler.schedule(() => {
        this.holds.delete(slot);
        this.kick();
      }, forMs),
    );
  }

  /**
   * Blanks the device, after the write under way; what waited is dropped (it was asked for before the
   * blanking), what is asked for after it is written after it. Resolves once the device is blank (or the
   * clearing failed, which is logged); every control is unknown then.
   */
  clear(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.pending.clear();
    this.endHolds();
    return new Promise((resolve) => {
      this.clearsAsked.push(resolve);
      this.kick();
    });
  }

  /** Nothing is being written, and nothing waits that could be written now (a control under a hand waits for time, not for the device). */
  get idle(): boolean {
    return !this.busy && this.nextSlot() === null && this.clearsAsked.length === 0;
  }

  /** Resolves once idle. */
  flushed(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /**
   * Writes nothing more (a clearing already asked for still goes out first): what waits is dropped and
   * `drawn$` completes. Resolves once the write under way is done, so the adapter can close the device.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.pending.clear();
      this.endHolds();
      this.changes.complete();
    }
    await this.draining;
  }

  // The writer ---------------------------------------------------------------------------------------

  private kick(): void {
    if (this.busy) return;
    this.busy = true;
    this.draining = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        if (this.clearsAsked.length > 0) {
          await this.writeClear();
          continue;
        }
        const slot = this.closed ? null : this.nextSlot();
        if (slot === null) break;
        const item = this.pending.take(slot);
        if (item !== undefined) await this.write(slot, item);
      }
    } finally {
      this.busy = false;
      this.resolveFlushed();
    }
  }

  /** The first slot in line that no hand holds. */
  private nextSlot(): string | null {
    return this.pending.next((slot) => !this.holds.has(slot));
  }

  private async write(slot: string, item: OutputItem): Promise<void> {
    if (this.same(this.record.get(slot), item)) return;
    this.writingSlot = slot;
    try {
      await this.send(item);
    } catch (error) {
      // Whether the device shows it is not known: the next content is written, whatever it is.
      this.record.delete(slot);
      // A device that failed for good closes its output (the adapter says why); nothing more to say.
      if (!this.closed) this.options.log.warn(`${this.options.name}: ${describe(item)} failed: ${messageOf(error)}`);
      return;
    } finally {
      this.writingSlot = null;
    }
    this.taken(slot, item);
  }

  private async writeClear(): Promise<void> {
    const asked = this.clearsAsked;
    this.clearsAsked = [];
    try {
      await this.transport.clearing?.clear();
    } catch (error) {
      this.options.log.warn(`${this.options.name}: clearing failed: ${messageOf(error)}`);
    }
    this.record.clear();
    for (const resolve of asked) resolve();
  }

  /** Only items of capabilities the device offers get this far (show refuses the others). */
  private send(item: OutputItem): Promise<void> {
    const { transport } = this;
    const written = (() => {
      switch (item.type) {
        case 'image':
          return transport.images?.image?.(item.control, item.image);
        case 'encoded':
          return transport.images?.encoded?.draw(item.control, item.image);
        case 'led':
          return transport.lights?.led(item.control, item.state);
        case 'level':
          return transport.levels?.level(item.control, item.level);
        case 'brightness':
          return transport.brightness?.brightness(item.percent);
      }
    })();
    return written ?? Promise.reject(new Error(`the device has no "${CAPABILITY_OF[item.type]}" capability`));
  }

  private refuseKind(kind: ImageKind, item: OutputItem): void {
    if (this.refused.has(kind)) return;
    this.refused.add(kind);
    const taken = (['rgb', 'svg', 'png', 'jpeg'] as const).filter((k) => this.takes(k));
    this.options.log.warn(
      `${this.options.name}: refused ${describe(item)}: its displays take no ${kind === 'rgb' ? 'raw pixels' : `${kind.toUpperCase()} pictures`} (they take ${taken.join(', ')}); further ${kind} images for it are refused without a word`,
    );
  }

  private refuse(capability: Capability, item: OutputItem): void {
    if (this.refused.has(capability)) return;
    this.refused.add(capability);
    const offered = (Object.keys(WORDS) as Capability[]).filter((c) => this.offers(c));
    this.options.log.warn(
      `${this.options.name}: refused ${describe(item)}: the device has no ${WORDS[capability]} (no "${capability}" capability; it offers ${offered.length === 0 ? 'none' : offered.join(', ')}); further ${capability} for it are refused without a word`,
    );
  }

  /** The device shows it now: recorded, and told to mirrors. */
  private taken(slot: string, item: OutputItem): void {
    const before = this.record.get(slot);
    this.record.set(slot, item);
    if (!this.closed) this.changes.next({ item, before });
  }

  private same(shown: OutputItem | undefined, item: OutputItem): boolean {
    if (shown === undefined) return false;
    if (shown.type === 'image' && item.type === 'image') return sameImage(shown.image, item.image);
    if (shown.type === 'encoded' && item.type === 'encoded') return sameEncoded(shown.image, item.image);
    if (shown.type === 'led' && item.type === 'led') return shown.state === item.state;
    if (shown.type === 'level' && item.type === 'level') return this.levelShown(item.control, shown.level) === this.levelShown(item.control, item.level);
    if (shown.type === 'brightness' && item.type === 'brightness') return shown.percent === item.percent;
    return false;
  }

  private levelShown(control: string, level: number): number {
    const levels = this.transport.levels;
    return levels?.levelShown ? levels.levelShown(control, level) : level;
  }

  private endHolds(): void {
    for (const hold of this.holds.values()) hold.unsubscribe();
    this.holds.clear();
  }

  private resolveFlushed(): void {
    if (this.flushWaiters.length === 0 || !this.idle) return;
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** What a capability is, in a refusal's words. */
const WORDS: Readonly<Record<Capability, string>> = {
  images: 'displays',
  lights: 'lights',
  levels: 'levels (rings, motorised or soft-takeover faders)',
  brightness: 'brightness',
};

/** One slot per thing the device shows: a control's image, light or level, and the brightness. */
function slotOf(item: OutputItem): string {
  if (item.type === 'brightness') return 'brightness';
  // A display shows one picture, raw or encoded: one slot for both.
  return `${item.type === 'encoded' ? 'image' : item.type}:${item.control}`;
}

function describe(item: OutputItem): string {
  switch (item.type) {
    case 'image':
      return `drawing ${item.control}`;
    case 'encoded':
      return `drawing ${item.control} (${item.image.encoding})`;
    case 'led':
      return `lighting ${item.control}`;
    case 'level':
      return `setting the level of ${item.control}`;
    case 'brightness':
      return 'setting brightness';
  }
}

/** By content: a byte comparison (a memcmp, several times cheaper than hashing the pixels). */
function sameImage(a: RgbImage, b: RgbImage): boolean {
  return a === b || (a.width === b.width && a.height === b.height && a.data.equals(b.data));
}

/** By content too: the same encoding, size and bytes. */
function sameEncoded(a: EncodedImage, b: EncodedImage): boolean {
  return a === b || (a.encoding === b.encoding && a.width === b.width && a.height === b.height && a.data.equals(b.data));
}
