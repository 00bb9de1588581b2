// One device a Satellite client added, as a recdeck surface `satellite:<DEVICEID>`: its controls from
// the layout, its input from the client's KEY-PRESS and KEY-ROTATE, its one output path a DeviceOutput
// over the client's link. The session rules (hold, confirm, pages, overlays) are the engine's, as for
// any surface.
import { Subject } from 'rxjs';
import { DeviceOutput } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, Surface, SurfaceInput, SurfaceKind } from '../../engine/surface.js';
import type { SatelliteControl, SatelliteLayout } from './layout.js';
import { satelliteTransport, type LineSink } from './transport.js';

export interface SatelliteSurfaceOptions {
  deviceId: string;
  productName: string;
  layout: SatelliteLayout;
  link: LineSink;
  brightness: boolean;
  log: Logger;
  time: EngineTime;
}

export class SatelliteSurface implements Surface {
  readonly id: string;
  readonly kind = 'satellite' as const;
  readonly model: string;
  readonly name: string;
  /** The client's DEVICEID, so that a profile can be pinned to one device. */
  readonly serial: string;
  readonly standsInFor?: { kind: SurfaceKind; model: string };
  readonly controls: readonly ControlDefinition[];
  readonly output: DeviceOutput;
  private readonly inputs = new Subject<SurfaceInput>();
  readonly input = this.inputs.asObservable();
  /** Controls held down on the device, so that a link lost mid-press can say so. */
  private readonly held = new Set<string>();

  constructor(private readonly options: SatelliteSurfaceOptions) {
    const { deviceId, layout } = options;
    this.id = `satellite:${deviceId}`;
    this.model = layout.model;
    this.name = options.productName;
    this.serial = deviceId;
    if (layout.standsInFor !== null) this.standsInFor = layout.standsInFor;
    this.controls = layout.definitions;
    this.output = new DeviceOutput(satelliteTransport({ link: options.link, deviceId, controls: new Map(layout.controls.map((c) => [c.id, c])), brightness: options.brightness }), {
      name: this.id,
      log: options.log,
      time: options.time,
    });
  }

  /** The control the client names (KEY index, `row/column`, or CONTROLID), or undefined. */
  control(wireName: string): SatelliteControl | undefined {
    return this.options.layout.byWireName.get(wireName);
  }

  /** KEY-PRESS: a key, button or dial goes down or up; a strip cell takes a tap on its press (the strip gives no hold). */
  press(control: SatelliteControl, pressed: boolean): void {
    if (control.role === 'strip') {
      if (pressed) this.inputs.next({ type: 'touch', control: control.id, gesture: 'tap' });
      return;
    }
    // A repeated down or an up with no down is the client's echo, not a second press.
    if (pressed === this.held.has(control.id)) return;
    if (pressed) this.held.add(control.id);
    else this.held.delete(control.id);
    this.inputs.next({ type: pressed ? 'down' : 'up', control: control.id });
  }

  /** KEY-ROTATE on a dial: signed steps. */
  rotate(control: SatelliteControl, steps: number): void {
    this.inputs.next({ type: 'rotate', control: control.id, amount: steps });
  }

  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  /**
   * The device is gone (REMOVE-DEVICE, the link dropped, the server stopping): what it held is let go
   * firing nothing (a hold never fires after a lost release), its output writes nothing more, and its
   * input ends.
   */
  async gone(): Promise<void> {
    if (this.held.size > 0) this.inputs.next({ type: 'lost' });
    this.held.clear();
    this.inputs.complete();
    await this.output.close();
  }
}
