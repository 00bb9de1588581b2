// Which recorders the bridge talks to, from flags and the environment. Tokens never come from a
// profile's text; a profile may only refer to one by ${ENV} name.
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';

export interface RecorderConfig {
  name: string;
  url: string;
  token?: string;
}

const NAMED = /^([a-z][a-z0-9-]*)=(.*)$/;
const DEFAULT_NAME = 'main';

function split(flag: string, value: string): { name: string | null; value: string } {
  const match = NAMED.exec(value);
  if (match && !(flag === '--recorder' && /^[a-z]+:\/\//.test(value))) return { name: match[1] as string, value: match[2] as string };
  return { name: null, value };
}

/**
 * `--recorder URL` or `--recorder NAME=URL` (repeatable), `--token T` or `--token NAME=T`; else
 * RECDECK_RECORDER and RECDECK_TOKEN for the recorder named "main", and RECDECK_TOKEN_<NAME> for
 * named ones. `--token-file [NAME=]FILE` and RECDECK_TOKEN_FILE / RECDECK_TOKEN_<NAME>_FILE read the
 * token from a file instead (kept out of `ps`).
 */
export function recordersFrom(recorderFlags: readonly string[], tokenFlags: readonly string[], env: NodeJS.ProcessEnv, tokenFiles: readonly string[] = []): RecorderConfig[] {
  const recorders: RecorderConfig[] = [];
  const given = recorderFlags.length > 0 ? recorderFlags : env.RECDECK_RECORDER ? [env.RECDECK_RECORDER] : [];
  for (const flag of given) {
    const { name, value } = split('--recorder', flag);
    const recorderName = name ?? DEFAULT_NAME;
    if (recorders.some((r) => r.name === recorderName)) throw new UsageError(`--recorder: the name "${recorderName}" is given twice; name them NAME=URL`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new UsageError(`--recorder: expected a URL such as http://127.0.0.1:9000, got ${JSON.stringify(value)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--recorder: expected an http or https URL, got ${url.protocol}`);
    recorders.push({ name: recorderName, url: url.origin });
  }
  const givenTokens = [...tokenFlags.map((flag) => ({ flag: '--token', ...split('--token', flag), file: false })), ...tokenFiles.map((flag) => ({ flag: '--token-file', ...split('--token', flag), file: true }))];
  for (const { flag, name, value, file } of givenTokens) {
    const recorder = name === null ? (recorders.length === 1 ? recorders[0] : recorders.find((r) => r.name === DEFAULT_NAME)) : recorders.find((r) => r.name === name);
    if (!recorder) throw new UsageError(`${flag}: no recorder ${name === null ? `to give it to (name it NAME=${file ? 'FILE' : 'TOKEN'})` : `named "${name}"`}`);
    recorder.token = file ? readSecretFile(value, flag) : value;
  }
  for (const recorder of recorders) {
    if (recorder.token !== undefined) continue;
    const variable = recorder.name === DEFAULT_NAME ? 'RECDECK_TOKEN' : `RECDECK_TOKEN_${recorder.name.toUpperCase().replace(/-/g, '_')}`;
    const fromEnv = env[variable];
    const fileFromEnv = env[`${variable}_FILE`];
    if (fromEnv) recorder.token = fromEnv;
    else if (fileFromEnv) recorder.token = readSecretFile(fileFromEnv, `${variable}_FILE`);
    else throw new UsageError(`no token for recorder "${recorder.name}": give --token-file or set ${variable} or ${variable}_FILE`);
  }
  return recorders;
}
