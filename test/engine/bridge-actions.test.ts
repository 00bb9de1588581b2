// Every recorder action end to end: a binding in a profile, a press on the in-memory surface, the exact
// request the simulator received, the recorder's new state, and the redrawn key's colours.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlDefinition } from '../../src/engine/surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import { colourShare, parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

const RECORDING = '#D55E00';
const PAUSED = '#F0E442';
const ARMED = '#0072B2';
const SYNC_RECORDING = '#CC79A7';

const controls: ControlDefinition[] = [
  ...keyGrid(3, 5, 96),
  { kind: 'encoder', id: 'dial0', pressable: true, ring: true, lcd: 'strip0' },
  { kind: 'lcd', id: 'strip0', pixelSize: { width: 200, height: 100 }, touch: true },
  { kind: 'fader', id: 'fader0', motorised: false },
];

/** A profile whose key0 (and dial, fader) carry the given bindings. */
function profileWith(bindings: string): string {
  return `name: actions\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n${bindings
    .trim()
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')}\n`;
}

let f: BridgeFixture;

beforeAll(async () => {
  f = await startBridgeFixture({ profile: profileWith('key0: { press: { action: rec-start, channel: 1 } }'), controls });
  await f.until(() => f.bridge.recorderStates()[0]?.sources !== null, 'the first slow poll');
});
afterAll(async () => {
  await f?.close();
});

function bind(bindings: string): void {
  f.bridge.setProfiles([parseTestProfile(profileWith(bindings), `bind-${Math.random()}.yaml`)]);
}

/** Presses a control and returns what the simulator received (writes only) and the command record. */
async function press(control: string, act: () => void = () => f.surface.press(control)) {
  const mark = f.mark();
  const record = f.nextCommand(control);
  act();
  const command = await record;
  return { command, writes: f.writesSince(mark) };
}

const channel = (n: number) => f.sim.recorder().channels()[n - 1];
const shows = (control: string, colour: string, what: string) => f.until(() => colourShare(f.surface, control, colour) > 0.15, `${control} to show ${what}`);

