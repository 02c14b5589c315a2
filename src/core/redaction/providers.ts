import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { looksRandom } from './randomness.js';

/**
 * Credentials that name themselves: a provider's fixed prefix, then a body of known alphabet and
 * length. The kinds follow the providers that secretlint's recommended preset and gitleaks'
 * default rules know; the patterns are this project's own.
 *
 * The literal scanner finds every prefix in one pass; only at a prefix does a rule's body pattern
 * run, anchored there (sticky), with bounded repetition. A prefix counts only at the start of a
 * token: the character before it is not a letter or digit.
 */

interface ProviderRule {
  kind: string;
  prefix: string;
  /** Matches the body right after the prefix (sticky). */
  body: RegExp;
  /** A further test of the whole token, for prefixes short enough to occur in ordinary words. */
  check?: (token: string) => boolean;
  glued?: true;
  /** The prefix is not secret (a host and a path): only the body is removed. */
  keep?: true;
}

const B62 = 'A-Za-z0-9';
const HEX = '0-9a-f';
const HEXI = '0-9a-fA-F';

/** `n` characters of `cls` and not one more. */
const exact = (cls: string, n: number | string): string => `[${cls}]{${n}}(?![${cls}])`;

interface Def {
  kind: string;
  prefixes: readonly string[];
  body: string;
  check?: (token: string) => boolean;
  /**
   * Found glued to a word before it too (`1ghp_…`, `tokghp_…`): a prefix no word holds. A
   * prefix that is also the end of words (`sk-`, `AIza`) must start a token.
   */
  glued?: true;
  keep?: true;
}

/** Upper, lower and digit all present: rules out words and identifiers after a short prefix. */
const mixed = (t: string): boolean => /[A-Z]/.test(t) && /[a-z]/.test(t) && /[0-9]/.test(t);
const hasDigitAndLetter = (t: string): boolean => /[0-9]/.test(t) && /[A-Za-z]/.test(t);

