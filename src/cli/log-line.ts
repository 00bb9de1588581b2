// Text that goes into a log line may come from outside (a WebSocket message, a recorder's answer, a
// file name): a raw newline in it would start a forged line of its own, and other control characters
// could rewrite the terminal. Every message is escaped here before any logger writes it.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
