// One opened Stream Deck as a Surface. It speaks the library's StreamDeck interface, so it runs the
// same over a real USB device and over an in-memory HID device in tests. Everything it shows goes
// through its DeviceOutput (one writer, one record of what the deck shows); this adapter only turns each
// write into the library's calls. The device's first failure closes the surface and tells whoever
// opened it, which reopens it (as a new surface with the same id, so a new record) when it is seen again.
import type { LcdPosition, StreamDeck, StreamDeckButtonControlDefinition, StreamDeckEncoderControlDefinition, StreamDeckLcdSegmentControlDefinition } from '@elgato-stream-deck/core';
import { DeviceOutput } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, LedState, RgbImage, Surface, TouchGesture } from '../../engine/surface.js';
import { OpenedDevice } from '../opened-device.js';
import { cellAt, deckLayout, type DeckLayout, type DeckTarget } from './controls.js';
import { LED_COLOURS, RING_COLOUR } from '../../render/led-colours.js';
import { shortModelId } from './models.js';
import { solidColourOf } from './solid-colour.js';

export interface StreamDeckSurfaceOptions {
  /** The device's serial number (from the device list, or asked of the device). */
  serial: string;
  log: Logger;
  /** Told once, when the device fails (a write error or the device's own 'error'); the surface is closed by then. */
  onFailure?: (surface: StreamDeckSurface, error: unknown) => void;
  time: EngineTime;
}

type ButtonOrEncoder = StreamDeckButtonControlDefinition | StreamDeckEncoderControlDefinition;

export class StreamDeckSurface extends OpenedDevice implements Surface {
  readonly id: string;
  readonly kind = 'streamdeck' as const;
  readonly model: string;
  readonly name: string;
  readonly serial: string;
  readonly controls: readonly ControlDefinition[];
  readonly layout: DeckLayout;
  readonly output: DeviceOutput;
  private readonly definitions: ReadonlyMap<string, ControlDefinition>;

  constructor(
    private readonly deck: StreamDeck,
    options: StreamDeckSurfaceOptions,
  ) {
    super(options.log, (error) => options.onFailure?.(this, error));
    this.serial = options.serial;
    this.id = `streamdeck:${options.serial}`;
    this.model = shortModelId(deck.MODEL);
    this.name = deck.PRODUCT_NAME;
    this.layout = deckLayout(deck.MODEL, deck.CONTROLS);
    this.controls = this.layout.controls;
    this.definitions = new Map(this.controls.map((c) => [c.id, c]));
    // The capabilities of this model: displays (LCD keys, the strip), lit buttons (the Neo's), rings
    // (the Studio's); a model without any of them (the pedal) has no brightness either.
    const kinds = new Set([...this.layout.targets.values()].map((target) => (target.kind === 'encoder' ? (target.ringSteps > 0 ? 'ring' : 'dial') : target.kind)));
    const displays = kinds.has('lcd-button') || kinds.has('lcd-region') || kinds.has('lcd-whole');
    const lit = kinds.has('rgb-button');
    const rings = kinds.has('ring');
    const shows = displays || lit || rings;
    this.output = new DeviceOutput(
      {
        ...(displays && { images: { image: (control: string, image: RgbImage) => this.drawImage(control, image) } }),
        ...(lit && { lights: { led: (control: string, state: LedState) => this.light(control, state) } }),
        ...(rings && { levels: { level: (control: string, level: number) => this.ring(control, level), levelShown: (control: string, level: number) => this.litSteps(control, level) } }),
        ...(shows && { brightness: { brightness: (percent: number) => this.write('setting brightness', (deck) => deck.setBrightness(percent)) } }),
        ...(shows && { clearing: { clear: () => this.clearPanel() } }),
      },
      { name: this.id, log: options.log, time: options.time },
    );
    this.wire('on');
  }

  // Writing: what the output hands over, as the library's calls ---------------------------------------

  private async drawImage(control: string, image: RgbImage): Promise<void> {
    const target = this.targetOf(control);
    this.checkSize(control, image);
    switch (target.kind) {
      case 'lcd-button': {
        const colour = solidColourOf(image);
        return this.write(`drawing ${control}`, (deck) => (colour ? deck.fillKeyColor(target.keyIndex, ...colour) : deck.fillKeyBuffer(target.keyIndex, image.data, { format: 'rgb' })));
      }
      case 'lcd-region':
        return this.write(`drawing ${control}`, (deck) => deck.fillLcdRegion(target.lcdIndex, target.x, target.y, image.data, { format: 'rgb', width: image.width, height: image.height }));
      case 'lcd-whole':
        // The Neo's bar cannot be drawn in regions, only whole.
        return this.write(`drawing ${control}`, (deck) => deck.fillLcd(target.lcdIndex, image.data, { format: 'rgb' }));
      default:
        throw new Error(`${this.id}: ${control} has no display`);
    }
  }

  private async light(control: string, state: LedState): Promise<void> {
    const target = this.targetOf(control);
    if (target.kind !== 'rgb-button') return; // a pedal or key without an LED of its own: nothing to light
    const [r, g, b] = LED_COLOURS[state];
    await this.write(`lighting ${control}`, (deck) => deck.fillKeyColor(target.keyIndex, r, g, b));
  }

