// The profile editor's API against the whole bridge: listing with the reasons, reading with an ETag,
// every edit route, and each refusal (bad binding, stale ETag, no ETag, a path or link outside the
// folders, a shipped file, editing off, a client beyond this machine without the password).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';

const SHIPPED_15 = new URL('../../profiles/web-15-keys.yaml', import.meta.url).pathname;
const TOGGLE = { show: { channel: 1 }, press: { action: 'rec-toggle', channel: 1 }, hold: { ms: 1000, do: { action: 'rec-stop', channel: 1 } } };
const KEY0_PATH = `/profiles/studio-15.yaml/pages/${encodeURIComponent('Channels 1-8')}/controls/key0`;

/** An operator folder holding a copy of the shipped 15-key web profile (the operator's wins the tie). */
function ownFolder(): { folder: string; file: string; original: string } {
  const root = mkdtempSync(join(tmpdir(), 'recdeck-editor-'));
  const folder = join(root, 'mine');
  mkdirSync(folder);
  const file = join(folder, 'studio-15.yaml');
  copyFileSync(SHIPPED_15, file);
  return { folder, file, original: readFileSync(file, 'utf8') };
}

const json = { 'content-type': 'application/json' };
type Listing = { editing: boolean; files: Array<{ id: string; origin: string; surfaces: Array<{ surface: string; drives: boolean; why: string }> }> };

