// MIDI Machine Control in: SysEx from a DAW through the REAL @julusian/midi over a fake RtMidi, read by
// the MIDI surface as presses of the map's MMC controls. Bad MMC (another device, an unknown command,
// data that runs past the end, a SysEx cut off) fires nothing and says why in one line.
// MMC out: the states the engine lights a `mmc.send` control with, through the surface's own output,
// reach the DAW's port as transport commands, once per change of meaning, never from stale data.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/engine/log.js';
import type { LedState, SurfaceInput } from '../../../src/engine/surface.js';
import { formatMidiMapProblem, parseMidiMap } from '../../../src/surfaces/midi/load-midi-map.js';
import type { MidiMap } from '../../../src/surfaces/midi/midi-map.js';
import type { MidiOutputPort } from '../../../src/surfaces/midi/midi-port.js';
import { MidiSurface } from '../../../src/surfaces/midi/midi-surface.js';
import { FakeMidiSystem, rtMidiOver } from '../../support/fake-midi.js';
import { VirtualTime } from '../../support/virtual-time.js';

const PORT = 'ardour:MMC out 130:0';

const MAP = `name: DAW
model: daw
ports: {input: ${PORT}}
mmc:
  device: 0x10
  controls:
    - {id: stop, command: stop}
    - {id: record-strobe, command: record-strobe}
    - {id: record-exit, command: record-exit}
controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button}
`;

function parse(text: string): MidiMap {
  const result = parseMidiMap(text, 'daw.yaml');
  if (!result.ok) throw new Error(result.problems.map(formatMidiMapProblem).join('\n'));
  return result.loaded.map;
}

function problemsOf(text: string): string[] {
  const result = parseMidiMap(text, 'daw.yaml');
  return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
}

const mmc = (device: number, ...commands: number[]) => [0xf0, 0x7f, device, 0x06, ...commands, 0xf7];
const RECORD_STROBE = 0x06;
const STOP = 0x01;

function setup(map: MidiMap = parse(MAP)) {
  const system = new FakeMidiSystem();
  system.plug(PORT);
  const midi = rtMidiOver(system);
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
  const time = new VirtualTime();
  const surface = new MidiSurface({ map, portName: PORT, input: midi.openInput(PORT), output: null, log, time });
  const inputs: SurfaceInput[] = [];
  surface.input.subscribe((input) => inputs.push(input));
  const send = async (...messages: number[][]) => {
    for (const bytes of messages) {
      time.advanceTo(time.now() + 20_000); // past the log limiter's window: one line each
      system.fromDevice(PORT, bytes);
    }
  };
  return { surface, inputs, lines, send };
}

const press = (control: string): SurfaceInput[] => [
  { type: 'down', control },
  { type: 'up', control },
];

