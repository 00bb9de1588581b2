// Secrets read from files (--token-file, --web-password-file and their RECDECK_*_FILE variables), so
// that they are not on the command line, where every user of the machine can read them with `ps`.
// Messages name the file, never what is in it.
import { secretTextOf } from '../api/secret-text.js';
import { UsageError } from './usage-error.js';

/** The file's text without its final line break; an unreadable or empty file is a usage error. */
export function readSecretFile(file: string, what: string): string {
  const read = secretTextOf(file, what);
  if (!read.ok) throw new UsageError(read.message);
  return read.text;
}
