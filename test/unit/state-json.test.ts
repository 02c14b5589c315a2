import { describe, expect, it } from 'vitest';
import type { SessionState, StoredState } from '../../src/core/state.js';
import { initialState, stateJson, taskItem, TASKS_PLAN, upgradeState } from '../../src/core/state.js';

/** The state as written: a plan that is the task list is written as a mark and made again when read. */

function withTasks(n: number): SessionState {
  const st = initialState();
  for (let i = 1; i <= n; i += 1) st.tasks.push({ id: String(i), text: `task ${i}`, status: i % 3 === 0 ? 'completed' : 'pending', line: 10 + i, created: 10 + i, ...(i % 2 === 0 ? { description: `why ${i}` } : {}) });
  st.taskSeq = n;
  st.todos = { items: st.tasks.map(taskItem), seq: 40, source: 'tasks' };
  return st;
}

const roundTrip = (st: SessionState): SessionState => upgradeState(JSON.parse(stateJson(st)) as StoredState);

describe('the state as written', () => {
  it('writes a plan that is the task list as a mark, and reads it back item for item, in the same key order', () => {
    const st = withTasks(7);
    const text = stateJson(st);
    expect((JSON.parse(text) as { todos: { items: unknown } }).todos.items).toBe(TASKS_PLAN);
    expect(text.length).toBeLessThan(JSON.stringify(st).length);
    expect(JSON.stringify(roundTrip(st))).toBe(JSON.stringify(st));
  });

  it('writes any other plan whole: a TodoWrite list, and a task plan that is not the task list', () => {
    const todos = initialState();
    todos.todos = { items: [{ text: 'write the test', status: 'in_progress', line: 3 }], seq: 2, source: 'todos' };
    expect(stateJson(todos)).toBe(JSON.stringify(todos));
    for (const change of [(s: SessionState) => s.todos?.items.pop(), (s: SessionState) => void ((s.todos?.items[1] as { status: string }).status = 'completed'), (s: SessionState) => void ((s.todos?.items[0] as { extra?: number }).extra = 1)]) {
      const st = withTasks(4);
      change(st);
      expect(stateJson(st)).toBe(JSON.stringify(st));
      expect(JSON.stringify(roundTrip(st))).toBe(JSON.stringify(st));
    }
  });

  it('leaves a state with no plan as it is', () => {
    const st = initialState();
    expect(stateJson(st)).toBe(JSON.stringify(st));
  });
});
