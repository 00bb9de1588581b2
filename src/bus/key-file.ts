// The files a bus member reads about itself, as the bus verifies them: its private key (`recdeck bus
// keygen` writes it; --mqtt-key-file, or the plugin's facility settings, name it) and a secret such as
// a broker password. Here, not in cli/, because the Stream Deck plugin joins the bus as a panel too and
// reads the same files with the same checks. Messages name the file, never what is in it.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { statSync } from 'node:fs';
import { secretTextOf } from '../api/secret-text.js';

/** A bus file that cannot be used: the message names the file and what is wrong (the CLI says it as a usage error). */
export class BusFileError extends Error {
  override readonly name = 'BusFileError';
}

/** The file's text without its final line break; an unreadable or empty file is refused. */
export function readSecretText(file: string, what: string): string {
  const read = secretTextOf(file, what);
  if (!read.ok) throw new BusFileError(read.message);
  return read.text;
}

/** A bus member's private key: a PEM Ed25519 key in a file no other user can read. */
export function readPrivateKeyFile(file: string, what: string): { privateKey: KeyObject; publicKey: KeyObject } {
  const pem = readSecretText(file, what);
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) throw new BusFileError(`${what}: ${file} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); chmod 600 ${file}`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw new BusFileError(`${what}: ${file} is not a PEM private key (recdeck bus keygen makes one)`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new BusFileError(`${what}: ${file} holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key; the bus signs with Ed25519 (recdeck bus keygen makes one)`);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}
