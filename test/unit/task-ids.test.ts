import { describe, expect, it } from 'vitest';
import { initialState, upgradeState } from '../../src/core/state.js';
import type { StoredState } from '../../src/core/state.js';
import { claudeTaskLines } from '../transcripts.js';
import { ingestText, jsonl } from './ingest-helper.js';

/**
 * Claude Code's task list: TaskCreate's result names the id Claude Code gave the task, and
 * TaskUpdate names a task by that id. The plan a handoff shows must follow the same ids.
 */

const { ask, call, result, create, created, failed, update, tasks: createdTasks } = claudeTaskLines({ isSidechain: false, sessionId: 's', cwd: '/tmp', version: '2.1.0' });

// The plan shown: a task a deletion call is taking away is not in it (its result decides; these calls have none).
const plan = (text: string): [string, string, string][] => ingestText(text).state.tasks.filter((t) => t.deleting === undefined).map((t) => [t.id, t.text, t.status]);

describe('tasks keep the id Claude Code gave them', () => {
  it('marks the task created after a deletion completed when an update names the id its result gave', () => {
    const text = jsonl(
      ask('plan the work'),
      ...createdTasks(3),
      update('d2', '2', 'deleted'),
      create('c4', 'task 4'),
      created('c4', '4', 'task 4'),
      update('u4', '4', 'completed'),
    );
    expect(plan(text)).toEqual([
      ['1', 'task 1', 'pending'],
      ['3', 'task 3', 'pending'],
      ['4', 'task 4', 'completed'],
    ]);
    expect(ingestText(text).state.todos?.items.map((i) => i.status)).toEqual(['pending', 'pending', 'completed']);
  });

  it('reads the id from the result text when the line has no structured result', () => {
    const text = jsonl(ask('plan'), create('c7', 'seventh'), created('c7', '7', 'seventh', true), update('u7', '7', 'in_progress'));
    expect(plan(text)).toEqual([['7', 'seventh', 'in_progress']]);
  });

  it('prefers the structured id to the text', () => {
    const line = { ...created('c1', '5', 'x'), toolUseResult: { task: { id: '6', subject: 'x' } } };
    expect(plan(jsonl(ask('plan'), create('c1', 'x'), line))).toEqual([['6', 'x', 'pending']]);
  });

  it('gives a task whose result never arrives the next number, never one given before, and lets an update name it', () => {
    const text = jsonl(
      ask('plan'),
      ...createdTasks(3),
      update('d3', '3', 'deleted'),
      create('c4', 'no result yet'),
      update('u4', '4', 'in_progress'),
    );
    expect(plan(text)).toEqual([
      ['1', 'task 1', 'pending'],
      ['2', 'task 2', 'pending'],
      ['4', 'no result yet', 'in_progress'],
    ]);
  });

  it('drops a create whose result says it failed (Claude Code made no task), and learns the id of the next one', () => {
    const text = jsonl(
      ask('plan'),
      ...createdTasks(1),
      create('c2', 'refused'),
      failed('c2', 'Error: subject is too long'),
      create('c3', 'accepted'),
      created('c3', '2', 'accepted'),
      update('u2', '2', 'completed'),
    );
    // The one that failed is not in the plan; the accepted task takes Claude Code's "2".
    expect(plan(text)).toEqual([
      ['1', 'task 1', 'pending'],
      ['2', 'accepted', 'completed'],
    ]);
  });

  it('changes nothing when an update names a task that is not in the list, even a deleted one', () => {
    const text = jsonl(
      ask('plan'),
      ...createdTasks(3),
      update('d3', '3', 'deleted'),
      result('d3', 'Updated task #3 deleted'),
      create('c4', 'task 4'),
      created('c4', '4', 'task 4'),
      update('u3', '3', 'completed'),
      update('u9', '9', 'completed'),
    );
    const { state } = ingestText(text);
    expect(state.tasks.map((t) => [t.id, t.status])).toEqual([
      ['1', 'pending'],
      ['2', 'pending'],
      ['4', 'pending'],
    ]);
    // The plan as it stood before the two updates that name no task.
    const before = ingestText(text.split('\n').slice(0, -3).join('\n') + '\n').state;
    expect(state.todos?.items).toEqual(before.todos?.items);
    expect(state.taskSeq).toBe(4);
  });

  it('takes no id from a result that answers another call, nor a line\'s structured result shared by two results', () => {
    const get = call('g1', 'TaskGet', { taskId: '1' });
    const got = { ...result('g1', 'Task #1: task 1'), toolUseResult: { task: { id: '9', subject: 'task 1' } } };
    // One line with the results of two creates and one structured result: whose it is, is unknown.
    const two = result('c2', 'Task #2 created successfully: b');
    const blocks = (two.message as { content: unknown[] }).content;
    blocks.push({ type: 'tool_result', tool_use_id: 'c3', content: 'Task #3 created successfully: c' });
    two.toolUseResult = { task: { id: '2', subject: 'b' } };
    const text = jsonl(ask('plan'), ...createdTasks(1), get, got, create('c2', 'b'), create('c3', 'c'), two);
    expect(plan(text)).toEqual([
      ['1', 'task 1', 'pending'],
      ['2', 'b', 'pending'],
      ['3', 'c', 'pending'],
    ]);
  });

  it('keeps the last 200 tasks and still finds the newest by its id after more than 200', () => {
    const text = jsonl(ask('plan'), ...createdTasks(205), update('u205', '205', 'completed'), update('u203', '203', 'in_progress'), update('u1', '1', 'completed'));
    const { state } = ingestText(text);
    expect(state.tasks).toHaveLength(200);
    expect(state.tasks[0]?.id).toBe('6');
    expect(state.tasks.slice(-3).map((t) => [t.id, t.status])).toEqual([
      ['203', 'in_progress'],
      ['204', 'pending'],
      ['205', 'completed'],
    ]);
    expect(new Set(state.tasks.map((t) => t.id)).size).toBe(200);
    // Past the cut, a task with no result yet still gets a number never given.
    const more = ingestText(text + jsonl(create('c206', 'late'), update('u206', '206', 'completed'))).state;
    expect(more.tasks.at(-1)).toMatchObject({ id: '206', text: 'late', status: 'completed' });
  });
});

