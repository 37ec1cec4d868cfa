// Times tools/call round trips with the official TypeScript SDK client,
// for comparison with `mcpprobe bench` on the same server in the same run.
// usage: node ts-client.mjs N WARMUP TOOL ARGS_JSON -- CMD ARGS...
// Prints one JSON line: {"n", "p50_ns", "p95_ns", "samples_ns"}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [n, warmup, tool, argsJSON, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) {
  console.error('usage: node ts-client.mjs N WARMUP TOOL ARGS_JSON -- CMD ARGS...');
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
const client = new Client({ name: 'ts-bench', version: '0' });
await client.connect(transport);
const callArgs = JSON.parse(argsJSON);
for (let i = 0; i < Number(warmup); i++) await client.callTool({ name: tool, arguments: callArgs });
const samples = [];
for (let i = 0; i < Number(n); i++) {
  const t0 = process.hrtime.bigint();
  await client.callTool({ name: tool, arguments: callArgs });
  samples.push(Number(process.hrtime.bigint() - t0));
}
await client.close();
const sorted = [...samples].sort((a, b) => a - b);
const pct = (p) => {
  const h = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(h);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (h - lo);
};
console.log(JSON.stringify({ n: samples.length, p50_ns: pct(50), p95_ns: pct(95), samples_ns: samples }));