describe('MMC in', () => {
  it('a command to all devices (7F) or to the map\'s own device is a press and release of its control', async () => {
    const { inputs, lines, send } = setup();
    await send(mmc(0x7f, RECORD_STROBE), mmc(0x10, STOP));
    expect(inputs).toEqual([...press('record-strobe'), ...press('stop')]);
    expect(lines).toEqual([]);
  });

  it('reads every command of a command string, and reads past Locate\'s data', async () => {
    const { inputs, lines, send } = setup();
    const locate = [0x44, 0x06, 0x01, 0x21, 0x00, 0x00, 0x00, 0x00];
    await send(mmc(0x7f, STOP, ...locate, RECORD_STROBE), mmc(0x7f, ...locate));
    expect(inputs).toEqual([...press('stop'), ...press('record-strobe')]);
    expect(lines).toEqual([]);
  });

  it('reassembles an MMC message split over several chunks, and fires it once', async () => {
    const { inputs, lines, send } = setup();
    await send([0xf0, 0x7f], [0x7f, 0x06], [RECORD_STROBE, 0xf7]);
    expect(inputs).toEqual(press('record-strobe'));
    expect(lines).toEqual([]);
  });

  it('a command the map does not bind (Play here), or other universal SysEx, means nothing and says nothing', async () => {
    const { inputs, lines, send } = setup();
    await send(mmc(0x7f, 0x02), [0xf0, 0x7e, 0x7f, 0x06, 0x02, 0x00, 0x20, 0x29, 0xf7], [0xf0, 0x7f, 0x7f, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0xf7]);
    expect(inputs).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('bad MMC fires nothing, with one clear line each; the next good command works', async () => {
    const { inputs, lines, send } = setup();
    await send(
      mmc(0x05, RECORD_STROBE), // another device
      mmc(0x7f), // no command
      mmc(0x7f, 0x0e), // a command MMC does not define
      mmc(0x7f, STOP, 0x7e), // an unknown one after a good one: the whole message is refused
      mmc(0x7f, 0x44, 0x06, 0x01, 0x21), // Locate whose data runs past the end
      [0xf0, 0x7f, 0x7f, 0x06, RECORD_STROBE], // cut off by the next message
      [0x90, 0, 127],
    );
    expect(inputs).toEqual([{ type: 'down', control: 'pad0' }]);
    expect(lines).toEqual([
      'warn midi:DAW: ignored an MMC message to device 05: this map answers MMC to device 10 and to all (7F) [F0 7F 05 06 06 F7]',
      'warn midi:DAW: ignored an MMC message to device 7F with no command [F0 7F 7F 06 F7]',
      'warn midi:DAW: ignored the unknown MMC command 0E [F0 7F 7F 06 0E F7]',
      'warn midi:DAW: ignored the unknown MMC command 7E [F0 7F 7F 06 01 7E F7]',
      'warn midi:DAW: ignored an MMC 44 (locate) command whose data runs past the end of the message [F0 7F 7F 06 44 06 01 21 F7]',
      'warn midi:DAW: ignored a SysEx message cut off after 5 bytes (no F7) [90 00 7F]',
    ]);
    await send(mmc(0x7f, RECORD_STROBE));
    expect(inputs.slice(1)).toEqual(press('record-strobe'));
  });

  it('without mmc.device only MMC to all devices is answered', async () => {
    const { inputs, lines, send } = setup(parse(MAP.replace('  device: 0x10\n', '')));
    await send(mmc(0x10, RECORD_STROBE), mmc(0x00, RECORD_STROBE), mmc(0x7f, RECORD_STROBE));
    expect(inputs).toEqual(press('record-strobe'));
    expect(lines).toEqual([
      'warn midi:DAW: ignored an MMC message to device 10: this map answers only MMC to all devices (7F) [F0 7F 10 06 06 F7]',
      'warn midi:DAW: ignored an MMC message to device 00: this map answers only MMC to all devices (7F) [F0 7F 00 06 06 F7]',
    ]);
  });

  it('a map without mmc reads no MMC, silently, as before', async () => {
    const { inputs, lines, send } = setup(parse(`name: DAW\nmodel: daw\nports: {input: ${PORT}}\ncontrols:\n  - {id: pad0, type: note, channel: 1, number: 0, role: button}\n`));
    await send(mmc(0x7f, RECORD_STROBE), mmc(0x05, 0x0e));
    expect(inputs).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('offers its MMC commands to profiles as buttons with nothing to light', () => {
    const { surface } = setup();
    expect(surface.controls.filter((c) => c.kind === 'button').map((c) => [c.id, c.kind === 'button' ? c.feedback : null])).toEqual([
      ['pad0', 'none'],
      ['stop', 'none'],
      ['record-strobe', 'none'],
      ['record-exit', 'none'],
    ]);
  });
});

describe('MMC in the MIDI map schema', () => {
  const withMmc = (mmcYaml: string) => `name: DAW\nmodel: daw\nports: {input: x}\nmmc:\n${mmcYaml}`;

  it('refuses device 7F (it means all), a command bound twice, an id used twice, an unknown command', () => {
    expect(problemsOf(withMmc('  device: 127\n  controls:\n    - {id: stop, command: stop}\n'))).toEqual([expect.stringMatching(/^mmc\.device: .*126/)]);
    expect(problemsOf(withMmc('  controls:\n    - {id: a, command: stop}\n    - {id: b, command: stop}\n'))).toEqual(['mmc.controls[1].command: "stop" is already bound by mmc.controls[0]']);
    expect(problemsOf(withMmc('  controls:\n    - {id: a, command: stop}\n    - {id: a, command: play}\n'))).toEqual(['mmc.controls[1].id: id "a" is already used by mmc.controls[0]']);
    expect(problemsOf(withMmc('  controls:\n    - {id: a, command: locate}\n'))[0]).toMatch(/^mmc\.controls\[0\]\.command: .*record-strobe/);
  });

  it('refuses an MMC id a channel control has, and a map with no controls at all', () => {
    expect(problemsOf(`${withMmc('  controls:\n    - {id: pad0, command: stop}\n')}controls:\n  - {id: pad0, type: note, channel: 1, number: 0, role: button}\n`)).toEqual([
      'controls[0].id: id "pad0" is already used by mmc.controls[0]',
    ]);
    expect(problemsOf('name: DAW\nmodel: daw\nports: {input: x}\n')).toEqual(['controls: a map needs at least one control (under controls, or MMC under mmc)']);
  });
});

const DAW_IN = 'ardour:MMC in 130:1';
const SEND_MAP = `name: DAW
model: daw
ports: {input: ${PORT}, output: ${DAW_IN}}
mmc:
  device: 0x10
  controls:
    - {id: stop, command: stop}
  send:
    - {id: follow}
`;

/** A surface on the DAW's two ports (its MMC out read, its MMC in written), and a way to light a control as the painter does. */
function setupOut(map: MidiMap = parse(SEND_MAP), wrap: (port: MidiOutputPort) => MidiOutputPort = (port) => port) {
  const system = new FakeMidiSystem();
  system.plug(PORT, { output: false });
  system.plug(DAW_IN, { input: false });
  const midi = rtMidiOver(system);
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
  const surface = new MidiSurface({ map, portName: PORT, input: midi.openInput(PORT), output: wrap(midi.openOutput(DAW_IN)), log, time: new VirtualTime() });
  /** Each state in turn, as the painter hands them to the output, each written before the next. */
  const show = async (control: string, ...states: LedState[]) => {
    for (const state of states) {
      surface.output.show({ type: 'led', control, state });
      await surface.output.flushed();
    }
  };
  return { surface, system, lines, show, sent: () => system.sent(DAW_IN) };
}

const out = (device: number, command: number) => [0xf0, 0x7f, device, 0x06, command, 0xf7];
const PAUSE = 0x09;
const PLAY = 0x02;
const RECORD_EXIT = 0x07;

describe('MMC out', () => {
  it('a change of meaning sends its command once to the map\'s device: Record Strobe, Pause, Stop; the same meaning again sends nothing', async () => {
    const { show, sent, lines } = setupOut();
    await show('follow', 'idle');
    expect(sent()).toEqual([]); // the first live state: where the DAW follows from
    await show('follow', 'recording', 'recording', 'sync-recording');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE)]);
    await show('follow', 'paused', 'paused');
    await show('follow', 'idle', 'armed', 'no-source');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE), out(0x10, PAUSE), out(0x10, STOP)]);
    expect(lines).toEqual([
      'info midi:DAW: follow recording: sent MMC record-strobe to device 10',
      'info midi:DAW: follow paused: sent MMC pause to device 10',
      'info midi:DAW: follow stopped: sent MMC stop to device 10',
    ]);
  });

  it('stale or offline data sends nothing; back live it sends only a meaning the DAW was not told', async () => {
    const { show, sent } = setupOut();
    await show('follow', 'offline', 'stale', 'idle', 'recording');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE)]);
    // The link drops and comes back with the take still running: the DAW already has it.
    await show('follow', 'stale', 'offline', 'stale', 'recording');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE)]);
    // The take stopped while the data was stale: told once the stop is seen live, not before.
    await show('follow', 'stale');
    expect(sent()).toHaveLength(1);
    await show('follow', 'idle');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE), out(0x10, STOP)]);
  });

  it('a blank control (another page), a dialog or a hold say nothing of the transport; the first live state after open sends nothing, even a take', async () => {
    const { show, sent } = setupOut();
    await show('follow', 'stale', 'recording', 'off', 'dialog', 'holding', 'active', 'recording');
    expect(sent()).toEqual([]);
    await show('follow', 'off', 'idle');
    expect(sent()).toEqual([out(0x10, STOP)]);
  });

  it('sends every command the map lists for a meaning, in order, one message each, to all devices (7F) without mmc.device; [] sends nothing', async () => {
    const map = parse(SEND_MAP.replace('  device: 0x10\n', '').replace('{id: follow}', '{id: follow, recording: [play, record-strobe], paused: [], stopped: [record-exit, stop]}'));
    const { show, sent } = setupOut(map);
    await show('follow', 'idle', 'recording', 'paused', 'recording', 'idle');
    expect(sent()).toEqual([out(0x7f, PLAY), out(0x7f, RECORD_STROBE), out(0x7f, PLAY), out(0x7f, RECORD_STROBE), out(0x7f, RECORD_EXIT), out(0x7f, STOP)]);
  });

  it('a send that fails is logged and not taken as told: the next state sends it again', async () => {
    let failing = true;
    const { show, sent, lines } = setupOut(parse(SEND_MAP), (port) => ({
      name: port.name,
      close: () => port.close(),
      send: (bytes) => {
        if (failing) throw new Error('the port is gone');
        port.send(bytes);
      },
    }));
    await show('follow', 'idle', 'recording');
    expect(sent()).toEqual([]);
    expect(lines).toEqual(['warn midi:DAW: lighting follow failed: midi:DAW: follow: MMC record-strobe (recording): sending F0 7F 10 06 06 F7 failed: the port is gone']);
    failing = false;
    await show('follow', 'stale', 'recording');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE)]);
  });

  it('blanking the device sends no MMC and forgets nothing the DAW was told', async () => {
    const { surface, show, sent } = setupOut();
    await show('follow', 'idle', 'recording');
    await surface.output.clear();
    await show('follow', 'recording');
    expect(sent()).toEqual([out(0x10, RECORD_STROBE)]);
  });

  it('without an output port nothing is sent or taken as told, and nothing fails', async () => {
    const system = new FakeMidiSystem();
    system.plug(PORT);
    const surface = new MidiSurface({ map: parse(SEND_MAP), portName: PORT, input: rtMidiOver(system).openInput(PORT), output: null, log: { info: () => {}, warn: (m) => expect.fail(m), error: (m) => expect.fail(m) }, time: new VirtualTime() });
    for (const state of ['idle', 'recording', 'idle'] as const) surface.output.show({ type: 'led', control: 'follow', state });
    await surface.output.flushed();
    expect(system.sent(PORT)).toEqual([]);
  });

  it('offers each send control to profiles as a button lit like an LED', () => {
    const { surface } = setupOut();
    expect(surface.controls).toEqual([
      { kind: 'button', id: 'stop', feedback: 'none' },
      { kind: 'button', id: 'follow', feedback: 'led' },
    ]);
  });
});

