// A surface that lives in the browser: the bridge draws on it like on any device, and the page (over the
// remote server's WebSocket) shows what was drawn and sends back presses, turns and touches.
import { Subject, type Observable } from 'rxjs';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput } from '../../engine/surface.js';
import { webControls, type WebLayout } from './layouts.js';

export type WebSurfaceChange =
  | { type: 'image'; control: string; image: RgbImage }
  | { type: 'level'; control: string; level: number }
  | { type: 'brightness'; percent: number };

export class WebSurface implements Surface {
  readonly id: string;
  readonly kind = 'web' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  /** What every display shows now, for a page that connects later. */
  readonly images = new Map<string, RgbImage>();
  readonly levels = new Map<string, number>();
  brightness = 100;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly changes = new Subject<WebSurfaceChange>();
  readonly input: Observable<SurfaceInput> = this.inputs.asObservable();
  readonly changes$: Observable<WebSurfaceChange> = this.changes.asObservable();

  constructor(readonly layout: WebLayout) {
    this.id = `web:${layout.model}`;
    this.model = layout.model;
    this.name = layout.name;
    this.controls = webControls(layout);
  }

  /** Input from the page. Unknown controls are refused by the caller before they get here. */
  send(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  async drawKey(control: string, image: RgbImage): Promise<void> {
    this.show(control, image);
  }

  async drawLcd(control: string, image: RgbImage): Promise<void> {
    this.show(control, image);
  }

  async setLed(_control: string, _state: LedState): Promise<void> {
    // The web layouts have no LED-only controls.
  }

  async setLevel(control: string, level: number): Promise<void> {
    this.levels.set(control, level);
    this.changes.next({ type: 'level', control, level });
  }

  async setBrightness(percent: number): Promise<void> {
    this.brightness = percent;
    this.changes.next({ type: 'brightness', percent });
  }

  async clear(): Promise<void> {
    for (const control of this.controls) {
      if (control.kind !== 'key' && control.kind !== 'lcd') continue;
      const { width, height } = control.pixelSize;
      this.show(control.id, { width, height, data: Buffer.alloc(width * height * 3) });
    }
  }

  private show(control: string, image: RgbImage): void {
    this.images.set(control, image);
    this.changes.next({ type: 'image', control, image });
  }
}
