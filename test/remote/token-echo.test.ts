// A recorder that echoes the token (five shapes, in errors of commands and of polls): no output of the
// bridge carries it: /state, the WebSocket's state and command messages, /metrics, the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { realClock } from '../../src/api/clock.js';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import { ECHO_SHAPES, startEchoRecorder, type EchoRecorder } from '../support/echo-recorder.js';
import { until } from '../support/until.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

let sim: SimulatorFixture;
let echo: EchoRecorder;
let running: RunningBridge;
let socket: WebSocket;
const logs: string[] = [];
const messages: string[] = [];

beforeAll(async () => {
  sim = await startFixture({ clock: realClock, grid: 16, tickMs: 1000 });
  echo = await startEchoRecorder(sim.sim.url);
  const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  running = await startBridge(
    { recorderFlags: [echo.url], tokenFlags: [sim.sim.token], profilePaths: [new URL('../../profiles', import.meta.url).pathname], pollMs: 100, env: {}, web: { host: '127.0.0.1', port: 0, password: null }, surfaces: [], sources: [] },
    log,
  );
  socket = new WebSocket(`${running.remote?.url.replace('http', 'ws')}/ws`);
  socket.on('message', (data, isBinary) => {
    if (!isBinary) messages.push(data.toString());
  });
  await until(() => messages.length > 0, 'the hello');
});
afterAll(async () => {
  socket?.close();
  await running?.stop();
  await echo?.close();
  await sim?.close();
});

const get = async (path: string) => (await fetch(`${running.remote?.url}${path}`)).text();

describe('a recorder that echoes the token', () => {
  it('never gets it into the state, the readiness, the socket, the metrics or the log', async () => {
    const seen: string[] = [];
    await until(async () => (await get('/state')).includes('"freshness":"live"'), 'the recorder to be live');
    for (const shape of ECHO_SHAPES) {
      echo.commands = shape;
      await fetch(`${running.remote?.url}/surfaces/web:web-15/keys/0/press`, { method: 'POST' });
      await until(() => messages.some((m) => m.includes('"type":"command"') && m.includes(`[echo ${shape}]`)), `the command failing with echo ${shape}`);
    }
    echo.commands = null;
    for (const shape of ECHO_SHAPES) {
      echo.polls = shape;
      await until(async () => {
        const state = await get('/state');
        seen.push(state);
        return state.includes(`[echo ${shape}]`);
      }, `/state to show echo ${shape}`);
      seen.push(await get('/readyz')); // its reasons quote the recorder's error too
    }
    await until(() => messages.some((m) => m.includes('"type":"state"') && m.includes('[echo 5]')), 'the socket state with echo 5');
    echo.polls = null;
    seen.push(await get('/metrics'), await get('/healthz'));
    const outputs = { state: seen.join('\n'), socket: messages.join('\n'), logs: logs.join('\n') };
    const uuid = sim.sim.token.replace('perm:', '');
    for (const [output, text] of Object.entries(outputs)) {
      expect({ output, leaks: text.toLowerCase().includes(uuid.toLowerCase()) }).toEqual({ output, leaks: false });
      expect({ output, masked: text.includes('***') }).toEqual({ output, masked: true });
    }
    for (const shape of ECHO_SHAPES) expect(outputs.logs).toContain(`[echo ${shape}]`);
  });
});
