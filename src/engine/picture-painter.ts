// What a session wants its surface to show, made into what the device takes: each control's newest
// picture (latest wins) rendered to its native form (an image for a key or LCD cell, an LED state, a ring
// or fader level) and handed to the surface's DeviceOutput, which writes only what the device does not
// show yet. A picture like the last one is not rendered again.
import { messageOf } from '../api/errors.js';
import { GAIN_DB } from '../api/scalars.js';
import type { Logger } from './log.js';
import { PerKeyWriter } from './latest-wins.js';
import { samePicture, type Picture } from './picture.js';
import type { PictureRenderer } from './session-services.js';
import type { ControlDefinition, Surface } from './surface.js';

export interface PaintContext {
  /** The gain range a fader's travel maps to (its gain-fader binding's min..max). */
  faderRange(control: string): { min: number; max: number } | null;
}

export class PicturePainter {
  /**
   * The newest picture of each control (what it shows, or is about to). A picture handed in is kept only
   * when it differs from this one, so the object itself says whether a rendering is still the newest.
   */
  private readonly latest = new Map<string, Picture>();
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  /** Renderings, one at a time per display, the newest picture replacing one still waiting. */
  private readonly renders: PerKeyWriter<string, Picture>;

  constructor(
    private readonly surface: Surface,
    private readonly renderer: PictureRenderer,
    private readonly context: PaintContext,
    log: Logger,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
    this.renders = new PerKeyWriter(
      (id, picture) => this.render(id, picture),
      (id, error) => log.warn(`${surface.id}: drawing ${id} failed: ${messageOf(error)}`),
    );
  }

  /** A control's picture now; made into what the device takes only when it differs from the last one. */
  show(id: string, picture: Picture): void {
    const control = this.controls.get(id);
    const latest = this.latest.get(id);
    if (!control || (latest !== undefined && samePicture(latest, picture))) return;
    this.latest.set(id, picture);
    const { output } = this.surface;
    switch (control.kind) {
      case 'key':
      case 'lcd':
        this.renders.push(id, picture);
        return;
      case 'button':
        if (control.feedback === 'led') output.show({ type: 'led', control: id, state: this.renderer.led(picture) });
        return;
      case 'encoder':
      case 'fader': {
        // An encoder's LCD cell is a control of its own: it is drawn as one (showing the encoder's
        // binding when it has none), so only the level is handed over here.
        const level = this.levelOf(control, picture);
        if (level !== null) output.show({ type: 'level', control: id, level });
        return;
      }
    }
  }

  /** Nothing waits to be rendered or written, and nothing is being rendered or written. */
  get idle(): boolean {
    return this.renders.idle && this.surface.output.idle;
  }

  /** Nothing more is handed over, including renderings under way. */
  stop(): void {
    this.latest.clear();
    this.renders.clear();
  }

  /**
   * Where the gain is, on the control's own scale: a fader bound to gain-fader maps its travel to that
   * binding's min..max, so the level must too (motorised faders move there; the others use it for soft
   * takeover). Rings show the whole gain range. Null when the control shows no level (a dial without a
   * ring, a device without levels) or the picture has none.
   */
  private levelOf(control: Extract<ControlDefinition, { kind: 'encoder' | 'fader' }>, picture: Picture): number | null {
    // A device without levels (an X-keys T-bar, a deck's plain dial) shows none: none is derived for it.
    if ((control.kind === 'encoder' && !control.ring) || !this.surface.output.offers('levels')) return null;
    if (picture.kind !== 'meter' || picture.gainDb === null) return null;
    const range = (control.kind === 'fader' ? this.context.faderRange(control.id) : null) ?? { min: GAIN_DB.min, max: GAIN_DB.max };
    return Math.min(1, Math.max(0, (picture.gainDb - range.min) / (range.max - range.min)));
  }

  /** Renders a display's picture and hands the image over, unless a newer picture (or a stop) came meanwhile. */
  private async render(id: string, picture: Picture): Promise<void> {
    const display = this.controls.get(id);
    if ((display?.kind !== 'key' && display?.kind !== 'lcd') || this.latest.get(id) !== picture) return; // superseded while waiting
    const image = await this.renderer.render(picture, display.pixelSize);
    if (this.latest.get(id) !== picture) return; // superseded, or stopped, while rendering
    this.surface.output.show({ type: 'image', control: id, image });
  }
}