const DEFS: readonly Def[] = [
  // A name's suffix after the token (`ghp_…_bak`) does not hide it: the body stops at the underscore.
  { kind: 'github_token', prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], body: `[${B62}]{36,251}(?![${B62}])`, glued: true },
  { kind: 'github_token', prefixes: ['github_pat_'], body: `[${B62}_]{22,244}(?![${B62}_])`, glued: true },
  {
    kind: 'gitlab_token',
    prefixes: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glsoat-', 'glffct-', 'GR1348941'],
    body: `[${B62}_.-]{20,250}`,
    glued: true,
  },
  // `xoxc-` is the web client's token, `xoxd-` its `d` cookie (percent-encoded base64), both what
  // a Slack export tool is given (the forty-first red team).
  { kind: 'slack_token', prefixes: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxe-', 'xoxc-', 'xoxe.xoxp-', 'xoxe.xoxb-', 'xoxe.xoxc-', 'xapp-'], body: `[${B62}-]{10,250}`, glued: true },
  { kind: 'slack_token', prefixes: ['xoxd-'], body: `[${B62}%+/=_-]{20,600}`, glued: true },
  { kind: 'slack_webhook', prefixes: ['hooks.slack.com/services/', 'hooks.slack.com/workflows/', 'hooks.slack.com/triggers/'], body: `[${B62}_/-]{16,200}` },
  // Webhook URLs whose path is the secret: Jira Automation's, Cloudflare Pages' deploy hooks,
  // Home Assistant's (`/api/webhook/<id>`, only an id that looks generated), Dead Man's Snitch.
  { kind: 'webhook_url', prefixes: ['automation.atlassian.com/pro/hooks/'], body: `[${HEX}]{32,64}(?![${HEX}])` },
  { kind: 'webhook_url', prefixes: ['/pages/webhooks/deploy_hooks/'], body: `[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}(?![${HEX}])` },
  { kind: 'webhook_url', prefixes: ['/api/webhook/'], body: `[${B62}_-]{16,120}(?![${B62}_-])`, check: (v) => looksRandom(v.slice(v.lastIndexOf('_') + 1).replace(/^-+/, ''), 12) || looksRandom(v, 16) },
  { kind: 'webhook_url', prefixes: ['nosnch.in/'], body: `[${HEX}]{10}(?![${HEX}])` },
  // Also an organization's keys (`sk_org_live_`) and an ephemeral key (`ek_live_`), which acts as its customer while it lasts.
  { kind: 'stripe_key', prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'sk_org_live_', 'sk_org_test_', 'ek_live_', 'ek_test_'], body: `[${B62}]{16,247}(?![${B62}])`, glued: true },
  { kind: 'stripe_key', prefixes: ['whsec_'], body: `[${B62}+/=]{24,250}` },
  // Cloudflare's and Vercel's prefixed tokens (user and account API tokens, keys; personal, integration, access tokens).
  { kind: 'cloudflare_token', prefixes: ['cfut_', 'cfat_', 'cfk_'], body: `[${B62}]{40,64}(?![${B62}])`, check: hasDigitAndLetter, glued: true },
  { kind: 'vercel_token', prefixes: ['vcp_', 'vck_', 'vca_', 'vci_', 'vcr_'], body: `[${B62}]{24,64}(?![${B62}])`, check: mixed, glued: true },
  // crates.io (`cio` and 32), NuGet (`oy2` and 43 lower-case), Plaid's access tokens, PayPal's OAuth access tokens.
  { kind: 'cratesio_token', prefixes: ['cio'], body: exact(B62, 32), check: mixed },
  { kind: 'nuget_key', prefixes: ['oy2'], body: exact('a-z0-9', 43), check: hasDigitAndLetter },
  { kind: 'plaid_token', prefixes: ['access-production-', 'access-sandbox-', 'access-development-'], body: `[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}(?![${HEX}])` },
  { kind: 'paypal_token', prefixes: ['A21AA'], body: `[A-Za-z0-9_-]{50,400}`, check: mixed },
  { kind: 'npm_token', prefixes: ['npm_'], body: exact(B62, 36) , glued: true },
  { kind: 'anthropic_key', prefixes: ['sk-ant-'], body: `[${B62}_-]{20,250}`, glued: true },
  { kind: 'openai_key', prefixes: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-None-'], body: `[${B62}_-]{20,250}`, glued: true },
  { kind: 'openai_key', prefixes: ['sk-'], body: `[${B62}_-]{20,250}`, check: mixed },
  // Ended by Markdown's italics too (`_AIza…_`): an underscore after it that no key character follows.
  { kind: 'google_api_key', prefixes: ['AIza'], body: `[${B62}_-]{35}(?![${B62}-])(?!_[${B62}_-])` , glued: true },
  { kind: 'google_oauth', prefixes: ['GOCSPX-'], body: `[${B62}_-]{24,40}` },
  { kind: 'google_oauth', prefixes: ['ya29.'], body: `[${B62}_-]{30,2048}` , glued: true },
  { kind: 'google_oauth', prefixes: ['1//0'], body: `[${B62}_-]{30,512}`, check: mixed },
  {
    kind: 'aws_access_key_id',
    prefixes: ['ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA'],
    body: exact('A-Z0-9', 16),
  },
  // Access keys, also glued to a word (`^[[32mAKIA…`, how `cat -v` shows a colour before it).
  { kind: 'aws_access_key_id', prefixes: ['AKIA', 'ASIA'], body: exact('A-Z0-9', 16), glued: true },
  { kind: 'aws_access_key_id', prefixes: ['A3T'], body: exact('A-Z0-9', 17) },
  { kind: 'aws_bedrock_key', prefixes: ['ABSK'], body: `[${B62}+/]{100,300}={0,2}` },
  // A JWT (`eyJ` is `{"`), also of JSON with spaces (`eyAi` is `{ "`) or in standard base64 (`+`,
  // `/`, `=`: a hand-made signer's), and an encrypted one (JWE: five parts, the second empty for a
  // direct key, as NextAuth's session cookie is).
  {
    kind: 'jwt',
    prefixes: ['eyJ', 'eyAi'],
    body: `[${B62}_+/-]{8,4096}={0,2}\\.(?:ey[JA][${B62}_+/-]{8,32768}={0,2}\\.[${B62}_+/-]{0,4096}={0,2}|[${B62}_-]{0,4096}\\.[${B62}_-]{8,4096}\\.[${B62}_-]{8,65536}\\.[${B62}_-]{8,1024})`,
    glued: true,
  },
  // AWS's temporary session token (STS): base64 whose first bytes are always these.
  { kind: 'aws_session_token', prefixes: ['IQoJb3JpZ2luX2V', 'FwoGZXIvYXdzE'], body: `[${B62}+/]{40,4096}={0,2}`, glued: true },
  { kind: 'grafana_token', prefixes: ['glc_'], body: `[${B62}+/]{32,400}={0,2}` },
  { kind: 'grafana_token', prefixes: ['glsa_'], body: `[${B62}]{32}_[${HEXI}]{8}` },
  { kind: 'grafana_token', prefixes: ['eyJrIjoi'], body: `[${B62}]{50,120}={0,2}` },
  { kind: 'huggingface_token', prefixes: ['hf_'], body: exact('A-Za-z', 34) , glued: true },
  { kind: 'huggingface_token', prefixes: ['api_org_'], body: exact('A-Za-z', 34) },
  { kind: 'pypi_token', prefixes: ['pypi-AgE'], body: `[${B62}_-]{50,300}` , glued: true },
  { kind: 'digitalocean_token', prefixes: ['dop_v1_', 'doo_v1_', 'dor_v1_'], body: exact(HEX, 64) , glued: true },
  { kind: 'sendgrid_key', prefixes: ['SG.'], body: `[${B62}_-]{20,24}\\.[${B62}_-]{40,46}` , glued: true },
  { kind: 'twilio_key', prefixes: ['SK'], body: exact(HEXI, 32), check: hasDigitAndLetter },
  { kind: 'shopify_token', prefixes: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], body: exact(HEXI, 32) , glued: true },
  { kind: 'databricks_token', prefixes: ['dapi'], body: `[${HEX}]{32}(?:-[0-9])?(?![${B62}])` },
  { kind: 'heroku_key', prefixes: ['HRKU-'], body: `[${B62}_-]{58,70}` },
  { kind: 'vault_token', prefixes: ['hvs.', 'hvb.', 'hvr.'], body: `[${B62}_-]{24,400}` , glued: true },
  { kind: 'sentry_token', prefixes: ['sntrys_'], body: `[${B62}+/=_]{50,400}` },
  { kind: 'sentry_token', prefixes: ['sntryu_'], body: exact(HEX, 64) },
  { kind: 'linear_key', prefixes: ['lin_api_'], body: exact(B62, 40) },
  { kind: 'linear_key', prefixes: ['lin_oauth_'], body: exact(HEX, 64) },
  { kind: 'postman_key', prefixes: ['PMAK-'], body: `[${HEXI}]{24}-[${HEXI}]{34}` },
  // A service token names its config: `dp.st.dev_personal.<43>`.
  { kind: 'doppler_token', prefixes: ['dp.pt.', 'dp.st.', 'dp.ct.', 'dp.sa.', 'dp.scim.', 'dp.audit.'], body: `(?:[a-z0-9_-]{1,40}\\.)?[${B62}]{40,44}` },
  { kind: 'pulumi_token', prefixes: ['pul-'], body: exact(HEX, 40) },
  // Convex's deploy keys: the deployment's name (adjective-animal-number), `|`, the key.
  { kind: 'convex_deploy_key', prefixes: ['prod:', 'dev:', 'preview:', 'project:'], body: `[a-z]{2,20}-[a-z]{2,20}-\\d{2,4}\\|[${B62}=_-]{40,200}` },
  { kind: 'atlassian_token', prefixes: ['ATATT3', 'ATCTT3'], body: `[${B62}_=-]{100,300}` },
  { kind: 'newrelic_key', prefixes: ['NRAK-', 'NRII-', 'NRJS-', 'NRAA-'], body: `[${B62}]{19,40}` },
  { kind: 'notion_token', prefixes: ['ntn_'], body: `[${B62}]{40,50}` },
  { kind: 'notion_token', prefixes: ['secret_'], body: exact(B62, 43), check: mixed },
  { kind: 'age_secret_key', prefixes: ['AGE-SECRET-KEY-1'], body: exact('0-9A-Z', 58) },
  { kind: 'onepassword_token', prefixes: ['ops_eyJ'], body: `[${B62}+/]{100,4096}={0,3}` },
  { kind: 'onepassword_token', prefixes: ['A3-'], body: `[A-Z0-9]{6}-[A-Z0-9-]{23,40}[A-Z0-9]` },
  { kind: 'mailgun_key', prefixes: ['key-'], body: exact(HEX, 32), check: hasDigitAndLetter },
  { kind: 'mapbox_token', prefixes: ['sk.eyJ', 'tk.eyJ'], body: `[${B62}_-]{20,400}\\.[${B62}_-]{20,200}` },
  { kind: 'rubygems_key', prefixes: ['rubygems_'], body: exact(HEX, 48) },
  { kind: 'planetscale_token', prefixes: ['pscale_tkn_', 'pscale_oauth_', 'pscale_pw_'], body: `[${B62}_.=-]{32,64}` },
  { kind: 'prefect_key', prefixes: ['pnu_'], body: exact(B62, 36) },
  { kind: 'readme_key', prefixes: ['rdme_'], body: exact('a-z0-9', 70) },
  { kind: 'sendinblue_key', prefixes: ['xkeysib-', 'xsmtpsib-'], body: `[${HEX}]{64}-[${B62}]{16}` },
  { kind: 'shippo_token', prefixes: ['shippo_live_', 'shippo_test_'], body: exact(HEX, 40) },
  { kind: 'sonar_token', prefixes: ['squ_', 'sqp_', 'sqa_'], body: exact(HEX, 40) },
  { kind: 'sourcegraph_token', prefixes: ['sgp_'], body: `(?:[${HEX}]{16}_|local_)?[${HEX}]{40}(?![${B62}])` },
  { kind: 'square_token', prefixes: ['sq0atp-', 'sq0csp-'], body: `[${B62}_-]{22,60}` },
  { kind: 'square_token', prefixes: ['EAAA'], body: exact(`${B62}_-`, 60) },
  { kind: 'typeform_token', prefixes: ['tfp_'], body: `[${B62}_.=-]{40,70}` },
  { kind: 'perplexity_key', prefixes: ['pplx-'], body: `[${B62}]{40,64}` },
  { kind: 'flutterwave_key', prefixes: ['FLWSECK_TEST-', 'FLWSECK-'], body: `[${HEXI}]{32}-X` },
  { kind: 'flyio_token', prefixes: ['fo1_'], body: `[${B62}_-]{43}` },
  { kind: 'flyio_token', prefixes: ['FlyV1 fm2_', 'fm1r_', 'fm1a_', 'fm2_'], body: `[${B62}+/=_-]{100,4096}` },
  { kind: 'frameio_token', prefixes: ['fio-u-'], body: `[${B62}_=-]{64}` },
  { kind: 'dynatrace_token', prefixes: ['dt0c01.'], body: `[A-Z0-9]{24}\\.[A-Z0-9]{64}` },
  { kind: 'easypost_key', prefixes: ['EZAK', 'EZTK'], body: exact(B62, 54) },
  { kind: 'clojars_token', prefixes: ['CLOJARS_'], body: exact('a-z0-9', 60) },
  { kind: 'adobe_secret', prefixes: ['p8e-'], body: exact(B62, 32), check: hasDigitAndLetter },
  { kind: 'alibaba_key', prefixes: ['LTAI'], body: exact(B62, 20), check: mixed },
  { kind: 'artifactory_key', prefixes: ['AKCp'], body: exact(B62, 69) },
  { kind: 'artifactory_key', prefixes: ['cmVmd'], body: exact(B62, 59) },
  { kind: 'openshift_token', prefixes: ['sha256~'], body: exact(`${B62}_-`, 43) },
  { kind: 'yandex_key', prefixes: ['AQVN'], body: `[${B62}_-]{35,38}(?![${B62}_-])` },
  { kind: 'yandex_key', prefixes: ['t1.'], body: `[A-Z0-9a-z_-]{8,200}={0,2}\\.[A-Z0-9a-z_-]{86}={0,2}` },
  { kind: 'harness_token', prefixes: ['pat.', 'sat.'], body: `[${B62}_-]{22}\\.[${HEX}]{24}\\.[${B62}]{20}` },
  { kind: 'cloudflare_key', prefixes: ['v1.0-'], body: `[${HEX}]{24}-[${HEX}]{146}` },
  // Zapier's catch hooks (`/hooks/catch/<account>/<key>/`) and Make's (`hook.<zone>.make.com/<key>`): the URL is the credential.
  { kind: 'zapier_webhook', prefixes: ['hooks.zapier.com/hooks/catch/'], body: `[0-9]{4,12}/[${B62}]{5,40}` },
  { kind: 'make_webhook', prefixes: ['hook.eu1.make.com/', 'hook.eu2.make.com/', 'hook.us1.make.com/', 'hook.us2.make.com/', 'hook.integromat.com/'], body: `[a-z0-9]{24,40}(?![A-Za-z0-9])` },
  { kind: 'discord_webhook', prefixes: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], body: `[0-9]{10,24}/[${B62}_-]{50,100}` },
  { kind: 'teams_webhook', prefixes: ['webhook.office.com/webhookb2/', 'outlook.office.com/webhook/', 'outlook.office365.com/webhook/'], body: `[${B62}@/_-]{40,400}` },
  // Feishu's and Lark's bot webhooks, Mattermost's incoming webhooks, Anaconda's channel tokens: the path is the secret.
  { kind: 'webhook', prefixes: ['open.feishu.cn/open-apis/bot/v2/hook/', 'open.larksuite.com/open-apis/bot/v2/hook/'], body: `[${HEX}-]{36}(?![${B62}-])`, keep: true },
  { kind: 'webhook', prefixes: ['/hooks/'], body: `[a-z0-9]{26}(?![${B62}_-])`, check: (t) => /\d/.test(t.slice(7)) && /[a-z]/.test(t.slice(7)), keep: true },
  { kind: 'webhook', prefixes: ['qyapi.weixin.qq.com/cgi-bin/webhook/send?key='], body: `[${HEX}-]{36}(?![${B62}-])`, keep: true },
  { kind: 'conda_token', prefixes: ['anaconda.org/t/'], body: `[${B62}_-]{20,100}(?=/)`, keep: true },
  // A Twitter app bearer token: a long run of A's, then the key (the A's also start base64 of zeros).
  { kind: 'twitter_token', prefixes: ['AAAAAAAAAAAAAAAAAAAAA'], body: `[${B62}%]{30,200}`, check: (t) => /%[0-9A-F]{2}/.test(t) || mixed(t.slice(21)) },
  { kind: 'facebook_token', prefixes: ['EAAC', 'EAAG', 'EAAB'], body: `[${B62}]{90,400}(?![${B62}+/=])` },
  { kind: 'clickhouse_key', prefixes: ['4b1d'], body: exact(B62, 38), check: mixed },
  { kind: 'supabase_token', prefixes: ['sbp_'], body: exact(HEX, 40), glued: true },
  { kind: 'supabase_token', prefixes: ['sb_secret_'], body: `[${B62}_-]{20,100}(?![${B62}_-])`, glued: true },
  { kind: 'replicate_token', prefixes: ['r8_'], body: exact(B62, 37), check: hasDigitAndLetter },
  { kind: 'groq_key', prefixes: ['gsk_'], body: exact(B62, 52), glued: true },
  { kind: 'xai_key', prefixes: ['xai-'], body: `[${B62}]{70,90}(?![${B62}])`, check: mixed },
  { kind: 'openrouter_key', prefixes: ['sk-or-v1-'], body: exact(HEX, 64), glued: true },
  // DeepSeek's keys are `sk-` and 32 lower-case hex digits (OpenAI's rule above wants mixed case).
  { kind: 'deepseek_key', prefixes: ['sk-'], body: exact(HEX, 32), check: hasDigitAndLetter },
  { kind: 'figma_token', prefixes: ['figd_'], body: `[${B62}_-]{38,60}(?![${B62}_-])`, glued: true },
  { kind: 'tavily_key', prefixes: ['tvly-'], body: `(?:dev-|prod-)?[${B62}]{32}(?![${B62}])` },
  { kind: 'pinecone_key', prefixes: ['pcsk_'], body: `[${B62}_]{60,90}(?![${B62}_])`, glued: true },
  { kind: 'langsmith_key', prefixes: ['lsv2_pt_', 'lsv2_sk_'], body: `[${HEX}]{32}_[${HEX}]{10}`, glued: true },
  { kind: 'nvidia_key', prefixes: ['nvapi-'], body: `[${B62}_-]{60,70}(?![${B62}_-])`, glued: true },
  { kind: 'resend_key', prefixes: ['re_'], body: `[${B62}]{8}_[${B62}]{24}(?![${B62}])`, check: mixed },
  { kind: 'netlify_token', prefixes: ['nfp_'], body: `[${B62}]{36,40}(?![${B62}])`, check: hasDigitAndLetter },
  { kind: 'docker_token', prefixes: ['dckr_pat_', 'dckr_oat_'], body: `[${B62}_-]{27,60}(?![${B62}_-])`, glued: true },
  { kind: 'tailscale_key', prefixes: ['tskey-auth-', 'tskey-api-', 'tskey-client-', 'tskey-webhook-', 'tskey-scim-'], body: `[${B62}]{6,24}-[${B62}]{20,64}(?![${B62}])`, glued: true },
  { kind: 'langfuse_key', prefixes: ['sk-lf-'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])` },
  { kind: 'hubspot_token', prefixes: ['pat-na1-', 'pat-na2-', 'pat-eu1-', 'pat-ap1-'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])` },
  { kind: 'posthog_key', prefixes: ['phx_'], body: `[${B62}]{40,50}(?![${B62}])`, check: mixed },
  { kind: 'render_key', prefixes: ['rnd_'], body: exact(B62, 32), check: mixed },
  { kind: 'neon_key', prefixes: ['napi_'], body: exact('a-z0-9', 64), check: hasDigitAndLetter },
  { kind: 'contentful_token', prefixes: ['CFPAT-'], body: `[${B62}_-]{43}(?![${B62}_-])` },
  { kind: 'bitbucket_token', prefixes: ['ATBB'], body: `[${B62}]{28,40}(?![${B62}])`, check: mixed },
  // The tenth red team's (2026-12-03): CI, AI, payment, feature-flag and messaging providers' own formats.
  { kind: 'buildkite_token', prefixes: ['bkua_'], body: exact(HEX, 40), glued: true },
  { kind: 'circleci_token', prefixes: ['CCIPAT_', 'CCIPRJ_'], body: `[${B62}_]{30,100}(?![${B62}_])`, glued: true },
  // OpenAI's session key (the web app's), Backblaze B2's application key (`K00` and its cluster's digit).
  { kind: 'openai_session_key', prefixes: ['sess-'], body: exact(B62, 40), check: mixed },
  { kind: 'backblaze_key', prefixes: ['K001', 'K002', 'K003', 'K004', 'K005'], body: exact(`${B62}+/`, 27), check: mixed },
  { kind: 'fireworks_key', prefixes: ['fw_'], body: `[${B62}]{20,60}(?![${B62}])`, check: mixed },
  { kind: 'together_key', prefixes: ['tgp_v1_'], body: `[${B62}_-]{30,100}(?![${B62}_-])`, glued: true },
  { kind: 'cerebras_key', prefixes: ['csk-'], body: `[a-z0-9]{40,64}(?![${B62}])`, check: hasDigitAndLetter },
  { kind: 'firecrawl_key', prefixes: ['fc-'], body: exact(HEX, 32), check: hasDigitAndLetter },
  { kind: 'e2b_key', prefixes: ['e2b_'], body: exact(HEX, 40), glued: true },
  { kind: 'jina_key', prefixes: ['jina_'], body: `[${B62}]{40,80}(?![${B62}])`, check: hasDigitAndLetter },
  { kind: 'axiom_token', prefixes: ['xaat-', 'xapt-'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])`, glued: true },
  { kind: 'honeycomb_key', prefixes: ['hcaik_', 'hcxik_', 'hcamk_', 'hcxmk_'], body: `[a-z0-9]{40,80}(?![${B62}])`, glued: true },
  { kind: 'paddle_key', prefixes: ['pdl_live_apikey_', 'pdl_sdbx_apikey_'], body: `[${B62}_]{20,100}(?![${B62}_])`, glued: true },
  { kind: 'braintree_token', prefixes: ['access_token$production$', 'access_token$sandbox$'], body: `[a-z0-9]{16}\\$[0-9a-f]{32}(?![0-9a-f])`, glued: true },
  // Salesforce's session id: the org id (`00D…`), `!`, then the session.
  { kind: 'salesforce_token', prefixes: ['00D'], body: `[${B62}]{12,15}![${B62}._]{40,250}(?![${B62}._])` },
  // Firebase Cloud Messaging's legacy server key.
  { kind: 'fcm_server_key', prefixes: ['AAAA'], body: `[${B62}_-]{7}:APA91b[${B62}_-]{100,200}(?![${B62}_-])` },
  { kind: 'dropbox_token', prefixes: ['sl.u.', 'sl.B'], body: `[${B62}_-]{60,1300}(?![${B62}_-])`, check: mixed },
  { kind: 'launchdarkly_key', prefixes: ['sdk-', 'api-', 'mob-'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])` },
  { kind: 'mercadopago_token', prefixes: ['APP_USR-'], body: `\\d{10,20}-\\d{6}-[0-9a-f]{32}-\\d{6,12}(?!\\d)`, glued: true },
  { kind: 'elevenlabs_key', prefixes: ['sk_'], body: exact(HEX, 48), check: hasDigitAndLetter },
  { kind: 'voyage_key', prefixes: ['pa-'], body: `[${B62}_-]{40,50}(?![${B62}_-])`, check: mixed },
  { kind: 'polar_token', prefixes: ['polar_oat_', 'polar_pat_', 'polar_sk_'], body: `[${B62}]{40,60}(?![${B62}])`, glued: true },
  // Docker Swarm's unlock key, Trigger.dev's and Inngest's keys, OneSignal's v2 app key, Browserbase's, Tencent Cloud's secret id.
  { kind: 'swarm_unlock_key', prefixes: ['SWMKEY-1-'], body: `[A-Za-z0-9+/]{40,50}(?![A-Za-z0-9+/])`, glued: true },
  { kind: 'triggerdev_key', prefixes: ['tr_prod_', 'tr_dev_', 'tr_stg_'], body: `[${B62}]{20,60}(?![${B62}])`, glued: true, check: hasDigitAndLetter },
  { kind: 'inngest_key', prefixes: ['signkey-prod-', 'signkey-test-', 'signkey-branch-'], body: exact(HEX, 64), glued: true },
  { kind: 'onesignal_key', prefixes: ['os_v2_app_'], body: `[a-z0-9]{60,200}(?![a-z0-9])`, glued: true },
  { kind: 'browserbase_key', prefixes: ['bb_live_'], body: `[${B62}_-]{20,80}(?![${B62}_-])`, glued: true, check: hasDigitAndLetter },
  { kind: 'tencent_secret_id', prefixes: ['AKID'], body: `[${B62}]{32,36}(?![${B62}])`, check: mixed },
  // Apify's API tokens.
  { kind: 'apify_token', prefixes: ['apify_api_'], body: `[${B62}]{30,40}(?![${B62}])`, glued: true, check: hasDigitAndLetter },
  // CoinGecko's demo and pro keys.
  { kind: 'coingecko_key', prefixes: ['CG-'], body: `[${B62}]{20,30}(?![${B62}])`, check: mixed },
  // dbt Cloud's service tokens, MailerSend's, Anyscale's, Vercel Blob's read-write token, Context7's
  // key, ClickUp's personal token, Plex's claim token, Statsig's server secret.
  { kind: 'dbt_cloud_token', prefixes: ['dbtc_'], body: `[${B62}_-]{30,60}(?![${B62}_-])`, glued: true, check: hasDigitAndLetter },
  { kind: 'mailersend_token', prefixes: ['mlsn.'], body: exact(HEX, 64), glued: true },
  { kind: 'anyscale_key', prefixes: ['esecret_'], body: `[${B62}]{30,60}(?![${B62}])`, glued: true, check: hasDigitAndLetter },
  { kind: 'vercel_blob_token', prefixes: ['vercel_blob_rw_'], body: `[${B62}]{10,30}_[${B62}]{20,40}(?![${B62}])`, glued: true },
  { kind: 'context7_key', prefixes: ['ctx7sk-'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])`, glued: true },
  { kind: 'clickup_token', prefixes: ['pk_'], body: `\\d{6,10}_[A-Z0-9]{32}(?![A-Za-z0-9])`, glued: true },
  { kind: 'plex_claim_token', prefixes: ['claim-'], body: `[${B62}_-]{20}(?![${B62}_-])`, glued: true, check: mixed },
  { kind: 'statsig_secret', prefixes: ['secret-'], body: `[${B62}]{40,50}(?![${B62}])`, glued: true, check: mixed },
  // The forty-first red team's list (2026-12-05), each a format of its own: Asana's personal access
  // tokens (`1/<user>:<32 hex>`, since 2023 `2/<user>/<app>:<32 hex>`; the user's id is 16 digits),
  // Okta's API tokens (`00` and 40 base64url, a letter third: no timestamp's `00:` starts one),
  // Intercom's (base64 of `tok:`), Vault's tokens before 1.10 (`s.` and 24), a Bitwarden Secrets
  // Manager access token (`0.<uuid>.<secret>:<key>`), Twilio's account SID with its auth token
  // after a colon (the SID alone is no secret), GitHub's installation tokens before 2021, Modal's
  // token id and secret. A GCS HMAC access id and a DigitalOcean Spaces key pair with the secret
  // beside them, as an AWS access key does (`pairedSecret`, below).
  { kind: 'asana_token', prefixes: ['1/1', '1/2', '1/3', '1/4', '1/5', '1/6', '1/7', '1/8', '1/9'], body: `\\d{12,18}:${exact(HEX, 32)}` },
  { kind: 'asana_token', prefixes: ['2/1', '2/2', '2/3', '2/4', '2/5', '2/6', '2/7', '2/8', '2/9'], body: `\\d{12,18}/\\d{12,19}:${exact(HEX, 32)}` },
  { kind: 'okta_token', prefixes: [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'].map((c) => `00${c}`), body: exact(`${B62}_-`, 39), check: mixed },
  { kind: 'intercom_token', prefixes: ['dG9rOj'], body: `[${B62}+/]{40,200}={0,2}` },
  { kind: 'vault_token', prefixes: ['s.'], body: `[${B62}]{24}(?![${B62}_(-])`, check: mixed },
  { kind: 'bitwarden_token', prefixes: ['0.'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.[${B62}]{20,40}:[${B62}+/]{20,30}={0,2}` },
  { kind: 'twilio_key', prefixes: ['AC'], body: `[0-9a-f]{32}:${exact(HEXI, 32)}` },
  { kind: 'github_token', prefixes: ['v1.'], body: exact(HEX, 40), check: hasDigitAndLetter },
  { kind: 'modal_token', prefixes: ['ak-', 'as-'], body: exact(B62, 22), check: mixed },
  { kind: 'gcs_hmac_access_id', prefixes: ['GOOG1'], body: `[A-Z0-9]{50,60}(?![${B62}])`, glued: true },
  { kind: 'digitalocean_spaces_key', prefixes: ['DO00'], body: exact('A-Z0-9', 16), glued: true },
  // A Nostr private key in bech32.
  { kind: 'nostr_key', prefixes: ['nsec1'], body: exact('02-9ac-hj-np-z', 58) },
  // Cloudflare's tunnel token: base64 of `{"a": "<account>", "t": "<tunnel>", "s": "<secret>"}`.
  { kind: 'cloudflare_tunnel_token', prefixes: ['eyJhIjoi', 'eyJhIjogI'], body: `[${B62}+/]{100,600}={0,2}` },
  // k3s' join token: `K10<ca hash>::<user>:<password>`.
  { kind: 'k3s_token', prefixes: ['K10'], body: `[0-9a-f]{64}::[a-z0-9_-]{1,32}:[${B62}]{16,64}(?![${B62}])`, glued: true },
  // PASETO tokens: local ones are encrypted payloads, public ones signed; either is a bearer credential.
  { kind: 'paseto_token', prefixes: ['v1.local.', 'v2.local.', 'v3.local.', 'v4.local.', 'v1.public.', 'v2.public.', 'v3.public.', 'v4.public.'], body: `[${B62}_-]{40,4000}(?:\\.[${B62}_-]{1,1000})?` },
  // Keys given as a URL's path: Ethereum RPC providers (Alchemy, Infura, QuickNode), PagerDuty's and Loggly's
  // ingestion URLs, IFTTT's webhooks.
  { kind: 'url_path_key', prefixes: ['alchemy.com/v2/', 'alchemyapi.io/v2/'], body: `[${B62}_-]{20,64}(?![${B62}_-])`, check: (t) => hasDigitAndLetter(t.slice(t.indexOf('/v2/') + 4)), keep: true },
  { kind: 'url_path_key', prefixes: ['infura.io/v3/', 'infura.io/ws/v3/'], body: exact(HEXI, 32), keep: true },
  { kind: 'url_path_key', prefixes: ['.quiknode.pro/'], body: exact(HEX, 40), keep: true },
  { kind: 'url_path_key', prefixes: ['events.pagerduty.com/integration/'], body: exact(HEX, 32), keep: true },
  { kind: 'url_path_key', prefixes: ['loggly.com/inputs/'], body: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])`, keep: true },
  { kind: 'url_path_key', prefixes: ['/with/key/'], body: `[${B62}_-]{16,64}(?![${B62}_-])`, check: (t) => hasDigitAndLetter(t.slice(10)), keep: true },
  // The forty-third red team's list: Docker Swarm's join tokens (`SWMTKN-1-`, 50 and 25 characters of
  // base36), RunPod's API keys (`rpa_` and 40 capitals and digits), Matrix's access tokens (`syt_`, the
  // user in base64, 20 characters, a 6-character check), Xata's API keys (`xau_`), and a Rancher API
  // token's `token-<5>:<54>` (its secret after the colon; `token-` is a word's start, so the whole
  // shape must hold, with a digit in the secret).
  { kind: 'swarm_join_token', prefixes: ['SWMTKN-1-'], body: `[a-z0-9]{50}-[a-z0-9]{25}(?![a-z0-9])`, glued: true },
  { kind: 'runpod_key', prefixes: ['rpa_'], body: exact('A-Z0-9', 40), glued: true, check: hasDigitAndLetter },
  { kind: 'matrix_token', prefixes: ['syt_'], body: `[A-Za-z0-9+/=-]{2,120}_[${B62}]{20}_[${B62}]{6}(?![${B62}])`, glued: true },
  { kind: 'xata_key', prefixes: ['xau_'], body: `[${B62}]{30,60}(?![${B62}])`, glued: true, check: mixed },
  // The same team's second wave: Deno Deploy's tokens (`ddp_` and 36), Duffel's (`duffel_live_`,
  // `duffel_test_`), Stytch's secrets (`secret-live-`, `secret-test-`), WooCommerce's key and secret
  // (`ck_`, `cs_` and 40 hex), Telnyx's API keys (`KEY`, 26 hex digits and letters in capitals, `_`,
  // 22), Lambda Cloud's (`secret_<name>_<32 hex>.<32>`), and a Fernet token as OpenStack Keystone
  // issues it (`gAAAAA` and base64url: a version byte and a time, then at least 100 more).
  { kind: 'deno_deploy_token', prefixes: ['ddp_'], body: exact(B62, 36), glued: true, check: hasDigitAndLetter },
  { kind: 'duffel_token', prefixes: ['duffel_live_', 'duffel_test_'], body: `[${B62}_-]{40,50}(?![${B62}_-])`, glued: true },
  { kind: 'stytch_secret', prefixes: ['secret-live-', 'secret-test-'], body: `[${B62}_=-]{30,60}(?![${B62}_=-])`, glued: true, check: hasDigitAndLetter },
  { kind: 'woocommerce_key', prefixes: ['ck_', 'cs_'], body: exact(HEX, 40), check: hasDigitAndLetter },
  { kind: 'telnyx_key', prefixes: ['KEY'], body: `[0-9A-F]{26}_[${B62}]{22}(?![${B62}])` },
  { kind: 'lambda_cloud_key', prefixes: ['secret_'], body: `[a-z0-9-]{1,64}_[0-9a-f]{32}\\.[${B62}]{32}(?![${B62}])` },
  { kind: 'fernet_token', prefixes: ['gAAAAA'], body: `[${B62}_-]{100,4000}={0,2}(?![${B62}_=-])`, check: mixed },
  { kind: 'rancher_token', prefixes: ['token-'], body: `[a-z0-9]{5}:[a-z0-9]{54}(?![a-z0-9])`, check: (t) => /[0-9]/.test(t.slice(12)) && /[a-z]/.test(t.slice(12)) },
  // A private key's DER as one line of base64 (PKCS#8 EC P-256, RSA PKCS#1 and PKCS#8), without its PEM lines.
  {
    kind: 'private_key',
    prefixes: ['MIGHAgEAMBMGByqGSM49', 'MIGEAgEAMBAGByqGSM49', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAAS', 'MIIEvgIBADANBgkqhkiG9w0BAQEFAAS', 'MIIEvAIBADANBgkqhkiG9w0BAQEFAAS', 'MIIEpAIBAAKCAQEA', 'MIIEowIBAAKCAQEA', 'MIIEpQIBAAKCAQEA', 'MIIJQwIBADANBgkqhkiG9w0BAQEFAAS', 'MIIJQgIBADANBgkqhkiG9w0BAQEFAAS', 'MIIJKAIBAAKCAgEA', 'MIIJKQIBAAKCAgEA', 'MIIJJwIBAAKCAgEA'],
    body: `[${B62}+/\\\\n]{60,6000}={0,2}`,
  },
];

const RULES: readonly ProviderRule[] = DEFS.flatMap((d) =>
  d.prefixes.map((prefix) => ({ kind: d.kind, prefix, body: new RegExp(d.body, 'y'), ...(d.check ? { check: d.check } : {}), ...(d.glued ? { glued: true as const } : {}), ...(d.keep ? { keep: true as const } : {}) })),
);

/** A run of letters and digits this long is skipped whole once a prefix at its start failed. */
const LONG_RUN_CHARS = 64;
const MAX_RUN_CHARS = 4096;

/**
 * Where to resume after a prefix at i found no body. No token can start inside a run of letters
 * and digits (the character before would be one), so when the run is long the scan jumps to its
 * last character: a text of one endless word costs one body attempt, not one per character.
 */
function afterFailure(text: string, i: number): number {
  let j = i;
  while (j < text.length && j - i < MAX_RUN_CHARS && isAlnum(text.charCodeAt(j))) j += 1;
  return j - i >= LONG_RUN_CHARS ? j - 1 : -1;
}

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Values that documentation publishes as examples, and placeholders written in a token's own
 * shape: AWS's `AKIAIOSFODNN7EXAMPLE` and its secret key, jwt.io's sample token, a body of `x`s
 * (`ghp_xxxx…`), a body of words (`xoxb-your-bot-token`). Kept, as the text they are in says.
 */
function isDocumentedExample(token: string): boolean {
  if (/EXAMPLE(?:KEY)?$/.test(token)) return true;
  if (token.endsWith('SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c')) return true;
  const body = token.replace(/^[A-Za-z]{2,12}[_-]/, '');
  return /^(?:[a-z]{2,8}[_-])?(?:x+|X+|0+|\*+)$/.test(body) || /^(?:your|my|example|test|fake|dummy|placeholder)(?:[-_][a-z]+){1,4}$/.test(body);
}

function providerHandler(rule: ProviderRule): Handler {
  return (text, i, found) => {
    rule.body.lastIndex = i + rule.prefix.length;
    const b = rule.body.exec(text);
    if (b === null) return afterFailure(text, i);
    const end = i + rule.prefix.length + b[0].length;
    if (rule.check && !rule.check(text.slice(i, end))) return afterFailure(text, i);
    if (isDocumentedExample(text.slice(i, end))) return end;
    found.add(rule.keep ? i + rule.prefix.length : i, end, rule.kind, PRIORITY.provider);
    const paired = PAIRED_SECRET[rule.kind];
    if (paired !== undefined) findPairedSecretNear(text, i, end, paired, found);
    return end;
  };
}

/** How far from an access key id its secret is looked for (a credentials file, an export pair). */
const PAIR_WINDOW = 400;

/**
 * The secret an access key id is issued with, of a set length and no prefix: next to its id, a
 * random run of that length is one. AWS's and a GCS HMAC key's secrets are 40 characters of
 * base64, a DigitalOcean Spaces key's 43, a Twilio API key's 32 letters and digits.
 */
const PAIRED_SECRET: Readonly<Record<string, { kind: string; re: RegExp }>> = {
  aws_access_key_id: { kind: 'aws_secret_access_key', re: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g },
  gcs_hmac_access_id: { kind: 'gcs_hmac_secret', re: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g },
  digitalocean_spaces_key: { kind: 'digitalocean_spaces_secret', re: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{43}(?![A-Za-z0-9/+=])/g },
  // A Twilio API key's secret, 32 letters and digits, printed beside its `SK…` id (`twilio
  // api:core:keys:create`'s table: the forty-third red team's).
  twilio_key: { kind: 'twilio_key_secret', re: /(?<![A-Za-z0-9])[A-Za-z0-9]{32}(?![A-Za-z0-9])/g },
};

