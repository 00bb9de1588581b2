// A render thread that is stuck, for render-thread.test.ts: it reads every request and answers none.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => undefined);
