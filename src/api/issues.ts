// Turns zod's issues into one sentence per problem that names the field and what was expected, for
// the simulator's 400 answers and the client's decode errors alike.
import type * as z from 'zod';

export function describeIssues(error: z.ZodError, subject = 'body'): string {
  return error.issues.map((issue) => describeIssue(issue, subject)).join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, subject: string): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : subject;
  switch (issue.code) {
    case 'invalid_type':
      // A schema's own wording (e.g. "expected an integer from 0 to 9") beats zod's generic one.
      if (!issue.message.startsWith('Invalid input')) return `${where}: ${issue.message}${received(issue.input)}`;
      return `${where}: expected ${article(issue.expected === 'int' ? 'integer' : issue.expected)}${received(issue.input)}`;
    case 'unrecognized_keys':
      return `${where}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_value':
      return `${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${received(issue.input)}`;
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'custom':
      return `${where}: ${stripZodPrefix(issue.message)}${received(issue.input)}`;
    default:
      return `${where}: ${stripZodPrefix(issue.message)}`;
  }
}

function article(expected: string): string {
  if (expected === 'nonoptional') return 'a value';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function received(input: unknown): string {
  if (input === undefined) return ', got nothing';
  const text = JSON.stringify(input);
  return `, got ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

function stripZodPrefix(message: string): string {
  return message.replace(/^Invalid (input|string|value): /, '');
}
