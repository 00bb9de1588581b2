import { describe, expect, it } from 'vitest';
import type { ChannelState, Picture, SyncGroupState } from '../../src/engine/picture.js';
import { ledStateOf } from '../../src/render/led.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { channel } from './fixtures.js';

describe('ledStateOf', () => {
  it('a channel shows its state', () => {
    const states: ChannelState[] = ['offline', 'stale', 'wrong', 'sync-recording', 'paused', 'recording', 'armed', 'no-source', 'idle'];
    for (const state of states) expect(ledStateOf(channel(state))).toBe(state);
  });

  it('the sync group maps onto channel-like states', () => {
    const expected: Record<SyncGroupState, string> = { offline: 'offline', stale: 'stale', none: 'idle', armed: 'armed', recording: 'sync-recording', paused: 'paused' };
    for (const [state, led] of Object.entries(expected)) {
      expect(ledStateOf({ kind: 'sync', state: state as SyncGroupState, action: null, members: [], outOfSync: [], durationS: null, ageS: null })).toBe(led);
    }
  });

  it('overlays win: hold, then flashes', () => {
    expect(ledStateOf({ ...channel('recording'), overlay: { hold: 0 } })).toBe('holding');
    expect(ledStateOf({ ...channel('recording'), overlay: { hold: 0.7, flash: 'failed' } })).toBe('holding');
    expect(ledStateOf({ ...channel('recording'), overlay: { hint: 'hold', gesture: 'hold' } })).toBe('holding');
    expect(ledStateOf({ ...channel('recording'), overlay: { gesture: 'hold' } })).toBe('recording');
    expect(ledStateOf({ ...channel('idle'), overlay: { flash: 'failed' } })).toBe('wrong');
    expect(ledStateOf({ ...channel('idle'), overlay: { flash: 'refused' } })).toBe('stale');
    expect(ledStateOf({ ...channel('idle'), overlay: { selected: true } })).toBe('idle');
  });

  it('dialogs, labels, blank and the rest', () => {
    const dialog = (active: boolean, role: 'message' | 'ok' | 'cancel' = 'ok', offersCancel = true): Picture => ({ kind: 'dialog', role, active, flashPhase: false, text: '', offersCancel, textPage: 0, slot: 0, slots: 1, ageS: null });
    expect(ledStateOf(dialog(true))).toBe('dialog');
    expect(ledStateOf(dialog(false))).toBe('off');
    expect(ledStateOf(dialog(true, 'cancel', false))).toBe('off');
    const label = (active: boolean | null): Picture => ({ kind: 'label', text: 'X', icon: null, color: null, active });
    expect(ledStateOf(label(true))).toBe('active');
    expect(ledStateOf(label(false))).toBe('idle');
    expect(ledStateOf(label(null))).toBe('idle');
    expect(ledStateOf({ kind: 'blank' })).toBe('off');
    expect(ledStateOf({ kind: 'page', name: 'A', number: 1, count: 2 })).toBe('idle');
    expect(ledStateOf({ kind: 'resources', timeLeft: null, cpu: 95, ram: 10, disk: null, warning: true, freshness: 'live' })).toBe('wrong');
    expect(ledStateOf({ kind: 'resources', timeLeft: null, cpu: 95, ram: 10, disk: null, warning: true, freshness: 'offline' })).toBe('offline');
    expect(ledStateOf({ kind: 'schedule', enabled: true, start: null, stop: null, type: '', freshness: 'live' })).toBe('active');
    expect(ledStateOf({ kind: 'meter', channel: 1, source: 'A', levels: null, gainDb: 0, freshness: 'stale', ageS: 4 })).toBe('stale');
  });

  it('is what the renderer answers for LEDs', () => {
    expect(pictureRenderer().led(channel('recording'))).toBe('recording');
  });
});
