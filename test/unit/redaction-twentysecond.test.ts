import { describe } from 'vitest';
import { keepsEach, removesEach, removesEachAlsoInJson } from './redaction-cases.js';

/**
 * Shapes the twenty-second red team found that the rules now read: lists of secrets named in the
 * plural (each item one), a secret's name with a qualifier of rotation, region, platform or
 * deployment colour after it, and commands that print one secret (keychains, password stores,
 * generators). Each in a JSON string too. Every value is made up.
 */

describe('a list of secrets named in the plural, each item', () => {
  removesEachAlsoInJson([
    ['a Python list (the first)', 'SECRET_KEY_FALLBACKS = [\n    "yhXNjCRfYUjEBlxck54Y3TK45R6ifNELe53FaQEPmshCqStRqZ",\n]', 'yhXNjCRfYUjEBlxck54Y3TK45R6ifNELe53FaQEPmshCqStRqZ'],
    ['a JSON array in a quoted environment value', `HASURA_GRAPHQL_ADMIN_SECRETS='["RFbjWHCT8DArph5v0B4TLrlYe3NmtuEr", "9egaYvBHJBl88hKxkfltcbsLbvXkDVTF"]'`, '9egaYvBHJBl88hKxkfltcbsLbvXkDVTF'],
    ['comma-separated, the second', 'VALID_API_KEYS=o47Y9cCIpn00flSTkkhCYdA67qDmywz0yUvRAIIC,FcUVjXurWIpY4dBsWKBMxsr55kuBpjHNMRhViYXW', 'FcUVjXurWIpY4dBsWKBMxsr55kuBpjHNMRhViYXW'],
    ['a YAML list below the name', 'auth:\n  api_keys:\n    - wHKi6ZniM3sf1UvERkkkzwKafcQLsqQJ\n    - xcMI0C7zjV4MnaRBO3mH27ruS9E7SysB\n  rate_limit: 100', 'xcMI0C7zjV4MnaRBO3mH27ruS9E7SysB'],
    ['one admin token', 'ADMIN_TOKENS=wX8GWTxNXYvawRH3MxCUcAAEdEFb3bR1', 'wX8GWTxNXYvawRH3MxCUcAAEdEFb3bR1'],
    ["Deno's tokens by host", 'export DENO_AUTH_TOKENS=vJ8syPqi2FAyHN5LvSqEsPyZlgnN@deno.acme.io;hnPFOXLrQT7pdUPuYua7HHzG@raw.githubusercontent.com', 'hnPFOXLrQT7pdUPuYua7HHzG'],
    ['signing secrets in camel case in JSON', '{"bearerTokens": ["UBWqiQuasVHGFD9TfjVWsEFYSdJW6vaMNrMyAitC"], "allowAnonymous": false}', 'UBWqiQuasVHGFD9TfjVWsEFYSdJW6vaMNrMyAitC'],
  ]);
  keepsEach([
    ['a model\'s token counts', '{"input_tokens": 3632080, "max_tokens": 4096, "output_tokens": 61860}'],
    ["Strapi's placeholder keys", 'APP_KEYS="toBeModified1,toBeModified2"'],
    ['a command that sets secrets from Secret Manager', '$ gcloud run deploy api --set-secrets=DB_PASS=db-pass:latest,STRIPE_KEY=stripe-key:3 --region us-central1'],
    ['a list of key names', 'REQUIRED_API_KEYS=OPENAI_API_KEY,ANTHROPIC_API_KEY'],
  ]);
});

