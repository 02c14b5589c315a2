import { describe, expect, it } from 'vitest';
import { initialLedger, markChanged, markNotChanged, noteCall, noteResult } from '../../src/core/ledger.js';
import { fileKey, filePath, heldKey, relativeTo, windowsShaped } from '../../src/core/paths.js';
import { shellWrites } from '../../src/core/shell.js';
import { initialState } from '../../src/core/state.js';
import { upgradePaths } from '../../src/core/upgrade-paths.js';

describe('a written path in one form, whatever the host', () => {
  it.each([
    // Windows: a relative path joins the working folder, with its separators and its spelling.
    ['lib/tickets.ts', 'C:\\Work\\Shop', 'C:\\Work\\Shop\\lib\\tickets.ts'],
    ['C:\\Work\\Shop\\lib\\tickets.ts', 'C:\\Work\\Shop', 'C:\\Work\\Shop\\lib\\tickets.ts'],
    ['c:/work/shop/lib/tickets.ts', 'C:\\Work\\Shop', 'C:\\Work\\Shop\\lib\\tickets.ts'],
    ['C:\\WORK\\SHOP\\Lib\\Tickets.ts', 'c:\\work\\shop', 'C:\\work\\shop\\Lib\\Tickets.ts'],
    ['.\\lib\\\\tickets.ts', 'C:\\Work\\Shop\\', 'C:\\Work\\Shop\\lib\\tickets.ts'],
    ['lib\\..\\app\\.\\page.tsx', 'C:\\Work\\Shop', 'C:\\Work\\Shop\\app\\page.tsx'],
    ['..\\other\\x.ts', 'C:\\Work\\Shop', 'C:\\Work\\other\\x.ts'],
    // Outside the working folder: kept absolute, collapsed, drive letter upper case.
    ['d:/data/../data/out.csv', 'C:\\Work\\Shop', 'D:\\data\\out.csv'],
    ['\\temp\\x.log', 'C:\\Work\\Shop', 'C:\\temp\\x.log'],
    ['\\\\server\\share\\a\\..\\b.txt', 'C:\\Work\\Shop', '\\\\server\\share\\b.txt'],
    ['C:\\..\\..\\x.txt', undefined, 'C:\\x.txt'],
    // POSIX: case is part of the name; `..` and doubled separators collapse.
    ['src/a.ts', '/home/dev/proj', '/home/dev/proj/src/a.ts'],
    ['/home/dev/proj//src/./a.ts', '/home/dev/proj', '/home/dev/proj/src/a.ts'],
    ['/HOME/dev/proj/src/a.ts', '/home/dev/proj', '/HOME/dev/proj/src/a.ts'],
    ['../shared/b.ts', '/home/dev/proj', '/home/dev/shared/b.ts'],
    ['/etc/../../x', '/home/dev/proj', '/x'],
    ['/tmp/out.txt', '/home/dev/proj', '/tmp/out.txt'],
    // Nothing to join: kept relative, collapsed; what the shell expands is kept as written.
    ['./src//a/../b.ts', undefined, 'src/b.ts'],
    ['../../x.ts', undefined, '../../x.ts'],
    ['src/a.ts', 'relative/folder', 'src/a.ts'],
    ['~/notes.md', '/home/dev/proj', '~/notes.md'],
    ['$OUT/report.txt', '/home/dev/proj', '$OUT/report.txt'],
    ['C:notes.txt', 'C:\\Work', 'C:notes.txt'],
  ])('%j in %j → %j', (path, cwd, want) => {
    expect(filePath(path, cwd)).toBe(want);
    // The form is a fixed point: a path already in it stays as it is.
    expect(filePath(want, cwd)).toBe(want);
  });

  it('compares Windows-shaped paths without regard to case, POSIX paths exactly', () => {
    expect(windowsShaped('C:\\a')).toBe(true);
    expect(windowsShaped('c:/a')).toBe(true);
    expect(windowsShaped('a\\b')).toBe(true);
    expect(windowsShaped('/home/a')).toBe(false);
    expect(fileKey('C:\\Work\\A.ts')).toBe(fileKey('c:\\work\\a.TS'));
    expect(fileKey('/home/A.ts')).not.toBe(fileKey('/home/a.ts'));
    expect(heldKey({ 'C:\\Work\\A.ts': 1 }, 'C:\\WORK\\a.ts')).toBe('C:\\Work\\A.ts');
    expect(heldKey({ '/home/A.ts': 1 }, '/home/a.ts')).toBeUndefined();
  });

  it('gives a path from the working folder when it lies under it', () => {
    expect(relativeTo('C:\\Work\\Shop\\lib\\a.ts', 'c:/work/shop')).toBe('lib\\a.ts');
    expect(relativeTo('/home/dev/proj/src/a.ts', '/home/dev/proj/')).toBe('src/a.ts');
    expect(relativeTo('/home/dev/project2/a.ts', '/home/dev/proj')).toBeNull();
    expect(relativeTo('/home/dev/Proj/a.ts', '/home/dev/proj')).toBeNull();
    expect(relativeTo('/home/dev/proj', '/home/dev/proj')).toBeNull();
  });

  it('reads a `cd` earlier in a command into the paths written after it', () => {
    expect(shellWrites('cd web && echo x > a.txt').map((w) => w.path)).toEqual(['web/a.txt']);
    expect(shellWrites('cd /srv/app; cp a.txt b.txt').map((w) => w.path)).toEqual(['/srv/app/b.txt']);
    expect(shellWrites('pushd web && rm a.txt && popd && rm b.txt').map((w) => w.path)).toEqual(['web/a.txt', 'b.txt']);
    expect(shellWrites('cd "$TMP" && echo x > a.txt').map((w) => w.path)).toEqual(['$TMP/a.txt']);
    expect(shellWrites('echo x > a.txt && cd web').map((w) => w.path)).toEqual(['a.txt']);
  });
});

