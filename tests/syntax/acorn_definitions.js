// The definitions node's own parser (acorn, bundled with node) finds in each file named on the command line,
// printed as JSON [[qualified name, first line, last line], ...] per file: the reference for the JavaScript outline.
const acorn = require("internal/deps/acorn/acorn/dist/acorn");
const fs = require("fs");

function keyName(node, source) {
  const key = node.key;
  if (node.computed) return "[" + source.slice(key.start, key.end) + "]";
  if (key.type === "Identifier") return key.name;
  if (key.type === "PrivateIdentifier") return "#" + key.name;
  if (key.type === "Literal") return key.raw;
  return null;
}

function definitions(source) {
  const found = [];
  const tree = acorn.parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true, allowHashBang: true });
  const visit = (node, prefix, parents) => {
    if (!node || typeof node.type !== "string") return;
    let name = null;
    let span = node;
    if ((node.type === "FunctionDeclaration" || node.type === "ClassDeclaration") && node.id) name = node.id.name;
    else if (node.type === "MethodDefinition" || (node.type === "Property" && (node.method || node.kind !== "init")))
      name = keyName(node, source);
    else if (node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.init &&
             (node.init.type === "ArrowFunctionExpression" || node.init.type === "FunctionExpression")) {
      name = node.id.name;
      span = parents[parents.length - 1];
      const outer = parents[parents.length - 2];
      if (outer && outer.type === "ExportNamedDeclaration") span = outer;
    }
    let inner = prefix;
    if (name !== null) {
      found.push([prefix + name, span.loc.start.line, span.loc.end.line]);
      inner = prefix + name + ".";
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      const children = Array.isArray(value) ? value : [value];
      for (const child of children) {
        if (child && typeof child.type === "string") visit(child, inner, [...parents, node]);
      }
    }
  };
  visit(tree, "", []);
  return found;
}

const out = {};
for (const path of process.argv.slice(2)) {
  try {
    out[path] = definitions(fs.readFileSync(path, "utf8"));
  } catch (error) {
    out[path] = null; // acorn cannot parse it (a syntax it does not know): no reference
  }
}
process.stdout.write(JSON.stringify(out));
