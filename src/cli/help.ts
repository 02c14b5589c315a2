import { GLOBAL_OPTIONS } from './args.js';
import type { OptionSpec } from './args.js';
import type { Command } from './command.js';
import { COMMANDS } from './registry.js';

const EXIT_CODES =
  'exit codes: 0 ok · 1 verify/check failed or internal error · 2 usage or invalid config · 3 ambiguous prefix ·\n' +
  '            4 no match, no handoffs or no turns parsed · 5 corrupt input line · 6 daemon not running ·\n' +
  '            7 another daemon holds the store';

function optionLines(opts: Record<string, OptionSpec>): string[] {
  const entries = Object.entries(opts).map(([name, o]) => [`${o.short ? `-${o.short}, ` : '    '}--${name}${o.arg ? ` ${o.arg}` : ''}`, o.description] as const);
  const w = Math.max(...entries.map(([l]) => l.length));
  return entries.map(([l, d]) => `  ${l.padEnd(w)}  ${d}`);
}

export function mainHelp(version: string): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `handoff ${version} — a live, verifiable handoff for every coding-agent session on this machine`,
    '',
    'usage: handoff <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    '',
    'options for every command:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    '`handoff <command> --help` shows a command\'s usage, options and an example.',
    '',
    EXIT_CODES,
  ].join('\n');
}

export function commandHelp(c: Command): string {
  const parts = [`usage: ${c.usage}`, '', c.summary];
  if (c.details) parts.push('', c.details);
  const own = Object.keys(c.options).length > 0 ? ['', 'options:', ...optionLines(c.options)] : [];
  parts.push(...own, '', 'options for every command:', ...optionLines(GLOBAL_OPTIONS), '', 'example:', `  ${c.example}`);
  return parts.join('\n');
}
