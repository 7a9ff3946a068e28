/**
 * git's pkt-line framing (gitprotocol-common): four hex digits of length (the four included),
 * then the payload; "0000" is a flush packet. Pure.
 */
import { ForgeError, quoteRemote } from '../errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const FLUSH_PKT = encoder.encode('0000');

export function pktLine(payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const length = bytes.length + 4;
  if (length > 65520) throw new ForgeError('INTERNAL', `A pkt-line of ${length} bytes exceeds git's limit of 65520.`);
  const out = new Uint8Array(length);
  out.set(encoder.encode(length.toString(16).padStart(4, '0')), 0);
  out.set(bytes, 4);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A packet: its payload, or null for a flush (0000), delim (0001) or response-end (0002). */
export type Packet = Uint8Array | null;

/** Reads pkt-lines from a buffer, one at a time; `rest()` is what follows the last one read. */
export class PktReader {
  private at = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  /** The next packet; undefined at the end of the buffer. */
  next(): Packet | undefined {
    if (this.done) return undefined;
    if (this.at + 4 > this.bytes.length) throw protocolError(this.what, 'a truncated pkt-line length');
    const header = decoder.decode(this.bytes.subarray(this.at, this.at + 4));
    if (!/^[0-9a-f]{4}$/.test(header)) throw protocolError(this.what, `"${quoteRemote(header)}" where a pkt-line length was expected`);
    const length = parseInt(header, 16);
    if (length < 4) {
      this.at += 4;
      return null;
    }
    if (this.at + length > this.bytes.length) throw protocolError(this.what, 'a pkt-line cut short (the connection may have broken)');
    const payload = this.bytes.subarray(this.at + 4, this.at + length);
    this.at += length;
    return payload;
  }

  /** The next packet as text without its trailing newline (null for a flush). */
  nextText(): string | null | undefined {
    const packet = this.next();
    return packet == null ? packet : textOf(packet);
  }

  /** The next packet's first bytes as text, without consuming it (undefined at the end or on a flush). */
  peekText(length: number): string | undefined {
    if (this.at + 4 > this.bytes.length) return undefined;
    const header = parseInt(decoder.decode(this.bytes.subarray(this.at, this.at + 4)), 16);
    if (!(header >= 4)) return undefined;
    return decoder.decode(this.bytes.subarray(this.at + 4, this.at + Math.min(header, 4 + length)));
  }

  rest(): Uint8Array {
    return this.bytes.subarray(this.at);
  }
}

export function textOf(payload: Uint8Array): string {
  const text = decoder.decode(payload);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

export function protocolError(what: string, detail: string): ForgeError {
  return new ForgeError('REMOTE_PROTOCOL_ERROR', `${what}: the server sent ${detail}.`, {
    data: { what },
    hint: 'Check that the URL points at a git repository served over smart HTTP (git http-backend, GitHub, GitLab, Gitea).',
  });
}

/**
 * Demultiplexes side-band-64k: band 1 is data, 2 progress (dropped), 3 a fatal error from the
 * server. Packets run until a flush or the end.
 */
export function demuxSideBand(reader: PktReader, what: string): Uint8Array {
  const data: Uint8Array[] = [];
  for (let packet = reader.next(); packet !== undefined && packet !== null; packet = reader.next()) {
    const band = packet[0];
    if (band === 1) data.push(packet.subarray(1));
    else if (band === 3) throw new ForgeError('REMOTE_REJECTED', `${what}: the server reported: ${quoteRemote(textOf(packet.subarray(1)).trim())}`, { data: { what } });
    else if (band !== 2) throw protocolError(what, `side-band channel ${band}`);
  }
  return concatBytes(data);
}
