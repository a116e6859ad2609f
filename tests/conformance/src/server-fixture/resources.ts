import { McpError } from "@roundtrip/sdk";
import type { Resource, ResourceContents, ResourceTemplate } from "@roundtrip/sdk/protocol";
import { PNG_BASE64 } from "./media.js";

/** The fixture's resources: three fixed ones and one template. */

interface StaticResource {
  listing: Resource;
  contents: ResourceContents;
}

const staticResources: readonly StaticResource[] = [
  {
    listing: {
      uri: "test://static-text",
      name: "static-text",
      description: "A fixed text resource",
      mimeType: "text/plain",
    },
    contents: {
      uri: "test://static-text",
      mimeType: "text/plain",
      text: "This is the content of the static text resource.",
    },
  },
  {
    listing: {
      uri: "test://static-binary",
      name: "static-binary",
      description: "A fixed 1x1 PNG",
      mimeType: "image/png",
    },
    contents: { uri: "test://static-binary", mimeType: "image/png", blob: PNG_BASE64 },
  },
  {
    listing: {
      uri: "test://watched-resource",
      name: "watched-resource",
      description: "A resource clients may subscribe to",
      mimeType: "text/plain",
    },
    contents: { uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content." },
  },
];

export const resourceListing: readonly Resource[] = staticResources.map((resource) => resource.listing);

export const resourceTemplates: readonly ResourceTemplate[] = [
  {
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "JSON data for any id",
    mimeType: "application/json",
  },
];

const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

function fromTemplate(uri: string): ResourceContents | undefined {
  const match = TEMPLATE.exec(uri);
  if (!match?.[1]) return undefined;
  const id = decodeURIComponent(match[1]);
  return {
    uri,
    mimeType: "application/json",
    text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  };
}

/** The contents at `uri`; an unknown URI is the client's mistake, answered -32602 with the URI. */
export function readFixtureResource(uri: string): ResourceContents[] {
  const found =
    staticResources.find((resource) => resource.listing.uri === uri)?.contents ?? fromTemplate(uri);
  if (!found) throw McpError.invalidParams(`Resource not found: ${uri}`, { uri });
  return [found];
}
