import { describe, expect, it } from 'vitest';
import { noteAgentText, noteCall, noteRequest, noteResult } from '../../src/core/ledger.js';
import { initialState } from '../../src/core/state.js';
import { analysed } from './ledger-helper.js';
import { kept, keepsEach, removesEach } from './redaction-cases.js';

/**
 * What the ninth red team left (docs/SECURITY.md), and the tenth red team: a value changed in a
 * word diff, a Wi-Fi password given to a sketch's call, a key in a URL's query under a name no
 * list knows. Every value is made up.
 */

describe("git diff --word-diff's changed value", () => {
  it('removes both sides of `[-old-]{+new+}` after a secret name, their quotes and markers kept', () => {
    expect(kept('password: [-"OldPw9x2"-]{+"N3wPw7qZ"+}')).toBe('password: [-"[REDACTED:secret_assignment]"-]{+"[REDACTED:secret_assignment]"+}');
  });

  removesEach([
    ['an added value only', '  api_key = {+"sk9Kq2Lm8Vx3Rt7Yw1Zp"+}', 'sk9Kq2Lm8Vx3Rt7Yw1Zp'],
    ['an unquoted .env value, the old side', 'DB_PASSWORD=[-Old9xPw2-]{+N3wPw7qZ+}', 'Old9xPw2'],
    ['an unquoted .env value, the new side', 'DB_PASSWORD=[-Old9xPw2-]{+N3wPw7qZ+}', 'N3wPw7qZ'],
    ['a placeholder replaced by a secret', 'password: [-REPLACE_ME-]{+"Zq8#mK2pLw9v"+}', 'Zq8#mK2pLw9v'],
    ['as a tool result holds it', JSON.stringify({ stdout: 'diff --git a/config.yml b/config.yml\n@@ -3 +3 @@\n  token: [-"gh0Ld7Kq2Lm8Vx3Rt7Yw"-]{+"nW8pQ3zR6tY1uI4oP7aS"+}\n' }), 'nW8pQ3zR6tY1uI4oP7aS'],
  ]);

  keepsEach([
    ['code on both sides', 'token: [-os.environ["A"]-]{+settings.token+}'],
    ['a call that reads the secret', 'password = [-old-]{+get_password()+}'],
    ['a word diff of no secret name', 'timeout: [-30-]{+60+}'],
  ]);
});

describe("a Wi-Fi password in a sketch's call", () => {
  removesEach([
    ['WiFi.begin', '  WiFi.begin("HomeNet", "Tr0ub4dor&3x");', 'Tr0ub4dor&3x'],
    ['WiFi.softAP', 'WiFi.softAP("ESP-AP", "apPass2024!");', 'apPass2024!'],
    ['WiFiMulti.addAP', 'wifiMulti.addAP("Net2", "zQ9#kL2mW");', 'zQ9#kL2mW'],
    ['in a Write of the sketch', JSON.stringify({ file_path: '/w/sketch/sketch.ino', content: '#include <WiFi.h>\nvoid setup() {\n  WiFi.begin("Attic-5G", "m0ssy-Lantern-88");\n}\n' }), 'm0ssy-Lantern-88'],
  ]);

  keepsEach([
    ['variables', 'WiFi.begin(WIFI_SSID, WIFI_PASSWORD);'],
    ['an open network', 'WiFi.begin("HomeNet");'],
    ["another object's begin", 'db.begin(conn, "readonly")'],
    ['a serial port', 'Serial.begin(115200);'],
  ]);
});

describe("a key in a URL's query under a name no list knows", () => {
  removesEach([
    ["OpenWeatherMap's appid", 'curl "https://api.openweathermap.org/data/2.5/weather?q=London&appid=8f3c2b1a9d7e6f5a4b3c2d1e0f9a8b7c"', '8f3c2b1a9d7e6f5a4b3c2d1e0f9a8b7c'],
    ["HubSpot's hapikey, a UUID", 'GET https://api.hubapi.com/contacts/v1/lists?hapikey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f&count=10', '4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f'],
    ['a developer key', 'https://api.example.com/v2/items?devkey=Zq8mK2pLw9vR4tY7uI1oP3aS&page=2', 'Zq8mK2pLw9vR4tY7uI1oP3aS'],
  ]);

  it('keeps the rest of the URL', () => {
    expect(kept('https://api.hubapi.com/contacts/v1/lists?hapikey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f&count=10')).toBe('https://api.hubapi.com/contacts/v1/lists?hapikey=[REDACTED:url_query_key]&count=10');
  });

  keepsEach([
    ['sort and cache keys', 'https://x.example/api?sortkey=created_at&cachekey=v2'],
    ['an idempotency key', 'POST /pay?idempotencyKey=4f9e2d1c-8b7a-4c3d-9e2f-1a0b9c8d7e6f'],
    ['a numeric app id', 'GET /items?appid=12345&page=2'],
    ['a partition key', 'https://x.example/?partitionKey=user-1234'],
  ]);
});

describe('a call outside the folders the session may use', () => {
  it('is named as such in the next action, not as a permission rule', () => {
    const l = initialState().ledger;
    noteRequest(l, 'which tools does claude -p have?', 1, 'request');
    noteCall(l, { id: 'w', name: 'WebSearch', line: 5 });
    noteResult(l, { id: 'w', line: 6, ok: false, denied: 'Claude requested permissions to use WebSearch, but you have not granted it yet.' });
    noteCall(l, { id: 'b', name: 'Bash', line: 20, command: 'ls -la ~/.claude/' });
    noteResult(l, { id: 'b', line: 21, ok: false, denied: "ls in '~/.claude' was blocked. For security, Claude Code may only list files in the allowed working directories for this session: '/src/x'." });
    noteAgentText(l, 'Both were blocked, so this answer comes from what I know.', 24);
    const st = initialState();
    st.ledger = l;
    const na = analysed(st).nextAction;
    expect(na.text).toMatch(/^Ask the user to allow the 2 calls the harness refused, /);
    expect(na.text).toContain('line 21 was refused as outside the folders the session may use, which the user widens (`--add-dir`, `/add-dir`)');
  });
});
