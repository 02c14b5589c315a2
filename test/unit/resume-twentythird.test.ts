import { describe, expect, it } from 'vitest';
import { sections } from '../../src/core/quality.js';
import { built } from './ledger-helper.js';

/** Rules from the twenty-third reading (docs/FIDELITY.md) not covered beside the code they changed. */

const meta = { timestamp: '2026-02-23T11:48:09Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.104.0', originator: 'codex_cli_rs' } };
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'response_item', payload });
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-02-23T11:55:00Z', type: 'event_msg', payload });
const ask = (text: string) => event({ type: 'user_message', message: text, images: [] });
const reply = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const note = (text: string) => item({ type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text }] });
const started = () => event({ type: 'task_started', turn_id: 't', model_context_window: 258400 });
const complete = () => event({ type: 'task_complete', turn_id: 't' });

describe('plan updates whose steps the transcript\'s publisher redacted', () => {
  const hiddenPlan = (id: string) => [item({ type: 'function_call', name: 'update_plan', arguments: '[REDACTED_ARGUMENTS len=584 sha=2ea6cb32]', call_id: id }), item({ type: 'function_call_output', call_id: id, output: 'Plan updated' })];

  it('are a plan kept whose steps are not known, not "no plan", in Current State, the claims and Unknowns', () => {
    const { md, llm } = built(meta, ask('Fix the sync'), ...hiddenPlan('p1'), reply('Working on it.'), ...hiddenPlan('p2'), reply('Done.'));
    const current = sections(md).get('Current State') ?? '';
    expect(current).toBe("*unknown* — 2 plan update(s), the first at line 3, the latest at line 6, whose steps are unreadable (the transcript's publisher redacted their arguments): the agent kept a plan; its steps, and which it marked done, are not known");
    expect(md).not.toContain('the session kept no todo list, task list or plan');
    expect(md).toContain('whether a plan step was marked done as tested with no run to prove it is not known');
    expect(sections(md).get('Unknowns')).toContain('- *unknown* Current state: 2 plan update(s), the first at line 3');
    expect(JSON.stringify(llm.unknowns)).toContain('Current state: 2 plan update(s)');
  });

  it('leave "no plan" as it was when the session updated none, and the plan when its steps can be read', () => {
    const none = built(meta, ask('Fix the sync'), reply('Done.'));
    expect(sections(none.md).get('Current State')).toMatch(/^None: the session kept no todo list, task list or plan/);
    const shown = built(meta, ask('Fix the sync'), item({ type: 'function_call', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'Read the sync code', status: 'completed' }, { step: 'Fix the retry', status: 'in_progress' }] }), call_id: 'p1' }), item({ type: 'function_call_output', call_id: 'p1', output: 'Plan updated' }), reply('On it.'));
    const current = sections(shown.md).get('Current State') ?? '';
    expect(current).toContain('- [~] Fix the retry');
    expect(current).not.toContain('unreadable');
  });
});

describe('a turn the harness left for a new one', () => {
  const hiddenCall = (id: string) => item({ type: 'function_call', name: 'exec_command', arguments: '[REDACTED_ARGUMENTS len=292 sha=18fd14f4]', call_id: id });

  it('says its command with no result was left there, not that it may still be running, and that the last request came in a new turn', () => {
    const { md } = built(meta, started(), ask('Migrate the schema'), reply('Migrated.'), complete(), started(), ask('Now seed the data'), note('Seeding now.'), hiddenCall('c1'), started(), ask('Status?'));
    // Lines: 1 meta, 2 started, 3 ask, 4 reply, 5 complete, 6 started, 7 ask, 8 note, 9 call, 10 started, 11 ask.
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('No result is recorded for the command at line 9 (a shell call whose command the transcript holds redacted): its turn recorded no end (no completion, no abort), and a new turn began at line 10, so it was left there (the app closed, reloaded or was interrupted between); whether it ran, and what it did, is not known');
    expect(state).not.toContain('may still be running');
    const next = sections(md).get('Next Action') ?? '';
    expect(next).toContain('It came in a new turn (line 10), begun though the turn of the request before it (line 7: «Now seed the data») had recorded no end — no final reply (its last progress note: line 8), no completion, no abort: that turn was left (the app closed, reloaded or was interrupted between); its last command with no result is at line 9');
  });

  it('keeps "may still be running" for a command of the turn still open, and says nothing of a turn that completed', () => {
    const { md } = built(meta, started(), ask('Migrate the schema'), reply('Migrated.'), complete(), started(), ask('Now seed the data'), note('Seeding now.'), hiddenCall('c1'));
    const state = sections(md).get('State right now (verbatim tail)') ?? '';
    expect(state).toContain('it may still be running, or the session stopped before it answered');
    expect(md).not.toContain('a new turn began');
    expect(md).not.toContain('It came in a new turn');
  });
});
