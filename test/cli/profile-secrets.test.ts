// Profile problems are printed to the log: they name the file, line and field, but never repeat a
// token pasted into a field or the first bytes of a file that is not a profile.
import { describe, expect, it } from 'vitest';
import { resolveRecorders } from '../../src/profiles/env.js';
import { formatProfileError, parseProfile } from '../../src/profiles/load.js';

const TOKEN = 'perm:0f0e0d0c-0b0a-4909-8807-060504030201';
const problems = (text: string) => {
  const result = parseProfile(text, 'studio.yaml');
  return result.ok ? [] : result.problems.map(formatProfileError);
};

describe('profile problems', () => {
  it('a file that is not a profile is named as such, its content not quoted', () => {
    for (const text of ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n', `#!/bin/sh\nexport RECDECK_TOKEN=${TOKEN}\n`]) {
      const found = problems(text);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^studio\.yaml:\d+:1: not a profile: a profile is a YAML mapping with name, match and pages, and this file holds text \(not repeated here\)$/);
    }
  });

  it('a token pasted into url: (or any field) is not repeated', () => {
    const text = `name: x\nmatch: { kind: web }\nrecorders:\n  b: { url: "${TOKEN}" }\n  c: { url: "${TOKEN.slice(5)}" }\npages:\n  - name: a\n    controls:\n      key0: { press: { action: "Bearer ${TOKEN}" } }\n`;
    const schema = problems(text);
    expect(schema.join('\n')).toContain('pages[0].controls.key0.press.action: expected one of');
    const parsed = parseProfile(text.replace(/ +key0: .*\n/, '      {}\n').replace('controls:\n      {}', 'controls: {}'), 'studio.yaml');
    if (!parsed.ok) throw new Error(parsed.problems.map(formatProfileError).join('\n'));
    const env = resolveRecorders(parsed.loaded, {}).problems.map(formatProfileError);
    expect(env).toEqual(['studio.yaml: recorders.b.url: recorder "b": the url is not an http or https URL', 'studio.yaml: recorders.c.url: recorder "c": the url is not a URL; expected one such as http://127.0.0.1:9000']);
    expect([...schema, ...env].join('\n')).not.toContain(TOKEN.slice(5));
  });
});
