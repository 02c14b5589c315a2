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
