// The profile editor's HTTP API: which profile files there are and which surfaces each drives (and why),
// a file's text and parsed value with its ETag, and the edits that write it. Reading is always open (as
// /state is); writing needs --allow-edit, and every write goes through ProfileFiles (inside the profile
// folders, checked by the loader, atomic, kept as FILE.bak) and into the audit log.
import { messageOf } from '../api/errors.js';
import type { IncomingMessage } from 'node:http';
import * as z from 'zod';
import type { Bridge } from '../engine/bridge.js';
import { ACTIONS } from '../engine/actions/index.js';
import { checkBindings, chooseProfile, profileFits } from '../engine/profile-match.js';
import type { Surface } from '../engine/surface.js';
import { EditError, type ProfileEdit } from '../profiles/edit-text.js';
import { jsonSchemaOf } from '../profiles/json-schema.js';
import { parseProfile } from '../profiles/load.js';
import { InvalidEdit, StaleEdit, type ProfileFiles, type SavedEdit } from '../profiles/profile-files.js';
import { Binding } from '../profiles/schema.js';

/** One save in the audit log: who, which file, which control (or page), before and after. */
export interface ProfileEditRecord {
  at: number;
  kind: 'profile-edit';
  who: string;
  file: string;
  edit: ProfileEdit['kind'] | 'undo' | 'copy';
  page: string | null;
  control: string | null;
  before: unknown;
  after: unknown;
}

export interface ProfileEditing {
  files: ProfileFiles;
  /** False without --allow-edit: reading only. */
  allowed: boolean;
  audit: (record: ProfileEditRecord) => void;
}

export type ProfilesAnswer = { status: number; body: unknown; headers?: Record<string, string> };

/** A request body is one binding or a page's name: never more than this. */
export const MAX_EDIT_BODY_BYTES = 64 * 1024;

const SPECIFICITY_NAMES = { 4: 'serial', 3: 'name', 2: 'model', 1: 'kind', 0: 'the shape it stands in for' } as const;

/** Answers a request under /profiles, or null when the path is not the editor's. */
export async function answerProfiles(request: IncomingMessage, parts: string[], bridge: Bridge, editing: ProfileEditing, who: string): Promise<ProfilesAnswer | null> {
  if (parts[0] !== 'profiles') return null;
  const method = request.method ?? 'GET';
  try {
    if (parts.length === 1) return await only(method, 'GET', async () => ({ status: 200, body: await listing(bridge, editing) }));
    if (parts.length === 2 && parts[1] === 'schema.json') return await only(method, 'GET', () => ({ status: 200, body: editorSchema(bridge) }));
    const id = parts[1] as string;
    if (parts.length === 2) {
      return await only(method, 'GET', async () => {
        const file = await editing.files.read(id);
        const parsed = parseProfile(file.text, file.entry.id);
        const body = { id, origin: file.entry.origin, etag: file.etag, yaml: file.text, profile: parsed.ok ? parsed.loaded.profile : null, problems: parsed.ok ? [] : parsed.problems };
        return { status: 200, body, headers: { etag: file.etag } };
      });
    }
    if (method === 'GET') return { status: 405, body: { error: `method GET not allowed here: this route writes (${parts.slice(2).join('/')})` } };
    if (!editing.allowed) return { status: 403, body: { error: 'editing profiles is off: start recdeck run with --allow-edit to edit them from the page or this API' } };
    const ifMatch = request.headers['if-match'] ?? null;
    const write = (edit: ProfileEdit) => editing.files.edit(id, ifMatch, edit);
    const record = (saved: SavedEdit, edit: ProfileEditRecord['edit'], page: string | null, control: string | null): ProfilesAnswer => {
      editing.audit({ at: bridge.time.now(), kind: 'profile-edit', who, file: saved.entry.id, edit, page, control, before: saved.before, after: saved.after });
      return { status: 200, body: { ok: true, id: saved.entry.id, etag: saved.etag }, headers: { etag: saved.etag } };
    };
    const [, , group, page, sub, control] = parts;
    if (parts.length === 3 && group === 'undo') return await only(method, 'POST', async () => record(await editing.files.undo(id, ifMatch), 'undo', null, null));
    if (parts.length === 3 && group === 'copy') return await only(method, 'POST', async () => copy(editing, id, await readJson(request), bridge, record));
    if (parts.length === 3 && group === 'pages') {
      return await only(method, 'POST', async () => {
        const name = pageName(await readJson(request));
        return record(await write({ kind: 'add-page', name }), 'add-page', name, null);
      });
    }
    if (parts.length === 4 && group === 'pages' && page !== undefined) {
      return await only(method, 'PATCH', async () => {
        const body = await readJson(request);
        const change = z.union([z.strictObject({ name: z.string().min(1) }), z.strictObject({ index: z.number().int().min(0) })]).safeParse(body);
        if (!change.success) throw new EditError(400, 'expected {"name": "new name"} or {"index": N} (0 is first)');
        if ('name' in change.data) return record(await write({ kind: 'rename-page', page, name: change.data.name }), 'rename-page', page, null);
        return record(await write({ kind: 'move-page', page, index: change.data.index }), 'move-page', page, null);
      });
    }
    if (parts.length === 6 && group === 'pages' && page !== undefined && sub === 'controls' && control !== undefined) {
      if (method === 'PUT') {
        const binding = await readJson(request);
        if (binding === null || typeof binding !== 'object' || Array.isArray(binding)) throw new EditError(400, 'expected a binding as a JSON object, like {"press": {"action": "rec-toggle", "channel": 1}}');
        const answer = record(await write({ kind: 'set-control', page, control, binding }), 'set-control', page, control);
        return { ...answer, body: { ...(answer.body as object), warnings: await bindingWarnings(bridge, id, page, control, binding, editing) } };
      }
      if (method === 'DELETE') return record(await write({ kind: 'delete-control', page, control }), 'delete-control', page, control);
      return { status: 405, body: { error: `method ${method} not allowed here: expected PUT or DELETE` } };
    }
    return { status: 404, body: { error: `no route ${method} /${parts.join('/')}` } };
  } catch (error) {
    return refusal(error);
  }
}

