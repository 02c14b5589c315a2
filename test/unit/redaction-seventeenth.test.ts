import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The seventeenth red team (docs/SECURITY.md): commands written as argument arrays, commands and
 * provider formats no rule knew, a token given as a URL's user, Authorization values with a
 * colon; and the references of config systems that were taken for secrets. Every value is made up.
 */

const K = 'Xq7vR2mK9pL4sT8wZ1nB6cD3fG5hJ0aY';
const PW = 'Quartz21%hjn';
const HEX40 = '0123456789abcdef0123456789abcdef01234567';

describe('a credential in the shapes the seventeenth red team found kept', () => {
  removesEach([
    ['a Dockerfile exec form', `CMD ["redis-server", "/usr/local/etc/redis/redis.conf", "--requirepass", "${PW}"]`, PW],
    ['a Compose command list', `    command: ["redis-server", "--requirepass", "${PW}", "--appendonly", "yes"]`, PW],
    ['an MCP server\'s args', `args = ["-y", "@apify/actors-mcp-server", "--token", "apify_api_${K}"]`, `apify_api_${K}`],
    ['docker inspect\'s Args over lines', `"Args": [\n    "--requirepass",\n    "${PW}"\n]`, PW],
    ['subprocess.run with curl -u', `subprocess.run(["curl", "-u", "ci-bot:${PW}", "https://ci.example.com/api/json"])`, PW],
    ['Go exec.Command with sshpass -p', `cmd := exec.Command("sshpass", "-p", "${PW}", "ssh", "deploy@10.0.0.5")`, PW],
    ['Node spawn with the program apart', `spawn('redis-cli', ['-a', '${PW}', 'PING'])`, PW],
    ['the array in a JSON string', JSON.stringify({ cmd: `CMD ["redis-server", "--requirepass", "${PW}"]` }), PW],
    ['valkey-cli -a', `valkey-cli -h cache.internal -a ${PW} PING`, PW],
    ['a keychain unlocked', `security unlock-keychain -p '${PW}' ~/Library/Keychains/ci.keychain-db`, PW],
    ['a keychain created', `security create-keychain -p ${PW} build.keychain`, PW],
    ['signtool /p', `signtool sign /f cert.pfx /p ${PW} /tr http://timestamp.digicert.com app.exe`, PW],
    ['certutil -p', `certutil -p ${PW} -importpfx cert.pfx`, PW],
    ['dotnet dev-certs -p', `dotnet dev-certs https -ep ./https.pfx -p ${PW}`, PW],
    ['etcdctl --user', `etcdctl --user root:${PW} get /config`, PW],
    ['bw unlock', `bw unlock '${PW}'`, PW],
    ['expdp user/password@db', `expdp system/${PW}@ORCL schemas=HR`, PW],
    ['sqlldr userid=', `sqlldr userid=scott/${PW}@ORCL control=load.ctl`, PW],
    ['a token as the URL\'s user, GitHub\'s dummy password after it', `git config --global url."https://${HEX40}:x-oauth-basic@github.com/".insteadOf "https://github.com/"`, HEX40],
    ['a token as the URL\'s user, no password', `git clone https://${HEX40}:@gitea.example.com/org/repo.git`, HEX40],
    ['Basic credentials not encoded', `curl -H "Authorization: Basic deploy:${PW}" https://ci.example.com`, PW],
    ['an Authorization value with a colon', 'curl -H "Authorization: default:production.4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99" https://unleash.example.com/api', '4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99'],
    ['a bearer with a colon (Asana)', 'Authorization: Bearer 2/1204567890123456/1207654321098765:4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99', '4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99'],
    ['an Azure Functions key in the query', 'https://myfunc.azurewebsites.net/api/HttpTrigger?code=aBcD3fGh1jKlMnOpQrStUvWxYz0123456789abcdEFGHij==', 'aBcD3fGh1jKlMnOpQrStUvWxYz0123456789abcdEFGHij'],
    ['a Docker Swarm unlock key', 'SWMKEY-1-7c37Cc8654o6p38HnroywCi19pllOnGtbdZEgtKxZu8', '7c37Cc8654o6p38HnroywCi19pllOnGtbdZEgtKxZu8'],
    ['a Trigger.dev key', `TRIGGER_SECRET_KEY=tr_prod_${K}`, K],
    ['an Inngest signing key', 'signkey-prod-4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99', '4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99'],
    ['an Azure Functions key of 32 characters in a JSON command', '{"cmd":"curl -s \\"https://shop-fn.azurewebsites.net/api/sync-orders?code=4af9N1iKyuU1L8srX08GgO1YNUPDGnb6\\""}', '4af9N1iKyuU1L8srX08GgO1YNUPDGnb6'],
    ['a UUID after a bare --key in an MCP server\'s args', '"args": ["-y", "@smithery/cli@latest", "run", "exa", "--key", "75162c6a-a314-45a0-bf76-b6ef5cbee8f0"]', '75162c6a-a314-45a0-bf76-b6ef5cbee8f0'],
    ['redis-benchmark -a', `redis-benchmark -h cache.acme.io -a ${PW} -q -n 10000`, PW],
    ['unrar\'s glued -p', `unrar x -p${PW} exports/customers.rar /tmp/exports/`, PW],
    ['a Mosquitto password file entry', `sudo mosquitto_passwd -b /etc/mosquitto/passwd sensor01 ${PW} && sudo systemctl reload mosquitto`, PW],
    ['a Netlify build hook', 'curl -X POST -d {} https://api.netlify.com/build_hooks/62933e48d033b79b27952e1d', '62933e48d033b79b27952e1d'],
    ['a Vercel deploy hook', 'curl -X POST https://api.vercel.com/v1/integrations/deploy/prj_K01O9WS8akNvmIKCWkBD2qV0DEGa/B5fsMFnutf', 'B5fsMFnutf'],
    ['a Render deploy hook', 'curl -X POST "https://api.render.com/deploy/srv-128p95ni8x455e4zs74p?key=vhPaG8cwkgT"', 'vhPaG8cwkgT'],
    ['a strongSwan pre-shared key', `%any 203.0.113.5 : PSK "${PW}"`, PW],
    ['a CoinGecko key in prose', 'use CG-uuL05ltv3Qejb6qqMqx2n9w for coingecko, demo plan', 'CG-uuL05ltv3Qejb6qqMqx2n9w'],
    ['a Kubernetes args block list', '        args:\n          - redis-server\n          - --requirepass\n          - Juniper05*bsk\n          - --appendonly', 'Juniper05*bsk'],
    ['a Compose command block list, quoted', '    command:\n      - "redis-server"\n      - "--requirepass"\n      - "Juniper05*bsk"', 'Juniper05*bsk'],
    ['Honeycomb\'s key header', 'curl -s https://api.honeycomb.io/1/auth -H "X-Honeycomb-Team: zmpcta2hc9G0ZEA8e3hnZ602ugvNy72j"', 'zmpcta2hc9G0ZEA8e3hnZ602ugvNy72j'],
    ['a 1Password session', 'export OP_SESSION_acme="E8FUhMN2VEfChzu1Jl1XLkLR3RZxIxa3BgDaz0wU6mI"', 'E8FUhMN2VEfChzu1Jl1XLkLR3RZxIxa3BgDaz0wU6mI'],
    ['a Bitwarden session', 'export BW_SESSION="1QkmHOpUcILhJH1MReYH0Ndtk+F6/Dr7Z9dKMXNreauN3gSTxDp7GrmaTcWacJGT7z8FxMVwL2x6VtC4+ISz+A=="', '1QkmHOpUcILhJH1MReYH0Ndtk'],
    ['a Java session id in a log', '"GET /shop/cart;jsessionid=4AC48EE092F392F1B8864B8AE472A8DF?item=42 HTTP/1.1" 200', '4AC48EE092F392F1B8864B8AE472A8DF'],
    ['Neo4j\'s auth', '      - NEO4J_AUTH=neo4j/Lantern41*sta', 'Lantern41*sta'],
    ['Zapier\'s MCP URL', '"url": "https://mcp.zapier.com/api/mcp/s/SsFWUOxFxyz5KQhcfyJxVfIUlJwhVfxm285SYdDN2nFh7OqJPSrF59fZSMPH/mcp"', 'SsFWUOxFxyz5KQhcfyJxVfIUlJwhVfxm285SYdDN2nFh7OqJPSrF59fZSMPH'],
    ['Pipedream\'s MCP URL', 'claude mcp add pipedream --transport sse https://mcp.pipedream.net/318d02a3-d519-4d3c-bd9e-f9f75231cf5f/gmail', '318d02a3-d519-4d3c-bd9e-f9f75231cf5f'],
    ['a Rocket.Chat hook', 'curl -s -X POST https://chat.acme.io/hooks/6454d26a9860e07fe1a30ee0/UJsOX78rh0J4XsBam9FD20ZFGzvNbFKv5Fu9RFmUgXtpBogu', 'UJsOX78rh0J4XsBam9FD20ZFGzvNbFKv5Fu9RFmUgXtpBogu'],
    ['a Webex incoming hook', 'curl -X POST https://webexapis.com/v1/webhooks/incoming/Y2lzY29zcGFyazovL3VzL1dFQkhPT0svNjFjNTU3YjMtNTJmNy00MmViLTg0ZGItOTFlNWY0NDJhMWI5', 'Y2lzY29zcGFyazovL3VzL1dFQkhPT0svNjFjNTU3YjMtNTJmNy00MmViLTg0ZGItOTFlNWY0NDJhMWI5'],
    ['a NATS user seed in a .creds file', '-----BEGIN USER NKEY SEED-----\nSUXE4ZTZASX37Y4HGZILZF6KGUJF2UIIXB42ORX5AIBRKDOW23THZZXW3C\n------END USER NKEY SEED------', 'SUXE4ZTZASX37Y4HGZILZF6KGUJF2UIIXB42ORX5AIBRKDOW23THZZXW3C'],
    ['a NATS seed after --nkey', 'nats --server nats://nats.acme.io:4222 --nkey SUQ2I75N6I7GGHNFFOJ52SEG7ZCQ7NCWEGABUYVLNTXNQLNACBUSEFTKAJ pub orders.created x', 'SUQ2I75N6I7GGHNFFOJ52SEG7ZCQ7NCWEGABUYVLNTXNQLNACBUSEFTKAJ'],
    ['an Apify token after login -t', 'apify login -t apify_api_WdkphL0iPuSLTYdvgV86GiWW0IWilIGNhd3o', 'WdkphL0iPuSLTYdvgV86GiWW0IWilIGNhd3o'],
    ['a Bitwarden Secrets Manager token', 'bws secret list -t 0.f74312a3-ffa1-492a-a2d9-aff9e6ab32a2.z9mknxQXpCQ2xA2rzqZbdyaveJHiqp:lXaMDc9vcdJ5C92BRWhYBP== -o table', 'z9mknxQXpCQ2xA2rzqZbdyaveJHiqp'],
    ['OpenWrt\'s Wi-Fi key', "\toption key 'Juniper95^cmp'", 'Juniper95^cmp'],
  ]);
});

