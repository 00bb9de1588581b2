// A secret read from a file (a recorder token, a web or broker password, a private key), so that it is
// never on a command line, where every user of the machine can read it with `ps`. One reader for the
// CLI's secrets and the bus's files alike; each says a refusal in its own error (a usage error, a bus
// file error). Here in api/ because the recorder's token is read with it and `recdeck call` loads
// nothing beyond api/ and its own files. Messages name the file, never what is in it.
import { readFileSync } from 'node:fs';

/** The file's text without its final line break, or why it cannot be used (an unreadable or empty file). */
export function secretTextOf(file: string, what: string): { ok: true; text: string } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    return { ok: false, message: `${what}: cannot read ${file}: ${why}` };
  }
  const secret = text.replace(/\r?\n$/, '');
  return secret === '' ? { ok: false, message: `${what}: ${file} is empty` } : { ok: true, text: secret };
}
