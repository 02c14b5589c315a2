import { describe, expect, it } from 'vitest';
import { kept, keepsEach, removesEach } from './redaction-cases.js';

/**
 * What the eighth red team left (docs/SECURITY.md): a password with a dot in a configuration
 * file's line, read as a member access; and Claude Code's answer to a question that names the
 * password before other words. Every value here is made up.
 */


describe("a password with a dot, on a configuration file's line", () => {
  removesEach([
    ['docker-compose YAML', 'services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: s3cr3t.Kx9vQ\n', 's3cr3t.Kx9vQ'],
    ['a Spring properties file', 'spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.password=Wq7.mN4pLz8\n', 'Wq7.mN4pLz8'],
    ['a properties line that ends the text', 'app.db.password=hunter2.prod', 'hunter2.prod'],
    ['YAML with a comment after it', 'password: Lm4.zQ8rT # rotated monthly\n', 'Lm4.zQ8rT'],
    ['as JSON text escapes it, in a tool output', '{"stdout":"db:\\n  password: k8Vq.w2Rx9\\n"}', 'k8Vq.w2Rx9'],
  ]);

  keepsEach([
    ['a member of the settings', 'password: settings.DB_PASSWORD\n'],
    ["an object's member", 'password: self.password\n'],
    ['an environment lookup', 'DB_PASSWORD: process.env.DB_PASSWORD\n'],
    ['a configuration chain', 'db_password: config.db2.password\n'],
    ['a reference', 'spring.datasource.password=${DB_PASSWORD}\n'],
    ['a member with no digit', 'password: user.secretPassword\n'],
    ['a member in the middle of a line', 'connect(password: cfg.pw2, host)'],
    ['a spaced assignment in code', 'password = options.pass1\n'],
  ]);
});

describe("Claude Code's answer to a question that names the password before other words", () => {
  removesEach([
    ['the password then more words', 'User has answered your questions: "Which password should the seeded admin account use?"="Osprey#2024seed". You can now continue.', 'Osprey#2024seed'],
    ['a passphrase', 'User has answered your questions: "What passphrase protects the deploy key on the build box?"="Kestrel-42!dev"', 'Kestrel-42!dev'],
    ['as JSON text escapes it', '{"type":"tool_result","content":"User has answered your questions: \\"Which password should the seeded admin account use?\\"=\\"Osprey#2024seed\\"."}', 'Osprey#2024seed'],
    ['a token, among other answers', 'User has answered your questions: "Which region?"="eu-west-1", "What API token should the worker use in staging?"="tQ9vLm2Xa7Pz4Kc1"', 'tQ9vLm2Xa7Pz4Kc1'],
  ]);

  keepsEach([
    ['an answer in words', 'User has answered your questions: "Should I reset the password for the admin account?"="Yes, reset it now". You can now continue.'],
    ['a short answer', 'User has answered your questions: "Which password manager does the team use?"="None"'],
    ['a question that is not answered', 'Which password should the admin use? Ask the user first="later"'],
  ]);
});

describe('a CSV on a long line', () => {
  it("removes a row's secret cells when the row's line goes on for more than 4 KiB", () => {
    const text = `Use User name,Password,Access key ID\ndeploy,Xk9#mP2$vL7qR4nW,AKIAZ7QW3R5T2Y9U4P6M for it; ${'and more words '.repeat(400)}`;
    const out = kept(text);
    expect(out).not.toContain('Xk9#mP2$vL7qR4nW');
    expect(out).not.toContain('AKIAZ7QW3R5T2Y9U4P6M');
  });
});
