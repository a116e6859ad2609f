import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { Client, McpServer } from "@roundtrip/sdk";

// Spans of this server go to its own provider, whatever the application registered globally.
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
export const traced = new McpServer({ name: "ops", version: "1.0.0" }, { telemetry: { tracerProvider } });

// This client records nothing and sends no trace context, even with a global SDK registered.
export const quiet = new Client("https://mcp.example.com/mcp", { telemetry: false });
