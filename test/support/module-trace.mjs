// Preload for a process of the built CLI (`node --import=<this file> dist/cli/main.js …`): at its exit it
// writes every module file the process loaded, one URL a line, to the file named by MODULE_TRACE_FILE.
// Plain JavaScript because it runs in that process, not under vitest.
//
// ES modules are seen by a load hook, which runs on Node's hooks thread and posts each URL to the main
// thread; CommonJS files (the packages' insides) are in require's cache. The same file is both: the
// preload on the main thread registers itself as the hooks module.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';

let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}

if (isMainThread) {
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  register(import.meta.url, { data: { port: port2 }, transferList: [port2] });
  process.on('exit', () => {
    const files = new Set(Object.keys(createRequire(import.meta.url).cache).map((path) => pathToFileURL(path).href));
    // Every load was posted before the module it names ran, so all of them are waiting on the port.
    for (let message; (message = receiveMessageOnPort(port1)); ) files.add(message.message);
    writeFileSync(process.env.MODULE_TRACE_FILE, [...files].join('\n'));
  });
}
