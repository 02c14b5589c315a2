import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, resolveConfig, validatedCacheDir } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../helpers.js';

/** A config file validated once is remembered, so hooks do not load the validator on every run. */

function setup(text: string): { file: string; cache: string } {
  const dir = tempDir();
  const file = join(dir, 'handoff.config.json');
  writeFileSync(file, text);
  return { file, cache: join(dir, 'cache') };
}

const entries = (cache: string): string[] => (existsSync(cache) ? readdirSync(cache) : []);

describe('validated config files', () => {
  it('are remembered once valid, and give the same options from memory', () => {
    const { file, cache } = setup('{"hooks": {"token_budget": 900}, "watch": {"debounce_ms": 50}}');
    const first = loadConfigFile(file, cache);
    expect(entries(cache)).toEqual([expect.stringMatching(/^config-[0-9a-f]{64}\.json$/)]);
    const again = loadConfigFile(file, cache);
    expect(again).toEqual(first);
    expect(again.hooks.token_budget).toBe(900);
    expect(again.hooks.on_start).toBe('offer');
  });

  it('never remember an invalid file, which fails every time', () => {
    const { file, cache } = setup('{"hooks": {"token_budget": "lots"}}');
    for (let i = 0; i < 2; i += 1) expect(() => loadConfigFile(file, cache)).toThrow(ConfigError);
    expect(entries(cache)).toEqual([]);
  });

  it('validate a file again once it changes', () => {
    const { file, cache } = setup('{"hooks": {"token_budget": 900}}');
    loadConfigFile(file, cache);
    writeFileSync(file, '{"hooks": {"token_budget": 10}}');
    expect(() => loadConfigFile(file, cache)).toThrow(/invalid config at \/hooks\/token_budget/);
  });

  it('ignore a damaged memory and validate instead', () => {
    const { file, cache } = setup('{"hooks": {"on_start": "never"}}');
    loadConfigFile(file, cache);
    const [name] = entries(cache);
    writeFileSync(join(cache, name as string), '{"key": "something else", "options": {"hooks": {"on_start": "offer"}}}');
    expect(loadConfigFile(file, cache).hooks.on_start).toBe('never');
  });

  it('live under XDG_CACHE_HOME (else ~/.cache) when commands resolve the config', () => {
    const { file } = setup('{"hooks": {"on_compact": "never"}}');
    const home = tempDir();
    const env = { HOME: home, XDG_CACHE_HOME: join(home, 'xdg-cache') };
    expect(validatedCacheDir(env)).toBe(join(home, 'xdg-cache', 'handoff'));
    expect(validatedCacheDir({ HOME: home })).toBe(join(home, '.cache', 'handoff'));
    const c = resolveConfig({ cwd: join(file, '..'), env });
    expect(c.options.hooks.on_compact).toBe('never');
    expect(entries(join(home, 'xdg-cache', 'handoff'))).toHaveLength(1);
  });
});

describe('a redaction pattern that compiles only without its flags', () => {
  it('is refused where the config is read, naming the reason and not the pattern', () => {
    const { file, cache } = setup('{"redaction": {"patterns": [{"name": "vault", "pattern": "Tr0ub4dor\\\\&Zx9Kq2Lm7Wp", "flags": "u"}]}}');
    let message = '';
    try {
      loadConfigFile(file, cache);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toContain('invalid config at /redaction/patterns/0: expected a pattern that compiles with its flags, found one where it does not compile (Invalid escape)');
    expect(message).not.toContain('Tr0ub4dor');
    expect(entries(cache)).toEqual([]);
  });
});