describe('the ledger keys one file once', () => {
  const cwd = 'C:\\Work\\Shop';

  it('meets a patch named relative and reported absolute, and a refusal of the same file', () => {
    const l = initialLedger();
    markNotChanged(l, filePath('C:\\work\\shop\\lib\\a.ts', cwd), 2, 'the patch did not apply');
    // patch_apply_end's report, then the call's own result: one write.
    markChanged(l, filePath('C:\\Work\\Shop\\lib\\a.ts', cwd), 'patch', 'apply_patch', 5, false, undefined, true, true);
    noteCall(l, { id: 'p', name: 'apply_patch', line: 4, cwd, writes: [{ path: 'lib/a.ts', how: 'patch', what: ['total'] }] });
    noteResult(l, { id: 'p', line: 6, ok: true });
    expect(l.changed).toEqual({ 'C:\\Work\\Shop\\lib\\a.ts': { line: 6, how: 'patch', tool: 'apply_patch', what: ['total'] } });
    expect(l.changedTotal).toBe(1);
    expect(l.notChanged).toEqual({});
    // A later refusal of the file, in another spelling, does not undo the change.
    noteCall(l, { id: 'q', name: 'apply_patch', line: 7, cwd, writes: [{ path: 'LIB\\A.TS', how: 'patch' }] });
    noteResult(l, { id: 'q', line: 8, ok: false, output: 'patch failed' });
    expect(Object.keys(l.notChanged)).toEqual([]);
  });

  it('keeps two POSIX files whose names differ only in case apart', () => {
    const l = initialLedger();
    noteCall(l, { id: 'a', name: 'Write', line: 1, cwd: '/home/dev/proj', writes: [{ path: 'README.md', how: 'write' }] });
    noteResult(l, { id: 'a', line: 2, ok: true });
    noteCall(l, { id: 'b', name: 'Write', line: 3, cwd: '/home/dev/proj', writes: [{ path: '/home/dev/proj/readme.md', how: 'write' }] });
    noteResult(l, { id: 'b', line: 4, ok: true });
    expect(Object.keys(l.changed)).toEqual(['/home/dev/proj/README.md', '/home/dev/proj/readme.md']);
  });
});

describe('a state carried from before paths took one form', () => {
  it('is merged where it stands: one entry a file, the later write first, nothing re-read', () => {
    const st = initialState();
    delete st.paths;
    st.meta.cwd = 'C:\\Work\\Shop';
    const l = st.ledger;
    l.changed = {
      'C:\\Work\\Shop\\lib\\a.ts': { line: 10, how: 'create', tool: 'apply_patch' },
      'lib/a.ts': { line: 11, how: 'patch', tool: 'apply_patch', what: ['total'] },
      'C:\\Work\\Shop\\README.md': { line: 20, how: 'patch', tool: 'apply_patch' },
      'README.md': { line: 21, how: 'patch', tool: 'apply_patch' },
    };
    l.changedTotal = 4;
    l.notChanged = { 'lib\\b.ts': { line: 3, reason: 'denied' }, 'C:\\Work\\Shop\\lib\\B.ts': { line: 5, reason: 'the patch did not apply' }, 'readme.md': { line: 2, reason: 'denied' } };
    st.files = { 'lib/a.ts': { firstSeq: 9, lastSeq: 9, tool: 'apply_patch', count: 1 }, 'C:\\Work\\Shop\\lib\\a.ts': { firstSeq: 10, lastSeq: 10, tool: 'apply_patch', count: 1 } };
    st.filesTotal = 2;

    expect(upgradePaths(st)).toBe(true);
    expect(l.changed).toEqual({
      'C:\\Work\\Shop\\lib\\a.ts': { line: 11, how: 'create', tool: 'apply_patch', what: ['total'] },
      'C:\\Work\\Shop\\README.md': { line: 21, how: 'patch', tool: 'apply_patch' },
    });
    expect(l.changedTotal).toBe(2);
    // A refusal met again keeps its first place and spelling, and takes the later reason.
    expect(l.notChanged).toEqual({ 'C:\\Work\\Shop\\lib\\b.ts': { line: 5, reason: 'the patch did not apply' } });
    expect(st.files).toEqual({ 'C:\\Work\\Shop\\lib\\a.ts': { firstSeq: 9, lastSeq: 10, tool: 'apply_patch', count: 2 } });
    expect(st.filesTotal).toBe(1);
    // Once upgraded, a state is left alone.
    expect(upgradePaths(st)).toBe(false);
  });

  it('says nothing changed when every path was already in its form', () => {
    const st = initialState();
    delete st.paths;
    st.meta.cwd = '/home/dev/proj';
    st.ledger.changed = { '/home/dev/proj/a.ts': { line: 3, how: 'edit', tool: 'Edit' } };
    expect(upgradePaths(st)).toBe(false);
    expect(st.paths).toBe(1);
  });
});
