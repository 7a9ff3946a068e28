/**
 * request_mode_upgrade: asks to move the session from restricted (read-only) to unrestricted
 * mode. It is available in restricted mode and has side effects, so the registry sends it
 * through the approval policy: the upgrade happens only when the policy (or a human) allows it.
 */
import { z } from 'zod';
import { defineTool } from '../define';

export interface RequestModeUpgradeOutput {
  mode: 'unrestricted';
  changed: boolean;
  message: string;
}

export const requestModeUpgradeTool = defineTool({
  name: 'request_mode_upgrade',
  description:
    'Ask for write access: switches the session from Restricted (read-only) to Unrestricted mode if the user approves. ' +
    'Explain in `reason` what you need to change and why.',
  input: z.strictObject({
    reason: z.string().min(1).describe('What you want to change and why; shown to the person approving.'),
  }),
  sideEffects: true,
  destructive: false,
  idempotent: true,
  allowedInRestricted: true,
  async handler(_input, ctx): Promise<RequestModeUpgradeOutput> {
    if (ctx.state.mode === 'unrestricted') {
      return { mode: 'unrestricted', changed: false, message: 'The session already has write access.' };
    }
    ctx.state.mode = 'unrestricted';
    return { mode: 'unrestricted', changed: true, message: 'Write access granted: write tools are now available.' };
  },
});
