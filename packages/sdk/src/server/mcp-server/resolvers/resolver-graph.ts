import type { AnyResolver, ResolverMap } from "./resolvers.js";

/** One resolver as the tool reaches it: its wire name and its dependencies by the names it gave them. */
export interface ResolverNode {
  name: string;
  deps: readonly (readonly [string, AnyResolver])[];
}

export interface ResolverGraph {
  readonly tool: string;
  readonly top: readonly (readonly [string, AnyResolver])[];
  readonly nodes: ReadonlyMap<AnyResolver, ResolverNode>;
  /** Dependencies before dependants, in declaration order: the order questions are listed in. */
  readonly order: ReadonlyMap<string, number>;
}

function isResolver(value: unknown): value is AnyResolver {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AnyResolver).run === "function" &&
    typeof (value as AnyResolver).deps === "object"
  );
}

/**
 * Names every resolver a tool reaches (its key in the tool's map, else its name where it is depended
 * on): the names are the wire keys, stable across processes. Refuses cycles and one name for two
 * different resolvers.
 */
export function buildResolverGraph(tool: string, map: ResolverMap): ResolverGraph {
  const nodes = new Map<AnyResolver, ResolverNode>();
  const owners = new Map<string, AnyResolver>();
  const order = new Map<string, number>();
  const claim = (name: string, resolver: AnyResolver): void => {
    const owner = owners.get(name);
    if (owner && owner !== resolver) {
      throw new TypeError(
        `Tool '${tool}' reaches two different resolvers named '${name}'; names are the keys of the questions on the wire, so give one of them another name`,
      );
    }
    owners.set(name, resolver);
  };
  const top = Object.entries(map).map(([name, resolver]) => {
    if (!isResolver(resolver)) {
      throw new TypeError(`Tool '${tool}': resolve.${name} is not a resolver; create it with resolver(...)`);
    }
    return [name, resolver] as const;
  });
  for (const [name, resolver] of top) {
    if (!nodes.has(resolver)) nodes.set(resolver, { name, deps: [] });
    claim(name, resolver);
  }
  const visiting = new Set<AnyResolver>();
  const visit = (name: string, resolver: AnyResolver): void => {
    const known = nodes.get(resolver);
    if (known && order.has(known.name)) return;
    if (visiting.has(resolver))
      throw new TypeError(`Tool '${tool}': resolver '${name}' has a cyclic dependency`);
    visiting.add(resolver);
    const node: ResolverNode = known ?? { name, deps: [] };
    if (!known) claim(name, resolver);
    nodes.set(resolver, node);
    const deps = Object.entries(resolver.deps).map(([depName, dep]) => {
      if (!isResolver(dep)) {
        throw new TypeError(`Tool '${tool}': dependency '${depName}' of '${node.name}' is not a resolver`);
      }
      return [depName, dep] as const;
    });
    node.deps = deps;
    for (const [depName, dep] of deps) visit(nodes.get(dep)?.name ?? depName, dep);
    visiting.delete(resolver);
    order.set(node.name, order.size);
  };
  for (const [name, resolver] of top) visit(name, resolver);
  return { tool, top, nodes, order };
}
