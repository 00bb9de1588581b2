import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProfileError, loadProfileFile, parseProfile, type ProfileProblem } from '../../src/profiles/load.js';

const GOOD = `name: Studio XL
match: { kind: streamdeck, model: [xl, xl-v2] }
recorders:
  main: { url: "http://127.0.0.1:9000", token: "\${RECDECK_TOKEN}" }
pages:
  - name: main
    controls:
      key0:
        show: { channel: 1 }
        press: { action: rec-toggle, channel: 1 }
        confirm: { hold: 600 }
      key1:
        press: { action: macro, steps: [{ action: sync-on, channel: 2 }, { wait: 200 }, { action: sync-rec-start }] }
        hold: { do: { action: page, page: tools } }
      dial0:
        turn: { action: gain-step, channel: selected, db: 0.5 }
  - name: tools
    controls:
      key0: { press: { action: page-previous }, show: { label: Back, icon: previous, color: "#336699" } }
`;

function problemsOf(text: string): ProfileProblem[] {
  const result = parseProfile(text, 'studio.yaml');
  if (result.ok) throw new Error('expected the profile to be refused');
  return result.problems;
}

/** A profile whose page "main" has the given control lines (indented under `controls:`). */
function withControls(lines: string): string {
  return `name: x\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n${lines}`;
}

