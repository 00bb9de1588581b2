// Secrets read from files (--token-file, --web-password-file and their RECDECK_*_FILE variables), so
// that they are not on the command line, where every user of the machine can read them with `ps`.
// Messages name the file, never what is in it.
import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/** The file's text without its final line break; an unreadable or empty file is a usage error. */
export function readSecretFile(file: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`${what}: cannot read ${file}: ${why}`);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new UsageError(`${what}: ${file} is empty`);
  return secret;
}