describe("a secret's name with a qualifier after it", () => {
  removesEachAlsoInJson([
    ['the next of a rotation', 'JWT_SECRET_NEXT=tGJB4FjK3HfT2ux5vGMb5gFGs7jfd7cQ', 'tGJB4FjK3HfT2ux5vGMb5gFGs7jfd7cQ'],
    ['the previous', 'JWT_SECRET_PREVIOUS=JYXmGzs6sYj7KekgWsdFbuNk2URHCQaT', 'JYXmGzs6sYj7KekgWsdFbuNk2URHCQaT'],
    ['a region', 'export OPENWEATHER_API_KEY_EU=vcD2LfPWXv8L4eAe1LP041x50ZGY7CbA', 'vcD2LfPWXv8L4eAe1LP041x50ZGY7CbA'],
    ['a person\'s password for preproduction', 'DB_PASSWORD_PREPROD=Willow?Glacier2024', 'Willow?Glacier2024'],
    ['a platform', 'REVENUECAT_SECRET_KEY_IOS=nWGpkLBN21EtSUkAqe734fp1jkZgBjUh', 'nWGpkLBN21EtSUkAqe734fp1jkZgBjUh'],
    ['a deployment colour', 'DATABASE_PASSWORD_BLUE=Pepper#Kestrel99', 'Pepper#Kestrel99'],
    ['legacy, in hex', 'SENTRY_AUTH_TOKEN_LEGACY=6e87c88131a04a635d1fd183e961426a501c5984849b332e2c4a63579bf29449', '6e87c88131a04a635d1fd183e961426a501c5984849b332e2c4a63579bf29449'],
    ['in YAML, lower case', 'github:\n  app_id: 871203\n  webhook_secret_next: OwJFSv0MUv3qrKqS8ZqMneBlQtq8buddUVtV', 'OwJFSv0MUv3qrKqS8ZqMneBlQtq8buddUVtV'],
  ]);
});

describe('a command that prints one secret, and the secret below it', () => {
  removesEachAlsoInJson([
    ["macOS's keychain", '$ security find-generic-password -s openai-api -a jdoe -w\nfx0PStqZc8Xe1TYEHvUo3TgugcoRpcY1bE', 'fx0PStqZc8Xe1TYEHvUo3TgugcoRpcY1bE'],
    ['pass', '$ pass show work/jira-api\nyCB771tMqKPPkMjvFjMwZ7LxT9G9bhuh\nlogin: jdoe@acme.io', 'yCB771tMqKPPkMjvFjMwZ7LxT9G9bhuh'],
    ["GNOME's secret tool", '$ secret-tool lookup service smtp user alerts\ntE4kTIzbRaevarynKU23mGnW', 'tE4kTIzbRaevarynKU23mGnW'],
    ['sops extracting one value', `$ sops -d --extract '["db"]["password"]' secrets.enc.yaml\nAspen@Maple7x`, 'Aspen@Maple7x'],
    ["headscale's pre-auth key", '$ headscale preauthkeys create --user homelab --reusable --expiration 24h\na54daa8afbdafb5a4ef247d0eb9ababa028ab76f63948d18', 'a54daa8afbdafb5a4ef247d0eb9ababa028ab76f63948d18'],
    ["gh's token", '$ gh auth token\ngho_Xq8vLm3Wz9Rk2Tp7Yb4Nc6Hd1Fs5Jg0Ka2Mv', 'gho_Xq8vLm3Wz9Rk2Tp7Yb4Nc6Hd1Fs5Jg0Ka2Mv'],
  ]);
});

describe('hex an id-naming word is right before, further on than a label (false positives)', () => {
  keepsEach([
    ['a commit after "token" in prose', 'The token refresh bug was fixed in commit 901ef910f584cac81f0be09c636cdc22626bb021 last week.'],
    ['an image digest', 'The token service image is sha256:de6bc40c9f4a5c70bc514ed5ab36b372ba5fb5a48ce76c53f8249ba5ee0995f1'],
    ["a job's id", 'The secret rotation job (job id d4b7fc5ebff78e9ec8a491ffff8f2ce2) finished at 03:00.'],
  ]);
  removesEach([['but a token right after its label, in hex', 'API token: 901ef910f584cac81f0be09c636cdc22626bb021', '901ef910f584cac81f0be09c636cdc22626bb021']]);
});

