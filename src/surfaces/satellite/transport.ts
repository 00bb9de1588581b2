// How a Satellite device's DeviceOutput writes to it: each capability is one small function writing one
// protocol line (KEY-STATE with a bitmap, KEY-STATE with a colour and text, BRIGHTNESS, KEYS-CLEAR) over
// the client's link. `satelliteTransport` only puts them together as the output's transport.
import type { DeviceTransport, LedState, RgbImage } from '../../engine/device-output.js';
import { LED_COLOURS } from '../../render/led-colours.js';
import type { Rgb } from '../../render/palette.js';
import type { SatelliteControl } from './layout.js';
import { formatLine, type ArgValue, type ColourFormat } from './protocol.js';

/** A client's connection as the output sees it: a line out, resolved once taken (the link's buffer under its bound), rejected when the link is gone. */
export interface LineSink {
  send(line: string): Promise<void>;
}

/** One device on one link. */
export interface SatelliteTarget {
  link: LineSink;
  deviceId: string;
  controls: ReadonlyMap<string, SatelliteControl>;
  /** It asked for BRIGHTNESS (the protocol's default is yes). */
  brightness: boolean;
}

/** A key's tile: KEY-STATE with the bitmap as base64 of its RGB bytes, at the size the device asked for (the session draws it at that size). */
export async function writeImage(target: SatelliteTarget, control: string, image: RgbImage): Promise<void> {
  const wanted = controlOf(target, control);
  if (wanted.bitmap === null) throw new Error(`${control} asked for no bitmap`);
  if (image.width !== wanted.bitmap.width || image.height !== wanted.bitmap.height) throw new Error(`${control} takes ${wanted.bitmap.width}x${wanted.bitmap.height}, not ${image.width}x${image.height}`);
  await target.link.send(formatLine('KEY-STATE', null, target.deviceId, { ...wireArgs(wanted), TYPE: 'BUTTON', BITMAP: image.data.toString('base64'), PRESSED: false }));
}

/** A control without a bitmap: KEY-STATE with the colour of its state (and the state in a word, where it asked for text). */
export async function writeLed(target: SatelliteTarget, control: string, state: LedState): Promise<void> {
  const wanted = controlOf(target, control);
  const args: Record<string, ArgValue> = { ...wireArgs(wanted), TYPE: 'BUTTON', PRESSED: false };
  if (wanted.colours !== null) {
    args.COLOR = colourText(LED_COLOURS[state], wanted.colours);
    args.TEXTCOLOR = colourText(state === 'off' ? [0, 0, 0] : [255, 255, 255], wanted.colours);
  }
  if (wanted.text) args.TEXT = Buffer.from(LED_WORDS[state]).toString('base64');
  // Companion's own answer when a button sets no size; clients read it as "fit the text".
  if (wanted.text && wanted.textStyle) args.FONT_SIZE = 'auto';
  await target.link.send(formatLine('KEY-STATE', null, target.deviceId, args));
}

/** 0..100; offered only to a device that asked for it. */
export async function writeBrightness(target: SatelliteTarget, percent: number): Promise<void> {
  await target.link.send(formatLine('BRIGHTNESS', null, target.deviceId, { VALUE: percent }));
}

/** Blanks every control. */
export async function writeClear(target: SatelliteTarget): Promise<void> {
  await target.link.send(formatLine('KEYS-CLEAR', null, target.deviceId));
}

/**
 * The capabilities the device has: images where a control asked for a bitmap, lights where one asked
 * for none (its colour and word), brightness where it asked for it; never levels (Satellite has no rings
 * and no motor faders), so a level asked of it is refused by the output, not taken and dropped here.
 */
export function satelliteTransport(target: SatelliteTarget): DeviceTransport {
  const controls = [...target.controls.values()];
  return {
    ...(controls.some((c) => c.bitmap !== null) ? { images: { image: (control: string, image: RgbImage) => writeImage(target, control, image) } } : {}),
    ...(controls.some((c) => c.bitmap === null) ? { lights: { led: (control: string, state: LedState) => writeLed(target, control, state) } } : {}),
    ...(target.brightness ? { brightness: { brightness: (percent: number) => writeBrightness(target, percent) } } : {}),
    clearing: { clear: () => writeClear(target) },
  };
}

function controlOf(target: SatelliteTarget, control: string): SatelliteControl {
  const found = target.controls.get(control);
  if (found === undefined) throw new Error(`no control ${control} on ${target.deviceId}`);
  return found;
}

function wireArgs(control: SatelliteControl): Record<string, ArgValue> {
  return 'KEY' in control.wire ? { KEY: control.wire.KEY } : { CONTROLID: control.wire.CONTROLID };
}

/** `#rrggbb` or `rgb(r,g,b)`, as the device asked. */
function colourText([r, g, b]: Rgb, format: ColourFormat): string {
  return format === 'rgb' ? `rgb(${r},${g},${b})` : `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** What a text-only control says for each state: short, as a 4-character display fits. */
const LED_WORDS: Readonly<Record<LedState, string>> = {
  off: '',
  idle: 'IDLE',
  active: 'ON',
  recording: 'REC',
  paused: 'PAUS',
  armed: 'ARM',
  'sync-recording': 'SYNC',
  wrong: 'ERR',
  'no-source': 'NOSR',
  stale: 'OLD?',
  offline: 'OFF!',
  dialog: 'ASK',
  holding: 'HOLD',
};