function findPairedSecretNear(text: string, start: number, end: number, paired: { kind: string; re: RegExp }, found: Findings): void {
  const from = Math.max(0, start - PAIR_WINDOW);
  const window = text.slice(from, Math.min(text.length, end + PAIR_WINDOW));
  paired.re.lastIndex = 0;
  for (let m = paired.re.exec(window); m !== null; m = paired.re.exec(window)) {
    // Lower-case hex is a git commit, not a secret key (these are base64: one of 40 characters with
    // no capital, no `/` or `+`, and no letter past f is one chance in 4^40): `git revert <sha>`
    // near "AKIA…" in an incident's notes (the twenty-fifth red team).
    if (looksRandom(m[0], m[0].length) && !/^[0-9a-f]+$/.test(m[0])) found.add(from + m.index, from + m.index + m[0].length, paired.kind, PRIORITY.provider);
  }
}

interface InfixRule {
  kind: string;
  needle: string;
  re: RegExp;
  /** How far before its fixed part it may start, when farther than INFIX_BACK_CHARS. */
  back?: number;
}

/** Credentials whose fixed part sits inside them: searched only where that part occurs. */
const INFIX: readonly InfixRule[] = [
  { kind: 'azure_client_secret', needle: 'Q~', re: /(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  { kind: 'telegram_token', needle: ':AA', re: /(?<![0-9])[0-9]{5,16}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  { kind: 'mailchimp_key', needle: '-us', re: /(?<![0-9a-f])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])/g },
  // New Relic's license and ingest keys: 36 hex, then `NRAL` (`NRII-` keys have their prefix rule).
  { kind: 'newrelic_key', needle: 'NRAL', re: /(?<![0-9a-f])[0-9a-f]{36}NRAL(?![A-Za-z0-9])/g },
  // Azure DevOps' personal access token since 2024: 84 characters, `AZDO` at the 53rd.
  { kind: 'azure_devops_token', needle: 'AZDO', re: /(?<![A-Za-z0-9])[A-Za-z0-9]{52}AZDO[A-Za-z0-9]{28}(?![A-Za-z0-9])/g, back: 52 },
  { kind: 'terraform_token', needle: '.atlasv1.', re: /(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])/g },
];

