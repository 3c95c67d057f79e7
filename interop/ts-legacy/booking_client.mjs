// Drives the booking example (examples/booking.rs) with the official TypeScript SDK 1.x client
// (`@modelcontextprotocol/sdk`, pinned in package.json), the way clients of protocol
// 2025-11-25 talk: `initialize`, then the `elicitation/create` requests the server pushes
// during a call, answered by the handler below. Run by tests/end_to_end/booking.rs:
//
//   node booking_client.mjs http <url>
//   node booking_client.mjs stdio <server executable>
//
// The steps, the answers and the report are those of ../ts/booking_answers.mjs, shared with
// the 2.x client. Over stdio the client spawns the server itself and keeps its stderr, to
// report the bookings it logged. Prints one JSON object on stdout.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { Script, runSteps } from '../ts/booking_answers.mjs';

const [transport, where] = process.argv.slice(2);
if (!['http', 'stdio'].includes(transport) || !where) {
    console.error('usage: node booking_client.mjs <http URL | stdio EXECUTABLE>');
    process.exit(2);
}

const script = new Script('legacy', transport);

/// Passes every message through, noting the version the server's `initialize` result names.
function recordingVersion(transport) {
    const start = transport.start.bind(transport);
    transport.start = async () => {
        const handler = transport.onmessage;
        transport.onmessage = (message, extra) => {
            if (message.result?.protocolVersion !== undefined && script.report.protocolVersion === null) {
                script.report.protocolVersion = message.result.protocolVersion;
            }
            handler?.(message, extra);
        };
        return start();
    };
    return transport;
}

const client = new Client(
    { name: 'mcp-sdk-booking-ts-legacy', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => script.answer(request.params));

let stderr = '';
let inner;
if (transport === 'http') {
    inner = new StreamableHTTPClientTransport(new URL(where));
} else {
    inner = new StdioClientTransport({ command: where, args: [], stderr: 'pipe' });
    inner.stderr?.on('data', (chunk) => {
        stderr += chunk.toString();
    });
}

let exitCode = 0;
try {
    await client.connect(recordingVersion(inner));
    await runSteps(script, client);
} catch (error) {
    script.report.errors.connect = { code: error?.code ?? null, message: String(error?.message ?? error) };
} finally {
    try {
        await client.close();
    } catch (error) {
        console.error(`close failed: ${error}`);
        exitCode = 1;
    }
}
if (transport === 'stdio') {
    // Let the last of the server's stderr arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
}
script.recordServerLog(stderr);
process.stdout.write(`${JSON.stringify(script.report)}\n`);
process.exit(exitCode);
