// What keys show, from the recorder's state and the binding: the pictures issue 13 asks to tell apart.
import { describe, expect, it } from 'vitest';
import { NextChange } from '../../src/engine/next-change.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { DIALOG_PAGE_MS, pictureFor, questionKeys, showOf, type ShowInputs } from '../../src/engine/show.js';
import { keyGrid } from '../../src/engine/surface.js';
import type { Binding, Page } from '../../src/profiles/schema.js';
import { channelOf } from '../support/channels.js';

/** The pictures here are of takes at 25 fps. */
const channel = (index: number, over: Parameters<typeof channelOf>[1] = {}) => channelOf(index, { RecordingFPS: 25, ...over });

function inputs(over: Partial<RecorderState> = {}, now = 1000): ShowInputs {
  const initial = initialRecorderState('main', 250);
  const readTime = over.lastGoodAt ?? now;
  const recorder: RecorderState = {
    ...initial,
    lastGoodAt: now,
    readAt: { ...initial.readAt, channels: readTime, sync: readTime, dialog: readTime },
    channels: [
      channel(0, { IsRecording: true, IsRecordingPause: true }),
      channel(1, { IsRecording: true, IsRecordingPause: true, IsInSync: true, IsInSyncRec: true }),
      channel(2, { IsRecording: true, IsSomethingWrong: true, RecordingDrops: 3 }),
      channel(3, { IsSomethingWrong: true }),
    ],
    sync: { IsSyncRecording: true, IsSyncRecordingPause: true },
    dialog: null,
    ...over,
  };
  return {
    recorder,
    recorderName: 'main',
    now,
    durationOf: () => null,
    diskTimesLeft: () => [],
    thumbnailOf: () => null,
    meterOf: () => null,
    selectedChannel: 1,
    marksSelection: false,
    page: { name: 'Main', number: 1, count: 1 },
    questionShown: false,
    changes: new NextChange(now),
  };
}

const pictureOf = (binding: Binding, over: Partial<RecorderState> = {}, now = 1000) => pictureFor(showOf(binding), inputs(over, now));

describe('channel pictures', () => {
  it('carry a take\'s backlog (more than a second of frames waiting to be written) and whether the channel\'s audio is played', () => {
    const channels = [
      channel(0, { IsRecording: true, RecordingFPS: 25, RecordingBuffered: 60, IsAudioPreview: true }),
      channel(1, { IsRecording: true, RecordingFPS: 25, RecordingBuffered: 12 }),
      channel(2, { RecordingBuffered: 80 }),
    ];
    expect(pictureOf({ show: { channel: 1, thumbnail: false } }, { channels })).toMatchObject({ kind: 'channel', buffered: 60, audioPreview: true });
    // A few frames always wait: not shown. Buffered frames belong to a take: none on a channel not recording.
    expect(pictureOf({ show: { channel: 2, thumbnail: false } }, { channels })).toMatchObject({ kind: 'channel', buffered: 0, audioPreview: false });
    expect(pictureOf({ show: { channel: 3, thumbnail: false } }, { channels })).toMatchObject({ kind: 'channel', buffered: 0 });
  });

  it('a channel paused in the sync take is not a channel paused alone', () => {
    expect(pictureOf({ show: { channel: 1, thumbnail: false } })).toMatchObject({ kind: 'channel', state: 'paused' });
    expect(pictureOf({ show: { channel: 2, thumbnail: false } })).toMatchObject({ kind: 'channel', state: 'sync-paused' });
  });

  it('a fault while recording keeps REC and adds the warning; a fault while idle is FAULT', () => {
    expect(pictureOf({ show: { channel: 3, thumbnail: false } })).toMatchObject({ state: 'recording', warning: 'FAULT DROP 3' });
    expect(pictureOf({ show: { channel: 4, thumbnail: false } })).toMatchObject({ state: 'wrong', warning: null });
  });
});

describe('sync keys show what they do', () => {
  it('start, pause and stop keys of one group differ, whether the show is given or inferred', () => {
    const start = pictureOf({ show: 'sync', press: { action: 'sync-rec-start' } });
    const pause = pictureOf({ show: 'sync', press: { action: 'sync-rec-pause-toggle' } });
    const inferred = pictureOf({ press: { action: 'sync-rec-pause' } });
    expect(start).toMatchObject({ kind: 'sync', state: 'paused', action: 'start' });
    expect(pause).toMatchObject({ kind: 'sync', action: 'pause-toggle' });
    expect(inferred).toMatchObject({ kind: 'sync', action: 'pause' });
  });
});

describe('grid', () => {
  it('a grid key shows the size it sets and the recorder\'s grid now (its channel count)', () => {
    expect(pictureOf({ press: { action: 'grid', size: 9 }, confirm: { hold: 1500 } })).toEqual({ kind: 'grid', channels: 4, target: 9, freshness: 'live' });
    expect(pictureOf({ show: 'grid' })).toEqual({ kind: 'grid', channels: 4, target: null, freshness: 'live' });
  });

  it('without live data the grid size now is unknown', () => {
    expect(pictureOf({ press: { action: 'grid', size: 4 } }, { lastGoodAt: 1000 }, 60_000)).toMatchObject({ kind: 'grid', channels: null, freshness: 'stale' });
  });
});

describe('dialog', () => {
  it('the message key moves to its next page of text every few seconds while the dialog is up', () => {
    const dialog = { IsDialog: true, DialogContent: 'Long text', Buttons: 'OK' };
    const first = pictureOf({ show: 'dialog' }, { dialog }, 10 * DIALOG_PAGE_MS);
    const next = pictureOf({ show: 'dialog' }, { dialog }, 11 * DIALOG_PAGE_MS);
    expect(first).toMatchObject({ kind: 'dialog', textPage: 10 });
    expect(next).toMatchObject({ kind: 'dialog', textPage: 11 });
  });

  it('the keys that share the question: dialog keys, and on the overlay every free key, in reading order', () => {
    // Keys listed out of order, as a device may list them: the question reads row by row.
    const keys = keyGrid(2, 3, 72).reverse();
    const page = { name: 'Dialog', controls: { key1: { show: 'dialog-ok', press: { action: 'dialog-ok' } }, key4: { show: 'dialog' }, key5: { show: { label: 'X' } } } } as unknown as Page;
    expect(questionKeys(page, keys, true)).toEqual(['key0', 'key2', 'key3', 'key4']);
    expect(questionKeys(page, keys, false)).toEqual(['key4']);
    expect(questionKeys(page, [...keys, { kind: 'encoder', id: 'dial0', pressable: true, ring: false }], true)).toEqual(['key0', 'key2', 'key3', 'key4']);
  });

  it('each shares the question with its place; the answer keys leave it to them', () => {
    const dialog = { IsDialog: true, DialogContent: 'Stop all?', Buttons: 'Yes_No' };
    expect(pictureFor({ question: { slot: 2, slots: 5 } }, inputs({ dialog }))).toMatchObject({ kind: 'dialog', role: 'message', text: 'Stop all?', slot: 2, slots: 5 });
    expect(pictureFor('dialog-ok', { ...inputs({ dialog }), questionShown: true })).toMatchObject({ role: 'ok', text: '', offersCancel: true });
    expect(pictureFor('dialog-ok', inputs({ dialog }))).toMatchObject({ role: 'ok', text: 'Stop all?' });
  });
});
