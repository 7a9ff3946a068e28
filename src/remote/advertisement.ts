/** The ref advertisement of a smart-HTTP `info/refs?service=…` answer (protocol v0/v1). Pure. */
import { quoteRemote } from '../errors';
import { PktReader, protocolError } from './pkt-line';
import type { GitService } from './http-transport';

export interface Advertisement {
  /** Ref name -> oid (peeled tag entries `^{}` left out). */
  refs: Map<string, string>;
  capabilities: Set<string>;
}

export function parseAdvertisement(bytes: Uint8Array, service: GitService, remote: string): Advertisement {
  const what = `${service} advertisement of ${remote}`;
  const reader = new PktReader(bytes, what);
  const first = reader.nextText();
  if (first !== `# service=${service}`) {
    throw protocolError(what, first === undefined || first === null ? 'no service line' : 'a dumb-HTTP or non-git answer (no "# service=" line)');
  }
  // Some servers put a flush after the service line, as git does.
  let line = reader.nextText();
  if (line === null) line = reader.nextText();
  const refs = new Map<string, string>();
  const capabilities = new Set<string>();
  let firstRef = true;
  for (; line !== undefined && line !== null; line = reader.nextText()) {
    let text = line;
    if (firstRef) {
      const nul = text.indexOf('\0');
      if (nul >= 0) {
        for (const cap of text.slice(nul + 1).split(' ')) if (cap !== '') capabilities.add(cap);
        text = text.slice(0, nul);
      }
      firstRef = false;
    }
    const match = /^([0-9a-f]{40}) (\S+)$/.exec(text);
    if (!match) throw protocolError(what, `the malformed ref line "${quoteRemote(text, 80)}"`);
    const [, oid, ref] = match;
    if (ref === 'capabilities^{}' || ref!.endsWith('^{}')) continue;
    refs.set(ref!, oid!);
  }
  if (line === undefined) throw protocolError(what, 'an advertisement without its closing flush (the connection may have broken)');
  return { refs, capabilities };
}
