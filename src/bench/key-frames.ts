// The bench's reading of the web deck's image stream (src/remote/image-frames.ts: raw RGB frames, whole
// or the rectangle that changed): the images each key shows, as the page has them, and what a channel
// key says by its state band: recording (vermillion), ready (the idle grey), or neither (a stale key is
// drawn with its band dimmed, an offline one black with a cross). Read from pixels, as an operator reads
// the key, not from the bridge's own idea of what it drew.
import { CHANNEL_LOOKS } from '../render/palette.js';

export interface KeyImage {
  width: number;
  height: number;
  data: Buffer;
}

const FULL = 1;
const RECT = 2;

/**
 * Applies one message of frames to `images` (by "panel:control"); returns the keys it changed. A frame
 * that does not fit (a rectangle for a key never seen whole, or past its edge, or a message cut short)
 * is an error: the page would be showing something else.
 */
export function applyFrames(message: Buffer, images: Map<string, KeyImage>): string[] {
  const changed: string[] = [];
  let at = 0;
  const u16 = (offset: number) => {
    if (at + offset + 2 > message.length) throw new Error(`an image frame is cut short at byte ${at}`);
    return message.readUInt16BE(at + offset);
  };
  while (at < message.length) {
    const kind = u16(0);
    const key = `${u16(2)}:${u16(4)}`;
    if (kind === FULL) {
      const [width, height] = [u16(6), u16(8)];
      const end = at + 10 + width * height * 3;
      if (end > message.length) throw new Error(`the whole image of key ${key} is cut short`);
      images.set(key, { width, height, data: Buffer.from(message.subarray(at + 10, end)) });
      at = end;
    } else if (kind === RECT) {
      const [x, y, width, height] = [u16(6), u16(8), u16(10), u16(12)];
      const image = images.get(key);
      if (image === undefined) throw new Error(`a changed part of key ${key}, which was never sent whole`);
      if (x + width > image.width || y + height > image.height) throw new Error(`a changed part of key ${key} past its edge`);
      const end = at + 14 + width * height * 3;
      if (end > message.length) throw new Error(`the changed part of key ${key} is cut short`);
      for (let r = 0; r < height; r++) message.copy(image.data, ((y + r) * image.width + x) * 3, at + 14 + r * width * 3, at + 14 + (r + 1) * width * 3);
      at = end;
    } else throw new Error(`an image frame of unknown kind ${kind} at byte ${at}`);
    changed.push(key);
  }
  return changed;
}

export type ShownState = 'recording' | 'ready' | 'other';

const rgb = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const RECORDING = rgb(CHANNEL_LOOKS.recording.band);
const READY = rgb(CHANNEL_LOOKS.idle.band);
/**
 * The band is a solid strip across the key, a tenth or more of it (test/bench/key-frames.test.ts draws
 * each look with the real renderer); a channel's source name or preview holds at most a few pixels of
 * exactly that colour.
 */
const BAND_SHARE = 0.05;

/** What a channel key's image says the channel is doing, by its state band's colour. */
export function channelKeyState(image: KeyImage): ShownState {
  let recording = 0;
  let ready = 0;
  const { data } = image;
  for (let i = 0; i + 2 < data.length; i += 3) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (r === RECORDING[0] && g === RECORDING[1] && b === RECORDING[2]) recording++;
    else if (r === READY[0] && g === READY[1] && b === READY[2]) ready++;
  }
  const enough = BAND_SHARE * image.width * image.height;
  return recording >= enough ? 'recording' : ready >= enough ? 'ready' : 'other';
}
