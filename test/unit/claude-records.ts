/** Claude Code records for tests that build a session from a few lines (resume-*.test.ts). */

export const base = { sessionId: 's', cwd: '/nonexistent/w', timestamp: '2026-04-26T10:00:00Z' };
export const user = (uuid: string, content: unknown): Record<string, unknown> => ({ ...base, type: 'user', uuid, message: { role: 'user', content } });
export const agent = (uuid: string, content: unknown[]): Record<string, unknown> => ({ ...base, type: 'assistant', uuid, message: { role: 'assistant', content } });
export const say = (uuid: string, text: string): Record<string, unknown> => agent(uuid, [{ type: 'text', text }]);
export const call = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => agent(`c-${id}`, [{ type: 'tool_use', id, name, input }]);
export const result = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => user(`r-${id}`, [{ type: 'tool_result', tool_use_id: id, content, ...extra }]);
