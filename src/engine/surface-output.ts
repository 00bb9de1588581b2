// Hands pictures to a surface: each control's newest picture only (latest wins), rendered to its
// native form (key or LCD image, LED state, ring or fader level), and nothing the device already shows.
import { Subject, type Observable } from 'rxjs';
import { GAIN_DB } from '../api/scalars.js';
import type { Logger } from './log.js';
import { LatestWinsQueue } from './output-queue.js';
import { samePicture, type Picture } from './picture.js';
import type { PictureRenderer } from './session-services.js';
import type { ControlDefinition, LedState, RgbImage, Surface } from './surface.js';

/** What was handed to the surface: an image for a display, or a state for a light. */
export type HandedOver = { control: string; image: RgbImage } | { control: string; led: LedState };

export interface OutputContext {
  /** The gain range a fader's travel maps to (its gain-fader binding's min..max). */
  faderRange(control: string): { min: number; max: number } | null;
}


export class SurfaceOutput {
  /**
   * The newest picture of each control (what it shows, or is about to). A picture handed in is kept only
   * when it differs from this one, so the object itself says whether a drawing is still the newest.
   */
  private readonly latest = new Map<string, Picture>();
  /**
   * The image each display shows, with the picture it was drawn from: the one "already shown" of this
   * device, compared by content (its pixels) with every new image.
   */
  private readonly images = new Map<string, { image: RgbImage; picture: Picture }>();
  private readonly leds = new Map<string, LedState>();
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  private readonly queue: LatestWinsQueue<Picture>;
  private readonly handedOver = new Subject<HandedOver>();
  /** Every image and LED state handed over (for mirrors such as the web page's view of a deck). */
  readonly drawn$: Observable<HandedOver> = this.handedOver.asObservable();

  constructor(
    private readonly surface: Surface,
    private readonly renderer: PictureRenderer,
    private readonly context: OutputContext,
    log: Logger,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
    this.queue = new LatestWinsQueue((id, picture) => this.write(id, picture), (id, error) => log.warn(`${surface.id}: drawing ${id} failed: ${(error as Error).message}`));
  }

  /** A control's picture now; queued for drawing only when it differs from the last one. */
  show(id: string, picture: Picture): void {
    const latest = this.latest.get(id);
    if (latest !== undefined && samePicture(latest, picture)) return;
    this.latest.set(id, picture);
    this.queue.push(id, picture);
  }

  /** Nothing waits to be drawn and nothing is being drawn. */
  get idle(): boolean {
    return this.queue.idle;
  }

  /**
   * The images displays show that are still what they should show: an image whose picture has been
   * superseded (a newer one is waiting or being drawn) is left out, so a mirror that starts following
   * this surface late (a page coming to it) is never handed old state as current; it gets the newer
   * image when it is drawn.
   */
  shownImages(): ReadonlyMap<string, RgbImage> {
    const current = new Map<string, RgbImage>();
    for (const [id, { image, picture }] of this.images) if (this.latest.get(id) === picture) current.set(id, image);
    return current;
  }

  shownLeds(): ReadonlyMap<string, LedState> {
    return this.leds;
  }

  /** Nothing more is handed over, including drawings under way. */
  stop(): void {
    this.latest.clear();
    this.queue.clear();
  }

  private async write(id: string, picture: Picture): Promise<void> {
    const control = this.controls.get(id);
    if (!control || this.latest.get(id) !== picture) return; // superseded while waiting
    switch (control.kind) {
      case 'key':
      case 'lcd':
        return this.drawImage(control, picture);
      case 'button': {
        if (control.feedback === 'none') return;
        const led = this.renderer.led(picture);
        if (this.leds.get(id) === led) return;
        this.leds.set(id, led);
        await this.surface.setLed(id, led);
        this.handedOver.next({ control: id, led });
        return;
      }
      case 'encoder':
      case 'fader': {
        // An encoder's LCD cell is a control of its own: it is drawn as one (showing the encoder's
        // binding when it has none), so only the level is handed over here.
        // Where the gain is, on the control's own scale: a fader bound to gain-fader maps its travel to
        // that binding's min..max, so the level must too (motorised faders move there; the others use
        // it for soft takeover). Rings show the whole gain range.
        const range = (control.kind === 'fader' ? this.context.faderRange(id) : null) ?? { min: GAIN_DB.min, max: GAIN_DB.max };
        const level = picture.kind === 'meter' && picture.gainDb !== null ? (picture.gainDb - range.min) / (range.max - range.min) : null;
        const wantsLevel = control.kind === 'encoder' ? control.ring : true;
        if (wantsLevel && level !== null && this.latest.get(id) === picture) await this.surface.setLevel(id, Math.min(1, Math.max(0, level)));
        return;
      }
    }
  }

  /** Renders and hands over an image, unless a newer picture (or a stop) came meanwhile. */
  private async drawImage(display: Extract<ControlDefinition, { kind: 'key' | 'lcd' }>, picture: Picture): Promise<void> {
    const image = await this.renderer.render(picture, display.pixelSize);
    if (this.latest.get(display.id) !== picture) return; // superseded, or stopped, while drawing
    // Another picture can give the same pixels (a preview fetched again unchanged): compared by content,
    // such an image is neither sent to the device nor to its mirrors.
    // (A byte comparison with the image shown: a memcmp, several times cheaper than hashing the pixels.)
    const shown = this.images.get(display.id);
    if (shown && sameImage(shown.image, image)) {
      // The same pixels stand for the newer picture too: what is shown is current again.
      shown.picture = picture;
      return;
    }
    this.images.set(display.id, { image, picture });
    try {
      await (display.kind === 'key' ? this.surface.drawKey(display.id, image) : this.surface.drawLcd(display.id, image));
    } catch (error) {
      // Not shown after all: the next picture must be sent.
      if (this.images.get(display.id)?.image === image) this.images.delete(display.id);
      throw error;
    }
    this.handedOver.next({ control: display.id, image });
  }
}

function sameImage(a: RgbImage, b: RgbImage): boolean {
  return a === b || (a.width === b.width && a.height === b.height && a.data.equals(b.data));
}
