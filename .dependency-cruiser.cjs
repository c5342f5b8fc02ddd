// The layers of src/ (docs/architecture.md): imports point down, and a room (a domain, a flow or a
// face) is entered from outside only through its index.ts. Every folder of src/ that is not named
// below is a domain, so a new memory kind falls under the domain rules the day it is added.
const { readdirSync } = require('node:fs')
const { join } = require('node:path')

const BASE_DIRS = ['core', 'text']
const PROVIDER_DIRS = ['providers']
const STORE_DIRS = ['store']
const FLOW_DIRS = ['capture', 'erase', 'jobs', 'memorize', 'recall', 'reply', 'transfer']
const FACE_DIRS = ['commands', 'http', 'chat', 'console']
const named = new Set([...BASE_DIRS, ...PROVIDER_DIRS, ...STORE_DIRS, ...FLOW_DIRS, ...FACE_DIRS])
const domainDirs = readdirSync(join(__dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !named.has(entry.name))
  .map((entry) => entry.name)

const any = (dirs) => `(${dirs.join('|')})`
const DOMAINS = any(domainDirs)
const BASE = `^src/(${any(BASE_DIRS)}/|scope\\.ts)`
const PROVIDERS = `^src/${any(PROVIDER_DIRS)}/`
const STORE = `^src/${any(STORE_DIRS)}/`
// the module contract every domain fills in: it knows the infrastructure, no domain
const CONTRACT = '^src/module\\.ts$'
const FLOWS = `^src/${any(FLOW_DIRS)}/`
const FACES = `^src/${any(FACE_DIRS)}/`
const ROOT = '^src/(index|service|facade|compose|compose-[a-z]+|modules|lifecycle|config|locales)\\.ts$'
const ROOMS = any([...domainDirs, ...FLOW_DIRS, ...FACE_DIRS])

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'every-file-has-a-layer',
      comment: 'a file directly in src/ is the base (scope.ts), the module contract or the root',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$', pathNot: [BASE, CONTRACT, ROOT] },
      to: {},
    },
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
      name: 'contract-below-domains',
      comment: 'the module contract knows the infrastructure and no memory kind',
      severity: 'error',
      from: { path: CONTRACT },
      to: { path: '^src/', pathNot: [BASE, PROVIDERS, STORE, CONTRACT] },
    },
    {
      name: 'domains-below-flows',
      comment: 'a domain never imports a flow, a face or the root',
      severity: 'error',
      from: { path: `^src/${DOMAINS}/` },
      to: { path: [FLOWS, FACES, ROOT] },
    },
    {
      name: 'flows-below-faces',
      comment: 'flows never import commands, http, chat, console or the root',
      severity: 'error',
      from: { path: FLOWS },
      to: { path: [FACES, ROOT] },
    },
    {
      name: 'faces-below-root',
      comment: 'commands, HTTP routes, the chat and the console page reach the memory through ctx.memory, not by import',
      severity: 'error',
      from: { path: FACES },
      to: { path: '^src/(index|service|facade|compose|compose-[a-z]+|modules|lifecycle)\\.ts$' },
    },
    {
      name: 'room-through-its-index',
      comment: "another room's files (a domain's, a flow's or a face's) are reached only through its public entry, index.ts",
      severity: 'error',
      from: { path: `^src/([^/]+)/` },
      to: { path: `^src/${ROOMS}/.+`, pathNot: [`^src/$1/`, `^src/${ROOMS}/index\\.ts$`] },
    },
    {
      name: 'root-through-room-index',
      comment: 'the root and the module contract reach rooms through index.ts',
      severity: 'error',
      from: { path: [ROOT, CONTRACT] },
      to: { path: `^src/${ROOMS}/.+`, pathNot: `^src/${ROOMS}/index\\.ts$` },
    },
    {
      name: 'tests-through-public-entries',
      comment:
        'integration and end-to-end tests and the benchmarks use the plugin as its users and other plugins do: a room through ' +
        'its index.ts (unit tests test one module each and import it directly). bench/evolution.ts times the evolution ' +
        "steps one by one (the plan, the model's answer, its application), which no public entry offers on its own; " +
        'bench/memory-estimates.ts sets the bytes each cache of the memory budget reports beside the heap it takes, one cache at a time',
      severity: 'error',
      from: { path: '^(test/(integration|e2e)|bench)/', pathNot: '^bench/(evolution|memory-estimates)\\.ts$' },
      to: { path: `^src/${ROOMS}/.+`, pathNot: `^src/${ROOMS}/index\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|test|bench)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