/** How far before and after its fixed part an infix credential may reach. */
const INFIX_BACK_CHARS = 40;
const INFIX_AHEAD_CHARS = 80;

function infixHandler(rule: InfixRule): Handler {
  return (text, i, found) => {
    const from = Math.max(0, i - (rule.back ?? INFIX_BACK_CHARS));
    const window = text.slice(from, Math.min(text.length, i + INFIX_AHEAD_CHARS));
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(window); m !== null; m = rule.re.exec(window)) {
      const start = from + m.index;
      const end = start + m[0].length;
      if (start <= i && end > i) {
        found.add(start, end, rule.kind, PRIORITY.provider);
        return end;
      }
    }
    return -1;
  };
}

/**
 * Codex cuts a long tool output in its middle and writes `…N tokens truncated…` where the cut is
 * (`…N chars truncated…` when it counts characters), inside a word too: a token the cut falls in
 * is left as its prefix and the start of its body before the marker and its last characters after
 * it, and no body rule matches either part (`ghp_` and 30 characters: the rule wants 36). A run
 * glued to the marker's start that begins with a provider's prefix is that provider's credential
 * cut, and is removed with the run after the marker (on the same line, or the next when the marker
 * ends its line): after a prefix no word holds (`ghp_`, `glpat-`, `xoxb-`) starting the run, any
 * body but words (`npm_config_cache`); after a
 * shorter or commoner one (`sk-`, `pk_`, `npm_`), a body of 8 or more with upper and lower case
 * letters and digits, which `api-gateway-v2` and `pnpm_store_v3` are not (the twenty-sixth red team).
 */