describe('headers named in one string and given in the next, a key as the user of Basic auth, TOTP seeds, webhook URLs', () => {
  removesEachAlsoInJson([
    ["OkHttp's addHeader", 'Request request = new Request.Builder()\n    .url("https://api.acme.io/v1/reports")\n    .addHeader("Authorization", "Basic Y2ktcmVwb3J0ZXI6RW1iZXJAQ29wcGVyNDI=")\n    .build();', 'Y2ktcmVwb3J0ZXI6RW1iZXJAQ29wcGVyNDI='],
    ["GoDaddy's sso-key", 'curl -H "Authorization: sso-key ptKqCe0ESPNfmZzhrJaHTowQQ74TOikl:1EpH5INw2Vhatdwu7G9d" https://api.godaddy.com/v1/domains', '1EpH5INw2Vhatdwu7G9d'],
    ['curl -u KEY: with no password', '$ curl https://acme.chargebee.com/api/v2/customers -G -u live_CyhEPqc4pue0wcE435ocZvijqgJJoqSAQ7:', 'live_CyhEPqc4pue0wcE435ocZvijqgJJoqSAQ7'],
    ["requests' auth with an empty password", 'resp = requests.get("https://v3.recurly.com/accounts", auth=("0e381d21f07bc69f486e71b3a21c4d7f", ""))', '0e381d21f07bc69f486e71b3a21c4d7f'],
    ["pyotp's TOTP", "import pyotp\ntotp = pyotp.TOTP('QZB7VEBJXAICLMESSUUVSAMWKFYHMLAR')\nprint(totp.now())", 'QZB7VEBJXAICLMESSUUVSAMWKFYHMLAR'],
    ["otplib's generate", "const code = authenticator.generate('QEKYUBKVHAV72WFE3TUKWATXIWYWUHOW');", 'QEKYUBKVHAV72WFE3TUKWATXIWYWUHOW'],
    ['oathtool', '$ oathtool --totp -b ICZEQTCZZXDZ3ERMSFHZFZSNMEDPFQS6\n953470', 'ICZEQTCZZXDZ3ERMSFHZFZSNMEDPFQS6'],
    ["Jira Automation's webhook", "curl -X POST -H 'Content-Type: application/json' https://automation.atlassian.com/pro/hooks/8b2c5197458aa23c238a0b0afaf14d69ed1918b6 -d '{}'", '8b2c5197458aa23c238a0b0afaf14d69ed1918b6'],
    ["Cloudflare Pages' deploy hook", '$ curl -X POST "https://api.cloudflare.com/client/v4/pages/webhooks/deploy_hooks/f00c45cf-0813-462d-b159-bb660b99f216"', 'f00c45cf-0813-462d-b159-bb660b99f216'],
    ["Home Assistant's webhook", '$ curl -X POST https://home.acme.io/api/webhook/garage_door_tA6wdtDkfU0QVWY9qoE5bPEf', 'tA6wdtDkfU0QVWY9qoE5bPEf'],
    ["Dead Man's Snitch", '0 3 * * * /usr/local/bin/backup.sh && curl -fsS https://nosnch.in/f6e501072f > /dev/null', 'f6e501072f'],
  ]);
  keepsEach([
    ['a user name with -u', '$ curl -u admin: https://localhost:8080/health'],
    ['a webhook route', 'GET /api/webhook/status HTTP/1.1'],
    ['a header list in prose', 'Send the Authorization, Content-Type and Accept headers.'],
    ['a base32 word that is no seed', "print(base64.b32encode(b'hello'))"],
  ]);
});

describe("a secret's data or content, and one-word password names", () => {
  removesEachAlsoInJson([
    ["offlineimap's remotepass", '[Repository work-remote]\ntype = IMAP\nremotehost = imap.acme.io\nremoteuser = jdoe\nremotepass = Juniper!Zephyr26', 'Juniper!Zephyr26'],
    ["EC2's PasswordData", '$ aws ec2 get-password-data --instance-id i-0a1b2c3d4e5f67890 --priv-launch-key ~/.ssh/win-admin.pem\n{\n    "InstanceId": "i-0a1b2c3d4e5f67890",\n    "PasswordData": "0J11n4b9=1xmbAWPL(oSWV"\n}', '0J11n4b9=1xmbAWPL(oSWV'],
    ["Terraform state's secret_data", '          "attributes": {\n            "secret": "projects/acme-prod/secrets/stripe-key",\n            "secret_data": "p68a5gE2r0vTtq6fkhlLnQI9VBiWh5",\n            "version": "3"\n          },', 'p68a5gE2r0vTtq6fkhlLnQI9VBiWh5'],
    ["SQL Server setup's SAPWD", 'setup.exe /Q /ACTION=Install /FEATURES=SQLEngine /SECURITYMODE=SQL /SAPWD="Quartz!Meadow42" /TCPENABLED=1', 'Quartz!Meadow42'],
  ]);
  keepsEach([
    ['metadata', 'metadata: {"owner": "platform", "tier": "gold"}'],
    ['a key count in prose', 'The key data structure is a trie.'],
  ]);
});

