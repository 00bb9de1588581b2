// A recorder that echoes the token in its answers: whatever form the client was given the token in,
// the text that reaches the caller says *** instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { RecorderError } from '../../src/api/errors.js';
import { secretMask } from '../../src/api/secret-mask.js';
import { ECHO_SHAPES, startEchoRecorder, type EchoRecorder } from '../support/echo-recorder.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { realClock } from '../../src/api/clock.js';

let sim: SimulatorFixture;
let echo: EchoRecorder;
beforeAll(async () => {
  sim = await startFixture();
  echo = await startEchoRecorder(sim.sim.url);
});
afterAll(async () => {
  await echo?.close();
  await sim?.close();
});

const failure = async (attempt: Promise<unknown>): Promise<RecorderError> => {
  const error = await attempt.then(() => null, (e: unknown) => e);
  if (!(error instanceof RecorderError)) throw new Error(`expected a RecorderError, got ${String(error)}`);
  return error;
};

describe('the token echoed by a recorder', () => {
  it('is masked in every error shape, whichever form the client was given', async () => {
    const uuid = sim.sim.token.replace('perm:', '');
    for (const given of [sim.sim.token, `Bearer ${sim.sim.token}`, uuid, uuid.toUpperCase()]) {
      const client = new RecorderClient({ clock: realClock, url: echo.url, token: given });
      try {
        for (const shape of ECHO_SHAPES) {
          echo.commands = shape;
          echo.polls = shape;
          for (const error of [await failure(client.recStart(0)), await failure(client.listChannels())]) {
            expect(error.message).toContain(`[echo ${shape}]`);
            expect(error.message).toContain('***');
            expect(error.message.toLowerCase()).not.toContain(uuid.toLowerCase());
            expect(error.message).not.toContain(encodeURIComponent(sim.sim.token));
          }
        }
      } finally {
        echo.commands = null;
        echo.polls = null;
        await client.close();
      }
    }
  });

  it('answers that quote nothing secret come through unchanged', async () => {
    const client = new RecorderClient({ clock: realClock, url: echo.url, token: sim.sim.token });
    try {
      const channels = await client.listChannels();
      expect(channels.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(secretMask('perm:0f0e0d0c-0b0a-4909-8807-060504030201')('per perm: 0f0e0d0c nothing here')).toBe('per perm: 0f0e0d0c nothing here');
    expect(secretMask('s3cr"et\\x')('a "s3cr\\"et\\\\x" b s3cr"et\\x')).toBe('a "***" b ***');
  });
});