describe('ordinary text the seventeenth red team found removed', () => {
  keepsEach([
    ['Maven\'s resource filter', 'spring.datasource.password=@db.password@'],
    ['Symfony\'s env processor', "        password: '%env(DB_PASSWORD)%'"],
    ['Grafana\'s file provider', '      password: $__file{/run/secrets/grafana_pg_password}'],
    ['opencode\'s env reference', '    "anthropic": { "options": { "apiKey": "{env:ANTHROPIC_API_KEY}" } }'],
    ['PowerShell\'s environment in a string', '$body = @{ token = "$env:GITHUB_TOKEN"; ref = "main" } | ConvertTo-Json'],
    ['an App Service Key Vault reference', 'DB_PASSWORD=@Microsoft.KeyVault(SecretUri=https://shop-kv.vault.azure.net/secrets/db-password/)'],
    ['a release pipeline\'s replacement token', '    "Password": "__DB_PASSWORD__"'],
    ['Stripe\'s documented test token', "expect(await pay({ token: 'tok_visa' })).toBe('succeeded');"],
    ['an argument array with no secret', 'CMD ["node", "--max-old-space-size=4096", "server.js", "--port", "8080"]'],
    ['an OAuth redirect\'s short code', 'https://login.example.com/callback?code=4/0AfJohXn&state=xyz'],
    ['unrar asking for the password', 'unrar x -p- archive.rar'],
    ['a --key that is no UUID', "git log --format='%H' --key 12345"],
    ['a YAML list of steps', 'steps:\n  - --verbose\n  - name: build\n  - run: npm test'],
    ['a session variable read, not set', 'echo $BW_SESSION'],
    ['Neo4j with auth off', 'NEO4J_AUTH=none'],
    ['a long SQL name in capitals', 'SELECT SUM(amount) FROM SALES_ORDERS_ARCHIVE_2024_Q1_ITEMS_PARTITIONED'],
  ]);
});
