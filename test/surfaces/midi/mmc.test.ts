// MIDI Machine Control in: SysEx from a DAW through the REAL @julusian/midi over a fake RtMidi, read by
// the MIDI surface as presses of the map's MMC controls. Bad MMC (another device, an unknown command,
// data that runs past the end, a SysEx cut off) fires nothing and says why in one line.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/engine/log.js';
import type { SurfaceInput } from '../../../src/engine/surface.js';
import { formatMidiMapProblem, parseMidiMap } from '../../../src/surfaces/midi/load-midi-map.js';
import type { MidiMap } from '../../../src/surfaces/midi/midi-map.js';
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
    expect(problemsOf('name: DAW\nmodel: daw\nports: {input: x}\n')).toEqual(['controls: a map needs at least one control (under controls, or MMC commands under mmc)']);
  });
});
