/**
 * Syntax colouring with highlight.js (core plus the languages a code repository mostly holds:
 * the full build is ~1 MB, this is a fraction). Callers colour line by line, near the viewport
 * and a few milliseconds' worth per frame (`NearScreenColourer`).
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

/**
 * Colours the lines of blocks as the blocks come near the viewport, a few milliseconds' worth per
 * frame: a 10,000-line file or diff is never coloured in one long task, and what is far off
 * screen is not coloured until it is scrolled to. A block carries its language in
 * `data-language`; its lines are the elements matching `lines`.
 */
export class NearScreenColourer {
  private readonly queue: Array<{ el: Element; language: string }> = [];
  private readonly observer: IntersectionObserver;
  private frame = 0;
  private waiting: Array<() => void> = [];
  /** Blocks observed whose first report has not come yet: until it does, nobody knows if they are near. */
  private readonly unreported = new Set<Element>();

  constructor(
    private readonly lines: string,
    private readonly budgetMs = 8,
    rootMargin = '1500px 0px',
  ) {
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          this.unreported.delete(entry.target);
          if (!entry.isIntersecting) continue;
          this.observer.unobserve(entry.target);
          const language = (entry.target as HTMLElement).dataset.language ?? 'plaintext';
          if (language === 'plaintext') continue;
          for (const el of entry.target.querySelectorAll(this.lines)) this.queue.push({ el, language });
        }
        if (this.queue.length && !this.frame) this.frame = requestAnimationFrame(this.step);
        else this.settle();
      },
      { rootMargin },
    );
  }

  observe(block: Element): void {
    this.unreported.add(block);
    this.observer.observe(block);
  }

  /** Calls `then` once every observed block has been reported and the lines of those near the viewport are coloured. */
  whenColoured(then: () => void): void {
    this.waiting.push(then);
    this.settle();
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
    this.observer.disconnect();
    this.queue.length = 0;
    this.unreported.clear();
    this.waiting = [];
  }

  private readonly step = () => {
    this.frame = 0;
    const start = performance.now();
    while (this.queue.length && performance.now() - start < this.budgetMs) {
      const { el, language } = this.queue.shift()!;
      highlightElement(el, language);
    }
    if (this.queue.length) this.frame = requestAnimationFrame(this.step);
    else this.settle();
  };

  private settle(): void {
    if (this.queue.length || this.frame || this.unreported.size) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const then of waiting) then();
  }
}
