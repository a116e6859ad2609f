import ts from "typescript";

/** A name a module exports and the public declarations it resolves to, wherever they live. */
export interface ExportedName {
  readonly name: string;
  readonly declarations: readonly ts.Declaration[];
}

/** What a module exports, by name, leaving out what is `@internal`. */
export function exportedNames(program: ts.Program, source: string): ExportedName[] {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(source);
  if (!file) throw new Error(`${source} is not part of the program`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${source} exports nothing`);
  const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
  return exported.flatMap((alias) => {
    const symbol = alias.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(alias) : alias;
    const declarations = (symbol.declarations ?? []).filter(
      (node) => !isInternal(node) && !isOverloadedImplementation(node),
    );
    return declarations.length > 0 ? [{ name: alias.name, declarations }] : [];
  });
}

/**
 * The declarations a module exports, one line per declaration and one per member, printed as their
 * source writes them: a member's type is the annotation's text, which names the types it uses, so adding
 * an optional field to an interface adds one line instead of rewriting every type that reaches it. Only
 * what has no annotation (an inferred return type, an unannotated constant) is printed by the checker.
 *
 * Each exported name prints under the name it is exported as. A name whose declaration `printedIn` says
 * is printed in another listing takes one line pointing there, so a declaration prints once however
 * many entry points export it. A declaration or member whose doc comment has `@internal` is left out,
 * as `stripInternal` leaves it out of the published declarations.
 */
export function surfaceLines(
  program: ts.Program,
  source: string,
  printedIn: (declaration: ts.Declaration) => string | undefined = () => undefined,
): string[] {
  const checker = program.getTypeChecker();
  const names = exportedNames(program, source);
  const here = new Set(names.flatMap(({ declarations }) => declarations));
  const isPublic = (declaration: ts.Declaration) =>
    here.has(declaration) || printedIn(declaration) !== undefined;
  return names.flatMap(({ name, declarations }) => {
    const elsewhere = printedIn(declarations[0]!);
    if (elsewhere !== undefined) return [`${name}: see ${elsewhere}`];
    return declarations.flatMap((declaration) => declarationLines(checker, declaration, name, isPublic));
  });
}

/** `@internal` in the node's own doc comment (a variable's sits on its statement). */
export function isInternal(node: ts.Node): boolean {
  const owner = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return ts.getJSDocTags(owner).some((tag) => tag.tagName.text === "internal");
}

function isOverloadedImplementation(node: ts.Node): boolean {
  if (!(ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) || !node.body) return false;
  const symbol = (node as ts.Node & { symbol?: ts.Symbol }).symbol;
  return (symbol?.declarations?.length ?? 0) > 1;
}

const printer = ts.createPrinter({ removeComments: true, omitTrailingSemicolon: true });

/** A node's source on one line, without comments. */
function flat(node: ts.Node): string {
  const text = printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
  return text
    .replace(/\s*\n\s*/g, " ")
    .replace(/;(\s*})/g, "$1")
    .replace(/[;,]$/, "");
}

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrayAsGenericType;

function checked(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string {
  const text = checker.typeToString(type, at, FLAGS);
  // A schema's shape is the type inferred from it, which its own declaration names.
  return /^z\.Zod\w+/.exec(text)?.[0] ?? text;
}

function typeParameters(node: { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }): string {
  return node.typeParameters ? `<${node.typeParameters.map(flat).join(", ")}>` : "";
}

function heritage(node: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): string {
  return (node.heritageClauses ?? []).map((clause) => ` ${flat(clause).trim()}`).join("");
}

/** The modifiers a caller sees: `export` is the listing itself, and `async` shows in the return type. */
const UNLISTED_MODIFIERS = new Set([
  ts.SyntaxKind.ExportKeyword,
  ts.SyntaxKind.DefaultKeyword,
  ts.SyntaxKind.AsyncKeyword,
]);

function modifiers(node: ts.Node): string {
  const all = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
  const kept = all.filter((modifier) => !UNLISTED_MODIFIERS.has(modifier.kind));
  return kept.map((modifier) => `${modifier.getText()} `).join("");
}

function parameters(checker: ts.TypeChecker, node: ts.SignatureDeclaration): string {
  return node.parameters
    .map((parameter) => {
      const optional = parameter.questionToken || parameter.initializer ? "?" : "";
      const type = parameter.type
        ? flat(parameter.type)
        : checked(checker, checker.getTypeAtLocation(parameter), parameter);
      return `${parameter.dotDotDotToken ? "..." : ""}${parameter.name.getText()}${optional}: ${type}`;
    })
    .join(", ");
}

function returnType(checker: ts.TypeChecker, node: ts.SignatureDeclaration): string {
  if (node.type) return flat(node.type);
  const signature = checker.getSignatureFromDeclaration(node);
  return signature ? checked(checker, checker.getReturnTypeOfSignature(signature), node) : "unknown";
}

function signature(checker: ts.TypeChecker, name: string, node: ts.SignatureDeclaration): string {
  return `${name}${typeParameters(node)}(${parameters(checker, node)}): ${returnType(checker, node)}`;
}

function declarationLines(
  checker: ts.TypeChecker,
  node: ts.Declaration,
  name: string,
  isPublic: (declaration: ts.Declaration) => boolean,
): string[] {
  if (ts.isInterfaceDeclaration(node)) {
    return [
      `interface ${name}${typeParameters(node)}${heritage(node)}`,
      ...memberLines(checker, node.members),
    ];
  }
  if (ts.isTypeAliasDeclaration(node)) {
    const head = `type ${name}${typeParameters(node)} =`;
    if (ts.isTypeLiteralNode(node.type)) return [`${head} {`, ...memberLines(checker, node.type.members)];
    const text = `${head} ${flat(node.type)}`;
    // A long union reads one alternative per line, so adding one adds a line.
    if (ts.isUnionTypeNode(node.type) && text.length > 110) {
      return [head, ...node.type.types.map((alternative) => `  | ${flat(alternative)}`)];
    }
    return [text];
  }
  if (ts.isClassDeclaration(node)) {
    return [
      `${modifiers(node)}class ${name}${typeParameters(node)}${heritage(node)}`,
      ...memberLines(checker, node.members),
      ...unexportedBaseMembers(checker, node, isPublic),
    ];
  }
  if (ts.isFunctionDeclaration(node)) return [`function ${signature(checker, name, node)}`];
  if (ts.isVariableDeclaration(node)) {
    const keyword = node.parent.flags & ts.NodeFlags.Const ? "const" : "let";
    const object = node.type ? undefined : objectLiteralOf(node.initializer);
    // A table of constants reads one entry per line, like an interface's members.
    if (object) {
      return [
        `${keyword} ${name} = {`,
        ...object.properties.map((property) => `  ${propertyLine(checker, property)}`),
      ];
    }
    const type = node.type ? flat(node.type) : checked(checker, checker.getTypeAtLocation(node), node);
    return [`${keyword} ${name}: ${type}`];
  }
  if (ts.isEnumDeclaration(node)) {
    return [`${modifiers(node)}enum ${name}`, ...node.members.map((member) => `  ${flat(member)}`)];
  }
  if (ts.isModuleDeclaration(node)) return [`namespace ${name}`];
  return [`${ts.SyntaxKind[node.kind]} ${name}`];
}

/** `{ … }`, `{ … } as const` or `{ … } satisfies T`. */
function objectLiteralOf(node: ts.Expression | undefined): ts.ObjectLiteralExpression | undefined {
  let expression = node;
  while (expression && (ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression))) {
    expression = expression.expression;
  }
  return expression && ts.isObjectLiteralExpression(expression) ? expression : undefined;
}

/** An entry of a constants table: its value as written, or, for a function, its signature. */
function propertyLine(checker: ts.TypeChecker, property: ts.ObjectLiteralElementLike): string {
  const name = property.name?.getText() ?? "";
  if (ts.isMethodDeclaration(property)) return signature(checker, name, property);
  if (ts.isPropertyAssignment(property)) {
    const value = property.initializer;
    if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) return signature(checker, name, value);
    if (ts.isObjectLiteralExpression(value) || ts.isCallExpression(value)) {
      return `${name}: ${checked(checker, checker.getTypeAtLocation(value), value)}`;
    }
  }
  return flat(property);
}

/**
 * The members a class inherits from base classes no entry point exports: a user reaches them only
 * through this class, so they are its surface and print under it (a member the class redeclares prints
 * once, as the class writes it; constructors are the class's own).
 */
function unexportedBaseMembers(
  checker: ts.TypeChecker,
  node: ts.ClassDeclaration,
  isPublic: (declaration: ts.Declaration) => boolean,
): string[] {
  const seen = new Set(node.members.flatMap((member) => (member.name ? [member.name.getText()] : [])));
  const lines: string[] = [];
  for (let base = baseClassOf(checker, node); base && !isPublic(base); base = baseClassOf(checker, base)) {
    const inherited = base.members.filter((member) => {
      if (ts.isConstructorDeclaration(member) || !member.name || seen.has(member.name.getText()))
        return false;
      seen.add(member.name.getText());
      return true;
    });
    lines.push(
      ...parameterProperties(base, seen),
      ...memberLines(checker, ts.factory.createNodeArray(inherited)),
    );
  }
  return lines;
}

/** A base constructor's `readonly x: T` parameters are fields of every instance. */
function parameterProperties(base: ts.ClassDeclaration, seen: Set<string>): string[] {
  const init = base.members.find(ts.isConstructorDeclaration);
  return (init?.parameters ?? []).flatMap((parameter) => {
    const name = parameter.name.getText();
    const modifiers = ts.getModifiers(parameter) ?? [];
    if (!ts.isParameterPropertyDeclaration(parameter, init!) || seen.has(name)) return [];
    if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)) return [];
    seen.add(name);
    const readonly = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ReadonlyKeyword);
    return [`  ${readonly ? "readonly " : ""}${name}: ${parameter.type ? flat(parameter.type) : "unknown"}`];
  });
}

function baseClassOf(checker: ts.TypeChecker, node: ts.ClassDeclaration): ts.ClassDeclaration | undefined {
  const clause = node.heritageClauses?.find((heritage) => heritage.token === ts.SyntaxKind.ExtendsKeyword);
  const expression = clause?.types[0]?.expression;
  if (!expression) return undefined;
  let symbol = checker.getSymbolAtLocation(expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.find(ts.isClassDeclaration);
}

function memberLines(
  checker: ts.TypeChecker,
  members: ts.NodeArray<ts.ClassElement | ts.TypeElement>,
): string[] {
  const lines: string[] = [];
  for (const member of members) {
    if (isInternal(member) || isOverloadedImplementation(member)) continue;
    const line = memberLine(checker, member);
    if (line !== undefined) lines.push(`  ${line}`);
  }
  return lines;
}

function memberLine(checker: ts.TypeChecker, member: ts.ClassElement | ts.TypeElement): string | undefined {
  const hidden =
    ts.canHaveModifiers(member) &&
    ts.getModifiers(member)?.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword);
  if (hidden || (member.name && ts.isPrivateIdentifier(member.name))) return undefined;
  if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member)) return undefined;
  const name = member.name ? member.name.getText() : "";
  const optional = "questionToken" in member && member.questionToken ? "?" : "";
  if (ts.isConstructorDeclaration(member))
    return `${modifiers(member)}constructor(${parameters(checker, member)})`;
  if (ts.isMethodDeclaration(member))
    return `${modifiers(member)}${signature(checker, `${name}${optional}`, member)}`;
  if (ts.isGetAccessorDeclaration(member))
    return `${modifiers(member)}get ${name}(): ${returnType(checker, member)}`;
  if (ts.isSetAccessorDeclaration(member)) {
    return `${modifiers(member)}set ${name}(${parameters(checker, member)})`;
  }
  if (ts.isPropertyDeclaration(member)) {
    const type = member.type
      ? flat(member.type)
      : checked(checker, checker.getTypeAtLocation(member), member);
    return `${modifiers(member)}${name}${optional}: ${type}`;
  }
  return flat(member);
}
