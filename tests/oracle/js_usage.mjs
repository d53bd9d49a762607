// Oracle for refgraph's usage paths on npm packages: runs each path's property chain on the
// installed release. Reads a JSON list of cases on stdin, prints {id: "ok" | reason}.
//
//   {"id": "...", "module": "openai", "name": "OpenAI" (export path, "default" allowed),
//    "root": "construct" | "call" | "class", "args": [{"name": "apiKey", "kind": "positional"}],
//    "chain": [{"name": "chat", "call": false}, ..., {"name": "create", "call": true}],
//    "instance_of": {"module", "name", "args"}   (for "call": the class the factory returns)}
//
// Constructors get a dummy string per required argument; OPENAI_API_KEY and similar keys
// are set to a dummy. Nothing is called but constructors: no request leaves the machine.
//
//   node tests/oracle/js_usage.mjs NODE_MODULES_PARENT < cases.json
import { createRequire } from "node:module";
import path from "node:path";

const DUMMY = "sk_test_refgraph";
for (const k of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STRIPE_API_KEY"]) {
  process.env[k] ??= DUMMY;
}
const require = createRequire(path.join(path.resolve(process.argv[2]), "noop.js"));

function lookup(mod, dotted) {
  let obj = mod;
  for (const part of dotted.split(".")) {
    if (obj == null || !(part in Object(obj))) return undefined;
    obj = obj[part];
  }
  return obj;
}

function construct(cls, name, params) {
  const args = params.filter((p) => p.kind === "positional").map(() => DUMMY);
  try {
    return [new cls(...args), null];
  } catch (e) {
    return [null, `new ${name}(...) threw ${e && e.name}: ${e && e.message}`];
  }
}

function check(c) {
  let mod;
  try {
    mod = require(c.module);
  } catch (e) {
    return `require(${c.module}) failed: ${e.message}`;
  }
  let obj = lookup(mod, c.name);
  if (obj === undefined) return `${c.module} has no export ${c.name}`;
  if (c.root === "construct") {
    const [o, err] = construct(obj, c.name, c.args || []);
    if (err) return err;
    obj = o;
  } else if (c.root === "call") {
    if (typeof obj !== "function") return `${c.name} is not callable`;
    const spec = c.instance_of;
    const cls = lookup(require(spec.module), spec.name);
    if (cls === undefined) return `${spec.module} has no export ${spec.name}`;
    const [o, err] = construct(cls, spec.name, spec.args || []);
    if (err) return err;
    obj = o;
  }
  for (const [i, step] of c.chain.entries()) {
    if (obj == null || !(step.name in Object(obj))) {
      const what = obj && obj.constructor ? obj.constructor.name : String(obj);
      return `${what} has no property ${step.name} (step ${i + 1})`;
    }
    const next = obj[step.name];
    if (step.call && typeof next !== "function") return `${step.name} is not a function`;
    if (step.call && i !== c.chain.length - 1) {
      return `${step.name} must be called mid-chain; not checked offline`;
    }
    obj = next;
  }
  return "ok";
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const out = {};
  for (const c of JSON.parse(input)) out[c.id] = check(c);
  process.stdout.write(JSON.stringify(out));
});
