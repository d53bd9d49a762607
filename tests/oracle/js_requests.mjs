#!/usr/bin/env node
// Independent oracle for the HTTP requests of JavaScript function bodies: the TypeScript
// compiler's parser, no refgraph code.
//
//   node js_requests.mjs --pkg DIR --tools NODE_TOOLS > calls.json
//
// For every function-like node (function, method, arrow, function expression) of every .js,
// .cjs and .mjs file under DIR (node_modules left out), every call in its body (nested
// functions included) that sends a request by the rules of src/extract/requests.rs, written
// again here from their statement: a callee named like an HTTP method (`post`, `getAPIList`)
// with a path literal first; a string argument that is an HTTP method followed by a path
// literal; keys `method` and `path`/`url`/`uri` of object arguments or keywords. A path literal
// is a string or template literal (`'/a' + x` too) that starts with `/`.
// Output: [file, def_line, call_line, key] rows, key like `GET /files/{}`.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const argv = process.argv.slice(2);
const arg = (k) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : undefined; };
const require = createRequire(path.resolve(arg('tools'), 'package.json'));
const ts = require('typescript');
const root = path.resolve(arg('pkg'));
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

function template(node, sf) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let out = node.head.text;
    for (const span of node.templateSpans) out += '{x}' + span.literal.text;
    return out;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = template(node.left, sf);
    return left === null ? null : left + '{x}';
  }
  if (ts.isParenthesizedExpression(node)) return template(node.expression, sf);
  return null;
}

function pathKey(text) {
  if (text === null || text === undefined) return null;
  text = text.split(/[?#]/)[0];
  if (!text.startsWith('/') || text.startsWith('//') || text.includes('://') || /\s/.test(text)
      || !/[A-Za-z]/.test(text)) return null;
  text = text.replace(/%\([^)]*\)[a-z]/g, '{x}').replace(/%[a-zA-Z]/g, '{x}').replaceAll('${', '{');
  let depth = 0;
  for (const c of text) {
    depth += c === '{' ? 1 : c === '}' ? -1 : 0;
    if (depth < 0) return null;
  }
  if (depth !== 0) return null;
  return text.replace(/\{[^{}]*\}/g, '{}');
}

function calleeMethod(name) {
  const n = name.replace(/^_+/, '').toLowerCase();
  if (METHODS.has(n)) return n.toUpperCase();
  if (n === 'get_api_list' || n === 'getapilist') return 'GET';
  return null;
}

function request(call, sf) {
  const f = call.expression;
  const name = ts.isIdentifier(f) ? f.text : ts.isPropertyAccessExpression(f) ? f.name.text : null;
  if (name === null) return null;
  const positional = [];
  const keywords = [];
  for (const a of call.arguments) {
    if (ts.isObjectLiteralExpression(a)) {
      for (const p of a.properties) {
        if (ts.isPropertyAssignment(p) && p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
          keywords.push([p.name.text, template(p.initializer, sf)]);
        }
      }
    } else {
      positional.push(template(a, sf));
    }
  }
  const pathKw = keywords.find(([k]) => ['path', 'url', 'uri'].includes(k));
  const pathFromKw = pathKw ? pathKey(pathKw[1]) : null;
  let m = calleeMethod(name);
  if (m) {
    const p = (positional.length ? pathKey(positional[0]) : null) ?? pathFromKw;
    if (p) return `${m} ${p}`;
  }
  for (let i = 0; i + 1 < positional.length; i++) {
    const a = positional[i];
    if (a !== null && METHODS.has(a.toLowerCase()) && pathKey(positional[i + 1])) {
      return `${a.toUpperCase()} ${pathKey(positional[i + 1])}`;
    }
  }
  const mk = keywords.find(([k]) => k === 'method');
  if (mk && mk[1] !== null && METHODS.has(mk[1].toLowerCase())) {
    const p = pathFromKw ?? (positional.length ? pathKey(positional[0]) : null);
    if (p) return `${mk[1].toUpperCase()} ${p}`;
  }
  return null;
}

const rows = [];
function walkFiles(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walkFiles(full);
    else if (/\.(c|m)?js$/.test(e.name)) scan(full);
  }
}

function scan(file) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const rel = path.relative(root, file).split(path.sep).join('/');
  const line = (n) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visitFn = (fn) => {
    if (!fn.body) return;
    const defLine = line(fn);
    const inner = (n) => {
      if (ts.isCallExpression(n)) {
        const key = request(n, sf);
        if (key) rows.push([rel, defLine, line(n), key]);
      }
      ts.forEachChild(n, inner);
    };
    ts.forEachChild(fn.body, inner);
  };
  const outer = (n) => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n)
        || ts.isArrowFunction(n) || ts.isConstructorDeclaration(n)
        || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n)) {
      visitFn(n);
    }
    ts.forEachChild(n, outer);
  };
  outer(sf);
}

walkFiles(root);
process.stdout.write(JSON.stringify(rows));
