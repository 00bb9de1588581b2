// Shared by the Stream Deck tests: a logger that records, and surfaces over fake HID devices.
import type { DeviceModelId, StreamDeck } from '@elgato-stream-deck/core';
import { VirtualTime } from '../../support/virtual-time.js';
import type { OutputItem } from '../../../src/engine/device-output.js';
import type { Logger } from '../../../src/engine/log.js';
import type { RgbImage, SurfaceInput } from '../../../src/engine/surface.js';
import type { StreamDeckBackend, StreamDeckListing } from '../../../src/surfaces/streamdeck/backend.js';
import { StreamDeckSurface, type StreamDeckSurfaceOptions } from '../../../src/surfaces/streamdeck/streamdeck-surface.js';
import { openFakeStreamDeck, type FakeHidDevice } from '../../support/fake-hid.js';

export interface RecordingLogger extends Logger {
  lines: Array<{ level: 'info' | 'warn' | 'error'; message: string }>;
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  return {
    lines,
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
}

export interface SurfaceFixture {
  surface: StreamDeckSurface;
  hid: FakeHidDevice;
  log: RecordingLogger;
  inputs: SurfaceInput[];
  failures: unknown[];
}

/** A StreamDeckSurface over a real library StreamDeck of that model over a fake HID device. */
export async function fakeSurface(model: DeviceModelId, options: Partial<StreamDeckSurfaceOptions> = {}): Promise<SurfaceFixture> {
  const { deck, hid } = await openFakeStreamDeck(model, { serial: options.serial ?? 'CL00TEST' });
  const log = recordingLogger();
  const failures: unknown[] = [];
  const surface = new StreamDeckSurface(deck, { serial: options.serial ?? 'CL00TEST', log, onFailure: (_s, error) => failures.push(error), time: new VirtualTime(), ...options });
  const inputs: SurfaceInput[] = [];
  surface.input.subscribe((input) => inputs.push(input));
  return { surface, hid, log, inputs, failures };
}

/** Hands items to a surface's output, as the engine does, and waits until they are written. */
export async function show(surface: { output: { show(item: OutputItem): void; flushed(): Promise<void> } }, ...items: OutputItem[]): Promise<void> {
  for (const item of items) surface.output.show(item);
  await surface.output.flushed();
}

/** An image for a control, as the engine hands it over. */
export const image = (control: string, picture: RgbImage): OutputItem => ({ type: 'image', control, image: picture });

/** Decks "plugged in" by path; each open builds a fresh library StreamDeck over a fresh fake HID device. */
export class FakeStreamDeckBackend implements StreamDeckBackend {
  readonly plugged = new Map<string, { model: DeviceModelId; serial: string; serialInListing?: boolean }>();
  /** Every HID device opened, in order. */
  readonly opened: FakeHidDevice[] = [];
  /** When set for a path, opening it fails with this error (another program holds the device). */
  readonly openErrors = new Map<string, Error>();
  listError: Error | null = null;

  plug(path: string, model: DeviceModelId, serial: string): void {
    this.plugged.set(path, { model, serial });
  }

  async list(): Promise<StreamDeckListing[]> {
    if (this.listError) throw this.listError;
    return [...this.plugged].map(([path, d]) => ({ path, model: d.model, ...(d.serialInListing === false ? {} : { serialNumber: d.serial }) }));
  }

  async open(path: string): Promise<StreamDeck> {
    const error = this.openErrors.get(path);
    if (error) throw error;
    const device = this.plugged.get(path);
    if (!device) throw new Error(`cannot open device with path ${path}`);
    const { deck, hid } = await openFakeStreamDeck(device.model, { serial: device.serial, path, firmware: '1.05.007' });
    this.opened.push(hid);
    return deck;
  }

  /** The HID device most recently opened at a path. */
  hidAt(path: string): FakeHidDevice | undefined {
    return this.opened.filter((hid) => hid.info.path === path).at(-1);
  }
}