describe('profile editor API, editing allowed', () => {
  let f: RemoteFixture;
  let own: ReturnType<typeof ownFolder>;
  let audit: string;
  const etag = async () => (await f.call('GET', '/profiles/studio-15.yaml')).json as { etag: string; yaml: string };
  const key0 = () => f.running.bridge.session('web:web-15')?.describeControls().find((c) => c.control.id === 'key0')?.binding;

  beforeAll(async () => {
    own = ownFolder();
    audit = join(own.folder, '..', 'audit.jsonl');
    f = await startRemoteFixture({ ownProfiles: own.folder, allowEdit: true, auditFile: audit });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('GET /profiles lists each file, which surfaces it drives, and why the others lose', async () => {
    const answer = await f.call('GET', '/profiles');
    expect(answer.status).toBe(200);
    const listing = answer.json as Listing;
    expect(listing.editing).toBe(true);
    const mine = listing.files.find((file) => file.id === 'studio-15.yaml');
    const shipped = listing.files.find((file) => file.id === 'shipped:web-15-keys.yaml');
    expect(mine).toMatchObject({ origin: 'operator', surfaces: [{ surface: 'web:web-15', drives: true, why: 'fits by model, your own' }] });
    expect(shipped).toMatchObject({ origin: 'shipped', surfaces: [{ surface: 'web:web-15', drives: false, why: 'studio-15.yaml is your own and fits as specifically: yours win' }] });
  });

  it('GET /profiles/FILE gives the YAML, the parsed profile and the ETag', async () => {
    const answer = await f.call('GET', '/profiles/studio-15.yaml');
    expect(answer.status).toBe(200);
    const body = answer.json as { etag: string; yaml: string; profile: { name: string } };
    expect(body.yaml).toBe(own.original);
    expect(body.profile.name).toBe('Web 15 keys');
  });

  it('PUT a control: only its line changes, the deck takes it, a press does the new action; the audit log says who, what, before and after', async () => {
    const { etag: tag } = await etag();
    const answer = await f.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, JSON.stringify(TOGGLE));
    expect(answer.status).toBe(200);
    const after = readFileSync(own.file, 'utf8');
    const before = own.original.split('\n');
    expect(after.split('\n').filter((line, i) => line !== before[i])).toEqual(['      key0: { show: { channel: 1 }, press: { action: rec-toggle, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }']);
    expect(readFileSync(`${own.file}.bak`, 'utf8')).toBe(own.original);
    await until(() => (key0()?.press as { action?: string } | undefined)?.action === 'rec-toggle', 'the hot reload');
    const mark = f.sim.sim.log.list().at(-1)?.seq ?? 0;
    expect((await f.call('POST', '/surfaces/web:web-15/keys/0/press')).status).toBe(200);
    await until(() => f.sim.sim.recorder().channels()[0]?.IsRecording === true, 'channel 1 to record');
    expect(f.sim.sim.log.list().filter((r) => r.seq > mark && r.method === 'PUT').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);
    await until(() => readFileSync(audit, 'utf8').includes('profile-edit'), 'the audit line');
    const line = JSON.parse(readFileSync(audit, 'utf8').split('\n').find((l) => l.includes('profile-edit')) as string);
    expect(line).toMatchObject({ kind: 'profile-edit', who: '127.0.0.1 (loopback, no password set)', file: 'studio-15.yaml', edit: 'set-control', page: 'Channels 1-8', control: 'key0', before: { press: { action: 'rec-start', channel: 1 } }, after: TOGGLE });
  });

  it('a bad binding is 400 in the loader\'s words, naming the field; nothing is written', async () => {
    const { etag: tag, yaml } = await etag();
    const answer = await f.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, JSON.stringify({ press: { action: 'rec-toggel', channel: 1 } }));
    expect(answer.status).toBe(400);
    const body = answer.json as { error: string; problems: Array<{ path: string; message: string }> };
    expect(body.error).toMatch(/^pages\[0\]\.controls\.key0\.press\.action: /);
    expect(body.error).toContain('rec-toggle');
    expect(readFileSync(own.file, 'utf8')).toBe(yaml);
    expect((await f.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, '{not json')).status).toBe(400);
    expect((await f.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, JSON.stringify({ press: { action: 'page-next' }, pad: 'x'.repeat(70_000) }))).status).toBe(413);
  });

  it('a stale ETag is 409 with the file as it is now; a missing one is 428; the change on disk stays', async () => {
    const { etag: tag } = await etag();
    const changed = `${readFileSync(own.file, 'utf8')}# changed by hand meanwhile\n`;
    writeFileSync(own.file, changed);
    const answer = await f.call('DELETE', KEY0_PATH, { 'if-match': tag });
    expect(answer.status).toBe(409);
    expect((answer.json as { yaml: string }).yaml).toBe(changed);
    expect(readFileSync(own.file, 'utf8')).toBe(changed);
    expect((await f.call('DELETE', KEY0_PATH)).status).toBe(428);
  });

  it('a binding the surface cannot carry out is saved with the bridge\'s warning', async () => {
    const { etag: tag } = await etag();
    const answer = await f.call('PUT', '/profiles/studio-15.yaml/pages/Setup/controls/key4', { ...json, 'if-match': tag }, JSON.stringify({ turn: { action: 'page-next' } }));
    expect(answer.status).toBe(200);
    expect((answer.json as { warnings: string[] }).warnings).toEqual(['web:web-15: page "Setup": control "key4": turn is bound, but it is a key; only dials turn']);
  });

  it('two saves against one ETag at once: one is written, the other is 409', async () => {
    const { etag: tag } = await etag();
    const put = (channel: number) => f.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, JSON.stringify({ press: { action: 'rec-toggle', channel } }));
    const answers = await Promise.all([put(3), put(4)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it('DELETE a control, add, rename and move a page, then undo the last save', async () => {
    let { etag: tag } = await etag();
    const step = async (method: string, path: string, body?: unknown) => {
      const answer = await f.call(method, path, { ...json, 'if-match': tag }, body === undefined ? undefined : JSON.stringify(body));
      expect(answer.status, answer.text).toBe(200);
      tag = (answer.json as { etag: string }).etag;
    };
    await step('DELETE', KEY0_PATH);
    await step('POST', '/profiles/studio-15.yaml/pages', { name: 'Extra' });
    await step('PATCH', '/profiles/studio-15.yaml/pages/Extra', { index: 1 });
    const beforeRename = readFileSync(own.file, 'utf8');
    await step('PATCH', '/profiles/studio-15.yaml/pages/Extra', { name: 'More' });
    const profile = ((await f.call('GET', '/profiles/studio-15.yaml')).json as { profile: { pages: Array<{ name: string; controls: Record<string, unknown> }> } }).profile;
    expect(profile.pages.map((p) => p.name)).toEqual(['Channels 1-8', 'More', 'Channels 9-16', 'Setup', 'Dialog']);
    expect(profile.pages[0]?.controls.key0).toBeUndefined();
    await step('POST', '/profiles/studio-15.yaml/undo');
    expect(readFileSync(own.file, 'utf8')).toBe(beforeRename);
  });

  it('paths outside the folders, links leading out of them and shipped files are never written', async () => {
    const traversal = await f.call('GET', '/profiles/..%2F..%2Fetc%2Fpasswd');
    expect(traversal.status).toBe(404);
    expect((await f.call('GET', `/profiles/${encodeURIComponent(SHIPPED_15)}`)).status).toBe(404);
    const outside = join(own.folder, '..', 'outside.yaml');
    copyFileSync(SHIPPED_15, outside);
    symlinkSync(outside, join(own.folder, 'link.yaml'));
    await until(async () => ((await f.call('GET', '/profiles')).json as Listing).files.some((file) => file.id === 'link.yaml'), 'the link listed');
    const read = await f.call('GET', '/profiles/link.yaml');
    expect(read.status).toBe(403);
    expect((read.json as { error: string }).error).toContain('leads outside the profile folders');
    const put = await f.call('PUT', '/profiles/link.yaml/pages/Setup/controls/key4', { ...json, 'if-match': '"x"' }, JSON.stringify({ press: { action: 'page-next' } }));
    expect(put.status).toBe(403);
    expect(readFileSync(outside, 'utf8')).toBe(readFileSync(SHIPPED_15, 'utf8'));
    const shipped = (await f.call('GET', '/profiles/shipped:web-15-keys.yaml')).json as { etag: string };
    const refused = await f.call('PUT', '/profiles/shipped:web-15-keys.yaml/pages/Setup/controls/key4', { ...json, 'if-match': shipped.etag }, JSON.stringify({ press: { action: 'page-next' } }));
    expect(refused.status).toBe(403);
    expect((refused.json as { error: string }).error).toContain('make your own copy');
  });

  it('POST …/copy makes my own for a surface in my folder; an existing copy is never overwritten', async () => {
    const answer = await f.call('POST', '/profiles/shipped:web-32-keys.yaml/copy', json, JSON.stringify({ surface: 'web:web-32' }));
    expect(answer.status, answer.text).toBe(201);
    const id = (answer.json as { id: string }).id;
    const copy = readFileSync(join(own.folder, id), 'utf8');
    expect(copy).toContain('name: Web 32 keys (Web deck, 32 keys)');
    expect(copy).toContain(`$schema=${new URL('../../profiles/recdeck-profile.schema.json', import.meta.url).pathname}`);
    await until(() => f.running.bridge.session('web:web-32')?.profileFile === join(own.folder, id), 'the copy to drive the deck');
    expect((await f.call('POST', '/profiles/shipped:web-32-keys.yaml/copy', json, JSON.stringify({ surface: 'web:web-32' }))).status).toBe(409);
  });
});

describe('profile editor API, make my own into a folder not made yet', () => {
  it('the folder --profile names is created by the first copy, which then drives the deck', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'recdeck-editor-new-')), 'not-yet');
    const f = await startRemoteFixture({ ownProfiles: folder, allowEdit: true });
    try {
      const answer = await f.call('POST', '/profiles/shipped:web-15-keys.yaml/copy', json, JSON.stringify({ surface: 'web:web-15' }));
      expect(answer.status, answer.text).toBe(201);
      const id = (answer.json as { id: string }).id;
      expect(readFileSync(join(folder, id), 'utf8')).toContain('name: Web 15 keys (Web deck, 15 keys)');
      await until(() => f.running.bridge.session('web:web-15')?.profileFile === join(folder, id), 'the copy to drive the deck');
    } finally {
      await f.close();
    }
  });
});

