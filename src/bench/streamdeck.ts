// Stream Deck figures through the real library over a counting HID device: a full-panel redraw per model
// (a page change: every key a picture not drawn before, and the same page again from the cache), and HID
// bytes per second at steady state with 16 channels recording on an XL with the shipped profile.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { fileURLToPath } from 'node:url';
import { RecorderClient } from '../api/client.js';
import { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import type { ChannelPicture } from '../engine/picture.js';
import { loadProfileFile } from '../profiles/load.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { startSimulator } from '../simulator/server.js';
import { StreamDeckSurface } from '../surfaces/streamdeck/streamdeck-surface.js';
import { openCountingStreamDeck } from './counting-hid.js';
import { sleep } from './stats.js';
import { realClock } from '../api/clock.js';
import { realTime } from '../engine/engine-time.js';

export interface PanelRedraw {
  model: string;
  keys: number;
  /** Every key a new picture: rendered, encoded and handed to the device. */
  newPageMs: number;
  /** The same pictures again (cached images; encoded and handed over). */
  cachedPageMs: number;
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const MODELS = [DeviceModelId.MINI, DeviceModelId.ORIGINALMK2, DeviceModelId.XL, DeviceModelId.PLUS, DeviceModelId.NEO, DeviceModelId.STUDIO];

const picture = (channel: number, page: number): ChannelPicture => ({
  kind: 'channel',
  channel,
  state: channel % 3 === 0 ? 'recording' : 'idle',
  lastSeen: null,
  source: `Camera ${channel} p${page}`,
  durationS: channel % 3 === 0 ? 61 + page : null,
  fps: channel % 3 === 0 ? 25 : null,
  drops: 0,
  warning: null, buffered: 0, audioPreview: false,
  thumbnail: null,
  ageS: null,
});

export async function measurePanelRedraws(rounds: number): Promise<PanelRedraw[]> {
  const results: PanelRedraw[] = [];
  for (const model of MODELS) {
    const { deck } = await openCountingStreamDeck(model);
    const surface = new StreamDeckSurface(deck, { time: realTime, serial: `BENCH-${model}`, log: quiet, onFailure: () => undefined });
    const keys = surface.controls.filter((c) => c.kind === 'key');
    const renderer = pictureRenderer();
    const drawPage = async (page: number) => {
      await Promise.all(
        keys.map(async (key, i) => {
          if (key.kind !== 'key') return;
          const image = await renderer.render(picture(i + 1, page), key.pixelSize);
          surface.output.show({ type: 'image', control: key.id, image });
        }),
      );
      await surface.output.flushed();
    };
    await drawPage(-1); // glyph sets and the library's first-use work
    let newTotal = 0;
    let cachedTotal = 0;
    for (let round = 0; round < rounds; round++) {
      let start = performance.now();
      await drawPage(round);
      newTotal += performance.now() - start;
      await drawPage(-1); // something else in between, so the same page is sent again
      start = performance.now();
      await drawPage(round);
      cachedTotal += performance.now() - start;
    }
    results.push({ model: surface.model, keys: keys.length, newPageMs: newTotal / rounds, cachedPageMs: cachedTotal / rounds });
    await surface.close();
  }
  return results;
}

export interface HidSteadyState {
  profile: string;
  bytesPerSecond: number;
  writesPerSecond: number;
  /** Image writes identical to what the key already showed. */
  identicalWritesPerSecond: number;
  seconds: number;
}

/**
 * 16 channels recording, an XL with the shipped XL profile (previews on), the previews still pictures:
 * what crosses the USB link, and how much of it the keys already showed.
 */
export async function measureHidSteadyState(seconds: number): Promise<HidSteadyState> {
  const sim = await startSimulator({ clock: realClock, port: 0, grid: 16, stillPreviews: true });
  const client = new RecorderClient({ clock: realClock, url: sim.url, token: sim.token });
  const file = fileURLToPath(new URL('../../profiles/streamdeck-xl.yaml', import.meta.url));
  const loaded = await loadProfileFile(file);
  if (!loaded.ok) throw new Error(`${file} does not load`);
  const bridge = new Bridge({ time: realTime, recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet });
  const { deck, hid } = await openCountingStreamDeck(DeviceModelId.XL);
  const surface = new StreamDeckSurface(deck, { time: realTime, serial: 'BENCH-XL', log: quiet, onFailure: () => undefined });
  try {
    for (let i = 0; i < 16; i++) await client.recStart(i);
    bridge.start();
    bridge.setProfiles([loaded.loaded]);
    bridge.addSurface(surface);
    await sleep(3000);
    const [bytes0, writes0, identical0, t0] = [hid.bytes, hid.writes, hid.identicalWrites, performance.now()];
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    return {
      profile: 'streamdeck-xl.yaml (16 channels recording, still previews)',
      bytesPerSecond: (hid.bytes - bytes0) / elapsed,
      writesPerSecond: (hid.writes - writes0) / elapsed,
      identicalWritesPerSecond: (hid.identicalWrites - identical0) / elapsed,
      seconds,
    };
  } finally {
    await bridge.stop();
    await client.close();
    await sim.close();
  }
}
