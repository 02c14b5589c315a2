/**
 * Claude Code records linked by `parentUuid` (a message chain), for the tests that read rewinds:
 * a user message, an agent reply and the Stop hook's summary line after a turn.
 */
export function chainRecords(base: Record<string, unknown>): {
  user: (uuid: string, parentUuid: string | null, content: string) => Record<string, unknown>;
  agent: (uuid: string, parentUuid: string, text: string) => Record<string, unknown>;
  hook: (uuid: string, parentUuid: string) => Record<string, unknown>;
} {
  return {
    user: (uuid, parentUuid, content) => ({ ...base, type: 'user', uuid, parentUuid, message: { role: 'user', content } }),
    agent: (uuid, parentUuid, text) => ({ ...base, type: 'assistant', uuid, parentUuid, message: { role: 'assistant', content: [{ type: 'text', text }] } }),
    hook: (uuid, parentUuid) => ({ ...base, type: 'system', subtype: 'stop_hook_summary', uuid, parentUuid }),
  };
}

/**
 * A conversation the user rewound: asked for strengths (line 4), then went back to the message
 * after the first answer (line 3) and asked for weak points instead (line 7). Eight lines.
 */
export function rewoundConversation(c: ReturnType<typeof chainRecords>): Record<string, unknown>[] {
  return [
    c.user('u1', null, 'Read the idea document'),
    c.agent('a1', 'u1', 'It proposes two folders.'),
    c.hook('h1', 'a1'),
    c.user('u2', 'h1', 'I like it: list its strengths'),
    c.agent('a2', 'u2', 'Five strengths, all of them real.'),
    c.hook('h2', 'a2'),
    // Back to the message after the first answer, past the strengths.
    c.user('u3', 'h1', "I don't like it: list its weak points"),
    c.agent('a3', 'u3', 'Five weak points.'),
  ];
}
