// Shared by the Stream Deck tests: a logger that records, and surfaces over fake HID devices.
import type { DeviceModelId } from '@elgato-stream-deck/core';
import type { Logger } from '../../../src/engine/log.js';
import type { SurfaceInput } from '../../../src/engine/surface.js';
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
  const surface = new StreamDeckSurface(deck, { serial: options.serial ?? 'CL00TEST', log, onFailure: (_s, error) => failures.push(error), ...options });
  const inputs: SurfaceInput[] = [];
  surface.input.subscribe((input) => inputs.push(input));
  return { surface, hid, log, inputs, failures };
}
