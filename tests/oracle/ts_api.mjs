#!/usr/bin/env node
// Independent oracle for npm packages: the TypeScript compiler's type checker lists what a
// package's entry module exports and the call signatures it declares. No refgraph code.
//
//   node ts_api.mjs --pkg DIR --tools NODE_TOOLS --out FILE [--allow-js] [--entry REL]
//
// The entry is package.json "types"/"typings" (or --entry); with --allow-js it is "main" and the
// checker reads the JavaScript itself (CommonJS `module.exports`/`exports.x`, ES classes, JSDoc).
// For every export: functions (last call signature), classes (last construct signature, and the
// methods the class declares itself, not private/protected/_x/#x, last overload), with
// parameter names in order, rest flags and optionality. Names: "<package>:<export>[.<member>]";
// `export =` is "default". Timing of the walk is printed on stderr as `walk_seconds N`.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const argv = process.argv.slice(2);
const arg = (k) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : undefined; };
const allowJs = argv.includes('--allow-js');
const require = createRequire(path.resolve(arg('tools'), 'package.json'));
const ts = require('typescript');

const started = process.hrtime.bigint();
const pkgDir = path.resolve(arg('pkg'));
const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
let entryRel = arg('entry') ?? (allowJs ? pj.main ?? 'index.js' : pj.types ?? pj.typings ?? 'index.d.ts');
let entry = path.resolve(pkgDir, entryRel);
if (!fs.existsSync(entry) && fs.existsSync(entry + '.js')) entry += '.js';
if (fs.existsSync(entry) && fs.statSync(entry).isDirectory()) entry = path.join(entry, allowJs ? 'index.js' : 'index.d.ts');

const program = ts.createProgram([entry], {
  allowJs, checkJs: false, noEmit: true, skipLibCheck: true, types: [],
  target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10, maxNodeModuleJsDepth: 0,
});
const checker = program.getTypeChecker();
const sf = program.getSourceFile(entry);
if (!sf) { console.error(`no source file ${entry}`); process.exit(2); }
// A CommonJS script (module.exports = ...) is a module to the binder, not to the syntax.
const mod = checker.getSymbolAtLocation(sf) ?? (sf.symbol && checker.getMergedSymbol(sf.symbol));
if (!mod) { console.error(`${entry} is not a module`); process.exit(2); }

const clean = (s) => s.replace(/\s+/g, ' ');
const hasMod = (n, kind) => (ts.getModifiers?.(n) ?? n.modifiers ?? []).some((m) => m.kind === kind);

function paramsOf(sig) {
  const out = [];
  for (const p of sig.getParameters()) {
    const d = p.valueDeclaration;
    if (!d || !ts.isParameter(d)) { out.push({ name: p.name, kind: 'positional', required: true }); continue; }
    const name = clean(d.name.getText());
    if (name === 'this') continue;
    const rest = !!d.dotDotDotToken;
    out.push({ name, kind: rest ? 'rest' : 'positional', required: !rest && !checker.isOptionalParameter(d) });
  }
  return out;
}

const resolve = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
const symbols = {};

function describe(name, sym) {
  const s = resolve(sym);
  const decls = s.declarations ?? [];
  const where = decls[0] ? { file: path.relative(pkgDir, decls[0].getSourceFile().fileName) } : {};
  if (s.flags & ts.SymbolFlags.Class) {
    const ctors = checker.getTypeOfSymbol(s).getConstructSignatures();
    const e = { kind: 'class', ...where };
    if (ctors.length) e.params = paramsOf(ctors[ctors.length - 1]);
    symbols[name] = e;
    for (const d of decls) {
      if (!ts.isClassDeclaration(d) && !ts.isClassExpression(d)) continue;
      for (const m of d.members) {
        if (!ts.isMethodDeclaration(m) || !m.name) continue;
        if (ts.isPrivateIdentifier(m.name) || ts.isComputedPropertyName(m.name)) continue;
        const mname = m.name.getText().replace(/^['"]|['"]$/g, '');
        if (mname.startsWith('_') || hasMod(m, ts.SyntaxKind.PrivateKeyword) || hasMod(m, ts.SyntaxKind.ProtectedKeyword)) continue;
        const sig = checker.getSignatureFromDeclaration(m);
        if (!sig) continue;
        // later declarations (the most general overload, or the implementation) win
        symbols[`${name}.${mname}`] = { kind: 'method', params: paramsOf(sig), ...where };
      }
    }
    return;
  }
  const isFunctionish = s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Property);
  if (isFunctionish) {
    const sigs = checker.getTypeOfSymbol(s).getCallSignatures();
    if (sigs.length) {
      symbols[name] = { kind: 'function', params: paramsOf(sigs[sigs.length - 1]), ...where };
      return;
    }
  }
  if (s.flags & ts.SymbolFlags.Interface) symbols[name] = { kind: 'interface', ...where };
  else if (s.flags & ts.SymbolFlags.Variable) symbols[name] = { kind: 'variable', ...where };
  else if (s.flags & ts.SymbolFlags.TypeAlias) symbols[name] = { kind: 'type', ...where };
}

let exported = checker.getExportsOfModule(mod);
const exportEquals = mod.exports?.get('export=') ?? sf.symbol?.exports?.get('export=');
if (exportEquals) {
  const target = resolve(exportEquals);
  if (target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) describe(`${pj.name}:default`, exportEquals);
  // `module.exports = { a, b }`: the object's properties are the named exports.
  else if (!exported.length) exported = checker.getTypeOfSymbol(target).getProperties();
}
for (const e of exported) {
  const n = e.escapedName === 'export=' ? 'default' : e.name;
  if (exportEquals && n === 'prototype') continue;
  if (!symbols[`${pj.name}:${n}`]) describe(`${pj.name}:${n}`, e);
}
const walk = Number(process.hrtime.bigint() - started) / 1e9;
const out = { package: pj.name, version: pj.version, entry: path.relative(pkgDir, entry), allowJs,
  oracle: `TypeScript ${ts.version} type checker`, symbols };
fs.writeFileSync(arg('out'), JSON.stringify(out));
const kinds = {};
for (const s of Object.values(symbols)) kinds[s.kind] = (kinds[s.kind] ?? 0) + 1;
console.error(`${pj.name}@${pj.version}: ${Object.keys(symbols).length} symbols ${JSON.stringify(kinds)}`);
console.error(`walk_seconds ${walk.toFixed(3)}`);
