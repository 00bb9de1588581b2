// What a session wants its surface to show, made into what the device takes: each control's newest
// picture (latest wins) rendered to its native form (an image for a key or LCD cell, an LED state, a ring
// or fader level) and handed to the surface's DeviceOutput, which writes only what the device does not
// show yet. A picture like the last one is not rendered again.
//
// Renderings are picture work on the bridge's WorkScheduler: each control's is a task in line (the newest
// picture of the control is the one made when its turn comes), run in slices that leave room for input,
// so a refresh of 32 keys is drawn over several turns instead of all at once. Under load (the scheduler's
// busy share) a redraw that only moves a clock, a meter or a preview waits until the control's last
// redraw is a little older (picture-pace.ts); a change of meaning is drawn at once, ahead of the redraws
// of what only moves that wait in line (the scheduler's `meaning` line).
import type { Subscription } from 'rxjs';
import { messageOf } from '../api/errors.js';
import { GAIN_DB } from '../api/scalars.js';
import { imageItem } from './device-output.js';
import type { EngineTime } from './engine-time.js';
import type { Logger } from './log.js';
import { PREVIEW_MS, onlyPreviewMoved, sameMeaning } from './picture-pace.js';
import { samePicture, type Picture } from './picture.js';
import type { PictureRenderer } from './session-services.js';
import type { ControlDefinition, Surface } from './surface.js';
import type { WorkScheduler } from './work-scheduler.js';

export interface PaintContext {
  /** The gain range a fader's travel maps to (its gain-fader binding's min..max). */
  faderRange(control: string): { min: number; max: number } | null;
}

/** Where a painter's work goes and the clock its redraws are paced on. */
export interface PaintWork {
  work: WorkScheduler;
  time: EngineTime;
  log: Logger;
}

export class PicturePainter {
  /**
   * The newest picture of each control (what it shows, or is about to). A picture handed in is kept only
   * when it differs from this one, so the object itself says whether a rendering is still the newest.
   */
  private readonly latest = new Map<string, Picture>();
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  /** The picture each display was last rendered from, and when that rendering began. */
  private readonly drawn = new Map<string, { picture: Picture; at: number }>();
  /** Displays whose rendering is in the scheduler's line (it renders their newest picture when it runs). */
  private readonly inLine = new Set<string>();
  /** Displays whose redraw (of a moving part only) waits for its pace, with the timer that posts it. */
  private readonly paced = new Map<string, Subscription>();
  /** Renderings under way (between their turn in line and their image handed over). */
  private rendering = 0;

  constructor(
    private readonly surface: Surface,
    private readonly renderer: PictureRenderer,
    private readonly context: PaintContext,
    private readonly paint: PaintWork,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
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
        this.redraw(id, picture);
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

  /**
   * Nothing waits in line to be rendered, nothing is being rendered or written (a redraw held for its
   * pace waits for time, not for work, as a DeviceOutput's held level does).
   */
  get idle(): boolean {
    return this.inLine.size === 0 && this.rendering === 0 && this.surface.output.idle;
  }

  /** Nothing more is handed over, including renderings under way. */
  stop(): void {
    this.latest.clear();
    for (const id of this.inLine) this.paint.work.cancel(this.keyOf(id));
    this.inLine.clear();
    for (const timer of this.paced.values()) timer.unsubscribe();
    this.paced.clear();
  }

  /**
   * A display's new picture: its rendering goes in line now, unless it differs from the last one drawn
   * only in what moves and that one is younger than the pace the load asks for (then it goes then). A
   * new preview alone waits until the last drawing is PREVIEW_MS old; anything else that moves on the
   * key (its clock's next second) takes it along at its own pace.
   */
  private redraw(id: string, picture: Picture): void {
    const last = this.drawn.get(id);
    const held = this.paced.get(id);
    if (last === undefined || !sameMeaning(last.picture, picture)) {
      held?.unsubscribe();
      this.paced.delete(id);
      return this.post(id, 'meaning');
    }
    if (this.inLine.has(id)) return; // what goes then is the newest picture
    const previewOnly = onlyPreviewMoved(last.picture, picture);
    if (held !== undefined) {
      if (previewOnly) return; // the newest picture goes when the hold ends
      // More than the preview moved: it goes at the load's pace, not held for the preview's.
      held.unsubscribe();
      this.paced.delete(id);
    }
    const pace = this.paint.work.paceMs();
    const wait = last.at + (previewOnly ? Math.max(PREVIEW_MS, pace) : pace) - this.paint.time.now();
    if (wait <= 0) return this.post(id, 'pictures');
    this.paced.set(
      id,
      this.paint.time.scheduler.schedule(() => {
        this.paced.delete(id);
        this.post(id, 'pictures');
      }, wait),
    );
  }

  /**
   * The display's rendering, in line: a change of meaning (or its first drawing) ahead of what only moves
   * (work-scheduler.ts); a change posted while a moving part waits takes the key into the first line.
   */
  private post(id: string, priority: 'meaning' | 'pictures'): void {
    this.inLine.add(id);
    this.paint.work.post(priority, this.keyOf(id), () => {
      this.inLine.delete(id);
      return this.render(id);
    });
  }

  /** The display's place in the scheduler's line, unique across the bridge's surfaces. */
  private keyOf(id: string): string {
    return `picture:${this.surface.id}:${id}`;
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

  /** Renders a display's newest picture and hands the image over, unless a newer picture (or a stop) came meanwhile. */
  private async render(id: string): Promise<void> {
    const display = this.controls.get(id);
    const picture = this.latest.get(id);
    if ((display?.kind !== 'key' && display?.kind !== 'lcd') || picture === undefined) return; // stopped
    this.drawn.set(id, { picture, at: this.paint.time.now() });
    this.rendering++;
    try {
      const image = await this.renderer.render(picture, display.pixelSize);
      // Stopped; or a newer picture's rendering is next in line. A newer one held for its pace (it differs
      // only in what moves) is drawn then: this one is shown meanwhile.
      if (!this.latest.has(id) || this.inLine.has(id)) return;
      this.surface.output.show(imageItem(id, image));
    } catch (error) {
      this.paint.log.warn(`${this.surface.id}: drawing ${id} failed: ${messageOf(error)}`);
    } finally {
      this.rendering--;
    }
  }
}
