// `recdeck devices`, MIDI part: port names, or why MIDI cannot be used.
import { describe, expect, it } from 'vitest';
import { describeMidiPorts } from '../../src/cli/devices.js';
import type { MidiBackend } from '../../src/surfaces/midi/midi-port.js';

const api = (inputs: string[], outputs: string[]): MidiBackend => ({
  inputNames: () => inputs,
  outputNames: () => outputs,
  openInput: () => {
    throw new Error('not opened here');
  },
  openOutput: () => {
    throw new Error('not opened here');
  },
});

describe('recdeck devices: MIDI', () => {
  it('lists input and output ports', async () => {
    expect(await describeMidiPorts(async () => api(['APC mini mk2:APC mini mk2 Control 20:0'], ['APC mini mk2:APC mini mk2 Control 20:0']))).toEqual([
      'in:  APC mini mk2:APC mini mk2 Control 20:0',
      'out: APC mini mk2:APC mini mk2 Control 20:0',
    ]);
    expect(await describeMidiPorts(async () => api([], []))).toEqual(['none (plug a controller in; a map in profiles/midi names its port)']);
  });

  it('says why MIDI is not available', async () => {
    const [line] = await describeMidiPorts(async () => {
      throw new Error('Failed to initialise RtMidi');
    });
    expect(line).toMatch(/^MIDI is not available: Failed to initialise RtMidi/);
  });
});
