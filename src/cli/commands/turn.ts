/** forge turn --session <id> --calls FILE|- : apply tool calls to the work-in-progress view, commit one turn. */
import type { Command } from 'commander';
import { DEFAULT_TOOLS_CONFIG, type ToolResult } from '../../tools';
import { SessionToolRunner } from '../../agent/tool-calls';
import { approvableNames, approvalFromOption } from '../approval-option';
import { paint } from '../color';
import { cliToolRegistry, cliToolRegistryFor } from '../registry';
import { common } from '../common';
import { emit, EXIT_TOOL_CALLS_FAILED, ReportedFailure, shortOid, type CommonOptions } from '../io';
import { openCalls } from '../calls-input';
import { writeJsonWithArray } from '../json-array-stream';
import { openStore } from '../open';
import { loadSettings } from '../settings';

interface TurnOptions extends CommonOptions {
  session: string;
  calls: string;
  message?: string;
  commitMessage?: string;
  approve: string;
}

export function registerTurn(program: Command): void {
  common(program.command('turn'))
    .description('apply a JSON array of tool calls [{"tool", "args"}] to a session, then commit ONE turn')
    .requiredOption('--session <id>', 'the session')
    .requiredOption('--calls <file>', 'JSON file of tool calls, or - for standard input')
    .option('--message <text>', 'the user message recorded for this turn')
    .option('--commit-message <text>', 'the commit message (default: a summary of the turn)')
    .option('--approve <policy>', 'all | none | TOOL,TOOL: which side-effecting calls run (the calls are your own request, so default all)', 'all')
    .action(async (options: TurnOptions) => {
      // Checked before anything is opened: a bad --approve or --calls changes nothing.
      approvalFromOption(options.approve, approvableNames(cliToolRegistry().tools));
      const calls = await openCalls(options.calls);
      const store = await openStore(options);
      // --approve's default stays all (the calls are the user's own); the denied paths apply.
      const { denied_paths } = loadSettings(store.repo.workdir, {});
      const session = await store.open(options.session);
      for (const note of session.recoveryNotes()) process.stderr.write(`forge: ${note}\n`);
      // A copy directory of the session (forge mount --copy): its changes first, forge's written back after the commit.
      const { CopyMount } = await import('../../mount/node/copy-mount');
      const copy = await CopyMount.find(session, denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths } : DEFAULT_TOOLS_CONFIG);
      await copy?.sync();
      // Nothing is acknowledged before this process exits: the calls' blobs are pinned once, at the commit.
      session.pinPerBatch();
      // run_command runs in the session's mount (made on its first use, unmounted before the commit).
      const { SessionCommandWorkspace } = await import('../../mount/node/command-mount');
      const workspace = new SessionCommandWorkspace(session);
      const registry = await cliToolRegistryFor(session.repo, session.vfs, { workspace });
      const approval = approvalFromOption(options.approve, approvableNames(registry.tools));
      if (options.message !== undefined) await session.recordUserMessage(options.message);
      const runner = new SessionToolRunner(session, { approval, registry, ...(denied_paths !== undefined ? { config: { denied_paths } } : {}) });
      // Each result kept as what is printed (not the call's changes and undo data).
      const results: TurnResult[] = [];
      try {
        for (let i = 0; i < calls.length; i++) results.push(printedResult(await runner.call(calls.call(i))));
      } finally {
        calls.close();
        await workspace.close();
      }
      const turn = await session.commitTurn(options.commitMessage !== undefined ? { message: options.commitMessage } : {});
      await copy?.writeBack();
      const head = { session: session.id, commit: turn.commit, turn: turn.turn, redactions: turn.redactions };
      // Written a piece at a time: the results of a long turn are never one string.
      if (options.json) writeJsonWithArray(head, 'results', results, (r) => r);
      else emit(options, null, () =>
        [
          ...results.map((r) => (r.ok ? `${paint.green('ok')}    ${r.tool}` : `${paint.red('FAIL')}  ${r.tool}: ${r.error.code}: ${r.error.message}`)),
          `turn ${turn.turn} committed ${paint.yellow(shortOid(turn.commit))} on ${session.branch} (${turn.changes.length} file(s) changed)`,
          ...(turn.redactions.length > 0 ? [`redacted: ${turn.redactions.map((r) => `${r.rule} ×${r.count}`).join(', ')}`] : []),
        ].join('\n'),
        'report',
      );
      const failed = results.filter((r) => !r.ok).length;
      if (failed > 0) {
        process.stderr.write(`forge: ${failed} of ${results.length} tool call(s) failed; turn ${turn.turn} is committed with their errors (exit ${EXIT_TOOL_CALLS_FAILED})\n`);
        throw new ReportedFailure(EXIT_TOOL_CALLS_FAILED);
      }
    });
}

type TurnResult = { tool: string; ok: true; output: unknown } | { tool: string; ok: false; error: { code: string; message: string } };

function printedResult(r: ToolResult): TurnResult {
  return r.ok ? { tool: r.tool, ok: true, output: r.output } : { tool: r.tool, ok: false, error: { code: r.error.code, message: r.error.message } };
}
