// The bus keys of `recdeck bus keygen` and `--mqtt-key-file`: each poller and panel signs with a
// private key of its own (Ed25519, PEM), kept on its machine with mode 0600; the facility file holds the
// public halves. `recdeck bus keygen ID --out FILE` makes one and prints the facility file's entry.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { messageOf } from '../api/errors.js';
import { publicKeyText } from '../bus/facility.js';
import { readPrivateKeyFile as readBusKeyFile } from '../bus/key-file.js';
import { BusId } from '../bus/topics.js';
import { HELP_FLAG, parseFlags, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { usageErrorOfSync } from './bus-file-usage.js';
import { UsageError } from './usage-error.js';

export const busKeygenCommand = {
  ...COMMAND_OVERVIEW.bus,
  positionals: 'ID',
  flags: {
    out: { type: 'string', value: 'FILE', description: 'where to write the private key (PEM); give it to that process as --mqtt-key-file' },
    ...HELP_FLAG,
  },
  notes: ['ID is the bus id: 1-64 letters, digits, "_", "." or "-", and the MQTT user of its broker login.'],
} satisfies CommandSpec;

/** `recdeck bus SUBCOMMAND`: keygen is the one there is. */
export async function bus(args: string[], print: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand !== 'keygen') throw new UsageError(`expected the subcommand keygen (recdeck bus keygen ID --out FILE), got ${subcommand === undefined ? 'none' : JSON.stringify(subcommand)}`);
  const { values, positionals } = parseFlags(busKeygenCommand, rest, true);
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new UsageError('give exactly one ID');
  const named = BusId.safeParse(id);
  if (!named.success) throw new UsageError(`${JSON.stringify(id)}: ${named.error.issues[0]?.message ?? 'not a bus id'}`);
  if (values.out === undefined) throw new UsageError('--out FILE: where to write the private key');
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  try {
    await writeFile(values.out, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--out: cannot write ${values.out}: ${code === 'EEXIST' ? 'it exists already (a key is never overwritten)' : messageOf(error)}`);
  }
  const key = publicKeyText(publicKey);
  print(
    [
      `wrote the private key of "${id}" to ${values.out} (mode 0600): keep it on the machine that runs ${id}, give it as --mqtt-key-file`,
      '',
      '# in the facility file, as a poller:',
      'pollers:',
      `  ${id}:`,
      `    publicKey: ${key}`,
      '    recorders: [main]              # the recorders it may poll',
      '# or as a panel:',
      'panels:',
      `  ${id}:`,
      `    publicKey: ${key}`,
      '    may: { main: [read, control] } # per recorder: read, control, admin or operations such as rec-start',
      '',
    ].join('\n'),
  );
}

/** This process's private key (bus/key-file.ts reads and checks it); a key file it cannot use is a usage error. */
export function readPrivateKeyFile(file: string, what: string): { privateKey: KeyObject; publicKey: KeyObject } {
  return usageErrorOfSync(() => readBusKeyFile(file, what));
}
