import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAdvertisement } from '../../../src/remote/advertisement';
import { concatBytes, demuxSideBand, FLUSH_PKT, pktLine, PktReader } from '../../../src/remote/pkt-line';
import { parseReportStatus } from '../../../src/remote/receive-pack';

const enc = new TextEncoder();

describe('pkt-line', () => {
  it('reads back what it writes, flushes included', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null })), (packets) => {
        const bytes = concatBytes(packets.map((p) => (p === null ? FLUSH_PKT : pktLine(p))));
        const reader = new PktReader(bytes, 'test');
        const back: Array<Uint8Array | null> = [];
        for (let p = reader.next(); p !== undefined; p = reader.next()) back.push(p === null ? null : Uint8Array.from(p));
        // An empty payload is "0004", which git treats like a flush-less empty line: keep it distinct.
        expect(back).toEqual(packets.map((p) => (p === null ? null : Uint8Array.from(p))));
      }),
    );
  });

  it('reports a cut packet as a protocol error, not a crash', () => {
    const bytes = pktLine('want abc\n').subarray(0, 7);
    expect(() => new PktReader(bytes, 'test').next()).toThrow(expect.objectContaining({ code: 'REMOTE_PROTOCOL_ERROR' }));
  });

  it('demultiplexes side-band data and turns band 3 into an error', () => {
    const band = (n: number, text: string) => pktLine(concatBytes([Uint8Array.of(n), enc.encode(text)]));
    const bytes = concatBytes([band(2, 'progress'), band(1, 'PA'), band(1, 'CK'), FLUSH_PKT]);
    expect(new TextDecoder().decode(demuxSideBand(new PktReader(bytes, 't'), 't'))).toBe('PACK');
    expect(() => demuxSideBand(new PktReader(concatBytes([band(3, 'disk full'), FLUSH_PKT]), 't'), 't')).toThrow(/disk full/);
  });

  it('parses an advertisement and a report-status', () => {
    const oid = 'a'.repeat(40);
    const ad = concatBytes([pktLine('# service=git-receive-pack\n'), FLUSH_PKT, pktLine(`${oid} refs/heads/main\0report-status delete-refs side-band-64k\n`), pktLine(`${'b'.repeat(40)} refs/tags/v1^{}\n`), FLUSH_PKT]);
    const parsed = parseAdvertisement(ad, 'git-receive-pack', 'r');
    expect([...parsed.refs]).toEqual([['refs/heads/main', oid]]);
    expect(parsed.capabilities.has('side-band-64k')).toBe(true);
    const empty = concatBytes([pktLine('# service=git-upload-pack\n'), FLUSH_PKT, pktLine(`${'0'.repeat(40)} capabilities^{}\0ofs-delta\n`), FLUSH_PKT]);
    expect(parseAdvertisement(empty, 'git-upload-pack', 'r').refs.size).toBe(0);
    expect(() => parseAdvertisement(enc.encode('<html>'), 'git-upload-pack', 'r')).toThrow(expect.objectContaining({ code: 'REMOTE_PROTOCOL_ERROR' }));
    const report = concatBytes([pktLine('unpack ok\n'), pktLine('ok refs/heads/a\n'), pktLine('ng refs/heads/b non-fast-forward\n'), FLUSH_PKT]);
    expect(parseReportStatus(report, false, 'r')).toEqual({ unpack: 'ok', refs: new Map([['refs/heads/a', null], ['refs/heads/b', 'non-fast-forward']]) });
  });
});
