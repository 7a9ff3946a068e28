/**
 * The HTTP side of git's smart protocol: GET info/refs and POST to a service, with credentials
 * as an Authorization header, through `fetch` (Node >= 18 and browsers). Every failure becomes a
 * coded error naming the remote by its redacted URL: 401/403 REMOTE_AUTH_FAILED, a connection
 * that fails or breaks REMOTE_UNREACHABLE.
 */
import { ForgeError } from '../errors';
import { basicAuthorization, type CredentialHelper, type Credentials } from './auth';
import type { RemoteEndpoint } from './remote-url';

export type FetchFunction = (url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array; signal?: AbortSignal }) => Promise<Response>;

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export interface TransportOptions {
  credentials?: Credentials | null;
  /** Asked once, after a 401 without credentials (or with the ones given). */
  credentialHelper?: CredentialHelper;
  fetch?: FetchFunction;
  /** The remote's name as the user knows it, for messages (default: its URL). */
  name?: string;
}

export class HttpTransport {
  /** Request bytes sent (bodies), for measurement. */
  bytesSent = 0;
  bytesReceived = 0;
  private credentials: Credentials | null;
  private helperTried = false;
  private readonly fetchFn: FetchFunction;

  constructor(
    readonly endpoint: RemoteEndpoint,
    private readonly options: TransportOptions = {},
  ) {
    this.credentials = options.credentials ?? null;
    this.fetchFn = options.fetch ?? ((url, init) => globalThis.fetch(url, init as RequestInit));
  }

  get label(): string {
    return this.options.name !== undefined ? `${this.options.name} (${this.endpoint.display})` : this.endpoint.display;
  }

  async advertisement(service: GitService): Promise<Uint8Array> {
    return this.request('GET', `${this.endpoint.url}/info/refs?service=${service}`, { Accept: `application/x-${service}-advertisement` });
  }

  async call(service: GitService, body: Uint8Array): Promise<Uint8Array> {
    return this.request('POST', `${this.endpoint.url}/${service}`, { 'Content-Type': `application/x-${service}-request`, Accept: `application/x-${service}-result` }, body);
  }

  private async request(method: string, url: string, headers: Record<string, string>, body?: Uint8Array): Promise<Uint8Array> {
    for (;;) {
      const all: Record<string, string> = { 'User-Agent': 'git/forge', ...headers };
      if (this.credentials) all.Authorization = basicAuthorization(this.credentials);
      let response: Response;
      let bytes: Uint8Array;
      try {
        response = await this.fetchFn(url, { method, headers: all, ...(body !== undefined ? { body } : {}) });
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        const cause = causeText(error);
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
      if (body !== undefined) this.bytesSent += body.length;
      this.bytesReceived += bytes.length;
      if (response.status === 401 && this.options.credentialHelper && !this.helperTried) {
        this.helperTried = true;
        const found = await this.options.credentialHelper(this.endpoint.url);
        if (found) {
          this.credentials = found;
          continue;
        }
      }
      if (response.status === 401 || response.status === 403) {
        const had = this.credentials !== null;
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
        throw new ForgeError('REMOTE_PROTOCOL_ERROR', `Remote ${this.label} answered HTTP ${response.status} to ${method} ${url.slice(this.endpoint.url.length)}.`, {
          data: { remote: this.label, status: response.status },
        });
      }
      return bytes;
    }
  }
}

/** OpenSSL's and Node's codes for a certificate that does not verify. */
const CERTIFICATE_ERROR = /CERT|UNABLE_TO_(GET|VERIFY)|SELF_SIGNED|ERR_TLS_CERT/;

function causeText(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
