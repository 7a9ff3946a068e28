/**
 * A hostile smart-HTTP git server for tests, on 127.0.0.1: it advertises the refs it is given
 * and answers every upload-pack request with the pack bytes the test built (a bomb, a pack
 * that lacks objects, a damaged one), whatever was asked. No side-band, protocol v0.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { deflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

export interface HostileServer {
  /** http://127.0.0.1:<port>/repo.git */
  url: string;
  /** The bodies of the upload-pack requests received (wants and haves), as text. */
  requests: string[];
  close(): Promise<void>;
}

function pkt(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

export async function startHostileServer(refs: ReadonlyArray<readonly [ref: string, oid: string]>, pack: () => Buffer): Promise<HostileServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.endsWith('/info/refs') && url.searchParams.get('service') === 'git-upload-pack') {
      const lines = [pkt('# service=git-upload-pack\n'), Buffer.from('0000')];
      refs.forEach(([ref, oid], i) => lines.push(pkt(i === 0 ? `${oid} ${ref}\0ofs-delta no-progress agent=hostile/1\n` : `${oid} ${ref}\n`)));
      lines.push(Buffer.from('0000'));
      res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-advertisement', 'Cache-Control': 'no-cache' });
      res.end(Buffer.concat(lines));
      return;
    }
    if (req.method === 'POST' && url.pathname.endsWith('/git-upload-pack')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push(Buffer.concat(chunks).toString('latin1'));
        res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
        res.end(Buffer.concat([pkt('NAK\n'), pack()]));
      });
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface RawPackEntry {
  /** 1 commit, 2 tree, 3 blob, 4 tag, 7 ref-delta. */
  typeCode: number;
  /** The size the entry header declares (default: the body's length). */
  declaredSize?: number;
  /** The entry's data before deflating (an object's content, or a delta). */
  body?: Buffer;
  /** The zlib stream to use as is (for bombs), instead of deflating `body`. */
  deflated?: Buffer;
  /** For a ref-delta: the base's oid. */
  baseOid?: string;
}

/** A version 2 pack of exactly these entries, with a correct trailing checksum. */
export function buildPack(entries: readonly RawPackEntry[]): Buffer {
  const parts: Buffer[] = [Buffer.from('PACK'), Buffer.from([0, 0, 0, 2]), Buffer.alloc(4)];
  parts[2]!.writeUInt32BE(entries.length);
  for (const e of entries) {
    let size = e.declaredSize ?? e.body!.length;
    const header: number[] = [];
    let byte = (e.typeCode << 4) | (size & 15);
    size = Math.floor(size / 16);
    while (size > 0) {
      header.push(byte | 0x80);
      byte = size & 0x7f;
      size = Math.floor(size / 128);
    }
    header.push(byte);
    parts.push(Buffer.from(header));
    if (e.typeCode === 7) parts.push(Buffer.from(e.baseOid!, 'hex'));
    parts.push(e.deflated ?? deflateSync(e.body!));
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** A git delta's size header: base size then result size, as varints. */
export function deltaHeader(baseSize: number, resultSize: number): Buffer {
  const out: number[] = [];
  for (let n of [baseSize, resultSize]) {
    do {
      let b = n & 0x7f;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
  }
  return Buffer.from(out);
}
