// What a command's arguments must be, per operation, derived from the operation table (api/operations.ts):
// the path's parameters in order (a channel or item index a whole number, a grid size one the service
// takes, a name a short string), then the request body as the recorder client takes it. A command is
// checked against this before anything is stored or sent, so a wrong-typed argument is refused with what
// is wrong instead of reaching the recorder as "/api/channels/%5Bobject%20Object%5D/rec-start".
import * as z from 'zod';
import { ProjectPath } from '../api/app.js';
import { GRID_SIZES } from '../api/channel.js';
import { operations, pathParamNames, type OperationId } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';

/** A path parameter by its name in the table: positions are whole numbers, names are strings (as PathParams types them). */
function pathParam(name: string): z.ZodType {
  if (name === 'grid_size') return z.union(GRID_SIZES.map((size) => z.literal(size)));
  if (name === 'index') return z.number().int().nonnegative().max(1_000_000);
  return z.string().min(1).max(256);
}

/**
 * The body as the client's method takes it: the value before encoding (the client encodes it with the
 * operation's request schema, which checks it), so it is checked the same way here. Saving and loading a
 * project take the file's path alone, which the client puts in the body's one field.
 */
function bodyArgument(id: OperationId, request: z.ZodType): z.ZodType {
  if (id === 'saveProject' || id === 'loadProject') return ProjectPath.shape.Path;
  return z.unknown().superRefine((value, context) => {
    const encoded = z.safeEncode(request, value);
    if (!encoded.success) for (const issue of encoded.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
}

/** The arguments' schema: exactly the operation's parameters, each checked by its own (issues say which argument). */
function argumentsOf(id: OperationId): z.ZodType<unknown[]> {
  const operation = operations[id];
  const request: z.ZodType | undefined = operation.request;
  const expected = [...pathParamNames(operation.path).map(pathParam), ...(request === undefined ? [] : [bodyArgument(id, request)])];
  return z
    .array(z.unknown())
    .max(expected.length, { error: `${id} takes ${describeArguments(id)}` })
    .superRefine((args, context) => {
      if (args.length < expected.length) context.addIssue({ code: 'custom', message: `${id} takes ${describeArguments(id)}, got ${args.length} argument${args.length === 1 ? '' : 's'}` });
      expected.forEach((schema, index) => {
        if (index >= args.length) return;
        const result = schema.safeParse(args[index]);
        if (!result.success) for (const issue of result.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: [index, ...issue.path] });
      });
    });
}

const made = new Map<OperationId, z.ZodType<unknown[]>>();

/** An operation's arguments' schema, made at its first command (a poller checks every command). */
export function commandArguments(id: OperationId): z.ZodType<unknown[]> {
  let schema = made.get(id);
  if (schema === undefined) {
    schema = argumentsOf(id);
    made.set(id, schema);
  }
  return schema;
}

/**
 * The arguments as a command carries them on the bus (CommandMessage): numbers, strings and bodies, at
 * most three. A poller checks them against their operation (commandArguments) before anything else.
 */
export const CommandArgs = z.array(z.union([z.number(), z.string(), z.record(z.string(), z.unknown())])).max(3);
export type CommandArgs = z.output<typeof CommandArgs>;

/** How many arguments an operation takes on the bus: its path's parameters, then its body. */
function parameterCount(id: OperationId): number {
  const operation = operations[id];
  return pathParamNames(operation.path).length + (operation.request === undefined ? 0 : 1);
}

/**
 * A client call's arguments as a command carries them: the operation's own (a call's trailing request
 * options are this process's, never the poller's), checked as the poller will check them, so a panel
 * never sends what the poller must refuse; or what is wrong with them.
 */
export function commandArgsOf(call: ClientCall): { ok: true; args: CommandArgs } | { ok: false; error: string } {
  const args: readonly unknown[] = call.args.slice(0, parameterCount(call.method));
  const error = argumentError({ method: call.method, args });
  if (error !== null) return { ok: false, error };
  const wire = CommandArgs.safeParse(args);
  return wire.success ? { ok: true, args: wire.data } : { ok: false, error: `${call.method}: ${wire.error.issues[0]?.message ?? 'invalid'} (a command carries numbers, strings and bodies)` };
}

/** A call as it arrives: a method of the table and arguments not yet checked. */
export interface UncheckedCall {
  method: OperationId;
  args: readonly unknown[];
}

/** Whether a call's arguments are what its operation takes (the check that makes it a ClientCall). */
export function isClientCall(call: UncheckedCall): call is ClientCall & UncheckedCall {
  return commandArguments(call.method).safeParse(call.args).success;
}

/** What is wrong with a call's arguments, or null when they fit its operation. */
export function argumentError(call: UncheckedCall): string | null {
  const result = commandArguments(call.method).safeParse(call.args);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `argument ${issue.path.map(String).join('.')}: ` : '';
  return `${where}${issue?.message ?? 'invalid'} (${call.method} takes ${describeArguments(call.method)})`;
}

/** "index, source_name" or "a body" or "no arguments". */
export function describeArguments(id: OperationId): string {
  const operation = operations[id];
  const names = [...pathParamNames(operation.path), ...(operation.request === undefined ? [] : [id === 'saveProject' || id === 'loadProject' ? 'path' : 'body'])];
  return names.length === 0 ? 'no arguments' : names.join(', ');
}
