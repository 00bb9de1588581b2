// The status tile (Neo info bar): the recorder's freshness told by colour and word, at bar and key sizes.
import { describe, expect, it } from 'vitest';
import type { StatusPicture } from '../../src/engine/picture.js';
import { ledStateOf } from '../../src/render/led.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';

const status = (extra: Partial<StatusPicture> = {}): StatusPicture => ({ kind: 'status', recorder: 'main', freshness: 'live', ageS: null, recording: 0, dialog: false, page: { name: 'Channels', number: 1, count: 3 }, ...extra });

function share(data: Buffer, rgb: [number, number, number]): number {
  let near = 0;
  for (let i = 0; i < data.length; i += 3) if (Math.abs((data[i] as number) - rgb[0]) < 20 && Math.abs((data[i + 1] as number) - rgb[1]) < 20 && Math.abs((data[i + 2] as number) - rgb[2]) < 20) near++;
  return near / (data.length / 3);
}

describe('status tile', () => {
  it('live is green, stale orange with its age, offline vermillion, on the Neo bar and on a key', async () => {
    const renderer = new KeyRenderer();
    for (const size of [{ width: 248, height: 58 }, { width: 96, height: 96 }]) {
      const live = await renderer.render(status(), size);
      const stale = await renderer.render(status({ freshness: 'stale', ageS: 4 }), size);
      const older = await renderer.render(status({ freshness: 'stale', ageS: 5 }), size);
      const offline = await renderer.render(status({ freshness: 'offline', ageS: 40 }), size);
      expect(live.width * live.height * 3).toBe(live.data.length);
      expect(share(live.data, [0x00, 0x9e, 0x73])).toBeGreaterThan(0.05);
      expect(share(stale.data, [0xe6, 0x9f, 0x00])).toBeGreaterThan(0.05);
      expect(share(offline.data, [0xd5, 0x5e, 0x00])).toBeGreaterThan(0.05);
      expect(older.data.equals(stale.data)).toBe(false);
    }
  });

  it('an LED shows the same truth', () => {
    expect(ledStateOf(status())).toBe('idle');
    expect(ledStateOf(status({ recording: 2 }))).toBe('recording');
    expect(ledStateOf(status({ dialog: true, recording: 2 }))).toBe('dialog');
    expect(ledStateOf(status({ freshness: 'offline' }))).toBe('offline');
  });
});
