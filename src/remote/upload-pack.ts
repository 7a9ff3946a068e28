/**
 * The fetch side of the protocol (git-upload-pack over stateless HTTP, protocol v0): one request
 * with our wants and haves and "done", one answer with the negotiation lines and the pack on
 * side-band 1. Pure request building and response parsing.
 */
import { concatBytes, demuxSideBand, FLUSH_PKT, pktLine, PktReader, protocolError } from './pkt-line';

export function uploadPackRequest(wants: readonly string[], haves: readonly string[], serverCapabilities: ReadonlySet<string>): Uint8Array {
  const caps = ['side-band-64k', 'ofs-delta', 'no-progress'].filter((c) => serverCapabilities.has(c));
  caps.push('agent=forge/0.1');
  const parts: Uint8Array[] = wants.map((oid, i) => pktLine(i === 0 ? `want ${oid} ${caps.join(' ')}\n` : `want ${oid}\n`));
  parts.push(FLUSH_PKT);
  for (const oid of haves) parts.push(pktLine(`have ${oid}\n`));
  parts.push(pktLine('done\n'));
  return concatBytes(parts);
}

/** The pack bytes of an upload-pack answer. */
export function packFromUploadPackResponse(body: Uint8Array, sideBand: boolean, remote: string): Uint8Array {
  const what = `upload-pack answer of ${remote}`;
  const reader = new PktReader(body, what);
  for (;;) {
    const head = reader.peekText(8);
    if (head === undefined) break;
    if (!/^(ACK |NAK|shallow |unshallow )/.test(head)) break;
    reader.next();
  }
  if (!sideBand) {
    const rest = reader.rest();
    if (rest.length < 4 || String.fromCharCode(...rest.subarray(0, 4)) !== 'PACK') throw protocolError(what, 'no pack after the negotiation');
    return rest;
  }
  const pack = demuxSideBand(reader, what);
  if (pack.length === 0) throw protocolError(what, 'no pack (the connection may have broken)');
  return pack;
}
