import { buildCommand } from './commands/build.js';
import { checkCommand } from './commands/check.js';
import { configCommand } from './commands/config.js';
import { daemonCommand } from './commands/daemon.js';
import { doctorCommand } from './commands/doctor.js';
import { exportCommand } from './commands/export.js';
import { hookCommand } from './commands/hook.js';
import { hooksCommand } from './commands/hooks.js';
import { checkpointCommand, finalizeCommand } from './commands/history.js';
import { statusCommand } from './commands/status.js';
import { listCommand } from './commands/list.js';
import { resumeCommand } from './commands/resume.js';
import { renameCommand, retitleCommand } from './commands/retitle.js';
import { serviceCommand } from './commands/service.js';
import { showCommand } from './commands/show.js';
import { skillCommand } from './commands/skill.js';
import { verifyCommand } from './commands/verify.js';
import type { Command } from './command.js';

/** Every command, in the order `handoff --help` lists them. */
export const COMMANDS: readonly Command[] = [
  daemonCommand,
  statusCommand,
  buildCommand,
  configCommand,
  verifyCommand,
  listCommand,
  showCommand,
  resumeCommand,
  checkCommand,
  checkpointCommand,
  finalizeCommand,
  exportCommand,
  retitleCommand,
  renameCommand,
  serviceCommand,
  skillCommand,
  hooksCommand,
  hookCommand,
  doctorCommand,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
