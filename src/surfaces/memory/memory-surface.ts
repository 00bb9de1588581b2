// A surface that lives in memory: it shows what the engine drew and lets a test (or the remote API)
// press, turn and touch its controls. It is a real Surface, so the engine cannot tell it from hardware.
import { Subject } from 'rxjs';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput, SurfaceKind, TouchGesture } from '../../engine/surface.js';

export interface MemorySurfaceOptions {
  id: string;
  kind?: SurfaceKind;
  model: string;
  name?: string;
  serial?: string;
  controls: readonly ControlDefinition[];
}

export class MemorySurface implements Surface {
  readonly id: string;
  readonly kind: SurfaceKind;
  readonly model: string;
  readonly name: string;
  readonly serial?: string;
  readonly controls: readonly ControlDefinition[];
  /** The last image drawn on each key or LCD region. */
  readonly images = new Map<string, RgbImage>();
  readonly leds = new Map<string, LedState>();
  readonly levels = new Map<string, number>();
  brightness: number | null = null;
  /** How many images were handed over, in all. */
  draws = 0;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly drawn = new Subject<string>();
  readonly input = this.inputs.asObservable();
  /** Emits the id of every control drawn. */
  readonly drawn$ = this.drawn.asObservable();

  constructor(options: MemorySurfaceOptions) {
    this.id = options.id;
    this.kind = options.kind ?? 'memory';
    this.model = options.model;
    this.name = options.name ?? options.model;
    if (options.serial !== undefined) this.serial = options.serial;
    this.controls = options.controls;
  }

  async drawKey(control: string, image: RgbImage): Promise<void> {
    this.show(control, image);
  }

  async drawLcd(control: string, image: RgbImage): Promise<void> {
    this.show(control, image);
  }

  async setLed(control: string, state: LedState): Promise<void> {
    this.leds.set(control, state);
    this.drawn.next(control);
  }

  async setLevel(control: string, level: number): Promise<void> {
    this.levels.set(control, level);
  }

  async setBrightness(percent: number): Promise<void> {
    this.brightness = percent;
  }

  async clear(): Promise<void> {
    for (const control of this.controls) {
      if (control.kind === 'key' || control.kind === 'lcd') {
        const { width, height } = control.pixelSize;
        this.images.set(control.id, { width, height, data: Buffer.alloc(width * height * 3) });
      }
    }
    this.leds.clear();
  }

  down(control: string): void {
    this.inputs.next({ type: 'down', control });
  }

  up(control: string): void {
    this.inputs.next({ type: 'up', control });
  }

  press(control: string): void {
    this.down(control);
    this.up(control);
  }

  rotate(control: string, amount: number): void {
    this.inputs.next({ type: 'rotate', control, amount });
  }

  fader(control: string, position: number): void {
    this.inputs.next({ type: 'fader', control, position });
  }

  touch(control: string, gesture: TouchGesture): void {
    this.inputs.next({ type: 'touch', control, gesture });
  }

  /** The surface is gone for good. */
  unplug(): void {
    this.inputs.complete();
  }

  /** RGB at (x, y) of what a control shows. */
  pixel(control: string, x: number, y: number): [number, number, number] | undefined {
    const image = this.images.get(control);
    if (!image) return undefined;
    const at = (y * image.width + x) * 3;
    return [image.data[at] as number, image.data[at + 1] as number, image.data[at + 2] as number];
  }

  private show(control: string, image: RgbImage): void {
    this.images.set(control, image);
    this.draws += 1;
    this.drawn.next(control);
  }
}
