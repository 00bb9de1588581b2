// The app's action instances as the engine sees them: a surface whose controls are the instances given
// (a key each; a dial and its strip cell for a dial). The plugin gives each visible instance a surface of
// its own (see plugin-deck.ts), so one appearing or going never remakes another's. The engine's session
// runs it as any surface: presses and turns come in on `input`, what it shows goes out through its one
// DeviceOutput to the app.
import { Subject } from 'rxjs';
import { DeviceOutput } from '../engine/device-output.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import type { ControlDefinition, Surface, SurfaceInput } from '../engine/surface.js';
import { appTransport, STRIP_SUFFIX, type AppCommands } from './app-transport.js';

/** A key is drawn at the size the app shows at its finest (its @2x 144 px); the app scales it to the device. */
export const KEY_SIZE = { width: 144, height: 144 };
/** A Stream Deck + strip cell under one dial. */
export const STRIP_SIZE = { width: 200, height: 100 };

export interface VisibleInstance {
  context: string;
  controller: 'Keypad' | 'Encoder';
  row: number;
  column: number;
}

export function controlsOf(instances: readonly VisibleInstance[]): ControlDefinition[] {
  return instances.flatMap((instance): ControlDefinition[] =>
    instance.controller === 'Encoder'
      ? [
          { kind: 'encoder', id: instance.context, pressable: true, ring: false, lcd: `${instance.context}${STRIP_SUFFIX}` },
          { kind: 'lcd', id: `${instance.context}${STRIP_SUFFIX}`, pixelSize: STRIP_SIZE, touch: true },
        ]
      : [{ kind: 'key', id: instance.context, row: instance.row, column: instance.column, pixelSize: KEY_SIZE }],
  );
}

export class AppSurface implements Surface {
  readonly kind = 'streamdeck' as const;
  /** What a profile would match; the plugin binds its own (see plugin-deck.ts). */
  readonly model = 'app';
  readonly serial: string;
  readonly controls: readonly ControlDefinition[];
  readonly output: DeviceOutput;
  private readonly inputs = new Subject<SurfaceInput>();
  readonly input = this.inputs.asObservable();

  constructor(
    readonly id: string,
    readonly name: string,
    instances: readonly VisibleInstance[],
    app: AppCommands,
    options: { log: Logger; time: EngineTime },
  ) {
    this.serial = id;
    this.controls = controlsOf(instances);
    const ids = this.controls.map((control) => control.id);
    this.output = new DeviceOutput(appTransport(app, () => ids), { name: id, log: options.log, time: options.time });
  }

  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  /** The surface is replaced or gone: what is held is let go without firing, nothing more is written. */
  async close(): Promise<void> {
    this.inputs.complete();
    await this.output.close();
  }
}
