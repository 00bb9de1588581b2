// Secrets from files (not the command line), the web flags, and the log: pino JSON or pretty lines,
// control characters escaped so no message can forge a line, secret fields redacted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordersFrom } from '../../src/cli/recorder-config.js';
import { createPino, pinoLogger } from '../../src/cli/pino-logger.js';
import { parseRunArgs, startBridge } from '../../src/cli/run.js';

let folder: string;
const file = (name: string) => join(folder, name);
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-secrets-'));
  await writeFile(file('token'), 'perm:0f0e0d0c-0b0a-4909-8807-060504030201\n');
  await writeFile(file('backup-token'), 'perm:11111111-2222-4333-8444-555555555555');
  await writeFile(file('password'), 'correct horse battery\n');
  await writeFile(file('empty'), '\n');
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('secrets from files', () => {
  it('--token-file and RECDECK_TOKEN[_NAME]_FILE give the token, without the final line break', () => {
    expect(recordersFrom(['http://10.0.0.5:9000'], [], {}, [file('token')])).toEqual([{ name: 'main', url: 'http://10.0.0.5:9000', token: 'perm:0f0e0d0c-0b0a-4909-8807-060504030201' }]);
    const both = recordersFrom(['main=http://10.0.0.5:9000', 'backup=http://10.0.0.6:9000'], [], { RECDECK_TOKEN_FILE: file('token'), RECDECK_TOKEN_BACKUP_FILE: file('backup-token') });
    expect(both.map((r) => r.token)).toEqual(['perm:0f0e0d0c-0b0a-4909-8807-060504030201', 'perm:11111111-2222-4333-8444-555555555555']);
    expect(recordersFrom(['backup=http://10.0.0.6:9000'], [], {}, [`backup=${file('backup-token')}`])[0]?.token).toBe('perm:11111111-2222-4333-8444-555555555555');
  });

  it('an unreadable or empty file is named, its content never quoted', () => {
    expect(() => recordersFrom(['http://10.0.0.5:9000'], [], {}, [file('missing')])).toThrow(`--token-file: cannot read ${file('missing')}: no such file`);
    expect(() => recordersFrom(['http://10.0.0.5:9000'], [], { RECDECK_TOKEN_FILE: file('empty') })).toThrow(`RECDECK_TOKEN_FILE: ${file('empty')} is empty`);
    expect(() => parseRunArgs(['--web-tls-cert', file('token')], {})).toThrow('--web-tls-cert and --web-tls-key go together');
    expect(() => parseRunArgs(['--web-password-file', folder], {})).toThrow(`--web-password-file: cannot read ${folder}: it is a directory`);
  });

  it('--web-password-file and RECDECK_WEB_PASSWORD_FILE give the web password; --web-allow-host is kept', () => {
    expect(parseRunArgs(['--web-password-file', file('password'), '--web-allow-host', 'deck.studio.example'], {}).web).toMatchObject({ password: 'correct horse battery', allowHosts: ['deck.studio.example'], tls: null });
    expect(parseRunArgs([], { RECDECK_WEB_PASSWORD_FILE: file('password') }).web?.password).toBe('correct horse battery');
  });

  it('the web password file is read again on SIGHUP: a new password takes over; a bad file changes nothing and says why', async () => {
    await writeFile(file('rotating'), 'correct horse battery\n');
    const setup = parseRunArgs(['--web-port', '0', '--poll-ms', '1000'], { RECDECK_WEB_PASSWORD_FILE: file('rotating') });
    expect(setup.web?.passwordFile).toEqual({ file: file('rotating'), what: 'RECDECK_WEB_PASSWORD_FILE' });
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const running = await startBridge({ ...setup, surfaces: [], sources: [] }, log);
    try {
      const url = running.remote?.url ?? '';
      const status = async (password: string) => (await fetch(`${url}/state`, { headers: { authorization: `Bearer ${password}` } })).status;
      expect(await status('correct horse battery')).toBe(200);
      await writeFile(file('rotating'), 'battery staple horse\n');
      running.rereadWebPassword();
      expect([await status('correct horse battery'), await status('battery staple horse')]).toEqual([401, 200]);
      expect(lines).toContain(`RECDECK_WEB_PASSWORD_FILE: the web password was read again from ${file('rotating')}; every web session has ended`);
      await writeFile(file('rotating'), 'short\n');
      running.rereadWebPassword();
      expect(await status('battery staple horse')).toBe(200);
      expect(lines.filter((l) => l.endsWith('; the web password is unchanged'))).toEqual([expect.stringMatching(new RegExp(`^RECDECK_WEB_PASSWORD_FILE: ${file('rotating')}: the web password is shorter than 8 characters`))]);
      await rm(file('rotating'));
      running.rereadWebPassword();
      expect(await status('battery staple horse')).toBe(200);
      expect(lines).toContain(`RECDECK_WEB_PASSWORD_FILE: cannot read ${file('rotating')}: no such file; the web password is unchanged`);
    } finally {
      await running.stop();
    }
    expect(parseRunArgs(['--web-password', 'correct horse battery', '--web-password-file', file('password')], {}).web?.passwordFile).toBeNull();
  });

  it('an empty RECDECK_WEB_PASSWORD stops the start instead of turning protection off', async () => {
    const setup = parseRunArgs(['--web-port', '0'], { RECDECK_WEB_PASSWORD: '' });
    expect(setup.web?.password).toBe('');
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    await expect(startBridge({ ...setup, surfaces: [], sources: [] }, quiet)).rejects.toThrow('the web password is shorter than 8 characters (it is empty)');
  });
});

describe('the log', () => {
  const capture = () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    return { stream, text: () => chunks.join('') };
  };
  const forged = 'web deck: ignored a message: no surface "x"\n{"level":50,"msg":"forged"}\r\u001b[2Kadmin logged in\u2028';

  it('JSON lines with levels; one message is one line, control characters escaped', () => {
    const out = capture();
    const log = pinoLogger({ format: 'json', level: 'info', stream: out.stream });
    log.info('started');
    log.warn(forged);
    log.error('stopped');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const records = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.map((r) => r.level)).toEqual([30, 40, 50]);
    expect(records[1]?.msg).toBe('web deck: ignored a message: no surface "x"\\n{"level":50,"msg":"forged"}\\r\\u001b[2Kadmin logged in\\u2028');
  });

  it('pretty lines for a terminal, escaped the same way; levels below the chosen one are left out', () => {
    const out = capture();
    const log = pinoLogger({ format: 'pretty', level: 'warn', stream: out.stream });
    log.info('not shown');
    log.warn(forged);
    const text = out.text();
    expect(text).not.toContain('not shown');
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    expect(text).toContain('WARN');
    expect(text).toContain('\\n{"level":50');
  });

  it('redacts token and password fields of logged values', () => {
    const out = capture();
    createPino({ format: 'json', level: 'info', stream: out.stream }).info({ recorder: { name: 'main', token: 'perm:secret' }, password: 'hunter22' }, 'config');
    expect(out.text()).not.toContain('secret');
    expect(out.text()).not.toContain('hunter22');
    expect(out.text()).toContain('***');
  });

  it('--log-format and --log-level are checked', () => {
    expect(parseRunArgs(['--log-format', 'json', '--log-level', 'warn'], {}).log).toEqual({ format: 'json', level: 'warn' });
    expect(() => parseRunArgs(['--log-format', 'xml'], {})).toThrow('--log-format: expected one of pretty, json, got "xml"');
  });
});
