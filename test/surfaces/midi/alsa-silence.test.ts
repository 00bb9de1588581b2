// e2e because the point is a process's stderr: RtMidi's native code writes to the process's own stderr,
// which only a spawned `recdeck devices` shows whole.
// Without a usable ALSA sequencer, RtMidi's native code prints ALSA's and its own errors on stderr each
// time a port object is made (every check, every 3 s). The backend does not call it then: the reason
// comes back as an error for the manager to log once, and stderr stays quiet.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alsaSequencerProblem, rtMidiBackend, type RtMidiModule } from '../../../src/surfaces/midi/rtmidi.js';

/** A module whose port objects count themselves: what the guard must not make while the sequencer is unusable. */
function countingModule(): { module: RtMidiModule; made: () => number } {
  let made = 0;
  class Port {
    constructor() {
      made++;
    }
    getPortCount = () => 1;
    getPortName = () => 'Pad';
    openPort = () => undefined;
    destroy = () => undefined;
    ignoreTypes = () => undefined;
    on = () => this;
    removeAllListeners = () => this;
    sendMessage = () => undefined;
  }
  return { module: { Input: Port, Output: Port }, made: () => made };
}

describe('no ALSA sequencer: RtMidi is not called, so it prints nothing', () => {
  it('every listing and open fails with the reason before any native port object is made; once usable, they work', () => {
    const { module, made } = countingModule();
    let problem: string | null = 'RtMidi not started';
    const backend = rtMidiBackend(module, () => problem);
    for (const call of [() => backend.inputNames(), () => backend.outputNames(), () => backend.openInput('Pad'), () => backend.openOutput('Pad')]) {
      expect(call).toThrow('RtMidi not started');
    }
    expect(made()).toBe(0);
    problem = null;
    expect(backend.inputNames()).toEqual(['Pad']);
    expect(made()).toBe(1);
  });

  it('a missing or unusable device is a problem; a usable one is none', () => {
    const linux = process.platform === 'linux';
    expect(alsaSequencerProblem('/nonexistent/snd/seq')).toBe(linux ? 'RtMidi not started' : null);
    expect(alsaSequencerProblem('/dev/null')).toBeNull(); // readable and writable: the native code may run
  });

  it.skipIf(existsSync('/dev/snd/seq'))('recdeck devices on this machine (no /dev/snd/seq): one clear line, nothing from ALSA on stderr', async () => {
    const main = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
    const child = spawn(process.execPath, [main, 'devices'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await once(child, 'exit');
    expect(stdout).toContain('MIDI is not available: RtMidi not started (no ALSA sequencer: /dev/snd/seq is missing');
    expect(stderr).not.toMatch(/ALSA lib|MidiInAlsa|MidiOutAlsa/);
  }, 20_000);
});
