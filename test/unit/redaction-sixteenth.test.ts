import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * The sixteenth red team (docs/SECURITY.md): assignments at the start of a command line kept in a
 * JSON string, backquoted literals, passphrases fed on standard input, second credentials on one
 * command, prose, SDK calls; and cursors, assembly tokens and masks that were taken for secrets.
 * Every value is made up.
 */

const K = 'Xq7vR2mK9pL4sT8wZ1nB6cD3fG5hJ0aY';
const PW = 'Osprey47!kzd';

describe('a credential in the shapes the sixteenth red team found kept', () => {
  removesEach([
    ['an assignment opening a package.json script', `"db:seed": "PGPASSWORD=${PW} psql -h localhost -U app -f db/seed.sql"`, PW],
    ['a token opening a task\'s command', `"seed": "API_TOKEN=${K} node scripts/seed.js"`, K],
    ['a JavaScript template literal', `const COHERE_API_KEY = \`${K}\`;`, K],
    ['Basic credentials in a template literal', 'headers: { Authorization: `Basic ZGVwbG95OlNhZmZyb243NCN0ZWs=` }', 'ZGVwbG95OlNhZmZyb243NCN0ZWs='],
    ['a Go raw string handed to an SDK', `client := cohere.NewClient(option.WithAPIKey(\`${K}\`))`, K],
    ['a Rust raw string', `let api_key = r#"${K}"#;`, K],
    ['ssh-keygen\'s new passphrase after the old', `ssh-keygen -p -f ~/.ssh/id_ed25519 -P 'Falcon98*kva' -N '${PW}'`, PW],
    ['keytool\'s new store password', `keytool -storepasswd -new ${PW} -keystore release.jks`, PW],
    ['a passphrase on a here-string to gpg', `gpg --batch --passphrase-fd 0 --decrypt secrets.env.gpg <<< "${PW}"`, PW],
    ['a passphrase piped to gpg reading fd 0', `echo '${PW}' | gpg --batch --passphrase-fd 0 -d secrets.gpg`, PW],
    ['a passphrase piped to ssh-add', `echo '${PW}' | ssh-add ~/.ssh/id_ed25519`, PW],
    ['a passphrase piped to openssl -pass stdin', `printf '%s' '${PW}' | openssl enc -aes-256-cbc -pass stdin -in a -out b`, PW],
    ['a password twice with written newlines', `printf '${PW}\\n${PW}\\n' | sudo passwd deploy`, PW],
    ['a password written to a file named pw', `echo '${PW}' > ~/.config/acme/pw`, PW],
    ['a password teed to a dotfile', `echo '${PW}' | tee ~/.config/shop/.db_pass >/dev/null`, PW],
    ['a key printed into a key file', `printf %s ${K} > ~/.cohere_key && chmod 600 ~/.cohere_key`, K],
    ['altool\'s app-specific password', `xcrun altool --upload-app -t ios -f build/Shop.ipa -u dev@acme.io -p ${PW}`, PW],
    ['a MinIO user\'s password', `mc admin user add local ci-uploader ${PW}`, PW],
    ['a password "currently" in prose', `Rotate the staging DB password (currently ${PW}) after the demo`, PW],
    ['a password for a named service in prose', `pw for the vpn is ${PW}`, PW],
    ['a password in the sentence after its name', `I've reset the admin user's password. It's now ${PW}`, PW],
    ['Cohere\'s client', `co = cohere.ClientV2("${K}")`, K],
    ['MinIO\'s secret key, third', `client = Minio("minio.acme.io:9000", "minio-ci", "${K}", secure=True)`, K],
    ['Twilio\'s Ruby client (sid, token)', `Twilio::REST::Client.new('AC568dd32e7591cb0ed5fb19d77ae1c532', '32706303c4fa2295a50627ca4219d4a2')`, '32706303c4fa2295a50627ca4219d4a2'],
    ['a password made into Basic credentials', "echo -n 'deploy:Saffron74#tek' | base64", 'Saffron74#tek'],
    ['the same in PowerShell', '$bytes = [Text.Encoding]::ASCII.GetBytes("svc-build:Saffron19^znx")', 'Saffron19^znx'],
    ['a Convex deploy key', `CONVEX_DEPLOY_KEY=prod:happy-otter-244|${K}piwxXlOIVaOKVPPLKdh5`, `${K}piwxXlOIVaOKVPPLKdh5`],
    ['a Doppler service token naming its config', `dp.st.dev_personal.${K}aB3dE5fG7hJ9`, `${K}aB3dE5fG7hJ9`],
  ]);
});

describe('text that names no secret, kept', () => {
  keepsEach([
    ['a page cursor', '"nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXAQ3c2gBhjQ8vQC"'],
    ['AWS\'s starting token', 'aws ec2 describe-instances --starting-token eyJFeGNsdXNpdmVTdGFydEtleSI6bnVsbCwiYm90b190cnVuY2F0ZV9hbW91bnQiOjF9'],
    ['S3\'s continuation token', '"NextContinuationToken": "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="'],
    ['a calendar\'s sync token', '"nextSyncToken": "CPDAlvWDx70CEPDAlvWDx70CGAU="'],
    ['.NET\'s PublicKeyToken', '<Reference Include="System.Web.Mvc, Version=5.2.9.0, Culture=neutral, PublicKeyToken=31bf3856ad364e35" />'],
    ['openssl told to read stdin', "openssl enc -aes-256-cbc -pass stdin -in a -out b"],
    ['an Expo push token\'s placeholder', '"push_token": "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"'],
    ['data piped to gpg to encrypt', 'echo "hello world" | gpg --encrypt -r bob'],
    ['variables made into Basic credentials', 'echo -n "$USER:$PASS" | base64'],
    ['a region after prod:', 'prod:us-east-1 region settings'],
    ['a shell\'s command substitution', 'AUTH_TOKEN=`cat /run/secrets/token` npm start'],
    ['a template literal that interpolates', 'const url = `${base}/v1/tokens`;'],
    ['a user at a host after a redaction mark', "sshpass -p '[REDACTED:command_password]' ssh deploy@10.0.0.5"],
  ]);
});
