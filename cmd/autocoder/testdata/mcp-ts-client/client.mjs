// The TypeScript SDK's Streamable HTTP client against autocoder mcp --http:
// node client.mjs URL TOKEN writes hello.txt with fs_write and prints the
// result's text; a failure exits non-zero.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "autocoder-ts-test", version: "1" });
await client.connect(transport);
const { tools } = await client.listTools();
console.log(`tools: ${tools.length}`);
const res = await client.callTool({
  name: "fs_write",
  arguments: { path: "hello.txt", mode: "overwrite", content: "hello from TypeScript\n" },
});
console.log(res.content.map((c) => c.text).join(""));
if (res.isError) process.exit(1);
await transport.terminateSession();
await client.close();
