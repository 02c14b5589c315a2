/** Shared shapes of the pure core. Nothing here touches files, clocks or processes. */

import type { WriteHow } from './ledger.js';

export type TurnClass = 'USER' | 'AGENT' | 'THOUGHT' | 'TOOL' | 'OTHER';
export const TURN_CLASSES: readonly TurnClass[] = ['USER', 'AGENT', 'THOUGHT', 'TOOL', 'OTHER'];

export type Harness = 'claude' | 'codex' | 'generic' | 'text';
export const HARNESSES: readonly Harness[] = ['claude', 'codex', 'generic', 'text'];

/** The kinds of content blocks a line carried, as far as classify() cares. */
export type BlockKind = 'text' | 'tool_call' | 'tool_result' | 'thinking' | 'image' | 'other';

export interface ToolRef {
  name: string;
  id: string;
  ok?: boolean;
}

/** A turn as written to timeline.jsonl (without its chain hash). */
export interface Turn {
  seq: number;
  ts: string | null;
  class: TurnClass;
  text: string;
  tool?: ToolRef;
}

export interface TodoItem {
  text: string;
  status: 'completed' | 'in_progress' | 'pending';
  /** What the task is for, when the plan tool carries a description. */
  detail?: string;
  /** The transcript line that last set the item's status. */
  line?: number;
  /** The line that created the item with its description (TaskCreate). */
  created?: number;
}

/**
 * Harness-neutral evidence a reader found on one line. The reducer folds these into the session
 * state; readers hold the harness knowledge (which tool is a shell, which edits files).
 */