describe('what names a key or an event and is none (the twenty-second team\'s probes)', () => {
  keepsEach([
    ["a commit's PGP signature", '$ git cat-file commit HEAD\ntree a9da6792c7e771a275097f71c2b72a27556063f0\nauthor Jane Doe <jane@acme.io> 1760000000 +0200\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQIzBAABCAAdFiEE1tpCEXRDKKLTsDfF2563F0VNAXQFAmZ0oFPAAoJEOoFPmQxK2a\n 1tpCE+XRDKKLTsDfF2563F0VNAXQ+oFPmQxK2aZ7bVw9YcR3Lm8pTqN4sJ2hD6fGk1\n Wz5Xn0Ry7Bc3Tv9Lq2Mk8Jp4Hd6Gf1Sa3Qe5Wr7Ty9Ui2Op4As6Df8Gh1Jk3Lz5X\n =Xk2a\n -----END PGP SIGNATURE-----\n\nchore: bump deps'],
    ['an RFC 4716 public key', '$ ssh-keygen -e -f ~/.ssh/id_rsa.pub\n---- BEGIN SSH2 PUBLIC KEY ----\nComment: "3072-bit RSA, converted by dev@laptop from OpenSSH"\nAAAAB3NzaC1yc2EAAAADAQABAAABgQC7vbqajDhA9Xk2Lm8pTqN4sJ2hD6fGk1Wz5Xn0R\ny7Bc3Tv9Lq2Mk8Jp4Hd6Gf1Sa3Qe5Wr7Ty9Ui2Op4As6Df8Gh1Jk3Lz5XcV7bN9mQ1wE3r\nT5yU7iO9pA2sD4fG6hJ8kL0zX1cV3bN5mQ7wE9rT2yU4iO6pA8sD0fG2hJ4kL6zX8cV0b\n---- END SSH2 PUBLIC KEY ----'],
    ["git's signing key id", '[user]\n\tname = Jane Doe\n\temail = jane@acme.io\n\tsigningKey = D855047C35D7BC3E\n[commit]\n\tgpgsign = true'],
    ["gpg's key fingerprint", 'Your signing key fingerprint is E9B54474261954E882B224D49BFCA3D447BE1683 — add it to your GitHub account.'],
    ["gpg's key id after the algorithm", 'gpg:                using RSA key DD090F6AC28A67CDDA80D65CF8FFED40F4FDB0E3\ngpg: Good signature from "Jane Doe <jane@acme.io>" [ultimate]'],
    ["a request's id after a token's word", 'WARN auth: token expired for request 80df85bca0cf8698a9485fe7edc814c5, user 42'],
    ['a trace id', 'INFO password reset requested (trace 932d81ebd0c0490432590d113cdd5140) for user 1187'],
    ["Sentry's event id", 'Sentry: "Invalid token" — event 80b8e626f7996ea08fa3d98a0e7b5957, release api@2.4.1'],
    ["a Prisma field's type", 'model User {\n  id           String   @id @default(cuid())\n  apiToken     String?  @unique\n  resetToken   String?\n  createdAt    DateTime @default(now())\n}'],
  ]);
  removesEach([
    ['but a signing key of another kind', 'STRIPE_SIGNING_KEY=whk_Xq8vLm3Wz9Rk2Tp7Yb4Nc6Hd1Fs5Jg0Ka2Mv', 'whk_Xq8vLm3Wz9Rk2Tp7Yb4Nc6Hd1Fs5Jg0Ka2Mv'],
    ['and a private key after its armor', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDx8Jk3Lq2Mk8Jp4Hd6Gf1Sa3Qe5Wr7Ty9Ui2Op4As6DQAAAJgx8Jk3Lq2M\nk8Jp4Hd6Gf1Sa3Qe5Wr7Ty9Ui2Op4As6DfGhJkLzXcVbNmQwErTyUiOpAsDfGhJkLzXcVb\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW'],
  ]);
});

/**
 * The twenty-third team read this stop's new rules for false positives: a plural name read as a
 * secret's (`secrets: inherit`, `imagePullSecrets:`), "authorization, token expiration" in prose,
 * plural fields' types, commands whose next line was a commit, a host or a public key, lists of
 * public ids, RFC 6238's example seed. Each text is kept; and the values the new keep rules had let
 * through go again.
 */
describe("the twenty-third team's probes of the new rules", () => {
  keepsEach([
    ["the twenty-third team's probe 1: # .github/workflows/release.yml", "# .github/workflows/release.yml\njobs:\n  deploy:\n    needs: build\n    uses: ./.github/workflows/deploy.yml\n    with:\n      environment: production\n    secrets: inherit"],
    ["the twenty-third team's probe 2: $ yq -o json '.jobs.deploy' .github/workflows/release.yml", "$ yq -o json '.jobs.deploy' .github/workflows/release.yml\n{\n  \"uses\": \"acme/shared-workflows/.github/workflows/deploy.yml@v3\",\n  \"with\": {\"environment\": \"staging\"},\n  \"secrets\": \"inherit\"\n}"],
    ["the twenty-third team's probe 3: apiVersion: apps/v1", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      imagePullSecrets:\n        - name: regcred\n      containers:\n        - name: api\n          image: ghcr.io/acme/api:1.4.2"],
    ["the twenty-third team's probe 4: # values.yaml", "# values.yaml\nglobal:\n  imagePullSecrets:\n    - name: ghcr-pull\nreplicaCount: 2"],
    ["the twenty-third team's probe 5: apiVersion: v1", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: builder\n  namespace: ci\nsecrets:\n- name: builder-token-7kq2p"],
    ["the twenty-third team's probe 6: $ kubectl describe serviceaccount builder -n ci", "$ kubectl describe serviceaccount builder -n ci\nName:                builder\nNamespace:           ci\nLabels:              <none>\nAnnotations:         <none>\nImage pull secrets:  ghcr-pull\nMountable secrets:   builder-token-7kq2p\nTokens:              builder-token-7kq2p\nEvents:              <none>"],
    ["the twenty-third team's probe 7: services:", "services:\n  api:\n    image: acme/api:latest\n    secrets:\n      - source: db_password\n        target: /run/secrets/db_password\n        mode: 0400"],
    ["the twenty-third team's probe 8: .PHONY: dev secrets", ".PHONY: dev secrets\ndev: secrets\n\tpnpm dev\nsecrets: venv\n\t./venv/bin/python scripts/pull_secrets.py --env dev"],
    ["the twenty-third team's probe 9: model User {", "model User {\n  id            String         @id @default(cuid())\n  email         String         @unique\n  apiKeys       ApiKey[]\n  accessTokens  AccessToken[]\n  sessions      Session[]\n  createdAt     DateTime       @default(now())\n}"],
    ["the twenty-third team's probe 10: model Workspace {", "model Workspace {\n  id       String    @id\n  secrets  Secret[]\n  members  Member[]\n}"],
    ["the twenty-third team's probe 11: export interface Workspace {", "export interface Workspace {\n  id: string;\n  name: string;\n  apiKeys: ApiKey[];\n  webhooks: Webhook[];\n}"],
    ["the twenty-third team's probe 12: #[derive(Debug, Deserialize)]", "#[derive(Debug, Deserialize)]\npub struct Config {\n    pub listen: SocketAddr,\n    pub api_keys: Vec<String>,\n    pub secrets: HashMap<String, String>,\n}"],
    ["the twenty-third team's probe 13: data class Org(val id: String, val apiKeys: List<ApiKey>, va", "data class Org(val id: String, val apiKeys: List<ApiKey>, val secrets: Map<String, String>)"],
    ["the twenty-third team's probe 14: $ solana confirm -v 3xQ8... --output json | jq '.transaction", "$ solana confirm -v 3xQ8... --output json | jq '.transaction.message'\n{\"accountKeys\":[\"7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU\",\"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM\",\"11111111111111111111111111111111\"],\"header\":{\"numReadonlySignedAccounts\":0,\"numReadonlyUnsignedAccounts\":1,\"numRequiredSignatures\":1},\"instructions\":[{\"accounts\":[0,1],\"data\":\"3Bxs4h24hBtQy9rw\",\"programIdIndex\":2}]}"],
    ["the twenty-third team's probe 15: {\"message\":{\"accountKeys\":[{\"pubkey\":\"7xKXtg2CW87d97TXJSDpbD", "{\"message\":{\"accountKeys\":[{\"pubkey\":\"7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU\",\"signer\":true,\"source\":\"transaction\",\"writable\":true},{\"pubkey\":\"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA\",\"signer\":false,\"source\":\"transaction\",\"writable\":false}]}}"],
    ["the twenty-third team's probe 16: $ curl -s https://api.acme.dev/v1/api-keys -H \"Authorization", "$ curl -s https://api.acme.dev/v1/api-keys -H \"Authorization: Bearer $ACME_TOKEN\" | jq .\n{\"api_keys\": [{\"id\": \"key_2cGKbMxMyLvfcuJ1bsZg1eXM9xB\", \"name\": \"ci-deploy\", \"start\": \"ak_live\", \"created_at\": \"2024-05-01T10:22:31Z\"}]}"],
    ["the twenty-third team's probe 17: {\"service_tokens\": [{\"id\": \"f174e90a-fafe-4643-bbbc-4a0ed4fc", "{\"service_tokens\": [{\"id\": \"f174e90a-fafe-4643-bbbc-4a0ed4fc8415\", \"client_id\": \"4de9e0d6d7b0e3f2a1c8b7a6f5e4d3c2.access\", \"name\": \"CI\", \"expires_at\": \"2025-06-01T00:00:00Z\"}]}"],
    ["the twenty-third team's probe 18: Added tests for authorization, token expiration and refresh.", "Added tests for authorization, token expiration and refresh."],
    ["the twenty-third team's probe 19: This PR touches authentication, authorization, token managem", "This PR touches authentication, authorization, token management and the audit log."],
    ["the twenty-third team's probe 20: Implemented role-based authorization, token validation middl", "Implemented role-based authorization, token validation middleware, and rate limiting."],
    ["the twenty-third team's probe 21: - [x] authorization, token blacklisting on logout", "- [x] authorization, token blacklisting on logout"],
    ["the twenty-third team's probe 22: Supported schemes for Authorization, Bearer authentication (", "Supported schemes for Authorization, Bearer authentication (RFC 6750) and Basic."],
    ["the twenty-third team's probe 23: The gateway handles TLS termination, authorization, bot prot", "The gateway handles TLS termination, authorization, bot protection and caching."],
    ["the twenty-third team's probe 24: Next steps: add authorization, key rotation for the signing ", "Next steps: add authorization, key rotation for the signing keys, and tests."],
    ["the twenty-third team's probe 25: Scope of this sprint: RBAC authorization, basic ratelimiting", "Scope of this sprint: RBAC authorization, basic ratelimiting, CORS."],
    ["the twenty-third team's probe 26: $ heroku config:get STACK -a acme-api", "$ heroku config:get STACK -a acme-api\nheroku-22"],
    ["the twenty-third team's probe 27: $ heroku config:get AWS_REGION -a acme-api", "$ heroku config:get AWS_REGION -a acme-api\nus-east-1"],
    ["the twenty-third team's probe 28: $ heroku config:get HEROKU_SLUG_COMMIT -a acme-api", "$ heroku config:get HEROKU_SLUG_COMMIT -a acme-api\n5e1c0b7a4f2d9e8c3b6a1f0e9d8c7b6a5f4e3d2c"],
    ["the twenty-third team's probe 29: $ heroku config:get REDIS_TLS_URL | cut -d@ -f2", "$ heroku config:get REDIS_TLS_URL | cut -d@ -f2\nec2-3-210-14-88.compute-1.amazonaws.com:12700"],
    ["the twenty-third team's probe 30: $ pulumi stack output --show-secrets dbEndpoint", "$ pulumi stack output --show-secrets dbEndpoint\nacme-prod.cluster-c9akciq32x1z.us-east-1.rds.amazonaws.com"],
    ["the twenty-third team's probe 31: $ sops -d --extract '[\"db\"][\"host\"]' secrets.enc.yaml", "$ sops -d --extract '[\"db\"][\"host\"]' secrets.enc.yaml\ndb-primary-01.internal"],
    ["the twenty-third team's probe 32: $ kubectl view-secret db-creds username", "$ kubectl view-secret db-creds username\napp_user_01"],
    ["the twenty-third team's probe 33: $ wg genkey | tee /etc/wireguard/private.key | wg pubkey", "$ wg genkey | tee /etc/wireguard/private.key | wg pubkey\nj5Ho3qVe7kW3ZyqS0k9UdLpCvxh8FwqWgGvE0Tt9wjg="],
    ["the twenty-third team's probe 34: export function newSessionToken(): string {", "export function newSessionToken(): string {\n  return crypto\n    .randomBytes(SESSION_TOKEN_BYTES)\n    .toString(\"base64url\");\n}"],
    ["the twenty-third team's probe 35:   const nonce = crypto.randomBytes(16)", "  const nonce = crypto.randomBytes(16)\n    .readBigUInt64LE(0)\n    .toString(36);"],
    ["the twenty-third team's probe 38: >>> import pyotp", ">>> import pyotp\n>>> pyotp.TOTP(\"JBSWY3DPEHPK3PXP\").now()\n'492039'"],
  ]);
  removesEachAlsoInJson([
    ["the twenty-third team's case 148: The Jenkins API token to trigger the nightly build", "The Jenkins API token to trigger the nightly build: 107cfe0030a543525e8e456cfd668a4015f51474", "107cfe0030a543525e8e456cfd668a4015f51474"],
    ["the twenty-third team's case 149: GitHub webhook secret used to sign every push even", "GitHub webhook secret used to sign every push event: 63677c42c36b03dc1fce9e6e369cbf9df46e83d7", "63677c42c36b03dc1fce9e6e369cbf9df46e83d7"],
    ["the twenty-third team's case 150: Sentry auth token for the release job = a958d9e989", "Sentry auth token for the release job = a958d9e989fae3da45cdc3770b024225", "a958d9e989fae3da45cdc3770b024225"],
    ["the twenty-third team's case 151: I regenerated the API token that the deploy pipeli", "I regenerated the API token that the deploy pipeline uses for each run: 47e5a070b6c8823e8ea6bddec5f8c6ba78482e4e6da934198a183d8ae21bfe47", "47e5a070b6c8823e8ea6bddec5f8c6ba78482e4e6da934198a183d8ae21bfe47"],
    ["the twenty-third team's case 153: The access token for the build cache (Nx Cloud), s", "The access token for the build cache (Nx Cloud), set as NX_CLOUD_ACCESS_TOKEN in every build: fea1c87eff25aeae50b80fd0f592ba483fcc6d9daa5bc9bf09ccfead7cc6865c", "fea1c87eff25aeae50b80fd0f592ba483fcc6d9daa5bc9bf09ccfead7cc6865c"],
    ["the twenty-third team's case 154: SIGNING_KEY=af62888d504f39edb27fcd641b2288a7a76d82", "SIGNING_KEY=af62888d504f39edb27fcd641b2288a7a76d82f5", "af62888d504f39edb27fcd641b2288a7a76d82f5"],
    ["the twenty-third team's case 155: [cookies]", "[cookies]\nsigning_key = \"857895519adcd883\"", "857895519adcd883"],
    ["the twenty-third team's case 156: export const signingKey = \"6a82cc7a3a85d1cf6cb3e1f", "export const signingKey = \"6a82cc7a3a85d1cf6cb3e1fae25c6a5a94d86ad6\";", "6a82cc7a3a85d1cf6cb3e1fae25c6a5a94d86ad6"],
  ]);
});

describe('more qualifiers after a secret\'s name (the twenty-third team)', () => {
  removesEachAlsoInJson([
    ['a region, Australia', 'ADYEN_API_KEY_AU=PyJP6lOLUnghCwR3YZ4HXldhJxgQUs1j25iB0GVp', 'PyJP6lOLUnghCwR3YZ4HXldhJxgQUs1j25iB0GVp'],
    ['a region, EMEA', 'ADYEN_API_KEY_EMEA=ALTD0DZWw9HxTNzojA5aQcIlWq04YDsapJpJuZzs', 'ALTD0DZWw9HxTNzojA5aQcIlWq04YDsapJpJuZzs'],
    ['a canary', 'DB_PASSWORD_CANARY=qTzNosyA21qMUbJGhKAnwE7h', 'qTzNosyA21qMUbJGhKAnwE7h'],
    ['a rotated one', 'JWT_SECRET_ROTATED=DhRzx7XT01e9OaYopzGaURXNp5MWBuRPTktJsGrB', 'DhRzx7XT01e9OaYopzGaURXNp5MWBuRPTktJsGrB'],
    ['disaster recovery', 'DB_PASSWORD_DR=8zxgupPB55OBUjNTTuj9L2eYThtO6x4ohdfrBNnf', '8zxgupPB55OBUjNTTuj9L2eYThtO6x4ohdfrBNnf'],
    ['a platform, macOS', 'REVENUECAT_API_KEY_MACOS=UamGHZvsDG1nYWvjsEzNraWci135ijo5sYoci22R', 'UamGHZvsDG1nYWvjsEzNraWci135ijo5sYoci22R'],
  ]);
});
