// A channel's preview past its time as live (ChannelPicture.previewAgeS: its fetches failing or slow
// while the channel's state is live) is drawn as stale data is: dimmed by the stale factor under the
// state band, which stays the live state's, with its age in the footer ("PIC 3s old", in the age ink)
// unless a problem with the take is more urgent. Through the real key renderer (sharp, the glyph atlas).
import { describe, expect, it } from 'vitest';
import type { ChannelPicture } from '../../src/engine/picture.js';
import type { RgbImage } from '../../src/engine/surface.js';
import { STALE_DIM } from '../../src/render/palette.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { channelPlan } from '../../src/render/tiles/channel.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { channel } from './fixtures.js';

const SIZE = { width: 96, height: 96 };
// A preview of one colour, so what shows through the tile can be told apart from the tile's own colours.
const PREVIEW: RgbImage = { width: 160, height: 90, data: Buffer.alloc(160 * 90 * 3) };
for (let i = 0; i < PREVIEW.data.length; i += 3) PREVIEW.data.set([40, 200, 120], i);

/** The footer's texts, with the preview drawn (or, given null, none in the store). */
const footerTexts = (picture: ChannelPicture, thumbnail: RgbImage | null = PREVIEW) =>
  channelPlan(picture, SIZE, thumbnail ?? undefined)
    .ops.filter((op): op is Extract<typeof op, { kind: 'text' }> => op.kind === 'text')
    .map((op) => op.text);

describe('a stale preview', () => {
  const live = channel('idle', { thumbnail: 'main/2/abc' });
  const stale: ChannelPicture = { ...live, previewAgeS: 3 };

  it('is dimmed by the stale factor under the live state band, and its age is in the footer', async () => {
    const renderer = pictureRenderer({ thumbnails: (key) => (key === 'main/2/abc' ? PREVIEW : undefined) });
    const liveImage = await renderer.render(live, SIZE);
    const staleImage = await renderer.render(stale, SIZE);
    const { body, probe } = stateTileLayout(SIZE);
    const at = (image: RgbImage, x: number, y: number) => [...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3)];
    // Between the identity row and the footer, where an idle channel shows the preview as it is.
    const y = Math.round(body.y + body.height * 0.5);
    expect(at(liveImage, 2, y)).toEqual([40, 200, 120]);
    const [r, g, b] = at(staleImage, 2, y) as [number, number, number];
    expect(g).toBeCloseTo(200 * STALE_DIM, -1);
    expect(r).toBeCloseTo(40 * STALE_DIM, -1);
    expect(b).toBeCloseTo(120 * STALE_DIM, -1);
    // The band says the channel's state, which is live: the same as with a current preview.
    expect(at(staleImage, probe.x, probe.y)).toEqual(at(liveImage, probe.x, probe.y));
    expect(footerTexts(stale)).toContain('PIC 3s old');
    expect(footerTexts(live).join(' ')).not.toContain('old');
  });

  it("gives way in the footer to a take's problem and to frames waiting, and comes before the frame rate", () => {
    const recording = { ...stale, state: 'recording', durationS: 12, fps: 25 } as const;
    expect(footerTexts(recording)).toContain('PIC 3s old');
    expect(footerTexts({ ...recording, warning: 'DROP 3' })).toContain('DROP 3');
    expect(footerTexts({ ...recording, buffered: 40 })).toContain('BUF 40');
  });

  it('marks nothing when no preview is drawn (the store has none)', () => {
    expect(footerTexts(stale, null).join(' ')).not.toContain('PIC');
  });
});
