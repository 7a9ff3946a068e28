/**
 * Every action is behind a confirmation that says what will happen; after it runs, the dialog
 * reports the resulting commit (or the refusal, with its error code).
 */
import { ApiError } from './api';
import { clear, h, type Child } from './dom';

export function confirmAction(title: string, explanation: Child, run: () => Promise<Child>, after?: () => void): void {
  const dialog = document.getElementById('confirm') as HTMLDialogElement;
  clear(dialog);
  const result = h('div.result', { role: 'status' });
  const confirm = h('button.primary', { type: 'button' }, 'Confirm');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    cancel.textContent = 'Close';
    clear(result);
    result.append(h('p', {}, 'Working…'));
    try {
      const out = await run();
      clear(result);
      result.append(h('div.ok', {}, out));
      after?.();
    } catch (error) {
      clear(result);
      const e = error instanceof ApiError ? error : new ApiError('INTERNAL', String(error));
      result.append(h('div.refused', {}, h('strong', {}, `error ${e.code}`), ': ', e.message, e.hint ? h('div.hint', {}, e.hint) : null));
    }
  });
  dialog.append(h('h2', {}, title), h('div.explain', {}, explanation), h('div.buttons', {}, cancel, confirm), result);
  dialog.showModal();
}
