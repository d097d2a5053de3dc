/** JSON Pointer (RFC 6901) helpers for schema locations and instance paths. */

export function escapeToken(key: string): string {
  // One scan of the (usually short) key; most keys need no escaping.
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 126 /* ~ */ || c === 47 /* / */) return key.replace(/~/g, "~0").replace(/\//g, "~1");
  }
  return key;
}

function unescapeToken(token: string): string {
  if (token.indexOf("~") === -1) return token;
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Appends one reference token to a pointer. Called only when errors are being built. */
export function childPointer(pointer: string, key: string | number): string {
  return typeof key === "number" ? `${pointer}/${key}` : `${pointer}/${escapeToken(key)}`;
}

/** Splits a pointer into unescaped tokens; returns null when it does not start with "/" (and is not ""). */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (pointer[0] !== "/") return null;
  return pointer.slice(1).split("/").map(unescapeToken);
}
