// The SDK's log entries as the plugin lets them through: no recorder token in any of them, the raw text of
// an app message the SDK could not read dropped whole. Through the SDK's real Logger class, with a target
// of the test's own in place of its file.
import { Logger } from '@elgato/utils/logging';
import { describe, expect, it } from 'vitest';
import { maskTokens, redactedEntry, redactSdkLogging, type SdkLogEntry } from '../../src/plugin/log-redaction.js';

const PERM = 'perm:3f1c9a52-8d1e-4b7a-9c0f-2e6d5b4a1c77';
const TYPED = 's3cret-desk-token';
const settings = `{"event":"didReceiveGlobalSettings","payload":{"settings":{"recorders":[{"name":"main","url":"http://10.0.0.5:9000","token":"${TYPED}"},{"name":"b","url":"http://b:9000","token":"${PERM}"}]}}}`;

describe('masking tokens in log text', () => {
  it('masks a token field\'s value, whole or cut off, and any perm: token', () => {
    const masked = maskTokens(settings);
    expect(masked).not.toContain(TYPED);
    expect(masked).not.toContain(PERM.slice(5));
    expect(masked).toContain('"url":"http://10.0.0.5:9000"');
    expect(maskTokens(settings.slice(0, settings.indexOf(TYPED) + 6))).not.toContain(TYPED.slice(0, 6));
    expect(maskTokens(`Bearer ${PERM} refused`)).toBe('Bearer perm:••• refused');
    expect(maskTokens('{"token":"with \\"quotes\\" inside","x":1}')).toBe('{"token":"•••","x":1}');
  });

  it('drops the raw text of a message the SDK could not parse, and the parser\'s error quoting it', () => {
    const broken = settings.slice(0, -7);
    let parseError: unknown;
    try {
      JSON.parse(broken);
    } catch (error) {
      parseError = error;
    }
    const entry = redactedEntry({ level: 'error', data: [`Failed to parse message: ${broken}`, parseError] });
    expect(entry.data).toEqual([`Failed to parse message (${broken.length} characters; the text is not logged: an app message may carry a recorder's token)`]);
    const unknown = redactedEntry({ level: 'warn', data: [`Received unknown message: {"payload":{"token":"${TYPED}"}}`] });
    expect(JSON.stringify(unknown)).not.toContain(TYPED);
    expect(unknown.data[0]).toMatch(/^Received unknown message \(\d+ characters/);
  });
});

describe('the SDK logger, redacted', () => {
  it('lets no token through any scope\'s logger, made before or after, in text, errors or objects', () => {
    const written: SdkLogEntry[] = [];
    const logger = new Logger({ level: 'trace', targets: [{ write: (entry) => void written.push(entry as SdkLogEntry) }] });
    const before = logger.createScope('Connection');
    redactSdkLogging(logger);
    redactSdkLogging(logger);
    const after = logger.createScope('recdeck');
    before.trace(settings);
    before.error(`Failed to parse message: ${settings.slice(0, 40)}`, new SyntaxError(`Unexpected end of JSON input: ${settings.slice(0, 60)}`));
    after.warn(new Error(`recorder refused ${PERM}`));
    after.info({ settings: { recorders: [{ token: TYPED }] } });
    expect(written).toHaveLength(4);
    const text = JSON.stringify(written.map((e) => e.data.map((d) => (d instanceof Error ? `${d.message} ${d.stack ?? ''}` : d))));
    expect(text).not.toContain(TYPED);
    expect(text).not.toContain(PERM.slice(5));
    expect(text).toContain('perm:•••');
    // Wrapped once: an entry is not redacted twice over (the count above), and the scopes still name themselves.
    expect(written.map((e) => e.scope)).toEqual(['Connection', 'Connection', 'recdeck', 'recdeck']);
  });
});