async function only(method: string, expected: string, answer: () => ProfilesAnswer | Promise<ProfilesAnswer>): Promise<ProfilesAnswer> {
  if (method !== expected) return { status: 405, body: { error: `method ${method} not allowed here: expected ${expected}` } };
  return answer();
}

function refusal(error: unknown): ProfilesAnswer {
  if (error instanceof InvalidEdit) {
    const [first] = error.problems;
    const problems = error.problems.map(({ path, message, line, column }) => ({ path, message, line, column }));
    return { status: 400, body: { error: first ? `${first.path}: ${first.message}` : error.message, problems } };
  }
  if (error instanceof StaleEdit) return { status: 409, body: { error: error.message, etag: error.current.etag, yaml: error.current.text }, headers: { etag: error.current.etag } };
  if (error instanceof EditError) return { status: error.status, body: { error: error.message } };
  throw error;
}

function pageName(body: unknown): string {
  const parsed = z.strictObject({ name: z.string().min(1).max(100) }).safeParse(body);
  if (!parsed.success) throw new EditError(400, 'expected {"name": "page name"}');
  return parsed.data.name;
}

/** The body as JSON, at most MAX_EDIT_BODY_BYTES. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_EDIT_BODY_BYTES) throw new EditError(413, `the body is more than ${MAX_EDIT_BODY_BYTES} bytes: a binding is far less`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new EditError(400, `the body is not JSON: ${messageOf(error)}`);
  }
}

/**
 * What the surfaces the file drives cannot do of a binding the loader accepts (a turn on a key, a press
 * on a fader), in the words the bridge logs them with.
 */
async function bindingWarnings(bridge: Bridge, id: string, page: string, control: string, binding: unknown, editing: ProfileEditing): Promise<string[]> {
  const parsed = Binding.safeParse(binding);
  if (!parsed.success) return [];
  const { path } = await editing.files.entry(id);
  const drives = bridge.attachedSurfaces().filter((surface) => chooseProfile(surface, bridge.loadedProfiles())?.winner.file === path);
  return drives.flatMap((surface) => checkBindings({ pages: [{ name: page, controls: { [control]: parsed.data } }] }, surface.controls).map((message) => `${surface.id}: ${message}`));
}

