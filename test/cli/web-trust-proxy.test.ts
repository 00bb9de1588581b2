// --web-trust-proxy: checked when parsed, and reaching the web server, whose login throttle then counts
// each client behind the proxy on its own (issue 25).
import { describe, expect, it } from 'vitest';
import { parseRunArgs, startBridge } from '../../src/cli/run.js';

describe('--web-trust-proxy', () => {
  it('takes addresses and CIDR ranges, repeated; anything else is a usage error naming it', () => {
    expect(parseRunArgs(['--web-trust-proxy', '127.0.0.1', '--web-trust-proxy', '10.0.0.0/8'], {}).web?.trustProxies).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(parseRunArgs([], {}).web?.trustProxies).toEqual([]);
    expect(() => parseRunArgs(['--web-trust-proxy', 'proxy.example'], {})).toThrow('--web-trust-proxy: "proxy.example" is not an IP address or a CIDR range');
  });

  it("behind the trusted proxy one client's wrong passwords do not block another's", async () => {
    const setup = parseRunArgs(['--web-port', '0', '--poll-ms', '1000', '--web-trust-proxy', '127.0.0.1'], { RECDECK_WEB_PASSWORD: 'correct horse battery' });
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const running = await startBridge({ ...setup, surfaces: [], sources: [] }, log);
    try {
      const url = running.remote?.url ?? '';
      const status = async (password: string, client: string) => (await fetch(`${url}/state`, { headers: { authorization: `Bearer ${password}`, 'x-forwarded-for': client } })).status;
      for (let i = 0; i < 6; i++) await status(`guess-${i}`, '203.0.113.7');
      expect(await status('correct horse battery', '203.0.113.7')).toBe(429);
      expect(await status('correct horse battery', '198.51.100.20')).toBe(200);
      expect(lines).toContain('remote server: wrong password from 203.0.113.7 (1 in a row)');
    } finally {
      await running.stop();
    }
  });
});
