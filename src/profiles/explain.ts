// Turns zod's issues about a profile into findings a person editing YAML understands: which field,
// what was expected, what was given, and a suggestion when a name is nearly right.
import type * as z from 'zod';
import type { Finding, PathSegment } from './locate.js';

type Issue = z.core.$ZodIssue;
type UnionIssue = Extract<Issue, { code: 'invalid_union' }>;
type Branch = readonly Issue[];

/** Fields whose values are never repeated in a message: a token written in a profile is a leaked secret. */
const SECRET_FIELDS = new Set<PathSegment>(['token']);

export function explainIssue(issue: Issue, base: readonly PathSegment[], data: unknown): Finding[] {
  const path = [...base, ...issue.path];
  const value = valueAt(data, path);
  const got = SECRET_FIELDS.has(path.at(-1) ?? '') ? '' : received(value);
  const found = (message: string): Finding[] => [{ path, message, at: 'value' }];
  switch (issue.code) {
    case 'invalid_union':
      return explainUnion(issue, path, data);
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"`, at: 'key' }));
    case 'invalid_key': {
      const reasons = issue.issues.map((inner) => innerMessage(inner, path.at(-1)));
      return [{ path, message: `the name ${JSON.stringify(String(path.at(-1)))} is not allowed here: ${reasons.join('; ')}`, at: 'key' }];
    }
    case 'invalid_type':
      if (value === undefined) return found(`missing: expected ${typeName(issue.expected)}`);
      if (isOwnWording(issue.message)) return found(`${issue.message}${got}`);
      return found(`expected ${typeName(issue.expected)}${got}`);
    case 'invalid_value':
      return found(`${expectedValues(issue.values)}${got}${suggestion(value, issue.values)}`);
    case 'too_small':
    case 'too_big':
      return found(`${isOwnWording(issue.message) ? issue.message : sizeMessage(issue)}${got}`);
    case 'invalid_format':
      if (isOwnWording(issue.message)) return found(`${issue.message}${got}`);
      return found(`${issue.format === 'regex' && 'pattern' in issue ? `expected text matching ${String(issue.pattern)}` : `expected a valid ${issue.format}`}${got}`);
    case 'not_multiple_of':
      return found(`expected a multiple of ${String(issue.divisor)}${got}`);
    case 'custom':
      // Custom checks are about how fields relate (or say what they got themselves): no value to repeat.
      return found(issue.message);
    default:
      return found(stripZodPrefix(issue.message));
  }
}

/** The message of a check on a record key, which zod reports with an empty path of its own. */
function innerMessage(issue: Issue, key: PathSegment | undefined): string {
  const [finding] = explainIssue(issue, [], key);
  return finding?.message.replace(/, got .*$/, '') ?? stripZodPrefix(issue.message);
}

/**
 * A union failed: find the branch the writer meant and explain that one, because listing every
 * branch's complaints (38 actions' worth) helps nobody. The tag field (`action`) decides first; then
 * a branch of the wrong type drops out; then the branch that knows most of the given fields wins.
 */
function explainUnion(issue: UnionIssue, path: readonly PathSegment[], data: unknown): Finding[] {
  const value = valueAt(data, path);
  let branches = flattenUnion(issue);
  for (const tag of tagCandidates(branches)) {
    const missed = branches.filter((branch) => missesTag(branch, tag));
    if (missed.length === branches.length) {
      const given = isRecord(value) ? value[tag] : undefined;
      const values = [...new Set(branches.flatMap((branch) => tagValues(branch, tag)))];
      const message = given === undefined ? `missing: ${expectedValues(values)}` : `${expectedValues(values)}${received(given)}${suggestion(given, values)}`;
      return [{ path: [...path, tag], message, at: 'value' }];
    }
    if (missed.length > 0) branches = branches.filter((branch) => !missesTag(branch, tag));
  }
  const fitting = branches.filter((branch) => !wrongType(branch, value));
  // Every branch is a plain value of its own (a number or "selected"): name them all rather than the one
  // whose type happens to match, so `channel: sel` hears that a number would do too.
  if (fitting.length === 0 || branches.every(isOneRootValue)) {
    const expectations = [...new Set(branches.flatMap((branch) => rootExpectation(branch)))];
    const what = expectations.length > 0 ? `expected ${expectations.join(' or ')}` : 'matches none of the accepted forms';
    return [{ path, message: value === undefined ? `missing: ${what}` : `${what}${received(value)}`, at: 'value' }];
  }
  const best = fitting.reduce((chosen, branch) => (betterBranch(branch, chosen, value) ? branch : chosen));
  return best.flatMap((inner) => explainIssue(inner, path, data));
}

/** Unions of unions arrive nested; one flat list of branches is easier to choose from. */
function flattenUnion(issue: UnionIssue): Branch[] {
  return issue.errors.flatMap((branch): Branch[] => {
    const [only] = branch;
    if (branch.length === 1 && only?.code === 'invalid_union' && only.path.length === 0 && !isTagMiss(only)) return flattenUnion(only);
    return [branch];
  });
}

