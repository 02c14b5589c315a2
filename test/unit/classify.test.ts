import { describe, expect, it } from 'vitest';
import type { ClassifyInput } from '../../src/core/classify.js';
import { classify, classifyTextRole } from '../../src/core/classify.js';
import type { TurnClass } from '../../src/core/types.js';

const cases: [string, ClassifyInput, TurnClass][] = [
  ['kind naming a tool', { kind: 'tool_result', blocks: ['text'] }, 'TOOL'],
  ['kind naming a function call', { kind: 'function_call_output', blocks: [] }, 'TOOL'],
  ['role tool', { kind: 'message', role: 'tool', blocks: ['text'] }, 'TOOL'],
  ['all blocks are tool calls/results', { kind: 'assistant', role: 'assistant', blocks: ['tool_call', 'tool_result'] }, 'TOOL'],
  ['tool beats reasoning in the kind', { kind: 'tool_reasoning', blocks: [] }, 'TOOL'],
  ['kind naming reasoning', { kind: 'reasoning', blocks: ['thinking'] }, 'THOUGHT'],
  ['kind naming thinking', { kind: 'agent_thinking', role: 'assistant', blocks: ['text'] }, 'THOUGHT'],
  ['all blocks are thinking', { kind: 'assistant', role: 'assistant', blocks: ['thinking'] }, 'THOUGHT'],
  ['role user', { kind: 'message', role: 'user', blocks: ['text'] }, 'USER'],
  ['kind human', { kind: 'human', blocks: [] }, 'USER'],
  ['kind user', { kind: 'user', blocks: ['text', 'image'] }, 'USER'],
  ['role assistant', { kind: 'message', role: 'assistant', blocks: ['text'] }, 'AGENT'],
  ['kind ai', { kind: 'ai', blocks: [] }, 'AGENT'],
  ['mixed text and tool call is the agent speaking', { kind: 'assistant', role: 'assistant', blocks: ['text', 'tool_call'] }, 'AGENT'],
  ['mixed thinking and text is the agent', { kind: 'assistant', role: 'assistant', blocks: ['thinking', 'text'] }, 'AGENT'],
  ['role developer is other', { kind: 'message', role: 'developer', blocks: ['text'] }, 'OTHER'],
  ['system line', { kind: 'system', blocks: ['text'] }, 'OTHER'],
  ['summary line', { kind: 'summary', blocks: [] }, 'OTHER'],
  ['empty blocks do not make a tool', { kind: 'queue-operation', blocks: [] }, 'OTHER'],
  ['case does not matter', { kind: 'TOOL_USE', role: 'ASSISTANT', blocks: [] }, 'TOOL'],
];

describe('classify()', () => {
  it.each(cases)('%s', (_name, input, expected) => {
    expect(classify(input)).toBe(expected);
  });
});

describe('classifyTextRole()', () => {
  it.each([
    ['user', 'USER'],
    ['Human', 'USER'],
    ['assistant', 'AGENT'],
    ['AI', 'AGENT'],
    ['tool', 'TOOL'],
    ['system', 'OTHER'],
  ] as const)('maps %s to %s', (role, cls) => {
    expect(classifyTextRole(role)).toBe(cls);
  });
});
