// The call sites of a TypeScript tree as the compiler's checker resolves them: the truth the
// call-graph bench scores our TypeScript resolver against (bench/harness/callgraph_truth.py).
//
// Usage: node truth.js DIR > truth.json (every .ts/.tsx file under DIR, node_modules excepted,
// compiled together with strict options; imports outside DIR stay unresolved).
//
// One record per call site with a name (`f()`, `x.m()`, `new C()`, `super()`):
// [file, line, name, where, target, dispatch, implementations], where is "in" (target is
// "file:line:name" of the function, method or class declared in DIR: `new C()` and `super()` name
// the class), "out" (a declaration outside DIR: the standard library, the DOM, a dependency's
// types) or "" (the checker could not say). dispatch is true on a method declared in an interface
// or as abstract, or called on a receiver of an interface type, when that declaration is in DIR;
// implementations is left empty.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

// Build output, as the ingest skips it (its .d.ts copies would shadow nothing but cost time).
const SKIPPED = new Set(["node_modules", "dist", "build"]);

function sources(dir, found) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name) && !entry.name.startsWith(".")) sources(full, found);
    } else if (/\.(ts|tsx|mts|cts)$/.test(entry.name)) {
      found.push(full);
    }
  }
  return found;
}

const root = path.resolve(process.argv[2]);
const program = ts.createProgram(sources(root, []), {
  noEmit: true, strict: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, skipLibCheck: true,
  experimentalDecorators: true, lib: ["lib.esnext.d.ts", "lib.dom.d.ts"], types: [],
});
const checker = program.getTypeChecker();
const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration, ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.Constructor, ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.ClassExpression,
  ts.SyntaxKind.ArrowFunction, ts.SyntaxKind.FunctionExpression, ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor, ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.VariableDeclaration, ts.SyntaxKind.CallSignature, ts.SyntaxKind.ConstructSignature,
  ts.SyntaxKind.FunctionType, ts.SyntaxKind.ConstructorType,
]);

function inside(file) {
  const relative = path.relative(root, file);
  return !relative.startsWith("..") && !relative.split(path.sep).includes("node_modules");
}

function lineOf(node) {
  const file = node.getSourceFile();
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

// The declaration a target is named by: an overload's implementation, a constructor's class, a
// function expression's variable.
function named(declaration, symbol) {
  if (symbol && symbol.declarations && symbol.declarations.length > 1) {
    const body = symbol.declarations.find((d) => d.body !== undefined);
    if (body) declaration = body;
  }
  if (declaration.kind === ts.SyntaxKind.Constructor || declaration.kind === ts.SyntaxKind.ConstructSignature) {
    declaration = declaration.parent;
  }
  if ((declaration.kind === ts.SyntaxKind.ArrowFunction || declaration.kind === ts.SyntaxKind.FunctionExpression ||
       declaration.kind === ts.SyntaxKind.ClassExpression) && declaration.parent &&
      (ts.isVariableDeclaration(declaration.parent) || ts.isPropertyDeclaration(declaration.parent) ||
       ts.isPropertyAssignment(declaration.parent))) {
    declaration = declaration.parent;
  }
  return declaration;
}

function describe(declaration) {
  const name = declaration.name ? declaration.name.getText() : ts.SyntaxKind[declaration.kind];
  const file = declaration.getSourceFile().fileName;
  if (!inside(file)) return ["out", `${path.basename(file)}:${name}`];
  if (!FUNCTION_KINDS.has(declaration.kind) || !declaration.name) return ["", ""];
  return ["in", `${path.relative(root, file).split(path.sep).join("/")}:${lineOf(declaration.name)}:${name}`];
}

function isDispatch(declaration, receiver) {
  if (declaration.kind === ts.SyntaxKind.MethodSignature) return true;
  if (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Abstract) return true;
  if (receiver) {
    const type = checker.getTypeAtLocation(receiver);
    const symbol = type && (type.aliasSymbol || type.getSymbol());
    return Boolean(symbol && symbol.declarations && symbol.declarations.some(ts.isInterfaceDeclaration));
  }
  return false;
}

function decide(call, nameNode, receiver) {
  let signature;
  try {
    signature = checker.getResolvedSignature(call);
  } catch (error) {
    return ["", "", false];
  }
  let symbol = checker.getSymbolAtLocation(nameNode);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  let declaration = signature && signature.declaration;
  if (call.kind === ts.SyntaxKind.NewExpression || call.expression.kind === ts.SyntaxKind.SuperKeyword) {
    // `new C()` and `super()` name the class, declared constructor or not.
    const type = checker.getTypeAtLocation(call.kind === ts.SyntaxKind.NewExpression ? call.expression : call.expression);
    const classSymbol = call.kind === ts.SyntaxKind.NewExpression ? symbol : type && type.getSymbol();
    const classDeclaration = classSymbol && classSymbol.declarations && classSymbol.declarations.find(
      (d) => ts.isClassDeclaration(d) || ts.isClassExpression(d));
    if (classDeclaration) return [...describe(named(classDeclaration)), false];
    if (declaration && !ts.isJSDocSignature(declaration)) return [...describe(named(declaration, symbol)), false];
    return ["", "", false];
  }
  if (!declaration || ts.isJSDocSignature(declaration)) {
    const declarations = (symbol && symbol.declarations) || [];
    if (declarations.length !== 1) return ["", "", false];
    declaration = declarations[0];
  }
  const [where, target] = describe(named(declaration, symbol));
  return [where, target, where === "in" && isDispatch(declaration, receiver)];
}

const output = { sites: 0, type_errors: 0, records: [] };
for (const file of program.getSourceFiles()) {
  if (!inside(file.fileName) || file.isDeclarationFile) continue;
  const relative = path.relative(root, file.fileName).split(path.sep).join("/");
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      let callee = node.expression;
      while (ts.isParenthesizedExpression(callee) || ts.isNonNullExpression(callee)) callee = callee.expression;
      let nameNode, receiver, name;
      if (ts.isIdentifier(callee)) {
        nameNode = callee;
        name = callee.text;
      } else if (ts.isPropertyAccessExpression(callee)) {
        nameNode = callee.name;
        receiver = callee.expression;
        name = callee.name.text;
      } else if (callee.kind === ts.SyntaxKind.SuperKeyword) {
        nameNode = callee;
        name = "super";
      }
      if (nameNode) {
        const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        const [where, target, dispatch] = decide(node, nameNode, receiver);
        output.sites += 1;
        output.records.push([relative, line, name, where, target, dispatch, []]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
output.type_errors = program.getSemanticDiagnostics().length;
process.stdout.write(JSON.stringify(output));
