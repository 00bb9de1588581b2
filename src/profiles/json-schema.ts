// The JSON Schema of a profile file, generated from the zod schema so the two cannot disagree. Editors
// use it for completion and checking as the profile is typed (`$schema:` or yaml-language-server).
import * as z from 'zod';
import { Profile } from './schema.js';

export const PROFILE_SCHEMA_ID = 'https://recdeck.dev/schema/profile.json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface SchemaTitle {
  $id: string;
  title: string;
  description: string;
}

/** A zod schema as a JSON Schema file for editors, readable and plain. */
export function jsonSchemaOf(schema: z.ZodType, about: SchemaTitle): JsonObject {
  // io 'input': what may be written (fields with defaults are optional). Refinements (exactly one of
  // channel or source, …) have no JSON Schema form and are checked by the loader only.
  const generated = z.toJSONSchema(schema, { io: 'input', reused: 'ref', unrepresentable: 'any' });
  // A JSON round trip leaves plain data, exactly what the shipped file parses back to.
  const { $schema, ...rest } = inlineSingleUseDefinitions(JSON.parse(JSON.stringify(generated)) as JsonObject);
  return { ...($schema === undefined ? {} : { $schema }), ...about, ...rest };
}

export function profileJsonSchema(): JsonObject {
  return jsonSchemaOf(Profile, {
    $id: PROFILE_SCHEMA_ID,
    title: 'recdeck profile',
    description: 'Which control surfaces a profile fits, its pages of bindings, what each control shows and what it does.',
  });
}

/** A schema file's text: pretty-printed, with a trailing newline. */
export function jsonSchemaText(schema: JsonObject): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Keywords that only annotate, so a `$ref` beside them can be replaced by what it refers to. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * zod's 'ref' mode turns nearly every node into a numbered definition (`__schema42`), even ones used
 * once, which leaves the file unreadable. Definitions used once go back in place; the ones shared
 * (a channel reference, the recorder field, the actions) stay definitions, which keeps the file small.
 */
function inlineSingleUseDefinitions(schema: JsonObject): JsonObject {
  const definitions = schema.$defs;
  if (!isObject(definitions)) return schema;
  const uses = new Map<string, number>();
  countReferences(schema, uses);
  const inlined = new Set<string>();

  const rewrite = (node: Json, visiting: ReadonlySet<string>): Json => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, visiting));
    if (!isObject(node)) return node;
    const name = typeof node.$ref === 'string' ? definitionName(node.$ref) : null;
    const target = name === null ? undefined : definitions[name];
    if (name !== null && isObject(target) && uses.get(name) === 1 && !visiting.has(name)) {
      const { $ref: _ref, ...beside } = node;
      if (Object.keys(beside).every((key) => ANNOTATIONS.has(key) || !(key in target))) {
        inlined.add(name);
        const inner = rewrite(target, new Set([...visiting, name]));
        return isObject(inner) ? { ...inner, ...rewriteEntries(beside, visiting) } : inner;
      }
    }
    return rewriteEntries(node, visiting);
  };
  const rewriteEntries = (node: JsonObject, visiting: ReadonlySet<string>): JsonObject =>
    Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === '$defs' ? value : rewrite(value, visiting)]));

  const { $defs: _original, ...root } = rewriteEntries(schema, new Set());
  // Every definition is rewritten before any is dropped: one used only inside a shared one is inlined there.
  const rewritten = Object.entries(definitions).map(([name, definition]) => [name, rewrite(definition, new Set([name]))] as const);
  const kept = rewritten.filter(([name]) => !inlined.has(name));
  return kept.length === 0 ? root : { ...root, $defs: Object.fromEntries(kept) };
}

function countReferences(node: Json, uses: Map<string, number>): void {
  if (Array.isArray(node)) {
    for (const item of node) countReferences(item, uses);
  } else if (isObject(node)) {
    const name = typeof node.$ref === 'string' ? definitionName(node.$ref) : null;
    if (name !== null) uses.set(name, (uses.get(name) ?? 0) + 1);
    for (const value of Object.values(node)) countReferences(value, uses);
  }
}

function definitionName(ref: string): string | null {
  return ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : null;
}

function isObject(node: Json | undefined): node is JsonObject {
  return typeof node === 'object' && node !== null && !Array.isArray(node);
}
