/**
 * The TypeScript type of the value a JSON Schema literal (`as const`) accepts,
 * for the keywords tool schemas use: type string/integer/number/boolean/
 * array/object, enum, items, properties, required, additionalProperties.
 * The registry validates arguments against the schema before a handler
 * runs, so the derived type is what the handler really receives.
 */

/** What a schema without a keyword below accepts (`inputs`, `target`): anything. */
export type ValueOf<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly type: "string" }
    ? string
    : S extends { readonly type: "integer" | "number" }
      ? number
      : S extends { readonly type: "boolean" }
        ? boolean
        : S extends { readonly type: "array"; readonly items: infer I }
          ? readonly ValueOf<I>[]
          : S extends { readonly type: "object"; readonly properties: infer P }
            ? ObjectOf<P, RequiredOf<S>, S extends { readonly additionalProperties: false } ? false : true>
            : unknown;

/** The names in `required` (none when the keyword is absent). */
type RequiredOf<S> = S extends { readonly required?: infer R } ? (R extends readonly (infer K)[] ? K : never) : never;

/** An object of `properties`: the `required` ones present, the others optional, and any other key when `open`. */
export type ObjectOf<P, R, Open extends boolean = false> = Flat<
  { readonly [K in keyof P as K extends R ? K : never]: ValueOf<P[K]> } & {
    readonly [K in keyof P as K extends R ? never : K]?: ValueOf<P[K]>;
  }
> &
  (Open extends true ? Readonly<Record<string, unknown>> : unknown);

/** One object type instead of an intersection, so editors and type errors show it whole. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
