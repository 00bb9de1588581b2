// The types of cdp-frame-payloads.mjs (plain JavaScript, run by node itself), for its test.
import type { Transform } from 'node:stream';

export function relayed(message: Buffer): Buffer;
export function relay(): Transform;