const TRUNCATED = ['tokens truncated', 'chars truncated'];
const CUT_MIN_BODY = 8;
const CUT_MAX_RUN = 2048;
const isCutTokenChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 45 || c === 46;
/** After the marker: a token's end may hold base64's `/`, `+` and `=` too (a webhook secret, a JWT's signature). */
const isCutTailChar = (c: number): boolean => isCutTokenChar(c) || c === 47 || c === 43 || c === 61;

/** The rule whose prefix starts the run before a marker, and where in it, or null. */
function cutToken(head: string): { rule: ProviderRule; from: number } | null {
  for (const r of RULES) {
    const from = head.startsWith(r.prefix) ? 0 : r.glued ? head.indexOf(r.prefix) : -1;
    if (from === -1) continue;
    const body = head.slice(from + r.prefix.length);
    // A prefix no word holds, starting the run: any body but words (`npm_config_cache`).
    const distinctive = r.glued === true && r.prefix.length >= 4 && from === 0 && !/^[a-z]{4,}(?:[_-][a-z]+)*$/.test(body);
    const enough = distinctive ? body.length >= 1 : body.length >= CUT_MIN_BODY && mixed(body);
    if (enough && !isDocumentedExample(head.slice(from))) return { rule: r, from };
  }
  return null;
}

