/** The providers and the one place that builds one from a name, options and the environment. */
import { ForgeError } from '../../errors';
import { AnthropicProvider } from './anthropic';
import type { HttpOptions } from './http';
import { OpenAiProvider } from './openai';
import { ScriptedProvider, type Script } from './scripted';
import type { Provider } from './types';

export * from './types';
export { OpenAiProvider, OPENAI_DEFAULT_BASE_URL, parseArguments, type OpenAiProviderOptions } from './openai';
export { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, toAnthropicMessages, type AnthropicProviderOptions } from './anthropic';
export { ScriptedProvider, ScriptSchema, parseScript, scriptPosition, type Script, type ScriptTurn, type ScriptReply } from './scripted';
export { postJson, serverMessage, type FetchLike, type HttpOptions, type PostJsonRequest } from './http';
export { backoffDelay, parseRetryAfter, abortableSleep, retryOptions, DEFAULT_RETRY, type RetryOptions } from './retry';

export const PROVIDER_KINDS = ['scripted', 'openai', 'anthropic'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderConfig {
  kind: ProviderKind;
  model?: string;
  /** Overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL. */
  baseUrl?: string;
  /** Where keys, base URLs and default models come from (the CLI passes process.env). */
  env?: Record<string, string | undefined>;
  /** Required by the scripted provider. */
  script?: Script;
  http?: HttpOptions;
}

/**
 * openai: OPENAI_API_KEY, OPENAI_BASE_URL (default https://api.openai.com/v1), model from
 * `model` or OPENAI_MODEL. anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (default
 * https://api.anthropic.com), model from `model` or ANTHROPIC_MODEL. scripted: `script`.
 */
export function createProvider(config: ProviderConfig): Provider {
  const env = config.env ?? {};
  const http = config.http ?? {};
  switch (config.kind) {
    case 'scripted':
      if (!config.script) {
        throw new ForgeError('PROVIDER_NOT_CONFIGURED', 'The scripted provider (the default) replays a script and needs one.', {
          hint: 'Pass --script FILE, or choose a model provider with --provider openai|anthropic for --task.',
        });
      }
      return new ScriptedProvider(config.script);
    case 'openai': {
      const baseUrl = config.baseUrl ?? env.OPENAI_BASE_URL;
      return new OpenAiProvider({ ...http, apiKey: env.OPENAI_API_KEY ?? '', model: config.model ?? env.OPENAI_MODEL ?? '', ...(baseUrl ? { baseUrl } : {}) });
    }
    case 'anthropic': {
      const baseUrl = config.baseUrl ?? env.ANTHROPIC_BASE_URL;
      return new AnthropicProvider({ ...http, apiKey: env.ANTHROPIC_API_KEY ?? '', model: config.model ?? env.ANTHROPIC_MODEL ?? '', ...(baseUrl ? { baseUrl } : {}) });
    }
    default:
      throw new ForgeError('INVALID_ARGUMENT', `Unknown provider ${JSON.stringify(config.kind)}; use one of ${PROVIDER_KINDS.join(', ')}.`);
  }
}
