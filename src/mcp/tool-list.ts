/**
 * The registry's tools as MCP tool descriptors: canonical names only (aliases are accepted on
 * call, not listed twice), the JSON Schema of the strict zod input (one object, every object
 * `additionalProperties: false`), the output schema where the tool's output shape is declared
 * (output-schemas.ts), and annotations derived from the definition.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { inputJsonSchema, withNullableOptionals, type AnyToolDefinition, type JsonSchema } from '../tools';
import { OUTPUT_SCHEMAS } from './output-schemas';

/**
 * readOnlyHint for tools without side effects; for the others destructiveHint (unless the tool
 * declares its changes additive) and idempotentHint when the tool declares it. Every tool acts
 * on the session's view of one repository only: openWorldHint is false.
 */
export function toolAnnotations(tool: Pick<AnyToolDefinition, 'sideEffects' | 'destructive' | 'idempotent'>): ToolAnnotations {
  if (!tool.sideEffects) return { readOnlyHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: tool.destructive ?? true,
    ...(tool.idempotent === true ? { idempotentHint: true } : {}),
    openWorldHint: false,
  };
}

/**
 * The JSON Schema of a zod object for MCP (no `$schema`: clients validate with draft-07 validators
 * too). An input's optional properties also allow null: the server drops nulls before it
 * validates (parseToolInput), and says so.
 */
export function objectJsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'throw' }) as JsonSchema;
  delete json.$schema;
  return (io === 'input' ? withNullableOptionals(json) : json) as Tool['inputSchema'];
}

export function outputSchemaOf(tool: AnyToolDefinition): z.ZodObject | undefined {
  return Object.hasOwn(OUTPUT_SCHEMAS, tool.name) ? OUTPUT_SCHEMAS[tool.name] : undefined;
}

/** `extendOutput` adds members the server puts beside the tool's own output (auto-commit outcomes). */
export function registryToolDescriptor(tool: AnyToolDefinition, extendOutput?: (schema: z.ZodObject) => z.ZodObject): Tool {
  const declared = outputSchemaOf(tool);
  const output = declared && extendOutput ? extendOutput(declared) : declared;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: withNullableOptionals(inputJsonSchema(tool)) as Tool['inputSchema'],
    ...(output ? { outputSchema: objectJsonSchema(output, 'output') } : {}),
    annotations: toolAnnotations(tool),
  };
}
