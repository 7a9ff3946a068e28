/**
 * Every action is behind a confirmation that says what will happen; after it runs, the dialog
 * reports the resulting commit (or the refusal, with its error code). A dialog about a session
 * remembers the head it showed: a live update that moves that session marks it stale, naming
 * the new head (the server refuses the action anyway, since the request carries the old head).
 */
import { ApiError } from './api';
import { clear, h, short, type Child } from './dom';

/** The session and head an open dialog is about, and how to tell it the session moved. */
let watching: { session: string; head: string; moved: (head: string | null) => void } | undefined;

/** Called with each live update: a dialog about a session that moved says so. */
export function sessionsMoved(changed: ReadonlyArray<{ id: string; head: string | null }>): void {
  if (!watching) return;
  const mine = changed.find((c) => c.id === watching!.session && c.head !== watching!.head);
  if (mine) watching.moved(mine.head);
}

export function confirmAction(title: string, explanation: Child, run: () => Promise<Child>, after?: () => void, about?: { session: string; head: string }): void {
  const dialog = document.getElementById('confirm') as HTMLDialogElement;
  clear(dialog);
  const result = h('div.result', { role: 'status' });
  const notice = h('div.moved', { role: 'alert' });
  const confirm = h('button.primary', { type: 'button' }, 'Confirm');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  let done = false;
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => (watching = undefined), { once: true });
  watching = about && {
    ...about,
    moved: (head) => {
      if (done) return;
      clear(notice);
      notice.append(
        h('strong', {}, 'This session moved while this dialog was open'),
        ...(head === null ? [': its branch is gone. '] : [': its head is now ', h('code.new-head', {}, short(head)), ` (this dialog shows ${short(about.head)}). `]),
        'Confirm will be refused: close this dialog and review the new turns first.',
      );
    },
  };
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    cancel.textContent = 'Close';
    clear(result);
    result.append(h('p', {}, 'Working…'));
    try {
      const out = await run();
      done = true;
      clear(result);
      result.append(h('div.ok', {}, out));
      after?.();
    } catch (error) {
      clear(result);
      const e = error instanceof ApiError ? error : new ApiError('INTERNAL', String(error));
      result.append(h('div.refused', {}, h('strong', {}, `error ${e.code}`), ': ', e.message, e.hint ? h('div.hint', {}, e.hint) : null));
    }
  });
  dialog.append(h('h2', {}, title), h('div.explain', {}, explanation), notice, h('div.buttons', {}, cancel, confirm), result);
  dialog.showModal();
}
