// A surface that lives in memory: it shows what the engine drew and lets a test (or the remote API)
// press, turn and touch its controls. It is a real Surface, with a DeviceOutput like any device, so the
// engine cannot tell it from hardware.
import { Subject } from 'rxjs';
import { DeviceOutput } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput, SurfaceKind, TouchGesture } from '../../engine/surface.js';

export interface MemorySurfaceOptions {
  id: string;
  kind?: SurfaceKind;
  model: string;
  name?: string;
  serial?: string;
  controls: readonly ControlDefinition[];
  time: EngineTime;
  log?: Logger;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

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
  /** How many images were written, in all. */
  draws = 0;
  private readonly inputs = new Subject<SurfaceInput>();
  readonly input = this.inputs.asObservable();
  readonly output: DeviceOutput;

  constructor(options: MemorySurfaceOptions) {
    this.id = options.id;
    this.kind = options.kind ?? 'memory';
    this.model = options.model;
    this.name = options.name ?? options.model;
    if (options.serial !== undefined) this.serial = options.serial;
    this.controls = options.controls;
    // Its "device" is these maps.
    this.output = new DeviceOutput(
      {
        images: {
          image: async (control, image) => {
            this.images.set(control, image);
            this.draws += 1;
          },
        },
        lights: { led: async (control, state) => void this.leds.set(control, state) },
        levels: { level: async (control, level) => void this.levels.set(control, level) },
        brightness: { brightness: async (percent) => void (this.brightness = percent) },
        clearing: { clear: async () => this.blank() },
      },
      { name: this.id, log: options.log ?? silent, time: options.time },
    );
  }

  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  down(control: string): void {
    this.inject({ type: 'down', control });
  }

  up(control: string): void {
    this.inject({ type: 'up', control });
  }

  press(control: string): void {
    this.down(control);
    this.up(control);
  }

  rotate(control: string, amount: number): void {
    this.inject({ type: 'rotate', control, amount });
  }

  fader(control: string, position: number): void {
    this.inject({ type: 'fader', control, position });
  }

  touch(control: string, gesture: TouchGesture): void {
    this.inject({ type: 'touch', control, gesture });
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

  private blank(): void {
    for (const control of this.controls) {
      if (control.kind === 'key' || control.kind === 'lcd') {
        const { width, height } = control.pixelSize;
        this.images.set(control.id, { width, height, data: Buffer.alloc(width * height * 3) });
      }
    }
    this.leds.clear();
  }
}
