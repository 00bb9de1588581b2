// `recdeck run`: the bridge. Recorders come from flags or the environment (never from a profile's
// text); with none given it starts the embedded simulator and uses that. The flags and the setup they
// give are in run-flags.ts, the wiring and its one teardown in start-bridge.ts; this file is the
// command: the devices this machine has, the start, the ready lines, and the stop at Ctrl+C.
import type { Logger } from '../engine/log.js';
import type { SurfaceSource } from '../engine/surface.js';
import { realTime } from '../engine/engine-time.js';
import { nodeStreamDeckBackend } from '../surfaces/streamdeck/backend-node.js';
import { StreamDeckManager } from '../surfaces/streamdeck/device-manager.js';
import { nodeXkeysBackend } from '../surfaces/xkeys/backend-node.js';
import { XkeysManager } from '../surfaces/xkeys/device-manager.js';
import { formatMidiMapProblem, loadMidiMapFolder } from '../surfaces/midi/load-midi-map.js';
import { MidiManager } from '../surfaces/midi/midi-manager.js';
import type { MidiMap } from '../surfaces/midi/midi-map.js';
import { interrupted } from './interrupted.js';
import { pinoLogger } from './pino-logger.js';
import { parseRunArgs } from './run-flags.js';
import { startBridge } from './start-bridge.js';
import { streamDeckTcpSource } from './streamdeck-tcp-flags.js';

// What main.ts and the tests use of `recdeck run`, from the files that hold it.
export { parseRunArgs, runCommand } from './run-flags.js';
export { startBridge, type RunningBridge } from './start-bridge.js';

export async function run(args: string[]): Promise<void> {
  const setup = parseRunArgs(args, process.env);
  const log = pinoLogger(setup.log);
  const stopped = interrupted();
  for (const flag of ['--token', '--web-password']) {
    if (args.some((a) => a === flag || a.startsWith(`${flag}=`))) log.warn(`${flag} is visible to every user of this machine (ps); give ${flag}-file or the environment instead`);
  }
  // Made, not started: startBridge starts and follows them, and stops them at the end.
  const sources: SurfaceSource[] = [
    new StreamDeckManager({ time: realTime, backend: nodeStreamDeckBackend(), log }),
    new XkeysManager({ time: realTime, backend: nodeXkeysBackend(), log }),
    await midiManager(setup.midiMapFolders, log),
    ...[streamDeckTcpSource(setup.streamDeckTcp, log)].filter((source) => source !== null),
  ];
  const running = await startBridge({ ...setup, surfaces: [], sources }, log);
  // Listened for before the ready lines, like the stop signals (see interrupted.ts).
  const reread = () => running.rereadWebPassword();
  process.on('SIGHUP', reread);
  const sessions = running.bridge.surfaceSessions();
  // One line each: a log line never spans lines (control characters are escaped).
  if (sessions.length === 0) log.info('surfaces: none found');
  for (const s of sessions) log.info(`surface ${s.surface.id} (${s.surface.name}): ${s.profileName}`);
  if (running.remote) log.info(`web deck and remote API: open ${running.remote.url}`);
  await stopped;
  process.off('SIGHUP', reread);
  log.info('stopping: clearing the surfaces');
  await running.stop();
}

/** MIDI controllers described by the maps in these folders (a bad map is reported and left out). */
async function midiManager(folders: readonly string[], log: Logger): Promise<MidiManager> {
  const maps: MidiMap[] = [];
  for (const folder of folders) {
    const { maps: loaded, problems } = await loadMidiMapFolder(folder);
    for (const problem of problems) log.warn(formatMidiMapProblem(problem));
    maps.push(...loaded.map((m) => m.map));
  }
  return new MidiManager({ time: realTime, maps, log });
}
