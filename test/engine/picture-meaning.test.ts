// What a picture means, compared in place (picture-pace.ts sameMeaning, onlyPreviewMoved: asked at every
// redraw) must say what the plain rule says: a copy of each picture with its moving parts set to one
// value, compared whole. The rule is written here as those copies (how picture-pace.ts said it before it
// compared in place), and every pair of a varied set of pictures is judged by both.
import { describe, expect, it } from 'vitest';
import { onlyPreviewMoved, sameMeaning } from '../../src/engine/picture-pace.js';
import { pictureKey, samePicture, type ChannelPicture, type Picture, type PictureBody, type PictureOverlay } from '../../src/engine/picture.js';

/** The rule as copies: a picture without its moving parts. */
function meaningOf(picture: Picture): Picture {
  const overlay: PictureOverlay | undefined = picture.overlay && { ...picture.overlay, reasonPage: undefined, hold: picture.overlay.hold === undefined ? undefined : 0 };
  const body = stillBody(picture);
  return overlay === undefined ? body : { ...body, overlay };
}

function stillBody(picture: PictureBody): PictureBody {
  switch (picture.kind) {
    case 'channel':
      return { ...picture, durationS: picture.durationS === null ? null : 0, fps: null, thumbnail: null, ageS: null, previewAgeS: picture.previewAgeS === undefined ? undefined : 0 };
    case 'sync':
      return { ...picture, durationS: picture.durationS === null ? null : 0, ageS: null };
    case 'dialog':
      return { ...picture, flashPhase: false, textPage: 0, ageS: null };
    case 'meter':
      return { ...picture, levels: picture.levels === null ? null : [], ageS: null };
    case 'resources':
      return { ...picture, cpu: null, ram: null, disk: picture.disk && { ...picture.disk, used: 0 } };
    case 'status':
      return { ...picture, ageS: null };
    default:
      return picture;
  }
}

const channel = (over: Partial<ChannelPicture> = {}): ChannelPicture => ({
  kind: 'channel',
  channel: 1,
  state: 'recording',
  lastSeen: null,
  source: 'Cam 1',
  durationS: 10,
  fps: 25,
  drops: 0,
  warning: null,
  buffered: 0,
  audioPreview: false,
  thumbnail: null,
  ageS: null,
  ...over,
});

const OVERLAYS: Array<PictureOverlay | undefined> = [undefined, { gesture: 'hold' }, { gesture: 'hold', hold: 0.2 }, { gesture: 'hold', hold: 0.6 }, { flash: 'failed', reason: 'disk full', reasonPage: 0 }, { flash: 'failed', reason: 'disk full', reasonPage: 1 }, { flash: 'failed', reason: 'disk full' }, { flash: 'refused', reason: 'disk full', reasonPage: 0 }, { selected: true }];