function cutTokenHandler(marker: string): Handler {
  return (text, at, found) => {
    // The marker's ellipses, `…` or three dots (a copy that lost the character).
    const markEnd = at + marker.length;
    const after = text.charCodeAt(markEnd) === 0x2026 ? 1 : text.startsWith('...', markEnd) ? 3 : 0;
    if (after === 0 || text.charCodeAt(at - 1) !== 32) return -1;
    let k = at - 1;
    while (k > 0 && text.charCodeAt(k - 1) >= 48 && text.charCodeAt(k - 1) <= 57) k -= 1;
    if (k === at - 1) return -1;
    const before = k >= 1 && text.charCodeAt(k - 1) === 0x2026 ? 1 : k >= 3 && text.startsWith('...', k - 3) ? 3 : 0;
    if (before === 0) return -1;
    const headEnd = k - before;
    let s = headEnd;
    while (s > 0 && headEnd - s < CUT_MAX_RUN && isCutTokenChar(text.charCodeAt(s - 1))) s -= 1;
    const cut = cutToken(text.slice(s, headEnd));
    if (cut === null) return -1;
    let tailFrom = markEnd + after;
    if (text.charCodeAt(tailFrom) === 13) tailFrom += 1;
    if (text.charCodeAt(tailFrom) === 10) tailFrom += 1;
    let e = tailFrom;
    while (e < text.length && e - tailFrom < CUT_MAX_RUN && isCutTailChar(text.charCodeAt(e))) e += 1;
    found.add(s + cut.from + (cut.rule.keep ? cut.rule.prefix.length : 0), headEnd, cut.rule.kind, PRIORITY.provider);
    if (e > tailFrom) found.add(tailFrom, e, cut.rule.kind, PRIORITY.provider);
    return e;
  };
}

export function registerProviders(scanner: LiteralScanner): void {
  for (const m of TRUNCATED) scanner.add(m, cutTokenHandler(m), { boundary: true });
  for (const r of RULES) scanner.add(r.prefix, providerHandler(r), { boundary: r.glued !== true });
  for (const r of INFIX) scanner.add(r.needle, infixHandler(r), { boundary: false });
}
