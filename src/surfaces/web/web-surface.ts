// A surface that lives in the browser: the bridge draws on it like on any device, and the page (over the
// remote server's WebSocket) shows what was handed over (the session's drawn$, as for every surface it
// mirrors) and sends back presses, turns and touches. Levels and brightness reach the page from here.
import { BehaviorSubject, Subject, distinctUntilChanged, type Observable } from 'rxjs';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput } from '../../engine/surface.js';
import { webControls, type WebLayout } from './layouts.js';

export type WebSurfaceChange =
  | { type: 'level'; control: string; level: number }
  | { type: 'brightness'; percent: number };

export class WebSurface implements Surface {
  readonly id: string;
  readonly kind = 'web' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly changes = new Subject<WebSurfaceChange>();
  private readonly watching = new BehaviorSubject(false);
  /** True while a page shows it: a web deck with no page open is neither drawn nor fed previews. */
  readonly watched$: Observable<boolean> = this.watching.pipe(distinctUntilChanged());
  readonly input: Observable<SurfaceInput> = this.inputs.asObservable();
  readonly changes$: Observable<WebSurfaceChange> = this.changes.asObservable();

  constructor(readonly layout: WebLayout) {
    this.id = `web:${layout.model}`;
    this.model = layout.model;
    this.name = layout.name;
    this.controls = webControls(layout);
  }

  /** Whether a page is open on it now (the remote server knows its clients). */
  setWatched(watched: boolean): void {
    this.watching.next(watched);
  }

  /** Input from the page. Unknown controls are refused by the caller before they get here. */
  send(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  async drawKey(_control: string, _image: RgbImage): Promise<void> {
    // Nothing to do here: the page is sent every image the session hands over.
  }

  async drawLcd(_control: string, _image: RgbImage): Promise<void> {
    // As drawKey.
  }

  async setLed(_control: string, _state: LedState): Promise<void> {
    // The web layouts have no LED-only controls.
  }

  async setLevel(control: string, level: number): Promise<void> {
    this.changes.next({ type: 'level', control, level });
  }

  async setBrightness(percent: number): Promise<void> {
    this.changes.next({ type: 'brightness', percent });
  }

  async clear(): Promise<void> {
    // The page's link closes as the bridge stops; there is no panel left lit.
  }
}
