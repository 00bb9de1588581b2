// A small kernel file (procfs, cgroupfs) read whole, in chunks from node's shared Buffer pool.
//
// Why not fs's readFile: these files say they are 0 bytes long, so readFile reads them into fresh
// Buffers of its own, whatever they hold (a thread's name is 16 bytes): a look at the names of 11 threads
// grew node's ArrayBuffers by 178.8 kB with readFile, 2 kB with this (docs/performance.md, "What keeps
// the bridge's ArrayBuffers"). The bridge reads a few dozen of them every 5 s (its threads' names, its
// cgroup's quota). Here each chunk is under half of node's pool (Buffer.poolSize), so allocUnsafe carves
// it from the pool's slab instead of making one of its own.
import { open } from 'node:fs/promises';

/** Small enough for Buffer.allocUnsafe to take from the pool (under Buffer.poolSize / 2 = 4 kB by default). */
const CHUNK_BYTES = 1024;

/**
 * The file's text (UTF-8), read until its end. A file longer than `maxBytes` is an error naming it (a
 * kernel file this long is not the one meant); fs's errors (ENOENT and the like) come through as they are,
 * with their codes, for callers that tell a missing file from an unreadable one.
 */
export async function readSmallFile(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // A kernel file may come in short reads before its end: read until a read returns nothing.
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new Error(`${path} is longer than the ${maxBytes} bytes expected of it`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}