describe('parseProfile', () => {
  it('accepts a good profile and applies the schema defaults', () => {
    const result = parseProfile(GOOD, 'studio.yaml');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.loaded.file).toBe('studio.yaml');
    const { profile } = result.loaded;
    expect(profile.name).toBe('Studio XL');
    expect(profile.match).toEqual({ kind: 'streamdeck', model: ['xl', 'xl-v2'] });
    expect(profile.pages.map((p) => p.name)).toEqual(['main', 'tools']);
    expect(profile.pages[0]?.controls.key1?.hold?.ms).toBe(800);
    expect(profile.pages[0]?.controls.key0?.show).toEqual({ channel: 1, thumbnail: false });
  });

  it('reports a YAML syntax error with its line and column', () => {
    const problems = problemsOf('name: x\nmatch: { kind: memory\npages: []\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file: 'studio.yaml', line: expect.any(Number), column: expect.any(Number), path: '' });
    expect(problems[0]?.line).toBeGreaterThanOrEqual(2);
    expect(problems[0]?.message).toMatch(/flow map|\}/i);
  });

  it('reports a tab-indented line at the right place', () => {
    const [problem] = problemsOf('name: x\nmatch:\n\tkind: memory\n');
    expect(problem).toMatchObject({ line: 3, column: 1 });
  });

  it('names the expected actions, the given one and where it is', () => {
    const problems = problemsOf(withControls('      key3:\n        press: { action: rec-strat, channel: 1 }\n'));
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem).toMatchObject({ line: 7, column: 26, path: 'pages[0].controls.key3.press.action' });
    expect(problem?.message).toMatch(/^expected one of "rec-start", "rec-pause", .*"page-next", .*"macro", got "rec-strat" \(did you mean "rec-start"\?\)$/);
    expect(formatProfileError(problem as ProfileProblem)).toMatch(/^studio\.yaml:7:26: pages\[0\]\.controls\.key3\.press\.action: expected one of /);
  });

  it('explains the member the action names, not every member of the union', () => {
    const problems = problemsOf(withControls('      key0:\n        press:\n          action: rec-start\n          chanel: 1\n'));
    expect(problems.map((p) => [p.line, p.column, p.path, p.message])).toEqual([
      [8, 11, 'pages[0].controls.key0.press.channel', 'missing: expected a number or "selected"'],
      [9, 11, 'pages[0].controls.key0.press.chanel', 'unknown field "chanel"'],
    ]);
  });

  it('explains a bad macro step and a bad value inside a member', () => {
    const problems = problemsOf(
      withControls('      key0: { press: { action: macro, steps: [ { wait: soon }, { action: page-nxt } ] } }\n      key1: { press: { action: rec-stop, channel: 0 } }\n'),
    );
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['pages[0].controls.key0.press.steps[0].wait', 'expected a number, got "soon"'],
      ['pages[0].controls.key0.press.steps[1].action', expect.stringMatching(/^expected one of .*, got "page-nxt" \(did you mean "page-next"\?\)$/)],
      ['pages[0].controls.key1.press.channel', 'expected at least 1, got 0'],
    ]);
  });

  it('explains a bad value inside any action as that action\'s, wherever the action is listed', () => {
    const problems = problemsOf(
      withControls('      key0: { press: { action: conversion-set, frame-rate: "26" } }\n      key1: { press: { action: grid, size: 5 } }\n      key2: { press: { action: brightness, set: 200 } }\n'),
    );
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['pages[0].controls.key0.press.frame-rate', expect.stringMatching(/^expected one of "Original", .*"59.94", "60", got "26"$/)],
      ['pages[0].controls.key1.press.size', 'expected one of 1, 4, 9, 16, got 5'],
      ['pages[0].controls.key2.press.set', 'expected at most 100, got 200'],
    ]);
  });

  it('points at the name of an unknown field and names it', () => {
    const [problem, ...others] = problemsOf('name: x\nmatch: { kind: memory }\npages: [{ name: main, controls: {} }]\ncolour: red\n');
    expect(others).toEqual([]);
    expect(problem).toMatchObject({ line: 4, column: 1, path: 'colour', message: 'unknown field "colour"' });
  });

  it('points at a field given without a value', () => {
    const [problem] = problemsOf(withControls('      key0:\n        press:\n'));
    expect(problem).toMatchObject({ line: 7, column: 9, path: 'pages[0].controls.key0.press', message: 'expected a mapping of fields, got an empty value' });
  });

  it('refuses a duplicate key, naming it', () => {
    const [problem] = problemsOf('name: x\nmatch: { kind: memory }\nname: y\npages: [{ name: main, controls: {} }]\n');
    expect(problem).toMatchObject({ line: 3, column: 1, message: 'duplicate key "name": each key may appear only once in a mapping' });
  });

  it('refuses a token written in the profile, says it is a secret and does not repeat it', () => {
    const secret = 'perm:6f1c2d3e-0000-4000-8000-123456789abc';
    const problems = problemsOf(`name: x\nmatch: { kind: memory }\nrecorders:\n  main: { url: "http://rec:9000", token: "${secret}" }\npages: [{ name: main, controls: {} }]\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 4, column: 42, path: 'recorders.main.token' });
    expect(problems[0]?.message).toMatch(/secret/);
    expect(JSON.stringify(problems)).not.toContain('6f1c2d3e');
  });

  it('refuses an empty file with one problem', () => {
    for (const text of ['', '# only a comment\n']) {
      expect(problemsOf(text)).toEqual([{ file: 'studio.yaml', line: null, column: null, path: '', message: expect.stringMatching(/empty/) }]);
    }
  });

  it('refuses a file that is not a mapping', () => {
    expect(problemsOf('- a\n- b\n')).toEqual([{ file: 'studio.yaml', line: 1, column: 1, path: '', message: 'expected a mapping of fields, got a list' }]);
  });

  it('reports the schema\'s own checks at their place', () => {
    const problems = problemsOf('name: x\nmatch: { kind: memory }\npages:\n  - { name: main, controls: {} }\n  - { name: main, controls: {} }\n');
    expect(problems).toEqual([{ file: 'studio.yaml', line: 5, column: 13, path: 'pages[1].name', message: 'page name "main" is used twice' }]);
  });
});

describe('formatProfileError', () => {
  it('leaves out what is not known', () => {
    expect(formatProfileError({ file: 'a.yaml', line: 3, column: 7, path: 'pages[0].name', message: 'm' })).toBe('a.yaml:3:7: pages[0].name: m');
    expect(formatProfileError({ file: 'a.yaml', line: 3, column: null, path: '', message: 'm' })).toBe('a.yaml:3: m');
    expect(formatProfileError({ file: 'a.yaml', line: null, column: null, path: '', message: 'm' })).toBe('a.yaml: m');
  });
});

describe('loadProfileFile', () => {
  it('loads a file and turns a read failure into a problem', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'recdeck-load-'));
    try {
      const file = join(directory, 'studio.yaml');
      await writeFile(file, GOOD);
      const loaded = await loadProfileFile(file);
      expect(loaded.ok && loaded.loaded.profile.name).toBe('Studio XL');
      const missing = await loadProfileFile(join(directory, 'missing.yaml'));
      expect(missing).toEqual({ ok: false, problems: [{ file: join(directory, 'missing.yaml'), line: null, column: null, path: '', message: 'cannot read the file: no such file' }] });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
