// `recdeck profiles check DIR …`: a studio's own profiles and MIDI maps checked as `recdeck run` would
// read them, without starting anything (no recorder, no device, no port), for the CI of the repository
// that holds them. A folder's *.yaml and *.yml files are profiles; those in its midi/ folder, if there
// is one, are MIDI maps (the layout of the shipped profiles/).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatProfileError, type ProfileProblem } from '../profiles/load.js';
import { loadProfileSet } from '../profiles/watch.js';
import { loadMidiMapFolder } from '../surfaces/midi/load-midi-map.js';
import { HELP_FLAG, parseFlags, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { UsageError } from './usage-error.js';

export const profilesCheckCommand = {
  ...COMMAND_OVERVIEW.profiles,
  positionals: 'DIR …',
  flags: { ...HELP_FLAG },
  notes: ['Exit status: 0 when every file loads, 1 when any has a problem, 2 on a usage error.'],
} satisfies CommandSpec;

export interface ProfilesCheckIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: ProfilesCheckIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };

/** The folder's maps, or none when it has no midi/ folder (a folder of profiles only). */
async function midiMaps(folder: string): Promise<{ count: number; problems: ProfileProblem[] }> {
  const maps = join(folder, 'midi');
  const isFolder = await stat(maps).then((info) => info.isDirectory(), () => false);
  if (!isFolder) return { count: 0, problems: [] };
  const loaded = await loadMidiMapFolder(maps);
  return { count: loaded.maps.length, problems: loaded.problems };
}

/** `recdeck profiles SUBCOMMAND`: check is the one there is. Resolves to the exit status. */
export async function profiles(args: string[], io: ProfilesCheckIo = processIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand !== 'check') throw new UsageError(`expected the subcommand check (recdeck profiles check DIR), got ${subcommand === undefined ? 'none' : JSON.stringify(subcommand)}`);
  const { positionals: folders } = parseFlags(profilesCheckCommand, rest, true);
  if (folders.length === 0) throw new UsageError('name at least one folder of profiles');
  const problems: ProfileProblem[] = [];
  let profileCount = 0;
  let mapCount = 0;
  for (const folder of folders) {
    const isFolder = await stat(folder).then((info) => info.isDirectory(), () => false);
    if (!isFolder) {
      problems.push({ file: folder, line: null, column: null, path: '', message: 'not a folder' });
      continue;
    }
    const set = await loadProfileSet([folder]);
    const maps = await midiMaps(folder);
    profileCount += set.profiles.length;
    mapCount += maps.count;
    problems.push(...set.problems, ...maps.problems);
  }
  for (const problem of problems) io.stderr(`${formatProfileError(problem)}\n`);
  const counted = `${profileCount} profile${profileCount === 1 ? '' : 's'} and ${mapCount} MIDI map${mapCount === 1 ? '' : 's'} load`;
  io.stdout(problems.length === 0 ? `${counted}; no problems\n` : `${counted}; ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
  return problems.length === 0 ? 0 : 1;
}
