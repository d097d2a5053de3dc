import jsyaml from "js-yaml";

/**
 * A YAML recipe entry as text for `content`/`document`. js-yaml's dumper is
 * an order of magnitude faster than the `yaml` package's and this runs on
 * every get; entries hold only plain JSON-like data (they came from YAML).
 */
export function entryAsYaml(entry: unknown): string {
  return jsyaml.dump(entry, { lineWidth: -1, noRefs: true, schema: jsyaml.CORE_SCHEMA, sortKeys: false });
}
