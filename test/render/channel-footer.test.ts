// The channel key's footer names, in this order, the data's age, a problem with the take, frames waiting
// to be written, the frame rate; and "AUD" on the channel whose audio the recorder plays.
import { describe, expect, it } from 'vitest';
import type { ChannelPicture } from '../../src/engine/picture.js';
import { channelPlan } from '../../src/render/tiles/channel.js';
import { channel as channelPicture } from './fixtures.js';

const footerTexts = (picture: ChannelPicture) =>
  channelPlan(picture, { width: 96, height: 96 }, undefined)
    .ops.filter((op): op is Extract<typeof op, { kind: 'text' }> => op.kind === 'text')
    .map((op) => op.text);

describe('channel footer', () => {
  const recording = { durationS: 12, fps: 25 } as const;

  it('shows buffered frames while recording, before the frame rate', () => {
    expect(footerTexts(channelPicture('recording', { ...recording, buffered: 12 }))).toContain('BUF 12');
    expect(footerTexts(channelPicture('recording', recording))).toContain('25 fps');
  });

  it('a take\'s problem comes before buffered frames, and the age before both', () => {
    expect(footerTexts(channelPicture('recording', { ...recording, buffered: 12, warning: 'DROP 3' }))).toContain('DROP 3');
    expect(footerTexts(channelPicture('stale', { ...recording, buffered: 12, warning: 'DROP 3', ageS: 4 })).join(' ')).toMatch(/4 ?s/);
  });

  it('marks the channel whose audio is played, recording or not', () => {
    expect(footerTexts(channelPicture('recording', { ...recording, audioPreview: true }))).toContain('25 fps AUD');
    expect(footerTexts(channelPicture('idle', { audioPreview: true }))).toContain('AUD');
    expect(footerTexts(channelPicture('idle'))).not.toContain('AUD');
  });
});
