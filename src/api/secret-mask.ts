// The one place where text that came from a recorder loses the token. A recorder may echo what it was
// sent (the Authorization header in an error, a path with the token in a dialog); whatever it says is
// stored in the state, logged, sent to browsers and counted, so it is masked as it arrives, before any
// of those can see it.

export const MASK = '***';

/**
 * The spellings of a token that a recorder might echo: each form the client accepts (see
 * authorizationHeader: "Bearer perm:<uuid>", "perm:<uuid>", a bare uuid, other text) and each of those
 * percent-encoded and JSON-escaped. Longest first, so "perm:<uuid>" goes whole rather than leaving "perm:".
 */
function spellings(token: string): string[] {
  const core = token.trim().replace(/^bearer\s+/i, '');
  if (core === '') return [];
  const forms = new Set([core]);
  const uuid = /^(?:perm:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(core)?.[1];
  if (uuid !== undefined) {
    forms.add(uuid);
    forms.add(`perm:${uuid}`);
  }
  for (const form of [...forms]) {
    forms.add(encodeURIComponent(form));
    forms.add(JSON.stringify(form).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function that replaces every spelling of the token in a text by `***` (case-insensitively: uuids come in either case). */
export function secretMask(token: string): (text: string) => string {
  const forms = spellings(token);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  return (text) => text.replace(pattern, MASK);
}
