// The desk bench reads what the web deck's keys show from the image frames the page is sent: the frames
// put back together as the page does, and a channel key's state told by its band, for keys drawn by the
// real renderer (recording, ready, and the dimmed band of a stale key, which must read as neither).
import { describe, expect, it } from 'vitest';
import { applyFrames, channelKeyState, type KeyImage } from '../../src/bench/key-frames.js';
import type { ChannelPicture } from '../../src/engine/picture.js';
import { imageUpdate } from '../../src/remote/image-frames.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';

const channel = (over: Partial<ChannelPicture>): ChannelPicture => ({
  kind: 'channel',
  channel: 3,
  state: 'recording',
  lastSeen: null,
  source: 'Camera 3',
  durationS: 61,
  fps: 25,
  drops: 0,
  warning: null,
  buffered: 0,
  audioPreview: false,
  thumbnail: null,
  ageS: null,
  ...over,
});

const renderer = pictureRenderer();
const draw = (picture: ChannelPicture, size = 96) => renderer.render(picture, { width: size, height: size });

describe('a channel key read by its band', () => {
  it.each([72, 96, 120])('tells recording, ready and stale apart at %i px', async (size) => {
    expect(channelKeyState(await draw(channel({}), size))).toBe('recording');
    expect(channelKeyState(await draw(channel({ state: 'idle', durationS: null, fps: null }), size))).toBe('ready');
    expect(channelKeyState(await draw(channel({ state: 'stale', lastSeen: 'recording', ageS: 3 }), size))).toBe('other');
    expect(channelKeyState(await draw(channel({ state: 'stale', lastSeen: 'idle', ageS: 3, durationS: null, fps: null }), size))).toBe('other');
    expect(channelKeyState(await draw(channel({ state: 'offline', durationS: null, fps: null }), size))).toBe('other');
  });
});

describe('frames put back together', () => {
  it('takes a whole image, then the changed rectangle of the next, as the page does', async () => {
    const images = new Map<string, KeyImage>();
    const recording = await draw(channel({}));
    const later = await draw(channel({ durationS: 62 }));
    const ready = await draw(channel({ state: 'idle', durationS: null, fps: null }));
    const first = imageUpdate(0, 4, undefined, recording) as Buffer;
    const tick = imageUpdate(0, 4, recording, later) as Buffer;
    expect(tick.readUInt16BE(0)).toBe(2); // a rectangle, not the whole key
    expect(applyFrames(Buffer.concat([first, imageUpdate(1, 0, undefined, ready) as Buffer]), images)).toEqual(['0:4', '1:0']);
    expect(applyFrames(tick, images)).toEqual(['0:4']);
    expect(images.get('0:4')?.data.equals(later.data)).toBe(true);
    expect(applyFrames(imageUpdate(0, 4, later, ready) as Buffer, images)).toEqual(['0:4']);
    expect(images.get('0:4')?.data.equals(ready.data)).toBe(true);
    expect(channelKeyState(images.get('0:4') as KeyImage)).toBe('ready');
  });

  it('refuses a rectangle for a key never sent whole, and a message cut short', async () => {
    const recording = await draw(channel({}));
    const tick = imageUpdate(0, 4, recording, await draw(channel({ durationS: 62 }))) as Buffer;
    expect(() => applyFrames(tick, new Map())).toThrow('never sent whole');
    const whole = imageUpdate(0, 4, undefined, recording) as Buffer;
    expect(() => applyFrames(whole.subarray(0, whole.length - 1), new Map())).toThrow('cut short');
  });
});
