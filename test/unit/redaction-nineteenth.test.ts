import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * Shapes the eighteenth red team found kept and left listed in docs/SECURITY.md, removed since:
 * Redis's quoted and prompted AUTH, sshpass reading a process substitution, Dovecot's clear-text
 * schemes, a DigitalOcean Spaces pair, Jinja's password_hash filter (whose argument is the
 * algorithm, not the password), Elastic's keystores fed from a pipe, SQL*Plus's CONNECT,
 * clpplus, Azure Pipelines' secret variables, every value of `vault kv put`, Consul's ACL
 * tokens; Rust's `Command::new("p").arg(…)`/`.args([…])` and `{:?}` words apart by blanks; a
 * grid of one key and its value between `+----+` rules; a YAML block scalar as grep's `-A` shows
 * it (`path:12:` and `path-13-` before each line); .NET's ProcessStartInfo (`FileName`, then
 * `Arguments` as one string). Every value is made up.
 */

const PW = 'Osprey02#vcg';
const K = 'Vq8Lm3Xz7Rt1Wn5Yc9Hb2Kd6Fg0Js4Ae';
const DO_SECRET = 'Zk4sXq9vLm2pRt7wZk4sXq9vLm2pRt7wZk4sXq9vLm2';
const UUIDISH = 'b1d9c0e2-5e3c-4d6f-9a8b-7c6d5e4f3a2b';

describe('a credential in the shapes the eighteenth red team left listed', () => {
  removesEach([
    ['Redis MONITOR: AUTH with a password', `1700000000.123456 [0 127.0.0.1:6379] "AUTH" "${K}"`, K],
    ['Redis MONITOR: AUTH with a user and a password', `1700000000.123456 [0 127.0.0.1:6379] "AUTH" "default" "${K}"`, K],
    ['Redis MONITOR: an escaped quote inside the password', `1700000000.1 [0 10.0.0.5:6379] "auth" "${K}\\"x"`, K],
    ['redis-cli: AUTH at the prompt', `127.0.0.1:6379> AUTH ${PW}\nOK`, PW],
    ['redis-cli: AUTH with a user, lower case', `redis.internal:6380[2]> auth app ${PW}`, PW],
    ['sshpass -f from a process substitution', `sshpass -f <(echo '${PW}') ssh deploy@10.0.0.5`, PW],
    ['sshpass -f from printf', `sshpass -f <(printf '%s' "${PW}") scp backup.tgz ops@host:/srv`, PW],
    ['Dovecot {PLAIN}', `alice:{PLAIN}${PW}:1000:1000::/home/alice::`, PW],
    ['Dovecot {CLEAR}', `bob:{CLEAR}${K}`, K],
    ['Dovecot {plain} in lower case', `carol:{plain}${K}:::`, K],
    ['a DigitalOcean Spaces pair in ~/.passwd-s3fs', `DO00ABCDEFGHJKLMNPQR:${DO_SECRET}`, DO_SECRET],
    ['Jinja password_hash', `password: "{{ '${PW}' | password_hash('sha512') }}"`, PW],
    ['Jinja password_hash with double quotes, no argument', `{{ "${PW}"|password_hash }}`, PW],
    ['elasticsearch-keystore add from a pipe', `echo "${PW}" | bin/elasticsearch-keystore add -x bootstrap.password`, PW],
    ['opensearch-keystore add from printf', `printf '%s' '${PW}' | ./bin/opensearch-keystore add --stdin plugins.security.password`, PW],
    ['SQL*Plus CONNECT in a here-document', `sqlplus /nolog <<EOF\nCONNECT scott/${PW}@ORCL\nselect 1 from dual;\nEOF`, PW],
    ['SQL*Plus conn at its prompt', `SQL> conn hr/${PW}@//db.example.com:1521/XEPDB1`, PW],
    ['SQL*Plus CONNECT as sysdba', `CONNECT sys/${PW} as sysdba`, PW],
    ['clpplus user/password@host', `clpplus -nw db2admin/${PW}@localhost:50000/SAMPLE`, PW],
    ['az pipelines variable create --secret true --value', `az pipelines variable create --name DB_PASSWORD --value ${PW} --secret true --pipeline-name app`, PW],
    ['az pipelines variable-group variable create, --secret first', `az pipelines variable-group variable create --group-id 4 --name api --secret true --value "${K}"`, K],
    ['vault kv put with a neutral name', `vault kv put secret/db value=${K}`, K],
    ['vault kv patch after flags', `vault kv patch -mount=secret app/stripe api=${K}`, K],
    ['vault kv put: the second value too', `vault kv put secret/app user=svc pass=${PW}`, PW],
    ['Consul ACL tokens in HCL', `acl {\n  enabled = true\n  tokens {\n    agent = "${UUIDISH}"\n  }\n}`, UUIDISH],
    ['Rust: Command::new with .arg() calls', `Command::new("sshpass").arg("-p").arg("${PW}").arg("ssh").arg("host").status()?;`, PW],
    ['Rust: Command::new with .args([…])', `Command::new("sshpass").args(["-p", "${PW}", "ssh", "deploy@host"]).spawn()?;`, PW],
    ['Rust: Command::new with .args(&[…])', `let out = Command::new("redis-cli").args(&["-a", "${K}", "PING"]).output()?;`, K],
    ['Rust: Command::new with .args(vec![…])', `Command::new("mysql").args(vec!["-u", "root", "-p${PW}"])`, PW],
    ['Rust: a command printed with {:?}', `running "sshpass" "-p" "${PW}" "ssh" "host"`, PW],
    ['a one-row grid between rules', `+------------+------------------+\n| API Secret | ${K} |\n+------------+------------------+`, K],
    ['a one-row grid with a rule under it', `| Password   | ${K} |\n+------------+------------------+`, K],
    ['grep -A of a block scalar, with the file name', `config/app.yml-11-db:\nconfig/app.yml:12:  password: |\nconfig/app.yml-13-    ${K}`, K],
    ['grep -n -A of a block scalar, one file', `12:  password: |-\n13-    ${K}`, K],
    ['grep -A of a folded block scalar', `deploy/values.yaml:40:  apiToken: >-\ndeploy/values.yaml-41-    ${K}`, K],
    ['C#: ProcessStartInfo with FileName then Arguments', `var psi = new ProcessStartInfo\n{\n    FileName = "mysql",\n    Arguments = "-u root -p${PW} -h db shop",\n};`, PW],
    ['C#: Arguments then FileName, two statements', `psi.Arguments = "-p ${K} ssh deploy@host";\npsi.FileName = "sshpass";`, K],
    ['C#: an interpolated Arguments string', `new ProcessStartInfo { FileName = "sshpass", Arguments = $"-p ${K} ssh {host}" }`, K],
    ['Consul ACL tokens in JSON', `"acl": {"tokens": {"default": "${UUIDISH}", "agent": "${K}"}}`, K],
  ]);
});

