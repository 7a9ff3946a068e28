/**
 * The HTTP side of git's smart protocol: GET info/refs and POST to a service, through an injected
 * `fetch` that must not follow redirects itself (`redirect: 'manual'`; the Node adapter never
 * does). Every failure becomes a coded error naming the remote by its redacted URL: 401/403
 * REMOTE_AUTH_FAILED, a connection that fails or breaks REMOTE_UNREACHABLE, a connect or
 * low-speed timeout (enforced by the adapter, see TransferLimits) REMOTE_TIMEOUT.
 *
 * Credentials are bound to the origin (scheme, host, port) they were given for: the URL's and
 * FORGE_REMOTE_TOKEN to the remote's, a credential helper's answer to the origin it was asked
 * about. A request to any other origin goes without an Authorization header. Redirects follow
 * `redirect.ts` (git's http.followRedirects=initial).
 */
import { ForgeError, quoteRemote } from '../errors';
import { basicAuthorization, type CredentialHelper, type Credentials } from './auth';
import { baseAfterRedirect, REDIRECT_STATUSES, redirectTarget } from './redirect';
import type { RemoteEndpoint } from './remote-url';

/**
 * Limits the fetch adapter enforces on each request (git's http.lowSpeedLimit/http.lowSpeedTime,
 * and a connect timeout): 0 disables one.
 */
export interface TransferLimits {
  /** Connecting (TCP and TLS handshake) must finish within this. */
  connectTimeoutMs: number;
  /** Bytes per second, both directions together, averaged over lowSpeedTimeMs... */
  lowSpeedLimit: number;
  /** ...below which the transfer is abandoned. */
  lowSpeedTimeMs: number;
}

export const DEFAULT_TRANSFER_LIMITS: TransferLimits = { connectTimeoutMs: 30_000, lowSpeedLimit: 1, lowSpeedTimeMs: 60_000 };

export type FetchFunction = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: Uint8Array; signal?: AbortSignal; redirect: 'manual'; limits?: TransferLimits },
) => Promise<Response>;

/** What an adapter throws when a TransferLimits limit is hit (recognised by its name across bundles). */
export class TransferTimeout extends Error {
  constructor(
    readonly which: 'connect' | 'low-speed',
    message: string,
  ) {
    super(message);
    this.name = 'TransferTimeout';
  }
}

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export interface TransportOptions {
  credentials?: Credentials | null;
  /** Asked once per origin, after a 401 there. */
  credentialHelper?: CredentialHelper;
  fetch?: FetchFunction;
  /** The remote's name as the user knows it, for messages (default: its URL). */
  name?: string;
  /** Plain http to hosts other than loopback, also on a redirect's hop. */
  allowHttp?: boolean;
  limits?: TransferLimits;
}

interface BoundCredentials {
  origin: string;
  value: Credentials;
  /** From the credential helper: told approve/reject, asked for by the base URL of that origin. */
  fromHelper: boolean;
}

export class HttpTransport {
  /** Request bytes sent (bodies), for measurement. */
  bytesSent = 0;
  bytesReceived = 0;
  /** Things the user should know that did not stop the operation (a followed redirect). */
  readonly warnings: string[] = [];
  /** Where requests go: the endpoint's URL, or where its first request was redirected. */
  private base: string;
  /** git's http.followRedirects=initial: redirects are followed until the first request has succeeded (a 401 and its retry included). */
  private initial = true;
  private credentials: BoundCredentials | null;
  private readonly helperAsked = new Set<string>();
  private approved = false;
  private readonly fetchFn: FetchFunction;

  constructor(
    readonly endpoint: RemoteEndpoint,
    private readonly options: TransportOptions = {},
  ) {
    this.base = endpoint.url;
    this.credentials = options.credentials ? { origin: new URL(endpoint.url).origin, value: options.credentials, fromHelper: false } : null;
    this.fetchFn = options.fetch ?? ((url, init) => globalThis.fetch(url, init as RequestInit));
  }

  get label(): string {
    return this.options.name !== undefined ? `${this.options.name} (${this.endpoint.display})` : this.endpoint.display;
  }

  async advertisement(service: GitService): Promise<Uint8Array> {
    return this.request('GET', `/info/refs?service=${service}`, { Accept: `application/x-${service}-advertisement` });
  }

  async call(service: GitService, body: Uint8Array): Promise<Uint8Array> {
    return this.request('POST', `/${service}`, { 'Content-Type': `application/x-${service}-request`, Accept: `application/x-${service}-result` }, body);
  }

