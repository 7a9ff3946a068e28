/** git check-ref-format rules (refs.c check_refname_component), pure. */

const FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]/;

export function refNameProblem(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (name === '@') return 'it is "@"';
  if (name.startsWith('/') || name.endsWith('/')) return 'it starts or ends with "/"';
  if (name.endsWith('.')) return 'it ends with "."';
  if (name.includes('//')) return 'it has an empty component';
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (FORBIDDEN.test(name)) return 'it contains a space, control character or one of ~ ^ : ? * [ \\';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return `component "${component}" starts with "."`;
    if (component.endsWith('.lock')) return `component "${component}" ends with ".lock"`;
  }
  return null;
}

export function isValidRefName(name: string): boolean {
  return refNameProblem(name) === null;
}