describe('profile editor API, refusals of the setup', () => {
  it('without --allow-edit it reads but never writes', async () => {
    const own = ownFolder();
    const f = await startRemoteFixture({ ownProfiles: own.folder });
    try {
      const read = await f.call('GET', '/profiles/studio-15.yaml');
      expect(read.status).toBe(200);
      const answer = await f.call('PUT', KEY0_PATH, { ...json, 'if-match': (read.json as { etag: string }).etag }, JSON.stringify(TOGGLE));
      expect(answer.status).toBe(403);
      expect((answer.json as { error: string }).error).toContain('--allow-edit');
      expect(readFileSync(own.file, 'utf8')).toBe(own.original);
    } finally {
      await f.close();
    }
  });

  it('with a password every edit needs it; without one a client beyond this machine (via a trusted proxy) may not edit', async () => {
    const own = ownFolder();
    const locked = await startRemoteFixture({ ownProfiles: own.folder, allowEdit: true, password: 'correct horse battery' });
    try {
      const bearer = { authorization: 'Bearer correct horse battery' };
      const read = await locked.call('GET', '/profiles/studio-15.yaml', bearer);
      const tag = (read.json as { etag: string }).etag;
      expect((await locked.call('PUT', KEY0_PATH, { ...json, 'if-match': tag }, JSON.stringify(TOGGLE))).status).toBe(401);
      expect(readFileSync(own.file, 'utf8')).toBe(own.original);
      expect((await locked.call('PUT', KEY0_PATH, { ...json, ...bearer, 'if-match': tag }, JSON.stringify(TOGGLE))).status).toBe(200);
    } finally {
      await locked.close();
    }
    const other = ownFolder();
    const open = await startRemoteFixture({ ownProfiles: other.folder, allowEdit: true, trustProxies: ['127.0.0.1'] });
    try {
      const tag = ((await open.call('GET', '/profiles/studio-15.yaml')).json as { etag: string }).etag;
      const answer = await open.call('PUT', KEY0_PATH, { ...json, 'if-match': tag, 'x-forwarded-for': '192.0.2.7' }, JSON.stringify(TOGGLE));
      expect(answer.status).toBe(403);
      expect((answer.json as { error: string }).error).toContain('needs the web password');
      expect(readFileSync(other.file, 'utf8')).toBe(other.original);
    } finally {
      await open.close();
    }
  });
});
