/** Claude Code records for tests that build a session from a few lines (resume-*.test.ts). */

export const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
export const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
export const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
export const say = (uuid: string, text: string): Record<string, unknown> => agent(uuid, [{ type: 'text', text }]);
export const call = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => agent(`c-${id}`, [{ type: 'tool_use', id, name, input }]);
export const result = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content, ...extra }]);

/** An Edit of a file under the records' cwd, and its success. */
export const edit = (id: string, file: string): Record<string, unknown> => call(id, 'Edit', { file_path: `/nonexistent/w/${file}`, old_string: 'a', new_string: 'b' });
export const updated = (id: string, file: string): Record<string, unknown> => result(id, `The file /nonexistent/w/${file} has been updated.`);
/** A TodoWrite of these items, and its result. */
export const todos = (id: string, items: [string, 'completed' | 'pending'][]): Record<string, unknown> => call(id, 'TodoWrite', { todos: items.map(([content, status]) => ({ content, status, activeForm: content })) });
export const todosDone = (id: string): Record<string, unknown> => result(id, 'Todos have been modified successfully.');
/** What Claude Code puts in a tool result the user rejected, with no reason typed, and with one. */
export const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
export const rejectedBecause = (reason: string): string =>
  `The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  ${reason}`;