  private async ring(control: string, level: number): Promise<void> {
    const target = this.targetOf(control);
    if (target.kind !== 'encoder' || target.ringSteps <= 0) return; // no LED ring to show it on
    const steps = target.ringSteps;
    const lit = this.litSteps(control, level);
    const [r, g, b] = RING_COLOUR;
    await this.write(`ring of ${control}`, (deck) => {
      if (lit === 0) return deck.setEncoderRingSingleColor(target.encoderIndex, 0, 0, 0);
      if (lit === steps) return deck.setEncoderRingSingleColor(target.encoderIndex, r, g, b);
      const colours = new Uint8Array(steps * 3);
      for (let i = 0; i < lit; i++) colours.set(RING_COLOUR, i * 3);
      return deck.setEncoderRingColors(target.encoderIndex, colours);
    });
  }

  /** A level as the ring shows it: how many of its segments are lit (0 for a dial without a ring). */
  private litSteps(control: string, level: number): number {
    const target = this.layout.targets.get(control);
    const steps = target?.kind === 'encoder' ? target.ringSteps : 0;
    return Math.round(Math.min(1, Math.max(0, Number.isFinite(level) ? level : 0)) * steps);
  }

  private clearPanel(): Promise<void> {
    return this.write('clearing', async (deck) => {
      await deck.clearPanel();
      // clearPanel blanks the displays and rings, but leaves the RGB-lit buttons (Neo) as they were.
      for (const target of this.layout.targets.values()) if (target.kind === 'rgb-button') await deck.fillKeyColor(target.keyIndex, 0, 0, 0);
    });
  }

  /** One call to the device (the output never runs two at once); a failure of the device closes the surface. */
  private async write(what: string, op: (deck: StreamDeck) => Promise<void>): Promise<void> {
    if (this.failed) return; // the device failed while this one waited
    try {
      await op(this.deck);
    } catch (error) {
      // The library checks its arguments before it touches the device: those errors are ours, and
      // the device is fine.
      if (!(error instanceof TypeError || error instanceof RangeError)) this.fail(`${what} failed`, error);
      throw error;
    }
  }

  protected detach(): void {
    this.wire('off');
  }

  protected closeDevice(): Promise<void> {
    return this.deck.close();
  }

  private targetOf(control: string): DeckTarget {
    const target = this.layout.targets.get(control);
    if (!target) throw new Error(`${this.id}: no control "${control}"`);
    return target;
  }

  private checkSize(control: string, image: RgbImage): void {
    const definition = this.definitions.get(control);
    const size = definition?.kind === 'key' || definition?.kind === 'lcd' ? definition.pixelSize : undefined;
    if (!size || image.width !== size.width || image.height !== size.height || image.data.length !== size.width * size.height * 3) {
      throw new RangeError(`${this.id}: ${control} takes ${size?.width}x${size?.height} RGB, got ${image.width}x${image.height} (${image.data.length} bytes)`);
    }
  }

  // Input ------------------------------------------------------------------------------------------

  private readonly handlers = {
    down: (control: ButtonOrEncoder) => this.emitPress('down', control),
    up: (control: ButtonOrEncoder) => this.emitPress('up', control),
    rotate: (control: StreamDeckEncoderControlDefinition, amount: number) => {
      const id = this.layout.encoders.get(control.index);
      // The library reports signed detents per report; a fast turn is a larger amount, kept as is.
      if (id !== undefined && amount !== 0) this.inputs.next({ type: 'rotate', control: id, amount });
    },
    lcdShortPress: (control: StreamDeckLcdSegmentControlDefinition, at: LcdPosition) => this.emitTouch(control, at.x, 'tap'),
    lcdLongPress: (control: StreamDeckLcdSegmentControlDefinition, at: LcdPosition) => this.emitTouch(control, at.x, 'long'),
    lcdSwipe: (control: StreamDeckLcdSegmentControlDefinition, from: LcdPosition, to: LcdPosition) => {
      if (to.x === from.x) return; // straight up or down: neither left nor right
      // A swipe belongs to the cell it started on.
      this.emitTouch(control, from.x, to.x < from.x ? 'swipe-left' : 'swipe-right');
    },
    error: (error: unknown) => this.fail('device error', error),
  };

  /** Attaches ('on') or detaches ('off') every handler, from the one list. */
  private wire(method: 'on' | 'off'): void {
    const { deck, handlers } = this;
    deck[method]('down', handlers.down);
    deck[method]('up', handlers.up);
    deck[method]('rotate', handlers.rotate);
    deck[method]('lcdShortPress', handlers.lcdShortPress);
    deck[method]('lcdLongPress', handlers.lcdLongPress);
    deck[method]('lcdSwipe', handlers.lcdSwipe);
    deck[method]('error', handlers.error);
  }

  private emitPress(type: 'down' | 'up', control: ButtonOrEncoder): void {
    const id = control.type === 'button' ? this.layout.buttons.get(control.index) : this.layout.encoders.get(control.index);
    if (id !== undefined) this.inputs.next({ type, control: id });
  }

  private emitTouch(control: StreamDeckLcdSegmentControlDefinition, x: number, gesture: TouchGesture): void {
    const id = cellAt(this.layout, control.id, x);
    if (id !== undefined) this.inputs.next({ type: 'touch', control: id, gesture });
  }
}