/** A discriminated union that found no member for the tag's value. */
function isTagMiss(issue: Issue): issue is UnionIssue & { discriminator: string; options: readonly unknown[] } {
  return issue.code === 'invalid_union' && issue.errors.length === 0 && typeof issue.discriminator === 'string' && 'options' in issue && Array.isArray(issue.options);
}

function tagCandidates(branches: readonly Branch[]): string[] {
  const tags = branches.flatMap((branch) =>
    branch.flatMap((issue) => {
      if (isTagMiss(issue)) return [issue.discriminator];
      if (issue.code === 'invalid_value' && issue.path.length === 1 && typeof issue.path[0] === 'string') return [issue.path[0]];
      return [];
    }),
  );
  return [...new Set(tags)];
}

/** The branch rejected the tag's value, or does not know the tag field at all. */
function missesTag(branch: Branch, tag: string): boolean {
  return branch.some(
    (issue) =>
      (isTagMiss(issue) && issue.discriminator === tag) ||
      (issue.code === 'invalid_value' && issue.path.length === 1 && issue.path[0] === tag) ||
      (issue.code === 'unrecognized_keys' && issue.path.length === 0 && issue.keys.includes(tag)),
  );
}

function tagValues(branch: Branch, tag: string): unknown[] {
  return branch.flatMap((issue) => {
    if (isTagMiss(issue) && issue.discriminator === tag) return [...issue.options];
    if (issue.code === 'invalid_value' && issue.path.length === 1 && issue.path[0] === tag) return [...issue.values];
    return [];
  });
}

/** The branch wants another kind of value altogether (an object where a string was given, …). */
function wrongType(branch: Branch, value: unknown): boolean {
  return branch.some(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' || (issue.code === 'invalid_value' && !issue.values.some((allowed) => typeof allowed === typeof value))),
  );
}

function isOneRootValue(branch: Branch): boolean {
  const [only] = branch;
  return branch.length === 1 && only !== undefined && only.path.length === 0 && (only.code === 'invalid_type' || only.code === 'invalid_value');
}

function rootExpectation(branch: Branch): string[] {
  return branch.flatMap((issue) => {
    if (issue.path.length > 0) return [];
    if (issue.code === 'invalid_type') return [typeName(issue.expected)];
    if (issue.code === 'invalid_value') return [expectedValues(issue.values).replace(/^expected /, '')];
    return [];
  });
}

/** More of the given fields known, then fewer complaints; on a tie the earlier branch stays. */
function betterBranch(candidate: Branch, chosen: Branch, value: unknown): boolean {
  const known = (branch: Branch) => {
    if (!isRecord(value)) return 0;
    const unknown = new Set(branch.flatMap((issue) => (issue.code === 'unrecognized_keys' && issue.path.length === 0 ? issue.keys : [])));
    return Object.keys(value).filter((key) => !unknown.has(key)).length;
  };
  const difference = known(candidate) - known(chosen);
  return difference > 0 || (difference === 0 && candidate.length < chosen.length);
}

// Wording ----------------------------------------------------------------------------------------

/** A schema's own error text (e.g. "expected a colour as #rrggbb") beats any generic one. */
function isOwnWording(message: string): boolean {
  return !/^(Invalid|Too (small|big))\b/.test(message);
}

function stripZodPrefix(message: string): string {
  return message.replace(/^Invalid (input|string|value): /, '');
}

function typeName(expected: string): string {
  if (expected === 'int') return 'a whole number';
  if (expected === 'object') return 'a mapping of fields';
  if (expected === 'array') return 'a list';
  if (expected === 'nonoptional') return 'a value';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function expectedValues(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  return quoted.length === 1 ? `expected ${quoted[0]}` : `expected one of ${quoted.join(', ')}`;
}

function sizeMessage(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  const bound = small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
  switch (issue.origin) {
    case 'number':
    case 'int':
    case 'bigint':
      return `expected ${bound} ${limit}`;
    case 'string':
      return small && limit === 1 ? 'expected some text, not an empty string' : `expected ${bound} ${limit} characters`;
    case 'array':
    case 'set':
      return small && limit === 1 ? 'expected at least one item' : `expected ${bound} ${limit} items`;
    default:
      return stripZodPrefix(issue.message);
  }
}

/** `, got "rec-strat"` in the words of someone who wrote YAML. */
function received(value: unknown): string {
  if (value === undefined) return ', got nothing';
  if (value === null) return ', got an empty value';
  if (Array.isArray(value)) return ', got a list';
  if (typeof value === 'object') return ', got a mapping';
  const text = JSON.stringify(value);
  return `, got ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

/** ` (did you mean "rec-start"?)` when the given text is a near miss of exactly one allowed value. */
function suggestion(given: unknown, allowed: readonly unknown[]): string {
  if (typeof given !== 'string') return '';
  const near = allowed.filter((value): value is string => typeof value === 'string' && editDistance(given, value) <= Math.max(1, Math.floor(value.length / 4)));
  return near.length === 1 ? ` (did you mean "${near[0]}"?)` : '';
}

/** Levenshtein distance with a swap of neighbours counting as one edit ("strat" → "start"). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const cell = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, cell(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return cell(a.length, b.length);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (isRecord(value)) value = value[String(segment)];
    else return undefined;
  }
  return value;
}
