/**
 * The push side of the protocol (git-receive-pack over stateless HTTP): ref update commands
 * `<old> <new> <ref>`, each old value the server checks under its ref lock (so an update made
 * since our advertisement is refused there, not overwritten), then the pack; the answer is
 * report-status. Pure request building and response parsing.
 */
import { quoteRemote } from '../errors';
import { concatBytes, demuxSideBand, FLUSH_PKT, pktLine, PktReader, protocolError } from './pkt-line';

export interface RefCommand {
  ref: string;
  oldOid: string;
  newOid: string;
}

export interface ReportStatus {
  unpack: string;
  /** Ref -> null when updated, else the server's reason. */
  refs: Map<string, string | null>;
}

export function receivePackRequest(commands: readonly RefCommand[], pack: Uint8Array, serverCapabilities: ReadonlySet<string>): Uint8Array {
  const caps = ['report-status', 'side-band-64k', 'quiet'].filter((c) => serverCapabilities.has(c));
  if (serverCapabilities.has('atomic') && commands.length > 1) caps.push('atomic');
  caps.push('agent=forge/0.1');
  const parts = commands.map((c, i) => pktLine(`${c.oldOid} ${c.newOid} ${c.ref}${i === 0 ? `\0${caps.join(' ')}` : ''}\n`));
  parts.push(FLUSH_PKT, pack);
  return concatBytes(parts);
}

export function parseReportStatus(body: Uint8Array, sideBand: boolean, remote: string): ReportStatus {
  const what = `receive-pack answer of ${remote}`;
  const inner = sideBand ? demuxSideBand(new PktReader(body, what), what) : body;
  const reader = new PktReader(inner, what);
  const unpackLine = reader.nextText();
  if (typeof unpackLine !== 'string' || !unpackLine.startsWith('unpack ')) throw protocolError(what, 'no report-status (the connection may have broken)');
  const refs = new Map<string, string | null>();
  for (let line = reader.nextText(); typeof line === 'string'; line = reader.nextText()) {
    const ok = /^ok (\S+)$/.exec(line);
    const ng = /^ng (\S+) (.*)$/.exec(line);
    if (ok) refs.set(ok[1]!, null);
    else if (ng) refs.set(ng[1]!, quoteRemote(ng[2]!));
    else throw protocolError(what, `the status line "${quoteRemote(line, 80)}"`);
  }
  return { unpack: quoteRemote(unpackLine.slice('unpack '.length)), refs };
}