describe('channel transport', () => {
  it('rec-start records the channel and the key turns to the recording colour', async () => {
    bind('key0: { press: { action: rec-start, channel: 1 } }');
    const { command, writes } = await press('key0');
    expect(writes).toEqual(['PUT /api/channels/0/rec-start']);
    expect(command).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start', surface: 'memory:test', action: 'rec-start' });
    expect(channel(1)?.IsRecording).toBe(true);
    await shows('key0', RECORDING, 'recording');
  });

  it('rec-pause pauses it (paused colour); pause-toggle resumes and pauses again', async () => {
    bind('key0: { press: { action: rec-pause, channel: 1 } }\nkey1: { press: { action: pause-toggle, channel: 1 } }');
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/0/rec-pause']);
    expect(channel(1)?.IsRecordingPause).toBe(true);
    await shows('key0', PAUSED, 'paused');
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[0]?.IsRecordingPause === true, 'the poll to see the pause');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/0/rec-start']);
    expect(channel(1)?.IsRecordingPause).toBe(false);
    await shows('key1', RECORDING, 'recording again');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/0/rec-pause']);
  });

  it('rec-stop with hold-to-confirm: a short press sends nothing, a full hold draws the ring and stops', async () => {
    bind('key0: { press: { action: rec-stop, channel: 1 }, confirm: { hold: 400 } }');
    await shows('key0', PAUSED, 'paused');
    const mark = f.mark();
    f.surface.press('key0');
    await f.advance(500);
    expect(f.writesSince(mark)).toEqual([]);
    expect(channel(1)?.IsRecording).toBe(true);

    const before = Buffer.from(f.surface.images.get('key0')?.data ?? []);
    f.surface.down('key0');
    await f.advance(399);
    expect(f.writesSince(mark)).toEqual([]);
    const { writes } = await press('key0', () => void f.advance(1));
    f.surface.up('key0');
    expect(writes).toEqual(['PUT /api/channels/0/rec-stop']);
    expect(channel(1)?.IsRecording).toBe(false);
    expect(before.length).toBeGreaterThan(0);
    await f.until(() => colourShare(f.surface, 'key0', PAUSED) < 0.01 && colourShare(f.surface, 'key0', RECORDING) < 0.01, 'key0 to show idle');
  });

  it('a tap whose release came while the bridge was held past the hold\'s moment is a tap, not the hold', async () => {
    // A plain rec-start on the tap: a toggle after a 1.2 s stall would be refused on state past its age, by design.
    bind('key0: { press: { action: rec-start, channel: 9 }, hold: { ms: 1000, do: { action: rec-stop, channel: 9 } } }');
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[8]?.IsRecording === false, 'channel 9 seen stopped');
    const mark = f.mark();
    const record = f.nextCommand('key0');
    f.surface.down('key0');
    await f.advance(20);
    // The thread held 1.2 s (a collector's pause, a quota's hold): the hold's timer falls due meanwhile and
    // runs when the thread is back, in the timers phase, before the release that came 20 ms after the down
    // is read from its socket. Then the release is read; then the clock's next turn.
    f.time.stall(1200);
    f.time.turn();
    f.surface.up('key0');
    await f.advance(1);
    const command = await record;
    expect(command).toMatchObject({ action: 'rec-start', result: 'ok', request: 'PUT /api/channels/8/rec-start' });
    await f.settle();
    expect(f.writesSince(mark)).toEqual(['PUT /api/channels/8/rec-start']);
    expect(channel(9)?.IsRecording).toBe(true);
    await f.advance(2000); // no hold fires later either
    expect(f.writesSince(mark)).toEqual(['PUT /api/channels/8/rec-start']);
  });

  it('the hold ring is drawn on the key while it is held', async () => {
    bind('key0: { press: { action: rec-stop, channel: 2 }, confirm: { hold: 2000 } }');
    const pictureOf = () => f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key0')?.picture;
    await f.until(() => pictureOf()?.kind === 'channel' && (pictureOf() as { channel: number }).channel === 2, 'key0 to show channel 2');
    await f.settle(); // drawn
    const idle = Buffer.from(f.surface.images.get('key0')?.data ?? []);
    f.surface.down('key0');
    await f.until(() => !Buffer.from(f.surface.images.get('key0')?.data ?? []).equals(idle), 'the ring to appear');
    f.surface.up('key0'); // released early: nothing is sent
    await f.until(() => Buffer.from(f.surface.images.get('key0')?.data ?? []).equals(idle), 'the ring to go');
    expect(f.commands.filter((c) => c.control === 'key0' && c.action === 'rec-stop' && c.request?.includes('/1/'))).toEqual([]);
  });

  it('rec-toggle starts a stopped channel and stops a recording one, deciding from the confirmed state', async () => {
    bind('key0: { press: { action: rec-toggle, channel: 2 } }');
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/1/rec-start']);
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[1]?.IsRecording === true, 'the poll to see channel 2 recording');
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/1/rec-stop']);
    expect(channel(2)?.IsRecording).toBe(false);
  });

  it('double press: the first press arms the key and sends nothing, the second within the window sends', async () => {
    bind('key0: { press: { action: rec-start, channel: 2 }, confirm: { double: 600 } }');
    const mark = f.mark();
    f.surface.press('key0');
    await f.advance(100);
    expect(f.writesSince(mark)).toEqual([]);
    const { writes } = await press('key0');
    expect(writes).toEqual(['PUT /api/channels/1/rec-start']);
    await shows('key0', RECORDING, 'recording');
    await f.client.recStop(1);
  });
});

describe('sync', () => {
  it('sync-on arms the channel (armed colour), sync-off and sync-toggle switch it', async () => {
    bind('key0: { press: { action: sync-on, channel: 3 } }\nkey1: { press: { action: sync-off, channel: 3 } }\nkey2: { press: { action: sync-toggle, channel: 3 } }');
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/2/sync-on']);
    expect(channel(3)?.IsInSync).toBe(true);
    await shows('key0', ARMED, 'armed');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/2/sync-off']);
    expect(channel(3)?.IsInSync).toBe(false);
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[2]?.IsInSync === false, 'the poll');
    expect((await press('key2')).writes).toEqual(['PUT /api/channels/2/sync-on']);
    expect(channel(3)?.IsInSync).toBe(true);
  });

  it('sync-rec start, pause, toggle and stop drive the InSync group', async () => {
    bind(
      [
        'key0: { show: { channel: 3 }, press: { action: sync-rec-start } }',
        'key1: { press: { action: sync-rec-pause } }',
        'key2: { press: { action: sync-rec-toggle } }',
        'key3: { press: { action: sync-rec-stop } }',
      ].join('\n'),
    );
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/sync-rec-start']);
    expect(channel(3)?.IsInSyncRec).toBe(true);
    await shows('key0', SYNC_RECORDING, 'sync recording');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/sync-rec-pause']);
    expect(f.sim.recorder().syncState().IsSyncRecordingPause).toBe(true);
    await f.until(() => f.bridge.recorderStates()[0]?.sync?.IsSyncRecording === true, 'the poll');
    expect((await press('key2')).writes).toEqual(['PUT /api/channels/sync-rec-stop']);
    expect(f.sim.recorder().syncState().IsSyncRecording).toBe(false);
    expect((await press('key3')).writes).toEqual(['PUT /api/channels/sync-rec-stop']);
    await f.client.syncOff(2);
  });
});

