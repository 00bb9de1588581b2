// Pictures for the render tests.
import type { ChannelPicture, ChannelState, Picture } from '../../src/engine/picture.js';

export function channel(state: ChannelState, extra: Partial<ChannelPicture> = {}): ChannelPicture {
  return { kind: 'channel', channel: 3, state, lastSeen: null, source: 'Cam 1', durationS: null, fps: null, drops: 0, warning: null, buffered: 0, audioPreview: false, thumbnail: null, ageS: null, ...extra };
}

export const recording = (extra: Partial<ChannelPicture> = {}): ChannelPicture => channel('recording', { durationS: 754, fps: 25, ...extra });

/** One picture of every kind, with the variants that change layout. */
export const EVERY_KIND: readonly Picture[] = [
  channel('idle'),
  recording({ warning: 'DROP 12' }),
  channel('stale', { durationS: 80, fps: 25, ageS: 5 }),
  channel('offline', { ageS: 400 }),
  { kind: 'sync', state: 'recording', action: null, members: [1, 2, 3, 7], outOfSync: [3, 7], durationS: 3700, ageS: null },
  { kind: 'sync', state: 'none', action: null, members: [], outOfSync: [], durationS: null, ageS: null },
  { kind: 'dialog', role: 'message', active: true, flashPhase: true, text: 'Disk D: is almost full. Stop all channels?', offersCancel: true, textPage: 0, slot: 0, slots: 1, ageS: null },
  { kind: 'dialog', role: 'ok', active: true, flashPhase: false, text: 'Stop?', offersCancel: false, textPage: 0, slot: 0, slots: 1, ageS: null },
  { kind: 'dialog', role: 'cancel', active: false, flashPhase: false, text: '', offersCancel: false, textPage: 0, slot: 0, slots: 1, ageS: null },
  { kind: 'resources', timeLeft: null, cpu: 45, ram: 95, disk: { label: 'D:', used: 70 }, warning: true, freshness: 'live' },
  { kind: 'resources', timeLeft: null, cpu: null, ram: null, disk: null, warning: false, freshness: 'offline' },
  { kind: 'schedule', enabled: true, start: '08:00:00', stop: '17:30:00', type: 'Daily', freshness: 'stale' },
  { kind: 'meter', channel: 2, source: 'Cam 2', levels: [-12, -3, -45], gainDb: -4.5, freshness: 'live', ageS: null },
  { kind: 'meter', channel: 2, source: 'Cam 2', levels: null, gainDb: -4.5, freshness: 'stale', ageS: 7 },
  { kind: 'meter', channel: 2, source: null, levels: [], gainDb: null, freshness: 'live', ageS: null },
  { kind: 'label', text: 'NEXT PAGE', icon: 'next', color: '#0072B2', active: true },
  { kind: 'label', text: 'NO RECORDER\nmain', icon: null, color: null, active: null },
  { kind: 'page', name: 'Channels', number: 2, count: 3 },
  { kind: 'blank' },
  { ...recording(), overlay: { hold: 0.5, selected: true } },
  { ...channel('idle'), overlay: { flash: 'refused', armed: true } },
];

export const SIZES = [
  { width: 72, height: 72 },
  { width: 80, height: 80 },
  { width: 96, height: 96 },
  { width: 112, height: 112 },
  { width: 120, height: 120 },
  { width: 144, height: 112 },
  { width: 200, height: 100 },
  { width: 248, height: 58 },
] as const;
