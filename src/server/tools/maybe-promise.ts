/**
 * A value now, or later. A tool call whose handler answers synchronously stays
 * synchronous up to the SDK: every `await` on the way costs microtask turns,
 * and the SDK's HTTP adapter (@hono/node-server) writes an answer together with
 * its headers, in one write and with a Content-Length, only if the answer is
 * there within a few turns of the request being dispatched. Later than that it
 * sends the headers alone and streams the body chunked: two more writes per
 * call, and a response the client reads in pieces.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Only native promises: the values passed through here are our own, never thenables. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** `next(value)` now when `value` is here, else once it settles. */
export function thenMaybe<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(next) : next(value);
}