describe('sources and destinations', () => {
  it('set-source and unset-source percent-encode the name; no source has its own look', async () => {
    bind('key0: { press: { action: set-source, channel: 4, source: Cam 9 } }\nkey1: { press: { action: unset-source, channel: 4 } }');
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/3/set-source/Cam%209']);
    expect(channel(4)?.SourceName).toBe('Cam 9');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/3/unset-source']);
    expect(channel(4)?.SourceName).toBeNull();
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[3]?.SourceName === null, 'the poll');
    const picture = f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key1')?.picture;
    expect(picture).toMatchObject({ kind: 'channel', state: 'no-source', source: null });
    await f.client.setChannelSource(3, 'Cam 4');
  });

  it('add-dest, delete-dest and toggle-dest', async () => {
    bind(
      [
        'key0: { press: { action: add-dest, channel: 4, destination: Archive ProRes } }',
        'key1: { press: { action: delete-dest, channel: 4, destination: Archive ProRes } }',
        'key2: { press: { action: toggle-dest, channel: 4, destination: Archive ProRes } }',
      ].join('\n'),
    );
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/3/add-dest/Archive%20ProRes']);
    expect(channel(4)?.Destinations).toContain('Archive ProRes');
    expect((await press('key1')).writes).toEqual(['PUT /api/channels/3/delete-dest/Archive%20ProRes']);
    expect(channel(4)?.Destinations).not.toContain('Archive ProRes');
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[3]?.Destinations.includes('Archive ProRes') === false, 'the poll');
    expect((await press('key2')).writes).toEqual(['PUT /api/channels/3/add-dest/Archive%20ProRes']);
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[3]?.Destinations.includes('Archive ProRes') === true, 'the poll');
    expect((await press('key2')).writes).toEqual(['PUT /api/channels/3/delete-dest/Archive%20ProRes']);
  });
});

describe('dialogs, grid and the project', () => {
  it('a grid change while recording raises a dialog: dialog keys flash its text, cancel drops it, ok carries it out', async () => {
    bind(
      [
        'key0: { press: { action: grid, size: 1 } }',
        'key1: { show: dialog-ok, press: { action: dialog-ok } }',
        'key2: { show: dialog-cancel, press: { action: dialog-cancel } }',
        'key3: { show: dialog }',
      ].join('\n'),
    );
    await f.client.recStart(4);
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/count/1']);
    expect(f.sim.recorder().dialogState().IsDialog).toBe(true);
    await f.until(() => {
      const picture = f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key3')?.picture;
      return picture?.kind === 'dialog' && picture.active;
    }, 'the dialog to show');
    const message = f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key3')?.picture;
    expect(message).toMatchObject({ kind: 'dialog', role: 'message', active: true, offersCancel: true });
    expect((message as { text: string }).text).toContain('recording');
    // Flashing: the ok key's image alternates while the dialog is up.
    const seen = new Set<string>();
    await f.until(() => {
      seen.add(f.surface.images.get('key1')?.data.toString('base64') ?? '');
      return seen.size >= 2;
    }, 'the ok key to flash');

    expect((await press('key2')).writes).toEqual(['PUT /api/app/dialog/cancel']);
    expect(f.sim.recorder().dialogState().IsDialog).toBe(false);
    expect(f.sim.recorder().channels()).toHaveLength(16);

    expect((await press('key0')).writes).toEqual(['PUT /api/channels/count/1']);
    expect((await press('key1')).writes).toEqual(['PUT /api/app/dialog/ok']);
    expect(f.sim.recorder().channels()).toHaveLength(1);
  });

  it('grid back to 16, save, load and new session', async () => {
    const file = join(f.folder, 'show.json');
    bind(
      [
        'key0: { press: { action: grid, size: 16 } }',
        `key1: { press: { action: save-project, path: ${JSON.stringify(file)} } }`,
        `key2: { press: { action: load-project, path: ${JSON.stringify(file)} } }`,
        'key3: { press: { action: new-session } }',
      ].join('\n'),
    );
    expect((await press('key0')).writes).toEqual(['PUT /api/channels/count/16']);
    expect(f.sim.recorder().channels()).toHaveLength(16);
    expect((await press('key1')).writes).toEqual([`PUT /api/app/save ${JSON.stringify({ Path: file })}`]);
    expect((await press('key3')).writes).toEqual(['PUT /api/app/new']);
    expect((await press('key2')).writes).toEqual([`PUT /api/app/load ${JSON.stringify({ Path: file })}`]);
    expect(f.sim.recorder().channels()).toHaveLength(16);
  });
});

