// Each command's flags as one table: what parseArgs needs (type, multiple, short, default) beside what a
// person needs (the value's name, its meaning, its default as said in words). The usage line and --help
// are generated from the table, so they can never drift from what the command accepts.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { messageOf } from '../api/errors.js';
import { UsageError } from './usage-error.js';

export type Flag = NonNullable<ParseArgsConfig['options']>[string] & {
  /** What the value is, as in the usage line: "FILE", "N", "[NAME=]URL". Booleans have none. */
  value?: string;
  description: string;
  /** The default as shown when it is not the parser's default (computed, or from the environment). */
  shownDefault?: string;
};

export type FlagTable = Record<string, Flag>;

/** Every command takes --help (-h). */
export const HELP_FLAG = { help: { type: 'boolean', short: 'h', default: false, description: 'show this help and exit' } } satisfies FlagTable;

export interface CommandSpec {
  name: string;
  /** What comes before the flags, e.g. "OPERATION [PARAM …]". */
  positionals?: string;
  summary: string;
  flags: FlagTable;
  /** Lines after the flags: environment, examples. */
  notes?: readonly string[];
}

/**
 * parseArgs with the project's messages: a negative number after a flag is its value (parseArgs would
 * take "-5" for an option and answer with its own generic text), and an unknown or malformed flag is a
 * usage error that points to --help.
 */
export function parseFlags<T extends FlagTable>(spec: { name: string; flags: T }, args: string[], allowPositionals = false) {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const flag = arg.startsWith('--') ? spec.flags[arg.slice(2)] : undefined;
    if (flag?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  try {
    return parseArgs({ args: joined, options: spec.flags, strict: true, allowPositionals });
  } catch (error) {
    if (!(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw error;
    const message = messageOf(error).split('. ')[0] ?? '';
    throw new UsageError(`${message}; recdeck ${spec.name} --help lists the options`);
  }
}

/** A whole number within bounds, or a usage error naming the flag, the range and what was given. */
export function wholeNumber(flag: string, text: string, min: number, max: number, unit = ''): number {
  const value = Number(text);
  const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
  if (!/^\d+$/.test(text) || value < min || value > max) throw new UsageError(`${flag}: expected a whole number${unit === '' ? '' : ` of ${unit}`} ${range}, got ${text}`);
  return value;
}

function flagSynopsis(name: string, flag: Flag): string {
  const value = flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : '';
  return `[--${name}${value}${flag.multiple === true ? ' …' : ''}]`;
}

/** The one-line usage: the command, its positionals and every flag but --help. */
export function usageLine(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags).filter(([name]) => name !== 'help');
  return [`recdeck ${spec.name}`, ...(spec.positionals ? [spec.positionals] : []), ...flags.map(([name, flag]) => flagSynopsis(name, flag))].join(' ');
}

function defaultText(flag: Flag): string | null {
  if (flag.shownDefault !== undefined) return flag.shownDefault;
  const value = flag.default;
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return null;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Help lines are kept to this many characters where words allow (a terminal's width, give or take). */
export const HELP_WIDTH = 110;

/** Words into lines of at most `width` characters (a longer word gets a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** --help: the usage, what the command does, each flag with its meaning and default, then the notes. */
export function helpText(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => {
    const left = `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`;
    const fallback = defaultText(flag);
    return { left, right: `${flag.description}${flag.multiple === true ? ' (may be repeated)' : ''}${fallback === null ? '' : ` [default: ${fallback}]`}` };
  });
  const width = Math.max(...rows.map((r) => r.left.length));
  return [
    `usage: ${usageLine(spec)}`,
    '',
    ...wrap(spec.summary, HELP_WIDTH),
    '',
    'Options:',
    ...rows.flatMap((r) => wrap(r.right, HELP_WIDTH - width - 4).map((line, i) => `  ${(i === 0 ? r.left : '').padEnd(width)}  ${line}`)),
    ...(spec.notes && spec.notes.length > 0 ? ['', ...spec.notes] : []),
    '',
  ].join('\n');
}