describe('a carried state written before task ids were counted', () => {
  it('counts on from the highest task id it holds, not from the length of the list', () => {
    const { state } = ingestText(jsonl(ask('plan'), ...createdTasks(3), update('d2', '2', 'deleted')));
    const stored = JSON.parse(JSON.stringify(state)) as StoredState;
    delete stored.taskSeq;
    const st = upgradeState(stored);
    expect(st.taskSeq).toBe(3);
    expect(upgradeState({ ...initialState(), taskSeq: undefined }).taskSeq).toBe(0);
    const withOdd = JSON.parse(JSON.stringify(state)) as StoredState;
    delete withOdd.taskSeq;
    withOdd.tasks.push({ id: 'x9', text: 'odd', status: 'pending' }, { id: '99999999999999999999', text: 'huge', status: 'pending' });
    expect(upgradeState(withOdd).taskSeq).toBe(3);
  });
});

describe('a TaskUpdate whose result is an error', () => {
  it('leaves the task as it was: the status did not change', () => {
    const text = jsonl(ask('plan the work'), ...createdTasks(2), update('u1', '1', 'completed'), failed('u1', "The user doesn't want to proceed with this tool use. The tool use was rejected."), update('u2', '2', 'in_progress'), result('u2', 'Updated task #2 status'));
    expect(plan(text)).toEqual([
      ['1', 'task 1', 'pending'],
      ['2', 'task 2', 'in_progress'],
    ]);
    const st = ingestText(text).state;
    expect(st.todos?.items.map((i) => i.status)).toEqual(['pending', 'in_progress']);
    expect(st.tasks.some((t) => t.undo !== undefined)).toBe(false);
  });

  it('keeps an update whose result has not come yet', () => {
    expect(plan(jsonl(ask('plan the work'), ...createdTasks(1), update('u1', '1', 'completed')))).toEqual([['1', 'task 1', 'completed']]);
  });
});