describe('ordinary text near the shapes of the nineteenth round', () => {
  keepsEach([
    ['Jinja password_hash of a variable', "password: \"{{ user_password | password_hash('sha512') }}\""],
    ['PHP password_hash of a variable', '$hash = password_hash($password, PASSWORD_DEFAULT);'],
    ['Redis MONITOR of other commands', '1700000000.123456 [0 127.0.0.1:6379] "GET" "session:42"'],
    ['redis-cli: AUTH with no argument', '127.0.0.1:6379> AUTH\n(error) ERR wrong number of arguments'],
    ['a sentence about connecting', 'Connect the frontend/backend services first, then run the tests.'],
    ['SQL*Plus connecting with a wallet', 'SQL> conn /@ORCL_WALLET'],
    ['an az pipelines variable that is not secret', 'az pipelines variable create --name LOG_LEVEL --value debug --pipeline-name app'],
    ['vault kv put from a file and from stdin', 'vault kv put secret/app @data.json && vault kv put secret/other value=-'],
    ['vault kv get', 'vault kv get -field=password secret/db'],
    ['Dovecot with a hashed scheme', 'alice:{SHA512-CRYPT}$6$rounds=5000$abc$def:1000:1000::'],
    ['tokens in prose', 'The model used 120k tokens {input and output} in this session.'],
    ['a DigitalOcean droplet id', 'DO1234 is the droplet we resized'],
    ['grep -A of a block scalar holding a description', 'docs/app.yml:12:  password: |\ndocs/app.yml-13-    Set this from the vault before the first deploy.'],
    ['grep -A where the next line is another file', 'a.yml:12:  password: |\nb.yml-13-    Vq8Lm3Xz7Rt1Wn5Yc9Hb2Kd'],
    ['C#: ProcessStartInfo with a port flag', 'var psi = new ProcessStartInfo { FileName = "dotnet", Arguments = "run -p 5000 --project Api" };'],
    ['Rust: Command::new with a variable', 'Command::new("psql").arg("-U").arg(&user).arg("-h").arg("localhost")'],
    ['quoted words apart by blanks, a flag among them', 'echo "Status:" "-n" "ok" && printf "%s" "-v"'],
    ['a grid whose header names a password column, rows under it', '+-------+----------+\n| user  | password |\n+-------+----------+\n| alice | NULL     |\n+-------+----------+'],
    ['a grid of one header and no rows', '+-------+----------+\n| user  | password |\n+-------+----------+'],
  ]);
});

