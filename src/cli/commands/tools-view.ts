/** The view repository-tool commands look at: a session (with its uncommitted turn), else the commit HEAD points at. */
import type { Repository } from '../../git';
import type { ToolRegistry } from '../../tools';
import type { RepoTools } from '../../tools/repo';
import type { Vfs } from '../../vfs/types';
import type { CommonOptions } from '../io';
import { cliBaseTools } from '../registry';

export interface ToolsCliOptions extends CommonOptions {
  session?: string;
}

export interface ToolView {
  repo: Repository;
  vfs: Vfs;
  /** What the view is, for the listing: "HEAD (<oid>)" or "session <id>". */
  label: string;
}

export async function toolView(options: ToolsCliOptions): Promise<{ view: ToolView; registry: ToolRegistry; repoTools: RepoTools }> {
  const { openRepository, openStore } = await import('../open');
  let view: ToolView;
  if (options.session !== undefined) {
    const session = await (await openStore(options)).open(options.session);
    view = { repo: session.repo, vfs: session.vfs, label: `session ${session.id}` };
  } else {
    const repo = await openRepository(options);
    const { CommitVfs } = await import('../../vfs');
    const vfs = await CommitVfs.open(repo, 'HEAD');
    view = { repo, vfs, label: `HEAD (${vfs.commit})` };
  }
  const { cliRepoTools } = await import('../repo-tools');
  const { registry, repoTools } = await cliRepoTools(view.repo, view.vfs, cliBaseTools());
  return { view, registry, repoTools };
}
