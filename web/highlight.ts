/**
 * Syntax colouring with highlight.js (core plus the languages a code repository mostly holds:
 * the full build is ~1 MB, this is a fraction). Callers colour line by line, a slice per frame.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { closeTags, getLanguage, mergeStreams, nodeStream } from 'diff2html/lib/ui/js/highlight.js-helpers';

const LANGUAGES = { bash, c, cpp, css, go, ini, java, javascript, json, markdown, plaintext, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** The highlight.js language for a file name, plaintext when it has none of ours. */
export function languageOf(path: string): string {
  const ext = path.includes('.') ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '';
  const name = ext ? getLanguage(ext) : 'plaintext';
  return hljs.getLanguage(name) ? name : 'plaintext';
}

/** Colours one element's text in place, keeping markup already in it (diff2html's changed-word marks). */
export function highlightElement(el: Element, language: string): void {
  const text = el.textContent ?? '';
  if (text === '' || language === 'plaintext') return;
  const result = closeTags(hljs.highlight(text, { language, ignoreIllegals: true }));
  const original = nodeStream(el);
  if (original.length) {
    const scratch = document.createElement('div');
    scratch.innerHTML = result.value;
    result.value = mergeStreams(original, nodeStream(scratch), text);
  }
  el.classList.add('hljs');
  el.innerHTML = result.value;
}

/** Colours elements a slice per animation frame (a 10,000-line file stays responsive); returns a canceller. */
export function highlightLater(items: Array<{ el: Element; language: string }>, done?: () => void, slice = 300): () => void {
  let index = 0;
  let handle = 0;
  const step = () => {
    const end = Math.min(items.length, index + slice);
    for (; index < end; index++) highlightElement(items[index]!.el, items[index]!.language);
    if (index < items.length) handle = requestAnimationFrame(step);
    else done?.();
  };
  handle = requestAnimationFrame(step);
  return () => cancelAnimationFrame(handle);
}
