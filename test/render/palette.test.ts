// Each channel state shows its palette colour in the state band (read back from the rendered pixels), and
// states sharing a colour family are still told apart by more than colour.
import { describe, expect, it } from 'vitest';
import type { ChannelState } from '../../src/engine/picture.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';
import { CHANNEL_LOOKS, STALE_DIM, ageText, dimmed, hexToRgb, inkOn } from '../../src/render/palette.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { channel } from './fixtures.js';
import { hexAt } from './pixels.js';

const EXPECTED_BAND: Readonly<Record<Exclude<ChannelState, 'stale'>, string>> = {
  idle: '#3C3C3C',
  recording: '#D55E00',
  paused: '#F0E442',
  armed: '#0072B2',
  'sync-recording': '#CC79A7',
  'sync-paused': '#F0E442',
  wrong: '#E69F00',
  'no-source': '#8C8C8C',
  offline: '#000000',
};

describe('state band colours', () => {
  for (const size of [{ width: 72, height: 72 }, { width: 96, height: 96 }, { width: 144, height: 112 }, { width: 200, height: 100 }, { width: 248, height: 58 }]) {
    it(`each state's band is its palette colour at ${size.width}x${size.height}`, async () => {
      const renderer = new KeyRenderer();
      const { probe } = stateTileLayout(size);
      for (const [state, colour] of Object.entries(EXPECTED_BAND) as [Exclude<ChannelState, 'stale'>, string][]) {
        const durationS = state === 'recording' || state === 'paused' || state === 'sync-recording' || state === 'wrong' ? 65 : null;
        const image = await renderer.render(channel(state, { durationS, source: state === 'no-source' ? null : 'Cam 1' }), size);
        expect({ state, colour: hexAt(image, probe.x, probe.y) }).toEqual({ state, colour });
        expect(CHANNEL_LOOKS[state].band).toBe(colour);
      }
    });
  }

  it('stale shows the underlying look dimmed', async () => {
    const renderer = new KeyRenderer();
    const { probe } = stateTileLayout({ width: 96, height: 96 });
    const cases: [Parameters<typeof channel>[1], string][] = [
      [{ durationS: 10, fps: 25, ageS: 3 }, '#D55E00'],
      [{ durationS: 10, fps: null, ageS: 3 }, '#F0E442'],
      [{ ageS: 3 }, '#3C3C3C'],
      [{ source: null, ageS: 3 }, '#8C8C8C'],
    ];
    for (const [extra, underlying] of cases) {
      const image = await renderer.render(channel('stale', extra), { width: 96, height: 96 });
      expect(hexAt(image, probe.x, probe.y)).toBe(dimmed(underlying));
    }
    expect(dimmed('#D55E00')).not.toBe('#D55E00');
    expect(STALE_DIM).toBeLessThan(1);
  });

  it('every state has its own word and symbol', () => {
    const looks = Object.values(CHANNEL_LOOKS);
    expect(new Set(looks.map((l) => l.word)).size).toBe(looks.length);
    expect(new Set(looks.map((l) => l.symbol)).size).toBe(looks.length);
    expect(CHANNEL_LOOKS.wrong.hazard).toBe(true);
    expect(CHANNEL_LOOKS['no-source'].dashed).toBe(true);
    expect(CHANNEL_LOOKS.offline.crossed).toBe(true);
  });

  it('greys are told apart by more than colour: symbol and word sit on different pixels', async () => {
    const renderer = new KeyRenderer();
    const size = { width: 96, height: 96 };
    const { band } = stateTileLayout(size);
    /** Band pixels that are not the band's own colour: the symbol and the word. */
    const inkOf = async (picture: Parameters<KeyRenderer['render']>[0], fill: string) => {
      const image = await renderer.render(picture, size);
      const ink = new Set<number>();
      for (let y = 0; y < band.height; y++) for (let x = 0; x < size.width; x++) if (hexAt(image, x, y) !== fill) ink.add(y * size.width + x);
      return ink;
    };
    const idle = await inkOf(channel('idle'), CHANNEL_LOOKS.idle.band);
    const noSource = await inkOf(channel('no-source', { source: null }), CHANNEL_LOOKS['no-source'].band);
    const onlyOne = [...idle].filter((p) => !noSource.has(p)).length + [...noSource].filter((p) => !idle.has(p)).length;
    expect(onlyOne).toBeGreaterThan(100);
  });

  it('paused uses dark ink on its light yellow', () => {
    expect(CHANNEL_LOOKS.paused.ink).toBe(inkOn('#F0E442'));
    expect(hexToRgb(CHANNEL_LOOKS.paused.ink).every((c) => c < 64)).toBe(true);
  });

  it('age text', () => {
    expect(ageText(5)).toBe('5s old');
    expect(ageText(59.9)).toBe('59s old');
    expect(ageText(61)).toBe('1m old');
    expect(ageText(7300)).toBe('2h old');
  });
});