const BODIES: Picture[] = [
  channel(),
  channel({ durationS: 11 }),
  channel({ durationS: null, state: 'idle', fps: null }),
  channel({ durationS: null }),
  channel({ fps: 24.5 }),
  channel({ thumbnail: 'a' }),
  channel({ thumbnail: 'b' }),
  channel({ thumbnail: 'b', durationS: 12 }),
  channel({ thumbnail: 'b', previewAgeS: 3 }),
  channel({ thumbnail: 'b', previewAgeS: 4 }),
  channel({ state: 'stale', lastSeen: 'recording', ageS: 2 }),
  channel({ state: 'stale', lastSeen: 'recording', ageS: 3 }),
  channel({ warning: 'DROP 1', drops: 1 }),
  { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 4, ageS: null },
  { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 5, ageS: null },
  { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: null, ageS: null },
  { kind: 'sync', state: 'armed', action: null, members: [1, 2], outOfSync: [], durationS: null, ageS: null },
  { kind: 'sync', state: 'stale', action: null, members: [1, 2], outOfSync: [], durationS: 5, ageS: 2 },
  { kind: 'dialog', role: 'message', active: true, flashPhase: true, text: 'Overwrite?', textPage: 0, offersCancel: true, slot: 0, slots: 1, ageS: null },
  { kind: 'dialog', role: 'message', active: true, flashPhase: false, text: 'Overwrite?', textPage: 1, offersCancel: true, slot: 0, slots: 1, ageS: null },
  { kind: 'dialog', role: 'ok', active: true, flashPhase: false, text: '', textPage: 1, offersCancel: true, slot: 0, slots: 1, ageS: null },
  { kind: 'meter', channel: 1, source: 'Cam 1', levels: [0.1, 0.2], gainDb: -3, freshness: 'live', ageS: null },
  { kind: 'meter', channel: 1, source: 'Cam 1', levels: [0.3], gainDb: -3, freshness: 'live', ageS: null },
  { kind: 'meter', channel: 1, source: 'Cam 1', levels: null, gainDb: -3, freshness: 'live', ageS: null },
  { kind: 'meter', channel: 1, source: 'Cam 1', levels: [0.3], gainDb: -2, freshness: 'stale', ageS: 2 },
  { kind: 'resources', cpu: 10, ram: 20, disk: { label: 'C:', used: 50 }, timeLeft: null, warning: false, freshness: 'live' },
  { kind: 'resources', cpu: 11, ram: 21, disk: { label: 'C:', used: 51 }, timeLeft: null, warning: false, freshness: 'live' },
  { kind: 'resources', cpu: 11, ram: 21, disk: { label: 'D:', used: 51 }, timeLeft: null, warning: false, freshness: 'live' },
  { kind: 'resources', cpu: 11, ram: 21, disk: null, timeLeft: null, warning: false, freshness: 'live' },
  { kind: 'status', recorder: 'main', freshness: 'stale', ageS: 2, recording: 0, dialog: false, page: { name: 'Main', number: 1, count: 2 } },
  { kind: 'status', recorder: 'main', freshness: 'stale', ageS: 3, recording: 0, dialog: false, page: { name: 'Main', number: 1, count: 2 } },
  { kind: 'label', text: 'NEW', icon: null, color: null, active: null },
  { kind: 'label', text: 'OLD', icon: null, color: null, active: null },
  { kind: 'blank' },
];

const PICTURES: Picture[] = BODIES.flatMap((body) => OVERLAYS.map((overlay) => (overlay === undefined ? body : { ...body, overlay })));

describe('a picture compared for its meaning in place', () => {
  it('judges every pair as the copies without their moving parts do', () => {
    const verdicts = { same: 0, different: 0 };
    const wrong: string[] = [];
    const meanings = PICTURES.map(meaningOf);
    for (const [i, a] of PICTURES.entries()) {
      for (const [j, b] of PICTURES.entries()) {
        const expected = samePicture(meanings[i] as Picture, meanings[j] as Picture);
        if (sameMeaning(a, b) !== expected) wrong.push(`${pictureKey(a)} / ${pictureKey(b)}: the copies say ${expected}`);
        verdicts[expected ? 'same' : 'different']++;
      }
    }
    expect(wrong).toEqual([]);
    // Both verdicts are given many times over, across the kinds (not a set where every pair differs).
    expect(verdicts.same).toBeGreaterThan(PICTURES.length * 2);
    expect(verdicts.different).toBeGreaterThan(PICTURES.length * 2);
  });

  it('finds the preview alone moved exactly where the copies without it are the same', () => {
    let moved = 0;
    const wrong: string[] = [];
    for (const a of PICTURES) {
      for (const b of PICTURES) {
        const previews = a.kind === 'channel' && b.kind === 'channel' && a.thumbnail !== null && b.thumbnail !== null && a.thumbnail !== b.thumbnail;
        const expected = previews && samePicture({ ...a, thumbnail: null }, { ...b, thumbnail: null });
        if (onlyPreviewMoved(a, b) !== expected) wrong.push(`${pictureKey(a)} / ${pictureKey(b)}: the copies say ${expected}`);
        if (expected) moved++;
      }
    }
    expect(wrong).toEqual([]);
    expect(moved).toBeGreaterThan(0);
  });
});
