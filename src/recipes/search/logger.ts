/** The slice of a pino logger the search engine uses. */
export interface SearchLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: SearchLogger = {
  info: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
};
