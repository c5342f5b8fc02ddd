// The layers of src/ (docs/architecture.md): imports point down, and a domain is entered only
// through its index.ts.
const DOMAINS = '(messages|topics|channel-summaries|topic-summaries|facts|episodes|context|group|knowledge)'
const BASE = '^src/(core/|text/|scope\\.ts)'
const PROVIDERS = '^src/providers/'
const STORE = '^src/store/'
const FLOWS = '^src/(capture|erase|jobs|reply|transfer)/'
const FACES = '^src/(commands|http|chat|console)/'
const ROOT = '^src/(index|service|compose|config|locales)\\.ts$'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'base-is-the-bottom',
      comment: 'core/, text/ and scope.ts import nothing of the plugin above them',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^src/', pathNot: BASE },
    },
    {
      name: 'providers-stay-low',
      comment: 'providers know embedders and models, nothing of memory',
      severity: 'error',
      from: { path: PROVIDERS },
      to: { path: '^src/', pathNot: [BASE, PROVIDERS] },
    },
    {
      name: 'store-is-infrastructure',
      comment: 'store/ (LanceDB, outbox, index sync) knows no domain',
      severity: 'error',
      from: { path: STORE },
      to: { path: '^src/', pathNot: [BASE, PROVIDERS, STORE] },
    },
    {
      name: 'domains-below-flows',
      comment: 'a domain never imports capture, erase, jobs, reply, transfer, commands, http, chat, console or the service',
      severity: 'error',
      from: { path: `^src/${DOMAINS}/` },
      to: { path: [FLOWS, FACES, ROOT] },
    },
    {
      name: 'flows-below-faces',
      comment: 'capture, erase, jobs, reply and transfer never import commands, http, chat, console or the service',
      severity: 'error',
      from: { path: FLOWS },
      to: { path: [FACES, ROOT] },
    },
    {
      name: 'faces-below-root',
      comment: 'commands, HTTP routes, the chat and the console page reach the service through ctx.memory, not by import',
      severity: 'error',
      from: { path: FACES },
      to: { path: '^src/(index|service|compose)\\.ts$' },
    },
    {
      name: 'domain-through-its-index',
      comment: "another room's files are reached only through its public entry, index.ts",
      severity: 'error',
      from: { path: `^src/([^/]+)/` },
      to: { path: `^src/${DOMAINS}/.+`, pathNot: [`^src/$1/`, `^src/${DOMAINS}/index\\.ts$`] },
    },
    {
      name: 'root-through-domain-index',
      comment: 'the service, the composition root and the config reach domains through index.ts',
      severity: 'error',
      from: { path: ROOT },
      to: { path: `^src/${DOMAINS}/.+`, pathNot: `^src/${DOMAINS}/index\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
