// Drives the booking example (examples/booking.rs) with the official TypeScript client
// (`@modelcontextprotocol/client` 2.x, pinned in package.json), in either era. Run by
// tests/end_to_end/booking.rs:
//
//   node booking_client.mjs <modern|legacy> http <url>
//   node booking_client.mjs <modern|legacy> stdio <server executable>
//
// `modern` pins protocol 2026-07-28 (`server/discover`; the client fulfils `input_required`
// rounds itself through the `elicitation/create` handler below); `legacy` is the client's
// default 2025 handshake (`initialize`; the server pushes each question as an
// `elicitation/create` request). Over stdio the client spawns the server itself and keeps
// its stderr, to report the bookings it logged. The steps, the answers and the report are
// those of booking_answers.mjs. Prints one JSON object on stdout.

import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { Script, runSteps } from './booking_answers.mjs';

const [mode, transport, where] = process.argv.slice(2);
if (!['modern', 'legacy'].includes(mode) || !['http', 'stdio'].includes(transport) || !where) {
    console.error('usage: node booking_client.mjs <modern|legacy> <http URL | stdio EXECUTABLE>');
    process.exit(2);
}

const script = new Script(mode, transport);
const versionNegotiation = { mode: mode === 'modern' ? { pin: '2026-07-28' } : 'legacy' };
const client = new Client(
    { name: 'mcp-sdk-booking-ts', version: '0.0.0' },
    {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation,
        inputRequired: { autoFulfill: true, maxRounds: 5 },
    },
);
client.setRequestHandler('elicitation/create', async (request) => script.answer(request.params));

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
    await client.connect(inner);
    script.report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
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
