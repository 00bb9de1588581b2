// `recdeck devices`: the Stream Decks, X-keys panels and MIDI ports this machine can see, or why it cannot see them.
import { describeStreamDecks } from '../surfaces/streamdeck/describe.js';
import { nodeStreamDeckBackend } from '../surfaces/streamdeck/backend-node.js';
import { nodeXkeysBackend } from '../surfaces/xkeys/backend-node.js';
import { describeXkeys } from '../surfaces/xkeys/describe.js';
import type { MidiBackendLoader } from '../surfaces/midi/midi-port.js';
import { loadRtMidi } from '../surfaces/midi/rtmidi.js';
import { midiUnavailableReason } from '../surfaces/midi/unavailable.js';
import { HELP_FLAG, parseFlags, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { realTime } from '../engine/engine-time.js';

export const devicesCommand = {
  ...COMMAND_OVERVIEW.devices,
  flags: { ...HELP_FLAG },
} satisfies CommandSpec;

export async function devices(args: string[], print: (text: string) => void = (t) => process.stdout.write(t)): Promise<void> {
  parseFlags(devicesCommand, args);
  const decks = await describeStreamDecks(nodeStreamDeckBackend());
  print(`Stream Decks:\n${decks.map((line) => `  ${line}`).join('\n')}\n`);
  print(`X-keys:\n${(await describeXkeys(nodeXkeysBackend(), realTime)).map((line) => `  ${line}`).join('\n')}\n`);
  print(`MIDI ports:\n${(await describeMidiPorts(loadRtMidi)).map((line) => `  ${line}`).join('\n')}\n`);
}

/** Input and output port names, or why MIDI cannot be used. */
export async function describeMidiPorts(load: MidiBackendLoader): Promise<string[]> {
  try {
    const midi = await load();
    const inputs = midi.inputNames();
    const outputs = midi.outputNames();
    if (inputs.length === 0 && outputs.length === 0) return ['none (plug a controller in; a map in profiles/midi names its port)'];
    return [...inputs.map((name) => `in:  ${name}`), ...outputs.map((name) => `out: ${name}`)];
  } catch (error) {
    return [`MIDI is not available: ${midiUnavailableReason(error)}`];
  }
}
