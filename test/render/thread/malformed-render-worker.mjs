// A render thread that breaks the protocol, for render-thread.test.ts (a fake at the transport: the real
// RenderThread and Worker above it): to each request it first sends a message of no known type, then an
// "image" whose bytes are not width x height x 3.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (request) => {
  parentPort.postMessage({ type: 'hello' });
  parentPort.postMessage({ type: 'image', id: request.id, image: { width: request.width, height: request.height, data: new Uint8Array(10) }, stats: { renders: 0, fastPaths: 0 } });
});
