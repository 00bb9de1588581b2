/**
 * The Authorization header value for a token given in any of the usual forms. What is sent:
 * - "Bearer perm:<uuid>" (or any "Bearer …"): as given;
 * - "perm:<uuid>": "Bearer perm:<uuid>";
 * - a bare "<uuid>": "Bearer perm:<uuid>", the form Direct Take issues;
 * - any other bare text: "Bearer <text>".
 */
export function authorizationHeader(token: string): string {
  const trimmed = token.trim();
  if (trimmed === '') throw new TypeError('the recorder token is empty');
  if (/^bearer\s+/i.test(trimmed)) return `Bearer ${trimmed.replace(/^bearer\s+/i, '')}`;
  if (UUID.test(trimmed)) return `Bearer perm:${trimmed}`;
  return `Bearer ${trimmed}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
