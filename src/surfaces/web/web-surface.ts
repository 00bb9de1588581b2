// A deck that lives in the browser. Its screen is the pages that view it: its DeviceOutput, like any
// device's, keeps what it shows (key and strip images, dial levels) compared by content, and the deck
// socket sends each page viewing it that record when the deck comes into view, then every change the
// output hands over (drawn$), each page a frame of what changed for it. Its input is the pages' (and
// the remote API's), injected as a remote press on any surface is.
import { BehaviorSubject, Subject, distinctUntilChanged, type Observable } from 'rxjs';
import { DeviceOutput, type DeviceTransport } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, Surface, SurfaceInput } from '../../engine/surface.js';
import { webControls, type WebLayout } from './layouts.js';

/**
 * The pages are the device: a write is taken as it is made, and the output hands it to them (drawn$).
 * They show images, lights and levels; no brightness (a deck on screen is as bright as the screen), and
 * nothing to blank (no panel is left lit when the bridge stops: the pages' links close).
 */
const takenByPages = (): Promise<void> => Promise.resolve();
const PAGES: DeviceTransport = {
  images: { image: takenByPages },
  lights: { led: takenByPages },
  levels: { level: takenByPages },
};

/** Its writes cannot fail: nothing to log. */
const NO_LOG: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export class WebSurface implements Surface {
  readonly id: string;
  readonly kind = 'web' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  readonly output: DeviceOutput;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly watching = new BehaviorSubject(false);
  /** True while a page shows it: a web deck with no page open is neither drawn nor fed previews. */
  readonly watched$: Observable<boolean> = this.watching.pipe(distinctUntilChanged());
  readonly input: Observable<SurfaceInput> = this.inputs.asObservable();

  constructor(
    readonly layout: WebLayout,
    time: EngineTime,
  ) {
    this.id = `web:${layout.model}`;
    this.model = layout.model;
    this.name = layout.name;
    this.controls = webControls(layout);
    this.output = new DeviceOutput(PAGES, { name: this.id, log: NO_LOG, time });
  }

  /** Whether a page is open on it now (the remote server knows its clients). */
  setWatched(watched: boolean): void {
    this.watching.next(watched);
  }

  /** Input from a page or the API. Unknown controls are refused by the caller before they get here. */
  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }
}
