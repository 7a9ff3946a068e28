/** git's xdiff port lives in the text layer (text/xdiff.ts), where the session layer's `--stat` counts use it too. */
export * from '../text/xdiff';
