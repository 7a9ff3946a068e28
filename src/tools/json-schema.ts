/**
 * Tool schemas for model APIs, generated from the zod input schemas with zod's own
 * z.toJSONSchema. The OpenAI form is made valid under `strict: true`: every property listed in
 * `required` with optional ones nullable, `anyOf` instead of `oneOf`, `additionalProperties:
 * false` on every object, and only keywords strict mode accepts (length, range and format
 * constraints are left out; the input validation still enforces them). The Anthropic form keeps
 * the plain schema. `strictSchemaProblems` checks those rules, so tests can prove them.
 */
import { z } from 'zod';
import type { AnyToolDefinition } from './define';

export type JsonSchema = { [key: string]: unknown };

export interface OpenAiToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict: true };
}

export interface AnthropicToolSchema {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Keywords OpenAI strict mode rejects or ignores, dropped from the OpenAI form. */
const UNSUPPORTED_STRICT_KEYWORDS = [
  '$schema', 'default', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems',
  'minProperties', 'maxProperties', 'patternProperties', 'propertyNames', 'allOf', 'not',
  'if', 'then', 'else', 'dependentSchemas', 'dependentRequired', 'contains', 'prefixItems',
];

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** The plain JSON Schema of a tool's input (draft 2020-12 without `$schema`). */
export function inputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

/**
 * A schema of what `parseToolInput` accepts: it drops null-valued properties on purpose (strict
 * clients send null for an absent optional field), so every optional property, at any depth,
 * may also be null. What an MCP client is told, so a strict client does not flag a null it may send.
 */
export function withNullableOptionals(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (schema.properties && typeof schema.properties === 'object') {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => {
        const inner = withNullableOptionals(property);
        return [name, required.has(name) ? inner : nullable(inner)];
      }),
    );
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) out.items = withNullableOptionals(schema.items as JsonSchema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as JsonSchema[]).map(withNullableOptionals);
  }
  return out;
}

function allowsNull(schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  const anyOf = schema.anyOf;
  return Array.isArray(anyOf) && anyOf.some((s) => allowsNull(s as JsonSchema));
}

function nullable(schema: JsonSchema): JsonSchema {
  if (allowsNull(schema)) return schema;
  const type = schema.type;
  if (typeof type === 'string' && PRIMITIVE_TYPES.has(type) && !('enum' in schema) && !('const' in schema)) {
    return { ...schema, type: [type, 'null'] };
  }
  // Keep the description on the outside, where a model reads it first.
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
}

function strictify(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED_STRICT_KEYWORDS.includes(key)) continue;
    if (key === 'oneOf' || key === 'anyOf') {
      out.anyOf = (value as JsonSchema[]).map(strictify);
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      out.items = strictify(value as JsonSchema);
    } else if (key === 'properties') {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const properties: JsonSchema = {};
      for (const [name, property] of Object.entries(value as Record<string, JsonSchema>)) {
        const strict = strictify(property);
        properties[name] = required.has(name) ? strict : nullable(strict);
      }
      out.properties = properties;
      out.required = Object.keys(properties);
    } else if (key !== 'required' && key !== 'additionalProperties') {
      out[key] = value;
    }
  }
  if (out.type === 'object' || 'properties' in out) {
    out.properties ??= {};
    out.required ??= [];
    out.additionalProperties = false;
  }
  return out;
}

export function toOpenAiTool(tool: AnyToolDefinition): OpenAiToolSchema {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: strictify(inputJsonSchema(tool)), strict: true },
  };
}

export function toAnthropicTool(tool: AnyToolDefinition): AnthropicToolSchema {
  return { name: tool.name, description: tool.description, input_schema: inputJsonSchema(tool) };
}

/**
 * Every way a schema breaks OpenAI's strict rules (empty when it satisfies them): an object
 * without `additionalProperties: false` or with a property missing from `required`, a
 * `oneOf`, an unsupported keyword, or a top level that is not one plain object.
 */
export function strictSchemaProblems(root: JsonSchema): string[] {
  const problems: string[] = [];
  if (root.type !== 'object') problems.push('(root): the top level must be a single object');
  if ('anyOf' in root || 'oneOf' in root) problems.push('(root): the top level must not be a union');
  const visit = (schema: JsonSchema, at: string): void => {
    for (const key of Object.keys(schema)) {
      if (key === 'oneOf') problems.push(`${at}: oneOf (use anyOf)`);
      else if (UNSUPPORTED_STRICT_KEYWORDS.includes(key)) problems.push(`${at}: unsupported keyword ${key}`);
    }
    const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || 'properties' in schema;
    if (isObject) {
      if (schema.additionalProperties !== false) problems.push(`${at}: object without additionalProperties: false`);
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, property] of Object.entries(properties)) {
        if (!required.has(name)) problems.push(`${at}.${name}: not listed in required`);
        visit(property, `${at}.${name}`);
      }
    }
    if (schema.items && typeof schema.items === 'object') visit(schema.items as JsonSchema, `${at}[]`);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = schema[key];
      if (Array.isArray(members)) members.forEach((member, i) => visit(member as JsonSchema, `${at}|${i}`));
    }
  };
  visit(root, '(root)');
  return problems;
}
