/** forge tools : the tool schemas, in OpenAI function-calling (strict) and Anthropic form. */
import type { Command } from 'commander';
import { DEFAULT_TOOLS_CONFIG } from '../../tools';
import { cliToolRegistry } from '../registry';
import { common } from '../common';
import { emit, type CommonOptions } from '../io';

export function registerTools(program: Command): void {
  common(program.command('tools'))
    .description('print the tool schemas (OpenAI strict function calling and Anthropic tool form)')
    .action((options: CommonOptions) => {
      const schemas = cliToolRegistry().schemas(DEFAULT_TOOLS_CONFIG);
      emit(options, schemas, () => schemas.openai.map((t) => `${t.function.name}\n    ${t.function.description.split('\n')[0]}`).join('\n'));
    });
}