/**
 * The nineteenth red team (docs/SECURITY.md): three teams of cases on CI systems and cloud tools,
 * on application configuration, and on the wrappings a transcript puts around a credential. What
 * they found kept, removed since; and what they found removed that is none.
 */
const W = 'Wd8Lq3Xz6Rm2Kv';
const HEX32 = '0eb17c21610be5002209514f3ead3528';

describe('a credential in the shapes the nineteenth red team found kept', () => {
  removesEach([
    ['PostgreSQL CREATE USER … WITH PASSWORD', `CREATE USER app WITH PASSWORD '${W}';`, W],
    ['PostgreSQL ALTER ROLE … PASSWORD in lower case', `alter role app with encrypted password '${W}';`, W],
    ['PostgreSQL CREATE ROLE … LOGIN PASSWORD', `CREATE ROLE app LOGIN PASSWORD '${W}';`, W],
    ['SQL Server CREATE LOGIN … WITH PASSWORD = N\'…\'', `1> CREATE LOGIN etl_user WITH PASSWORD = N'${W}', CHECK_POLICY = OFF;`, W],
    ['MySQL SET PASSWORD FOR', `mysql> SET PASSWORD FOR 'app'@'%' = '${W}';`, W],
    ['MySQL SET PASSWORD = PASSWORD(…)', `mysql> SET PASSWORD = PASSWORD('${W}');`, W],
    ['Terraform plan: the new value of a changed password', `      ~ master_password = "Kq2Lm8Xz4Rt9Wn" -> "${W}"`, W],
    ['Terraform JSON plan: random_password\'s result', `{"resource_changes":[{"address":"random_password.db","change":{"after":{"result":"${W}","length":14}}}]}`, W],
    ['a literal fallback of process.env with ||', `const secret = process.env.SESSION_SECRET || '${W}';`, W],
    ['a literal fallback of process.env with ??', `password: process.env.DB_PASS ?? "${W}",`, W],
    ['a shell default of a secret variable', `psql "postgres://app:\${PGPASSWORD:-${W}}@db/app"`, W],
    ['Compose\'s default of a secret variable', `      POSTGRES_PASSWORD: \${DATABASE_PASSWORD:-${W}}`, W],
    ['Spring\'s default of a secret property', `@Value("\${shop.jwt.secret:${W}}")`, W],
    ['Spring\'s default of a kebab-case secret property', `@Value("\${app.jwt-secret:${W}}")`, W],
    ['Concourse fly login -p', `fly -t ci login -c https://ci.example.com -u admin -p ${W}`, W],
    ['MinIO mc alias set', `mc alias set minio https://minio.example.com:9000 BpdQwElB4QxFYJ7VSXLH ${K}`, K],
    ['Confluent api-key store', `confluent api-key store ABCDEFGHIJKLMNOP ${K} --resource lkc-123`, K],
    ['Drone secret add --data', `drone secret add --repository acme/api --name docker_password --data ${W}`, W],
    ['yarn config set npmAuthToken', `yarn config set npmAuthToken ${K}`, K],
    ['smbclient -U DOMAIN\\user%password', `smbclient //fs01/share -U 'CORP\\\\svc_backup%${W}'`, W],
    ['Ruby URI userinfo', `URI::Generic.build(scheme: "https", userinfo: "deploy:${W}", host: "example.com")`, W],
    ['Maven settings-security master password', `<settingsSecurity>\n  <master>{jSMOWnoPFgsHVpMvz5VrIt5kRbzGpI8u+9EF1iFQyJQ=}</master>\n</settingsSecurity>`, '{jSMOWnoPFgsHVpMvz5VrIt5kRbzGpI8u+9EF1iFQyJQ=}'],
    ['FileZilla\'s saved password', `<Server><User>ftp</User><Pass encoding="base64">${K}</Pass></Server>`, K],
    ['Android buildConfigField of a secret', `buildConfigField("String", "API_SECRET", "\\"${W}\\"")`, W],
    ['Keycloak\'s client secret', `{\n  "type" : "secret",\n  "value" : "${K}"\n}`, K],
    ['Terraform github_actions_secret plaintext_value', `  plaintext_value = "${W}"`, W],
    ['Pulumi\'s exported secret', `{\n  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",\n  "plaintext": "\\"${W}\\""\n}`, W],
    ['Elasticsearch 8\'s first start', `ℹ️  Password for the elastic user (reset with \`bin/elasticsearch-reset-password -u elastic\`):\n  ${W}_x=`, `${W}_x=`],
    ['Elasticsearch\'s reset password', `Password for the [elastic] user successfully reset.\nNew value: ${W}`, W],
    ['Jenkins\' initial admin password', `Please use the following password to proceed to installation:\n\n${HEX32}\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword`, HEX32],
    ['Argo CD\'s initial password', `${W}-Ab\n\n This password must be only used for first time login.`, `${W}-Ab`],
    ['Devise\'s pepper', `  config.pepper = '${W}'`, W],
    ['sssd\'s ldap_default_authtok', `ldap_default_authtok = ${W}`, W],
    ['vault login with a token of hex and dashes', '$ vault login 2e94e5c5-c04e-4a50-921d-8a4bc871b1b9', '2e94e5c5-c04e-4a50-921d-8a4bc871b1b9'],
    ['vault login with a short prefixed token', 'vault login s.Kq2Lm8Xz4R', 's.Kq2Lm8Xz4R'],
    ['GitLab\'s variables API', `curl --request POST --header "PRIVATE-TOKEN: $GL_TOKEN" "https://gitlab.example.com/api/v4/projects/412/variables" --form "key=AWS_SECRET_ACCESS_KEY" --form "value=${K}" --form "masked=true"`, K],
    ['CircleCI\'s context API', `curl -X PUT "https://circleci.com/api/v2/context/4e6a/environment-variable/STRIPE_SECRET" -H "Circle-Token: $CIRCLE_TOKEN" -d '{"value":"${K}"}'`, K],
    ['GitHub Actions\' debug log of a secret', `2024-12-03T14:02:11.4410000Z ##[debug]Evaluating: secrets.DEPLOY_PASSWORD\n2024-12-03T14:02:11.4412000Z ##[debug]Evaluating Index:\n2024-12-03T14:02:11.4420000Z ##[debug]=> '${W}'`, W],
    ['openssl rand and its output, in one text', `$ openssl rand -hex 32\n${HEX32}${HEX32}\n$ ls`, `${HEX32}${HEX32}`],
    ['rails secret and its output', `$ rails secret\n${HEX32}${HEX32}`, `${HEX32}${HEX32}`],
    ['artisan key:generate --show', `$ php artisan key:generate --show\nbase64:hNxQa7cJJlU4lpSEnxhvCxIVa9cY3B2/byJQAEB4zrg=`, 'hNxQa7cJJlU4lpSEnxhvCxIVa9cY3B2/byJQAEB4zrg='],
    ['a Kubernetes secret decoded', `$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\n${W}`, W],
    ['cat of an Ansible vault password file', `$ cat .vault_pass\n${W}\n$ ansible-playbook site.yml --vault-password-file .vault_pass`, W],
    ['cat of a Docker secret', `$ cat /run/secrets/jwt_signing_key\n7ogivn6r_PhzDWd9puV7I3c9EZdKaekGSQwzJ83o4ms`, '7ogivn6r_PhzDWd9puV7I3c9EZdKaekGSQwzJ83o4ms'],
    ['a password where escaped JSON ends', `{"output":"$ argocd login argocd.example.com --username admin --password \\"${W}\\""}`, W],
    ['a password with a doubled quote inside (SQL)', `password = '${W}''x'`, W],
    ['a braced JDBC password holding }} and ;', 'jdbc:sqlserver://h:1433;databaseName=hr;user=hr_app;password={Bx7}}pQ4;nW2zRk9};encrypt=true', 'nW2zRk9'],
    ['smbclient -U quoted, a domain whose backslash starts an escape', `smbclient //fs01/share -U 'CORP\\backup%${W}' -c 'ls'`, W],
    ['a fallback where a password setting is read', `password = config.get("database", "password", fallback="${W}")`, W],
    ['Strapi\'s APP_KEYS of 14 characters each', `APP_KEYS=Lq8Wz3Xm6Rk2Tv,${W},Pf7Lz2Wx5Rm9Kt`, W],
    ['a rotation\'s list of secrets', `  secret: ['Ox7Tv4Mb9Pc1Gf', '${W}'],`, W],
    ['Keycloak\'s bindCredential as a list', `      "bindCredential": ["${W}"],`, W],
    ['a secret manager\'s read and its output in escaped JSON', `{"output":"$ vault kv get -field=password secret/prod/billing\\n${W}"}`, W],
    ['1Password\'s read, a password with symbols', `$ op read "op://Infra/prod-postgres/password"\nwzjed-3_E0^h#Dvr^Yh9l4`, 'wzjed-3_E0^h#Dvr^Yh9l4'],
    ['Terraform console\'s nonsensitive()', `$ terraform console\n> nonsensitive(var.grafana_admin_password)\n"${W}"`, W],
    ['Nexus\'s admin.password', '$ docker exec nexus cat /nexus-data/admin.password\nbaf6bd74-61ab-4671-bc5a-f92e0af309f5', 'baf6bd74-61ab-4671-bc5a-f92e0af309f5'],
    ['echo of a secret\'s variable and what it printed', `$ echo $DB_PASSWORD\n${W}`, W],
    ['Elasticsearch 8\'s enrollment token', `• Copy the following enrollment token and paste it into Kibana in your browser (valid for the next 30 minutes):\n  eyJ2ZXIiOiI4LjE1LjAiLCJhZHIiOlsiMTcyLjE4LjAuMjo5MjAwIl0sImZnciI6IjAxMjM0NTY3ODkifQ==`, 'eyJ2ZXIiOiI4LjE1LjAiLCJhZHIiOlsiMTcyLjE4LjAuMjo5MjAwIl0sImZnciI6IjAxMjM0NTY3ODkifQ=='],
    ['a multipart form\'s password part', `------Boundary7MA4\r\nContent-Disposition: form-data; name="password"\r\n\r\n${W}\r\n------Boundary7MA4--`, W],
    ['Redis\'s wire protocol in an strace line', `write(5, "*2\\r\\n$4\\r\\nAUTH\\r\\n$14\\r\\n${W}\\r\\n", 35) = 35`, W],
    ['SQL INSERT: a password by its column\'s place', `mysql> INSERT INTO users (email, password, role) VALUES ('ops@example.com', '${W}', 'admin');`, W],
    ['SQL INSERT: several rows, quoted column names', `INSERT INTO \`accounts\` (\`id\`, \`name\`, \`api_secret\`) VALUES\n  (1, 'acme', 'Kq2Lm8Xz4Rt9Wn'),\n  (2, 'globex', '${W}');`, W],
    ['SQL INSERT: N\'…\' with a doubled quote, in lower case', `insert into creds (user, token) values ('bot', N'${W}''x');`, W],
  ]);
});