/** "Make my own" for one surface: the copy's match is pinned to its serial (or its name, when it has no serial). */
async function copy(editing: ProfileEditing, id: string, body: unknown, bridge: Bridge, record: (saved: SavedEdit, edit: 'copy', page: null, control: null) => ProfilesAnswer): Promise<ProfilesAnswer> {
  const parsed = z.strictObject({ surface: z.string().min(1) }).safeParse(body);
  if (!parsed.success) throw new EditError(400, 'expected {"surface": "SURFACE ID"}: the device the copy is for');
  const surface = bridge.attachedSurfaces().find((s) => s.id === parsed.data.surface);
  if (!surface) throw new EditError(404, `no surface "${parsed.data.surface}"`);
  const model = surface.kind === 'web' || surface.model === '' ? {} : { model: surface.model };
  const pin = surface.serial !== undefined ? { serial: surface.serial } : { name: surface.name };
  const source = await editing.files.read(id);
  const parsedSource = parseProfile(source.text, id);
  const name = `${parsedSource.ok ? parsedSource.loaded.profile.name : surface.name} (${surface.serial ?? surface.name})`;
  const match = surface.kind === 'web' ? { kind: surface.kind, model: surface.model } : { kind: surface.kind, ...model, ...pin };
  const saved = await editing.files.copy(id, { match, name, suffix: surface.serial ?? surface.name });
  const answer = record(saved, 'copy', null, null);
  return { ...answer, status: 201 };
}

/** Each file, what it is, and which surfaces it drives or fits and loses, with the reason. */
async function listing(bridge: Bridge, editing: ProfileEditing) {
  const entries = await editing.files.list();
  const loaded = bridge.loadedProfiles();
  const surfaces = bridge.attachedSurfaces();
  const ids = new Map(entries.map((entry) => [entry.path, entry.id]));
  const idOf = (file: string) => ids.get(file) ?? file;
  return {
    editing: editing.allowed,
    ownFolder: editing.files.ownFolder,
    files: entries.map((entry) => {
      const profile = loaded.find((l) => l.file === entry.path);
      return {
        id: entry.id,
        origin: entry.origin,
        name: profile?.profile.name ?? null,
        loaded: profile !== undefined,
        match: profile?.profile.match ?? null,
        surfaces: profile ? surfaces.flatMap((surface) => fitOf(surface, profile.file, bridge, idOf)) : [],
      };
    }),
  };
}

function fitOf(surface: Surface, file: string, bridge: Bridge, idOf: (file: string) => string) {
  const profiles = bridge.loadedProfiles();
  const mine = profiles.find((p) => p.file === file);
  const specificity = mine ? profileFits(mine.profile, surface) : null;
  if (!mine || specificity === null) return [];
  const choice = chooseProfile(surface, profiles);
  const by = SPECIFICITY_NAMES[specificity as 0 | 1 | 2 | 3 | 4];
  const base = { surface: surface.id, name: surface.name, fitsBy: by };
  if (choice?.winner.file === file) {
    const tie = choice.others.length > 0 ? `; ties with ${choice.others.map((o) => idOf(o.file)).join(', ')} and wins by file name only` : '';
    return [{ ...base, drives: true, why: `fits by ${by}${mine.origin === 'operator' ? ', your own' : ', shipped'}${tie}` }];
  }
  const winner = choice?.winner;
  const winnerBy = winner ? SPECIFICITY_NAMES[profileFits(winner.profile, surface) as 0 | 1 | 2 | 3 | 4] : null;
  const why =
    winner === undefined ? 'not in use'
    : winnerBy !== by ? `${idOf(winner.file)} fits more specifically (by ${winnerBy})`
    : winner.origin !== mine.origin ? `${idOf(winner.file)} is your own and fits as specifically: yours win`
    : `${idOf(winner.file)} fits as specifically and wins by file name only (a tie)`;
  return [{ ...base, drives: false, why }];
}

/** What the page's forms are made from: the binding's JSON Schema (from the zod schema) and each action's description and example. */
function editorSchema(bridge: Bridge) {
  return {
    binding: jsonSchemaOf(Binding, { $id: 'recdeck-binding', title: 'recdeck binding', description: 'What one control shows and does' }),
    actions: Object.entries(ACTIONS).map(([name, entry]) => ({
      name,
      kind: entry.kind,
      description: entry.schema.description ?? '',
      example: entry.example,
      parameters: z.toJSONSchema(entry.schema, { io: 'input', unrepresentable: 'any' }),
    })),
    recorders: bridge.recorderStates().map((state) => ({
      name: state.name,
      channels: (state.channels ?? []).map((c, i) => ({ number: i + 1, source: c.SourceName ?? null, destinations: [...c.Destinations] })),
      sources: (state.sources ?? []).map((s) => s.Name),
    })),
  };
}