  private async request(method: string, suffix: string, headers: Record<string, string>, body?: Uint8Array): Promise<Uint8Array> {
    let url = this.base + suffix;
    let hops = 0;
    for (;;) {
      const origin = new URL(url).origin;
      const credentials = this.credentials !== null && this.credentials.origin === origin ? this.credentials : null;
      const all: Record<string, string> = { 'User-Agent': 'git/forge', ...headers };
      if (credentials) all.Authorization = basicAuthorization(credentials.value);
      const { response, bytes } = await this.send(url, { method, headers: all, ...(body !== undefined ? { body } : {}), redirect: 'manual', ...(this.options.limits ? { limits: this.options.limits } : {}) });
      if (body !== undefined) this.bytesSent += body.length;
      this.bytesReceived += bytes.length;
      if (response.type === 'opaqueredirect' || REDIRECT_STATUSES.has(response.status)) {
        const context = { from: url, location: response.headers.get('location'), hops, followable: this.initial && method === 'GET', allowHttp: this.options.allowHttp ?? false, label: this.label };
        url = redirectTarget(context);
        this.base = baseAfterRedirect(url, context);
        hops += 1;
        continue;
      }
      if ((response.status === 401 || response.status === 403) && credentials?.fromHelper) {
        await this.options.credentialHelper?.reject?.(this.base, credentials.value);
        this.credentials = null;
      }
      if (response.status === 401 && this.options.credentialHelper && !this.helperAsked.has(origin)) {
        this.helperAsked.add(origin);
        const found = await this.options.credentialHelper.fill(this.base);
        if (found) {
          this.credentials = { origin, value: found, fromHelper: true };
          continue;
        }
      }
      if (response.status === 401 || response.status === 403) {
        const had = credentials !== null;
        throw new ForgeError('REMOTE_AUTH_FAILED', `Remote ${this.label} refused ${had ? 'the credentials given' : 'the request without credentials'} (HTTP ${response.status}).`, {
          data: { remote: this.label, status: response.status },
          hint: had
            ? 'Check the user name and token (FORGE_REMOTE_TOKEN, or the URL\'s user:password) and that they may push to this repository.'
            : 'Set FORGE_REMOTE_TOKEN (and FORGE_REMOTE_USER if the server needs a user name), or configure a git credential helper.',
        });
      }
      if (response.status === 404) {
        throw new ForgeError('REMOTE_NOT_FOUND', `Remote ${this.label} has no git repository at that URL (HTTP 404).`, { data: { remote: this.label, status: 404 } });
      }
      if (response.status < 200 || response.status >= 300) {
        throw new ForgeError('REMOTE_PROTOCOL_ERROR', `Remote ${this.label} answered HTTP ${response.status} to ${method} ${suffix}.`, {
          data: { remote: this.label, status: response.status },
        });
      }
      if (this.initial && this.base !== this.endpoint.url) this.warnings.push(`redirected to ${this.base} (credentials for ${new URL(this.endpoint.url).origin} are not sent there)`);
      this.initial = false;
      if (credentials?.fromHelper && !this.approved) {
        this.approved = true;
        await this.options.credentialHelper?.approve?.(this.base, credentials.value);
      }
      return bytes;
    }
  }

  private async send(url: string, init: Parameters<FetchFunction>[1]): Promise<{ response: Response; bytes: Uint8Array }> {
    try {
      const response = await this.fetchFn(url, init);
      return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
    } catch (error) {
      const timeout = error as Partial<TransferTimeout>;
      if (timeout?.name === 'TransferTimeout') {
        const which = timeout.which === 'connect' ? 'connect' : 'low-speed';
        throw new ForgeError('REMOTE_TIMEOUT', `Remote ${this.label} ${which === 'connect' ? 'did not connect in time' : 'sent too slowly'}: ${timeout.message}.`, {
          data: { remote: this.label, timeout: which },
          hint:
            which === 'connect'
              ? 'Check the URL and the network; nothing was changed locally. A slow network can have more time: git config forge.connectTimeout SECONDS (0: none).'
              : 'Nothing was changed locally; retry when the server is healthy. A slow network can have more room: git config http.lowSpeedLimit BYTES_PER_SECOND / http.lowSpeedTime SECONDS (limit 0: none).',
        });
      }
      const cause = quoteRemote(causeText(error));
      if (CERTIFICATE_ERROR.test(cause)) {
        throw new ForgeError('REMOTE_UNREACHABLE', `Remote ${this.label} presented a certificate that is not trusted: ${cause}.`, {
          data: { remote: this.label, tls: cause },
          hint: 'Add the CA that signed it to the system\'s certificate store, or point SSL_CERT_FILE (or NODE_EXTRA_CA_CERTS) at its PEM file; nothing was changed locally.',
        });
      }
      throw new ForgeError('REMOTE_UNREACHABLE', `Remote ${this.label} could not be reached or the connection broke: ${cause}.`, {
        data: { remote: this.label },
        hint: 'Check the URL and the network; nothing was changed locally. Retry when the server is back.',
      });
    }
  }
}

/** OpenSSL's and Node's codes for a certificate that does not verify. */
const CERTIFICATE_ERROR = /CERT|UNABLE_TO_(GET|VERIFY)|SELF_SIGNED|ERR_TLS_CERT/;

function causeText(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