export type Fact =
  | {
      t: 'meta';
      uuid?: string;
      cwd?: string;
      branch?: string;
      /** The commit the harness recorded the session starting at (Codex `session_meta.git.commit_hash`). */
      commit?: string;
      /** The repository's URL the harness recorded (Codex `session_meta.git.repository_url`). */
      remote?: string;
      version?: string;
      forkedFrom?: string;
      parentUuid?: string;
    }
  | { t: 'model'; model: string }
  /** `leaf`: a summary titles the conversation that holds that message, which may not be this one. */
  | { t: 'title'; title: string; source: 'custom' | 'ai' | 'thread' | 'summary'; leaf?: string }
  /** A message's own id (Claude `uuid`), for the summaries that name it. */
  | { t: 'node'; uuid: string; parent?: string }
  /** `key` lets one streamed response (several lines) count once. */
  | { t: 'usage'; used: number; limit?: number; key?: string }
  | { t: 'context_limit'; limit: number }
  /** `summary`: what the summary the harness wrote says is left to do (compaction.ts). */
  /** `text`: the summary the harness wrote, whole: it is redacted whole before its parts are read and cut (reduce.ts), so no cut parts a value from its label. */
  | { t: 'compaction'; text?: string }
  /** The agent message of this line is a progress note (Codex `phase: "commentary"`), not its final answer. */
  | { t: 'commentary' }
  /**
   * Codex's reasoning as its event (`event_msg agent_reasoning`), which a session with response items
   * writes before the reasoning item that carries it: no turn, but the agent's latest reasoning when
   * the transcript ends before that item (a session cut or killed there; agentcmd at 200).
   */
  | { t: 'reasoning_mirror'; text: string }
  /**
   * Codex's agent message as its event (`event_msg agent_message`), which a rollout with response
   * items writes just before the message item that carries it (1 ms in 0.144): no turn, but the
   * agent's latest message when the transcript ends before that item (edgerunner at 150).
   * `commentary`: the event's phase says a progress note.
   */
  | { t: 'message_mirror'; text: string; commentary?: true }
  /** A reasoning item whose words the transcript does not hold (Codex's `encrypted_content` alone): the agent reasoned here. */
  | { t: 'reasoning_hidden' }
  /** What the harness let the agent do without asking, as it records it (Claude Code's permission mode, Codex's approval and sandbox policy). */
  | { t: 'permissions'; text: string }
  /** The user closed the harness or cleared the conversation (Claude Code's `/exit`, `/quit`, `/clear`). */
  | { t: 'closed'; command: string }
  | {
      t: 'tool_call';
      id: string;
      name: string;
      command?: string;
      files?: string[];
      seq?: number;
      /** Files the call writes when it succeeds, and how. */
      /** `removed`, `added`: digests of texts a program could print that the write took out and put in (what-changed.ts printedChange). */
      writes?: { path: string; how: WriteHow; what?: string[]; removed?: string[]; added?: string[]; gone?: string[] }[];
      /** A write whose target cannot be read (the publisher redacted its arguments). */
      unreadable?: boolean;
      /** A shell call whose command cannot be read (the publisher redacted its arguments). */
      hidden?: boolean;
      /** Started in the background (a server, a watcher): never a check. */
      background?: boolean;
      /** The call asks the user something and waits for the answer. */
      question?: string;
      /** The call updates the agent's plan. */
      plan?: boolean;
      /** …and its steps are unreadable (the transcript's publisher redacted its arguments). */
      planHidden?: boolean;
      /** The file a read call reads. */
      read?: string;
      /** The address a fetch call reads (Claude Code's WebFetch). */
      fetches?: string;
      /** A job the call starts in the background, to be followed by its notifications. */
      job?: { command: string; description?: string };
      /** The background job a stop call ends. */
      stops?: string;
      /** The running command's session a call writes to or polls (Codex `write_stdin`); `interrupt`: it sends Ctrl-C. */
      polls?: { session: string; interrupt?: true };
      /** The folder the call runs in, when it names its own (Codex `workdir`). */
      cwd?: string;
      /** A Codex code-mode script whose one tool call is one patch: the script's failure is the patch's. */
      patchScript?: true;
      /** Codex: the call asks to run outside the sandbox (`sandbox_permissions: "require_escalated"`, 0.40's `with_escalated_permissions`). */
      escalated?: true;
    }
  | {
      t: 'tool_result';
      id: string;
      ok?: boolean;
      exitCode?: number;
      interrupted?: boolean;
      output?: string;
      /** The call did not run: the user rejected it, or a permission rule denied it. */
      denied?: string;
      /** The harness's record of the command's end (Codex's `exec_command_end`), not the output handed to the agent (its `function_call_output`). */
      event?: true;
      /** Codex code mode: the script threw on a patch it applied; the error it gave (a script whose one call is that patch wrote nothing). */
      patchFailed?: string;
      /** The harness refused the call in its current mode (Codex's `request_user_input is unavailable in Default mode`): nobody declined it. */
      modeRefused?: true;
    }
  /** Files a harness reports as written (ok true) or not written (ok false); `ok` absent: touched, outcome unknown. */
  | { t: 'files'; files: string[]; tool: string; ok?: boolean; how?: WriteHow }
  /** A real user message, stripped of the wrappers the harness adds. */
  /** `ide`: what the IDE told the agent beside the request (the lines selected, the file open). */
  | { t: 'request'; text: string; kind: 'request' | 'answer' | 'rejection'; ide?: string }
  | { t: 'turn_complete' }
  /** Codex's `task_started`: a turn begins; a user message before its `task_complete` came in mid-turn. */
  | { t: 'turn_started' }
  /** Codex's `web_search_call`: the harness searched the web (outside the sandbox's network rule). */
  | { t: 'web_search' }
  /** Codex code mode: `wait` call `id` collects the output of the script running in `cell`. */
  | { t: 'wait'; id: string; cell: string }
  | { t: 'todos'; items: TodoItem[] }
  /** `call`: the id of the tool call, to which the result that names the task's id answers. */
  | { t: 'task_create'; subject: string; description?: string; call?: string }
  /** The result of create call `call` says the harness gave the task the id `id`. */
  | { t: 'task_id'; call: string; id: string }
  /** A notification about a background job (progress, completion). */
  | { t: 'job_text'; text: string }
  /** `call`: the update's tool call, whose result may say it did not happen. */
  | { t: 'task_update'; id: string; status: string; call?: string }
  | { t: 'api_error'; message: string }
  /** A plan put to the user for approval (Claude Code's ExitPlanMode), by the call `id`; '' for Codex's `<proposed_plan>` message, which no call carries. */
  | { t: 'plan'; id: string; text: string }
  /** The user approved the latest plan not yet answered (Codex's plan mode sends "Implement the plan."). */
  | { t: 'plan_approved' }
  /** The harness's own recap of the session (Claude Code's `away_summary`), with the next step it names. */
  | { t: 'recap'; next: string }
  | { t: 'interrupted'; message: string }
  /** `background`: started with run_in_background; its call's result is the launch, not the report. */
  /** `readOnly`: of a kind given no tool that writes (Claude Code's Explore and Plan agents). */
  /** `name`: the name the call gave it (Claude Code's agent teams: `alice`), which messages address. */
  | { t: 'subagent'; id: string; description?: string; background?: true; prompt?: string; readOnly?: true; name?: string }
  /** A message the agent sent to another agent by name (Claude Code's SendMessage). */
  | { t: 'agent_message'; call: string; to: string }
  /** A subagent call's result names the agent it ran (Claude Code's `toolUseResult.agentId`): its own transcript is `agent-<agent>.jsonl`. */
  | { t: 'subagent_id'; call: string; agent: string };

/** What a reader makes of one parsed line, before classification and redaction. */
export interface Observation {
  /** Record kind for classify(): `type`/`kind` of the line, or of a Codex payload. */
  kind: string;
  role?: string;
  blocks: BlockKind[];
  text: string;
  ts: string | null;
  tool?: ToolRef;
  /** Part of a subagent's side conversation inside the main file (Claude isSidechain). */
  sidechain?: boolean;
  /** Injected context or a notice, never the user's objective. */
  notice?: boolean;
  /**
   * A user message the harness wrote itself: its context (the environment, instructions, a
   * reminder), never typed by the user. A notice too. (A slash command's wrapper or a `!` shell
   * line is a notice, but the user's own act: not this.)
   */
  context?: boolean;
  facts: Fact[];
  /** A record type this reader does not know (counted in unknown_types). */
  unknown?: string;
  /**
   * What the line says beside the text it keeps (a shell call's `description`): read by the
   * redactor with the text and with the commands of the line's calls, never kept ("Check key
   * AKIA…" beside `./check-key.sh <the secret key>`, which alone is a word like any other).
   */
  aside?: string;
  /**
   * Secrets the user typed on this line that the reader masked (a Codex answer to a question that
   * asks for a password): later lines that repeat one have it masked too (SessionState.typed).
   * Never kept: the ingest takes a short digest of each and drops them.
   */
  typed?: string[];
}
