// `npm run lint:size`: no function in src/ is longer than 100 lines (issue 27). A function is whatever TypeScript
// parses as function-like — a declaration, an expression, an arrow, a method, a constructor, an accessor — and its
// length is the lines from its first token to its closing one, nested functions included (a closure is part of the
// function that holds it). Tables are not functions: a const whose initializer is an object or array literal is
// data, however long; only the function-like nodes inside it are measured, each on its own.
// Prints every function over the limit as file:line name (lines) and exits 1 if there is any.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const LIMIT = 100;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'src');

/** Every .ts file under dir (declaration files aside), sorted for a stable report. */
function tsFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...tsFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The name a reader looks for: the function's own, else the variable, property or class member it is bound to. */
function nameOf(node) {
  if (ts.isConstructorDeclaration(node)) return `${classNameOf(node)}.constructor`;
  if (node.name && ts.isIdentifier(node.name)) {
    return ts.isClassElement(node) ? `${classNameOf(node)}.${node.name.text}` : node.name.text;
  }
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

function classNameOf(member) {
  const cls = member.parent;
  return cls?.name ? cls.name.text : '(class)';
}

const findings = [];
for (const file of tsFiles(srcDir)) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node) => {
    if (isFunctionLike(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = end - start + 1;
      if (lines > LIMIT) findings.push({ file: path.relative(root, file), start, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

for (const f of findings) console.log(`${f.file}:${f.start} ${f.name} (${f.lines} lines)`);
if (findings.length > 0) {
  console.error(`${findings.length} function(s) over ${LIMIT} lines; split them into named steps.`);
  process.exit(1);
}
console.log(`no function in src/ is over ${LIMIT} lines`);
