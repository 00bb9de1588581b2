import { describe, expect, it } from 'vitest';
import { resolveRecorders } from '../../src/profiles/env.js';
import { parseProfile } from '../../src/profiles/load.js';
import type { LoadedProfile } from '../../src/profiles/schema.js';

function profileWithRecorders(recorders: string): LoadedProfile {
  const result = parseProfile(`name: x\nmatch: { kind: memory }\nrecorders:\n${recorders}pages: [{ name: main, controls: {} }]\n`, 'studio.yaml');
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.loaded;
}

const SECRET = 'perm:0b5e7c1a-1111-4222-8333-444455556666';

describe('resolveRecorders', () => {
  it('takes a literal URL and reads the token from the environment', () => {
    const loaded = profileWithRecorders('  main: { url: "http://127.0.0.1:9000/", token: "${RECDECK_TOKEN}" }\n');
    expect(resolveRecorders(loaded, { RECDECK_TOKEN: SECRET })).toEqual({
      recorders: [{ name: 'main', url: 'http://127.0.0.1:9000', token: SECRET }],
      problems: [],
    });
  });

  it('reads a URL given as a reference, and a recorder without a token has none', () => {
    const loaded = profileWithRecorders('  stage: { url: "${STAGE_URL}" }\n  booth: { url: "https://booth.local:9443" }\n');
    expect(resolveRecorders(loaded, { STAGE_URL: 'http://10.0.0.5:9000' })).toEqual({
      recorders: [
        { name: 'stage', url: 'http://10.0.0.5:9000', token: null },
        { name: 'booth', url: 'https://booth.local:9443', token: null },
      ],
      problems: [],
    });
  });

  it('reports a missing variable by name and recorder, and leaves that recorder out', () => {
    const loaded = profileWithRecorders('  main: { url: "${MAIN_URL}", token: "${MAIN_TOKEN}" }\n  spare: { url: "http://spare:9000", token: "${SPARE_TOKEN}" }\n');
    const { recorders, problems } = resolveRecorders(loaded, { MAIN_TOKEN: SECRET, SPARE_TOKEN: '' });
    expect(recorders).toEqual([]);
    expect(problems).toEqual([
      { file: 'studio.yaml', line: null, column: null, path: 'recorders.main.url', message: 'recorder "main": the url refers to the environment variable MAIN_URL, which is not set' },
      { file: 'studio.yaml', line: null, column: null, path: 'recorders.spare.token', message: 'recorder "spare": the token refers to the environment variable SPARE_TOKEN, which is empty' },
    ]);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });

  it('refuses a URL from the environment that is not http(s) without repeating it', () => {
    const loaded = profileWithRecorders('  main: { url: "${MAIN_URL}" }\n');
    const withCredentials = 'ftp://operator:hunter2@rec';
    const { recorders, problems } = resolveRecorders(loaded, { MAIN_URL: withCredentials });
    expect(recorders).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual(['recorder "main": the url in the environment variable MAIN_URL is not an http or https URL']);
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });

  it('refuses a URL that mixes text and a reference', () => {
    const loaded = profileWithRecorders('  main: { url: "http://${HOST}:9000" }\n');
    const { problems } = resolveRecorders(loaded, { HOST: 'rec' });
    expect(problems.map((p) => p.message)).toEqual(['recorder "main": the url is either a literal URL or one ${NAME} reference for the whole of it']);
  });

  it('has nothing to do for a profile that declares no recorders', () => {
    const result = parseProfile('name: x\nmatch: { kind: memory }\npages: [{ name: main, controls: {} }]\n', 'plain.yaml');
    if (!result.ok) throw new Error('fixture');
    expect(resolveRecorders(result.loaded, {})).toEqual({ recorders: [], problems: [] });
  });
});
