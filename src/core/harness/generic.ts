import type { Observation } from '../types.js';
import { genericText, isObj, str } from './extract.js';

/**
 * Any other JSONL, per the engine's original rules: `kind` or `type` names the record, `role`
 * (or `message.role`) the speaker, and text comes in the generic order of SPEC §3.
 */
export function readGeneric(obj: Record<string, unknown>): Observation {
  const message = isObj(obj.message) ? obj.message : undefined;
  const kind = str(obj.kind) ?? str(obj.type) ?? '';
  const role = str(obj.role) ?? str(message?.role) ?? str(obj.speaker) ?? str(obj.author);
  const ex = genericText(obj);
  const ts = str(obj.ts) ?? str(obj.timestamp) ?? str(obj.time) ?? str(obj.created_at) ?? null;
  const obs: Observation = { kind, blocks: ex.blocks, text: ex.text, ts, facts: [] };
  if (role !== undefined) obs.role = role;
  const lk = kind.toLowerCase();
  if (lk.includes('tool') || lk.includes('function_call') || role === 'tool') {
    const name = str(obj.name) ?? str(obj.tool) ?? str(obj.tool_name) ?? 'tool';
    const id = str(obj.id) ?? str(obj.tool_call_id) ?? str(obj.call_id) ?? '';
    obs.tool = { name, id };
    if (typeof obj.ok === 'boolean') obs.tool.ok = obj.ok;
  }
  const model = str(obj.model) ?? str(message?.model);
  if (model) obs.facts.push({ t: 'model', model });
  const cwd = str(obj.cwd);
  if (cwd) obs.facts.push({ t: 'meta', cwd });
  return obs;
}

/** A line votes for the generic reader when it carries something the generic order can read. */
export function looksGeneric(obj: Record<string, unknown>): boolean {
  return ['text', 'content', 'output', 'message', 'parts', 'item', 'role', 'kind'].some((k) => k in obj);
}