describe('schedule and conversion', () => {
  it('schedule-on without a stop time fails: the key flashes and the recorder\'s answer is logged', async () => {
    bind('key0: { press: { action: schedule-on } }');
    await f.client.setSchedule({ StartTime: '23:00', StopTime: null, IsEnabled: false });
    const { command, writes } = await press('key0');
    expect(writes).toEqual(['PUT /api/app/schedule {"IsEnabled":true}']);
    expect(command.result).toBe('failed');
    expect(command.message).toBe('StopTime: expected hh:mm to enable the schedule, got null');
    expect(f.logs.some((l) => l.level === 'warn' && l.message.includes('schedule-on failed'))).toBe(true);
    const picture = f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key0')?.picture;
    expect(picture?.overlay?.flash).toBe('failed');
  });

  it('schedule-on, schedule-toggle and schedule-off', async () => {
    bind('key0: { press: { action: schedule-on } }\nkey1: { press: { action: schedule-toggle } }\nkey2: { press: { action: schedule-off } }');
    await f.client.setSchedule({ StartTime: '23:00', StopTime: '23:30' });
    expect((await press('key0')).writes).toEqual(['PUT /api/app/schedule {"IsEnabled":true}']);
    expect(f.sim.recorder().schedule().IsEnabled).toBe(true);
    await f.until(() => f.bridge.recorderStates()[0]?.schedule?.IsEnabled === true, 'the re-read schedule');
    expect((await press('key1')).writes).toEqual(['PUT /api/app/schedule {"IsEnabled":false}']);
    expect((await press('key2')).writes).toEqual(['PUT /api/app/schedule {"IsEnabled":false}']);
    expect(f.sim.recorder().schedule().IsEnabled).toBe(false);
  });

  it('conversion-on, conversion-toggle and conversion-off', async () => {
    bind('key0: { press: { action: conversion-on } }\nkey1: { press: { action: conversion-toggle } }\nkey2: { press: { action: conversion-off } }');
    expect((await press('key0')).writes).toEqual(['PUT /api/app/conversion-config {"IsEnabled":true}']);
    await f.until(() => f.bridge.recorderStates()[0]?.conversion?.IsEnabled === true, 'the re-read conversion');
    expect((await press('key1')).writes).toEqual(['PUT /api/app/conversion-config {"IsEnabled":false}']);
    expect((await press('key2')).writes).toEqual(['PUT /api/app/conversion-config {"IsEnabled":false}']);
    expect((await f.client.getConversionConfig()).IsEnabled).toBe(false);
  });
});

describe('gain', () => {
  it('gain-set, gain-step on a dial (speed kept) and gain-fader', async () => {
    bind(
      [
        'key0: { press: { action: gain-set, channel: 1, db: -6 } }',
        'dial0: { turn: { action: gain-step, channel: 1, db: 0.5 } }',
        'fader0: { fader: { action: gain-fader, channel: 1, min: -60, max: 12 } }',
      ].join('\n'),
    );
    expect((await press('key0')).writes).toEqual(['PUT /api/sources/0 {"AudioGain":"-6.0"}']);
    expect((await f.client.getSource(0)).AudioGain).toBe(-6);
    expect((await press('dial0', () => f.surface.rotate('dial0', 3))).writes).toEqual(['PUT /api/sources/0 {"AudioGain":"-4.5"}']);
    expect((await press('dial0', () => f.surface.rotate('dial0', -1))).writes).toEqual(['PUT /api/sources/0 {"AudioGain":"-5.0"}']);
    expect((await press('fader0', () => f.surface.fader('fader0', 0.5))).writes).toEqual(['PUT /api/sources/0 {"AudioGain":"-24.0"}']);
    expect((await f.client.getSource(0)).AudioGain).toBe(-24);
    // The fader is told where the gain sits on its own travel (-24 dB on -60..12 is half way), for soft
    // takeover or a motor.
    await f.until(() => Math.abs((f.surface.levels.get('fader0') ?? -1) - 0.5) < 0.01, 'the fader level to follow the gain');
  });
});
