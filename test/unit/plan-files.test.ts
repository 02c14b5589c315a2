import { describe, expect, it } from 'vitest';
import { notWritten, planFiles } from '../../src/core/plan-files.js';

describe('the files a plan names to change', () => {
  it('reads the items of its Files to Modify section, the first path of each', () => {
    const plan = '# Plan\n\n## Solution\n\nTouch `src/ignored.ts` in passing.\n\n## Files to Modify\n\n1. `deep_manifest/deep_manifest.py` - Add error field\n2. `tests/test_unit.py` - Update tests\n3. README.md - Document the format\n\n## Verification\n\n- `tests/not_a_target.py` runs';
    expect(planFiles(plan).files).toEqual(['deep_manifest/deep_manifest.py', 'tests/test_unit.py', 'README.md']);
  });

  it('takes bold headings, "Critical files" and folders, and skips code blocks, links and plain words', () => {
    const plan = '**Files to change:**\n- `app/events/[slug]/page.tsx`\n- `supabase/patches/`\n- https://example.org/spec.md\n- the settings page\n```\n- `not/in/a/list.ts`\n```\n### Critical files\n* src/db.ts: the pool\n\n### Steps\n- `later.ts`';
    expect(planFiles(plan).files).toEqual(['app/events/[slug]/page.tsx', 'supabase/patches/', 'src/db.ts']);
  });

  it('leaves out a file the plan touches only if it exists, or calls optional (deep-manifest: `deep_manifest.md` - Update specification (if exists))', () => {
    const plan = '## Files to Modify\n\n1. **`deep_manifest/deep_manifest.py`** - Add tar support\n2. **`deep_manifest.md`** - Update specification (if exists)\n3. `docs/tar.md` (optional)\n4. `README.md` - Document it';
    expect(planFiles(plan).files).toEqual(['deep_manifest/deep_manifest.py', 'README.md']);
    expect(planFiles(plan).conditional).toEqual(['deep_manifest.md', 'docs/tar.md']);
  });

  it('names nothing for a plan without such a section', () => {
    expect(planFiles('# Plan\n\n1. Edit `src/a.ts`\n2. Run the tests').files).toEqual([]);
  });

  it('matches written paths by their tail, and a folder by any file under it', () => {
    const written = ['/w/deep_manifest/deep_manifest.py', 'C:\\w\\supabase\\patches\\004.sql'];
    expect(notWritten(['deep_manifest/deep_manifest.py', 'supabase/patches/', 'README.md', 'tests/e2e'], written)).toEqual(['README.md', 'tests/e2e']);
  });
});
