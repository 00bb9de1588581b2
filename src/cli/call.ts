// `recdeck call OPERATION [PARAM …] [--body FILE|JSON|-]`: any operation of the Recording Control
// Service from the shell. Names, parameters, body fields and the help are all generated from the
// operation table, so a new operation there is a new subcommand here with nothing else to write.
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import * as z from 'zod';
import { RecorderClient } from '../api/client.js';
import { messageOf, RecorderError } from '../api/errors.js';
import { describeIssues } from '../api/issues.js';
import { operations, pathParamNames, type Operation, type OperationId, type RequestBody } from '../api/operations.js';
import { HELP_FLAG, helpText, parseFlags, wholeNumber, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { recordersFrom, type RecorderConfig } from './recorder-config.js';
import { UsageError } from './usage-error.js';
import { realClock } from '../api/clock.js';

/** The recorder flags `call` and `watch` share with `run` (one recorder here). */
export const RECORDER_FLAGS = {
  recorder: { type: 'string', multiple: true, default: [], value: 'URL', description: 'the recorder to talk to', shownDefault: 'RECDECK_RECORDER' },
  'token-file': { type: 'string', multiple: true, default: [], value: 'FILE', description: "a file holding the recorder's token", shownDefault: 'RECDECK_TOKEN[_FILE]' },
  token: { type: 'string', multiple: true, default: [], value: 'TOKEN', description: "the recorder's token (visible in ps: prefer --token-file, RECDECK_TOKEN or RECDECK_TOKEN_FILE)", shownDefault: 'RECDECK_TOKEN[_FILE]' },
} satisfies CommandSpec['flags'];

export const callCommand = {
  ...COMMAND_OVERVIEW.call,
  positionals: 'OPERATION [PARAM …]',
  flags: {
    body: { type: 'string', value: 'FILE|JSON|-', description: 'the request body: a file, inline JSON or - for stdin, written as on the wire' },
    json: { type: 'boolean', default: false, description: 'print the answer on one line' },
    ...RECORDER_FLAGS,
    'timeout-ms': { type: 'string', default: '2000', value: 'N', description: 'give up on the answer after N ms' },
    ...HELP_FLAG,
  },
} satisfies CommandSpec;

/** listChannels → list-channels: the table's name as a shell word. */
export function commandName(id: OperationId): string {
  return id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

const BY_NAME = new Map((Object.keys(operations) as OperationId[]).map((id) => [commandName(id), id]));

/** Path parameters that are positions (0-based, as on the wire); the others are names. */
const NUMERIC_PARAMS: ReadonlySet<string> = new Set(['index', 'grid_size']);

function synopsis(id: OperationId): string {
  const operation: Operation = operations[id];
  const params = pathParamNames(operation.path).map((name) => `<${name}>`);
  const body = operation.request === undefined ? [] : ['--body FILE|JSON|-'];
  return [commandName(id), ...params, ...body].join(' ');
}

function bodyFields(operation: Operation): string | null {
  if (!(operation.request instanceof z.ZodObject)) return null;
  return Object.keys(operation.request.shape).join(', ');
}

/** The help of one operation, or of all of them. */
export function callHelp(id?: OperationId): string {
  const ids = id === undefined ? (Object.keys(operations) as OperationId[]) : [id];
  const width = Math.max(...ids.map((i) => synopsis(i).length));
  const lines = ids.map((i) => {
    const operation: Operation = operations[i];
    const fields = bodyFields(operation);
    return `  ${synopsis(i).padEnd(width)}  ${operation.method} ${operation.path}${fields === null ? '' : `  body: ${fields}`}`;
  });
  if (id !== undefined) return [`usage: recdeck call ${synopsis(id)}`, ...lines, ''].join('\n');
  return helpText({
    ...callCommand,
    notes: [
      'Operations (the interface\'s names; <index> is the 0-based position, as on the wire):',
      ...lines,
      '',
      'Prints the answer as JSON on stdout (indented; --json for one line; a write prints {}); a refusal prints the',
      "recorder's message on stderr and exits 1. The body is written as on the wire (AudioGain as text).",
    ],
  });
}

export interface CallIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

const processIo = (): CallIo => ({ env: process.env, stdout: process.stdout, stdin: process.stdin });

/** The one recorder a command talks to, from the same flags and environment as `recdeck run`. */
export function oneRecorder(recorderFlags: string[], tokenFlags: string[], env: NodeJS.ProcessEnv, tokenFiles: string[] = []): RecorderConfig & { token: string } {
  const recorders = recordersFrom(recorderFlags, tokenFlags, env, tokenFiles);
  if (recorders.length === 0) throw new UsageError('no recorder: give --recorder URL (and --token-file) or set RECDECK_RECORDER (and RECDECK_TOKEN or RECDECK_TOKEN_FILE)');
  if (recorders.length > 1) throw new UsageError(`this command talks to one recorder; ${recorders.length} are given (${recorders.map((r) => r.name).join(', ')})`);
  const [recorder] = recorders as [RecorderConfig];
  return { ...recorder, token: recorder.token ?? '' };
}

export async function call(args: string[], io: CallIo = processIo()): Promise<void> {
  const { values, positionals } = parseFlags(callCommand, args, true);
  const [name, ...given] = positionals;
  if (name === undefined) {
    if (values.help) return void io.stdout.write(callHelp());
    throw new UsageError('name an operation (recdeck call --help lists them)');
  }
  const id = BY_NAME.get(name);
  if (id === undefined) throw new UsageError(`unknown operation ${JSON.stringify(name)}${suggestion(name)}; recdeck call --help lists them`);
  if (values.help) return void io.stdout.write(callHelp(id));
  const operation: Operation = operations[id];

  const params = pathParams(id, given);
  const body = operation.request === undefined ? noBody(id, values.body) : await requestBody(id, operation.request, values.body, io.stdin);
  const timeoutMs = wholeNumber('--timeout-ms', values['timeout-ms'], 1, Number.MAX_SAFE_INTEGER, 'ms');

  const recorder = oneRecorder(values.recorder, values.token, io.env, values['token-file']);
  const client = new RecorderClient({ clock: realClock, url: recorder.url, token: recorder.token, timeoutMs });
  try {
    // The body was decoded by this operation's own request schema above, so it is this operation's body.
    const answer = await client.send(operation, params, body as RequestBody<Operation>);
    io.stdout.write(`${JSON.stringify(answer ?? {}, jsonValue, values.json ? undefined : 2)}\n`);
  } catch (error) {
    if (error instanceof RecorderError) throw new Error(`${error.serviceMessage} (${error.method} ${error.path}${error.status === undefined ? `, ${error.kind}` : `: ${error.status}`})`, { cause: error });
    throw error;
  } finally {
    await client.close();
  }
}

function pathParams(id: OperationId, given: readonly string[]): Record<string, string | number> {
  const names = pathParamNames(operations[id].path);
  if (given.length !== names.length) {
    throw new UsageError(`${commandName(id)} takes ${names.length === 0 ? 'no parameters' : names.map((n) => `<${n}>`).join(' ')}, got ${given.length === 0 ? 'none' : given.map((g) => JSON.stringify(g)).join(' ')}`);
  }
  const params: Record<string, string | number> = {};
  names.forEach((name, i) => {
    const value = given[i] as string;
    if (!NUMERIC_PARAMS.has(name)) return void (params[name] = value);
    if (!/^\d+$/.test(value)) throw new UsageError(`<${name}>: expected a whole number (0-based position), got ${JSON.stringify(value)}`);
    params[name] = Number(value);
  });
  return params;
}

function noBody(id: OperationId, body: string | undefined): undefined {
  if (body !== undefined) throw new UsageError(`${commandName(id)} takes no --body`);
  return undefined;
}

/** The body as on the wire (from a file, inline JSON or stdin), checked here before anything is sent. */
async function requestBody(id: OperationId, schema: z.ZodType, source: string | undefined, stdin: NodeJS.ReadableStream): Promise<unknown> {
  if (source === undefined) throw new UsageError(`${commandName(id)} needs --body FILE, --body '{…}' or --body - (stdin)`);
  const from = source === '-' ? 'stdin' : source.trimStart().startsWith('{') ? '--body' : source;
  let raw: string;
  try {
    raw = source === '-' ? await text(stdin) : from === '--body' ? source : await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(`--body: cannot read ${source}: ${messageOf(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`--body: ${from} is not JSON: ${messageOf(error)}`);
  }
  const decoded = schema.safeParse(json, { reportInput: true });
  if (!decoded.success) throw new UsageError(`--body: ${describeIssues(decoded.error)}`);
  return decoded.data;
}

/**
 * Bytes (the channel preview's PNG) are printed as the Base64 the wire carries. The holder's own value
 * is read, because a Buffer has already turned itself into {type, data} by the time `value` arrives.
 */
function jsonValue(this: Readonly<Record<string, unknown>>, key: string, value: unknown): unknown {
  const original = this[key];
  return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
}

/** " (did you mean …?)" for names a few letters away ("get-channels": get-channel, list-channels). */
function suggestion(name: string): string {
  const limit = Math.max(2, Math.floor(name.length / 3));
  const near = [...BY_NAME.keys()]
    .map((candidate) => ({ candidate, score: distance(name, candidate) }))
    .filter((s) => s.score <= limit)
    .sort((a, b) => a.score - b.score)
    .slice(0, 3);
  return near.length === 0 ? '' : ` (did you mean ${near.map((n) => JSON.stringify(n.candidate)).join(' or ')}?)`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}
