// One opened X-keys panel as a Surface, over the library's XKeys (so the same over node-hid and over
// an in-memory HID device in tests). Everything it shows goes through its DeviceOutput (one writer, one
// record of what the panel shows); this adapter only turns each write into the library's calls and waits
// for the library to have written it. The panel's first failure (a write or read error, unplugging)
// closes the surface and tells whoever opened it, which reopens it when it is seen again.
import type { Product, XKeys } from '@xkeys-lib/core';
import type { EventEmitter } from 'node:events';
import { DeviceOutput } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, LedState, Surface } from '../../engine/surface.js';
import { OpenedDevice } from '../opened-device.js';
import { backlightFor } from './backlights.js';
import { analogId, panelLayout, type PanelLayout } from './controls.js';
import { modelIdOf } from './models.js';

/** The shuttle's travel either side of its rest position, in the library's units. */
const SHUTTLE_STEPS = 7;

export interface XkeysSurfaceOptions {
  /** The library's product entry for the panel. */
  product: Product;
  log: Logger;
  /** Told once, when the panel fails (a write or read error, or it went away); the surface is closed by then. */
  onFailure?: (surface: XkeysSurface, error: unknown) => void;
  time: EngineTime;
}

export class XkeysSurface extends OpenedDevice implements Surface {
  readonly id: string;
  readonly kind = 'xkeys' as const;
  readonly model: string;
  readonly name: string;
  /** The panel's unit id, the number that tells two panels of one model apart (0 from the factory). */
  readonly serial: string;
  readonly unitId: number;
  readonly controls: readonly ControlDefinition[];
  readonly layout: PanelLayout;
  readonly output: DeviceOutput;
  private readonly product: Product;

  constructor(
    private readonly panel: XKeys,
    options: XkeysSurfaceOptions,
  ) {
    super(options.log, (error) => options.onFailure?.(this, error));
    this.product = options.product;
    this.unitId = panel.unitId;
    this.serial = String(panel.unitId);
    this.model = modelIdOf(this.product);
    this.name = this.product.name;
    this.id = `xkeys:${this.model}:${panel.unitId}`;
    this.layout = panelLayout(this.product);
    this.controls = this.layout.controls;
    // A panel has no displays, and its jog, shuttle or T-bar show no level; its keys' backlights are
    // all it shows, and a panel without them (the XK-3 foot pedal) shows nothing at all.
    this.output = new DeviceOutput(
      this.layout.backlit
        ? {
            lights: { led: (control, state) => this.light(control, state) },
            // 0-100 % of the LEDs' full intensity, red and blue alike.
            brightness: { brightness: (percent) => this.write('setting brightness', (p) => p.setBacklightIntensity(Math.round((percent * 255) / 100))) },
            clearing: { clear: () => this.write('clearing', (p) => p.setAllBacklights(false)) },
          }
        : {},
      { name: this.id, log: options.log, time: options.time },
    );
    // Heard for as long as the panel object lives: an 'error' with no listener would throw.
    panel.on('error', this.handlers.error);
    this.wire('on');
  }

  private async light(control: string, state: LedState): Promise<void> {
    const keyIndex = this.layout.keyIndexes.get(control);
    if (keyIndex === undefined) throw new Error(`${this.id}: no key "${control}"`);
    const { color, flashing } = backlightFor(this.product.backLightType, state);
    await this.write(`lighting ${control}`, (p) => p.setBacklight(keyIndex, color, flashing));
  }

  /**
   * One call to the library, then the wait until it has written it (the output never runs two at once).
   * The library queues writes and reports a failed one as an 'error' event, which fails the surface; a
   * call on a panel that went away throws.
   */
  private async write(what: string, op: (panel: XKeys) => void): Promise<void> {
    if (this.failed) return; // the panel failed while this one waited
    try {
      op(this.panel);
      await this.panel.flush();
    } catch (error) {
      this.fail(`${what} failed`, error);
      throw error;
    }
    if (this.failed) throw new Error(`${this.id}: ${what} failed: the panel failed`);
  }

  protected detach(): void {
    this.wire('off');
  }

  protected closeDevice(): Promise<void> {
    return this.panel.close();
  }

  // Input ------------------------------------------------------------------------------------------

  private readonly handlers = {
    down: (keyIndex: number) => this.emitKey('down', keyIndex),
    up: (keyIndex: number) => this.emitKey('up', keyIndex),
    // The library reports each jog report's signed detents; a fast turn is a larger amount, kept as is.
    jog: (index: number, delta: number) => {
      if (delta !== 0) this.inputs.next({ type: 'rotate', control: analogId('jog', index), amount: delta });
    },
    shuttle: (index: number, value: number) => {
      const position = (Math.min(SHUTTLE_STEPS, Math.max(-SHUTTLE_STEPS, value)) + SHUTTLE_STEPS) / (2 * SHUTTLE_STEPS);
      this.inputs.next({ type: 'fader', control: analogId('shuttle', index), position });
    },
    tbar: (index: number, value: number) => this.inputs.next({ type: 'fader', control: analogId('tbar', index), position: value / 255 }),
    // Unplugged: the library saw its read fail ("could not read from …") and closed the device.
    disconnected: () => this.fail('disconnected', new Error('the panel went away')),
    error: (error: unknown) => this.fail('device error', error),
  };

  /** Attaches ('on') or detaches ('off') the input handlers, from the one list. */
  private wire(method: 'on' | 'off'): void {
    // As the plain EventEmitter it is: the library's typed `on` has no typed `off` beside it.
    const panel: EventEmitter = this.panel;
    const { handlers } = this;
    panel[method]('down', handlers.down);
    panel[method]('up', handlers.up);
    panel[method]('jog', handlers.jog);
    panel[method]('shuttle', handlers.shuttle);
    panel[method]('tbar', handlers.tbar);
    panel[method]('disconnected', handlers.disconnected);
  }

  private emitKey(type: 'down' | 'up', keyIndex: number): void {
    const id = this.layout.keys.get(keyIndex);
    if (id !== undefined) this.inputs.next({ type, control: id });
  }
}