describe('ordinary text the nineteenth red team found removed', () => {
  keepsEach([
    ['a commit subject about vault login', 'c0ffee1 docs: explain vault login flow'],
    ['a log field after the word password', 'INFO Rotated secret prod/orders/db; password length=24; next rotation in 30d'],
    ['a password prompt\'s masked echo', 'Password: ········'],
    ['PowerShell reading a password', '$env:DB_PASSWORD = Read-Host -AsSecureString'],
    ['an empty password in a Secret\'s stringData', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\nstringData:\n  password: ""'],
    ['a documented Basic header', 'Authorization: Basic <base64(user:password)>'],
    ['htpasswd given a quoted variable', 'htpasswd -nbB admin "$ADMIN_PASS"'],
    ['redis.conf\'s stock sample', '# requirepass foobared'],
    ['Strapi\'s placeholder', 'ADMIN_JWT_SECRET=tobemodified'],
    ['Elixir reading the environment', 'secret_key_base: System.fetch_env!("SECRET_KEY_BASE"),'],
    ['SQL Server CREATE LOGIN with a password from a variable', 'CREATE LOGIN etl_user WITH PASSWORD = @pw'],
    ['the shell\'s error for an unset secret', 'API_KEY=${API_KEY:?missing}'],
    ['a hyphenated name in an interpolation', 'secretName: "${db-password-file}"'],
    ['Spring\'s kebab-case property with no default', '@Value("${app.jwt-secret}")'],
    ['a psql CREATE USER with no literal', 'CREATE USER app WITH PASSWORD NULL;'],
    ['GitLab\'s variables API for a setting', 'curl "https://gitlab.example.com/api/v4/projects/412/variables" --form "key=LOG_LEVEL" --form "value=debug"'],
    ['GitHub Actions\' debug log of a variable', "##[debug]Evaluating: vars.REGION\n##[debug]=> 'eu-west-1'"],
    ['a secret manager asked for an id', '$ az keyvault secret show --vault-name kv --name db-password --query id -o tsv\nhttps://kv.vault.azure.net/secrets/db-password/4c7e2a9b1f3d4e5a8b6c0d2e1f9a7b3c'],
    ['base64 -d of a word', '$ echo aGVsbG8= | base64 -d\nhello'],
    ['openssl rand followed by prose', 'Run `openssl rand -hex 32`\nThen paste the value into .env'],
    ['a variable as a flag\'s value where escaped JSON ends', '{"output":"$ argocd login argocd.example.com --username admin --password \\"$ARGOCD_PASSWORD\\""}'],
    ['a placeholder where escaped JSON ends', '{"output":"# terraform.tfvars.example\\napi_token = \\"<your-token>\\"\\ndb_password = \\"<db-password>\\""}'],
    ['Strapi\'s placeholder APP_KEYS', 'APP_KEYS="toBeModified1,toBeModified2"'],
    ['a list of secrets\' names', "  secret: ['db-password', 'api-token'],"],
    ['a fallback for a setting that is no secret', 'level = config.get("logging", "level", fallback="INFO")'],
    ['echo of a variable that is no secret', '$ echo $HOME\n/home/dev1'],
    ['echo of a secret\'s variable, empty', '$ echo $DB_PASSWORD\n\n$ ls'],
    ['a secret manager asked for a list', '$ op read "op://Infra/prod-postgres/username"\nadmin'],
    ['a multipart form\'s user name part', '------B\nContent-Disposition: form-data; name="username"\n\nops\n------B--'],
    ['SQL INSERT of a password hash', "INSERT INTO users (email, password_hash) VALUES ('a@b.c', '$2b$12$abcdefghijklmnopqrstuv');"],
    ['SQL INSERT of a password computed in SQL', "INSERT INTO users (email, password) VALUES ($1, crypt($2, gen_salt('bf')));"],
    ['SQL INSERT with no secret column', "INSERT INTO orders (id, status) VALUES (1, 'Xq9vLm2pRt7wZk4s');"],
  ]);
});

describe('a password given in a sentence of another language', () => {
  removesEach([
    ['Chinese: 新密码是', `新密码是 ${W}，请妥善保管。`, W],
    ['Chinese: a label with an ASCII colon', `数据库密码: ${W}`, W],
    ['Chinese: a key with a full-width colon', `API 密钥：${K}`, K],
    ['Japanese', `パスワード：${W}`, W],
    ['Korean', `비밀번호는 ${W} 입니다`, W],
    ['Russian', `Пароль для входа: ${W}`, W],
    ['Spanish', `la contraseña de la base es ${W}`, W],
    ['German, a text of ASCII alone', `Das Passwort lautet ${W}.`, W],
    ['French', `Le mot de passe est ${W}`, W],
    ['French, with no-break spaces around the colon', `Mot de passe\u00a0:\u00a0${W}`, W],
  ]);
  keepsEach([
    ['Chinese: asking for a password', '请输入密码：'],
    ['Chinese: a question about the password', '密码是什么？我忘记了密码。'],
    ['Chinese: a label and an instruction', '密码: 请在控制台设置'],
    ['Russian: a rule for passwords', 'Пароль должен содержать минимум 12 символов.'],
    ['Chinese: a placeholder', '修改密码为 your-password-here'],
    ['German: a rule for passwords', 'Das Passwort ist mindestens zwölf Zeichen lang.'],
  ]);
});