describe('MMC out in the MIDI map schema', () => {
  const withMmc = (mmcYaml: string) => `name: DAW\nmodel: daw\nports: {input: x}\nmmc:\n${mmcYaml}`;

  it('takes a send control alone, with the commands of each meaning by default', () => {
    expect(parse(withMmc('  send:\n    - {id: follow}\n')).mmc?.send).toEqual([{ id: 'follow', recording: ['record-strobe'], paused: ['pause'], stopped: ['stop'] }]);
  });

  it('refuses an id used twice anywhere in the map, a command listed twice, an unknown command, too many, and an empty mmc section', () => {
    expect(problemsOf(withMmc('  controls:\n    - {id: stop, command: stop}\n  send:\n    - {id: stop}\n'))).toEqual(['mmc.send[0].id: id "stop" is already used by mmc.controls[0]']);
    expect(problemsOf(withMmc('  send:\n    - {id: a}\n    - {id: a}\n'))).toEqual(['mmc.send[1].id: id "a" is already used by mmc.send[0]']);
    expect(problemsOf(`${withMmc('  send:\n    - {id: pad0}\n')}controls:\n  - {id: pad0, type: note, channel: 1, number: 0, role: button}\n`)).toEqual(['controls[0].id: id "pad0" is already used by mmc.send[0]']);
    expect(problemsOf(withMmc('  send:\n    - {id: a, stopped: [stop, record-exit, stop]}\n'))).toEqual(['mmc.send[0].stopped[2]: "stop" is already sent at [0]; each command once']);
    expect(problemsOf(withMmc('  send:\n    - {id: a, recording: [locate]}\n'))[0]).toMatch(/^mmc\.send\[0\]\.recording\[0\]: .*record-strobe/);
    expect(problemsOf(withMmc('  send:\n    - {id: a, recording: [play, record-strobe, stop, pause, eject]}\n'))[0]).toMatch(/^mmc\.send\[0\]\.recording: .*4/);
    expect(problemsOf(withMmc('  send:\n    - {id: a, record: [play]}\n'))).toEqual(['mmc.send[0].record: unknown field "record"']);
    expect(problemsOf(withMmc('  device: 3\n'))).toEqual(['mmc: an mmc section needs commands to read (controls) or controls to send from (send)']);
  });
});
