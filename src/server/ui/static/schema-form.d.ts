// Types of schema-form.js for the project's TypeScript tests (the page itself loads the .js).
export const MAX_DEPTH: number;
export const MAX_FIELDS: number;
export const MAX_ENUM: number;
export const MAX_TEXT: number;
export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "json" | "object";
export interface Field {
  readonly id: string;
  /** The property name as a label (cut), null for the root. */
  readonly name: string | null;
  /** Property names from the root (uncut). */
  readonly path: readonly string[];
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly description: string | null;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly nullable: boolean;
  /** Why the field is JSON (kind "json"). */
  readonly note: string | null;
  readonly options?: readonly { readonly value: unknown; readonly label: string }[];
  readonly children?: readonly Field[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}
export interface FormModel {
  readonly root: Field;
  readonly fields: ReadonlyMap<string, Field>;
  readonly fallback: string | null;
}
export function shortJson(value: unknown, max?: number): string;
export function buildForm(schema: unknown): FormModel;
export function initialValue(field: Field): string | boolean | null;
export function collectInputs(model: FormModel, read: (field: Field) => string | boolean | null | undefined): { inputs: unknown; problems: { field: string; message: string }[] };
export function parseErrorPath(text: string): string[] | null;
export function readServerError(error: unknown): { path: string[]; message: string } | null;
export function errorsByField(model: FormModel, errors: unknown): { byField: Map<string, string[]>; general: string[] };
