// Drives the deploy example (examples/deploy.rs) with the official TypeScript SDK 1.x client,
// pinned in package.json, the way clients of protocol 2025-11-25 talk: `initialize`, then
// requests the server sends to the client (`elicitation/create`) answered by the handler
// registered below. Run by tests/end_to_end/interop_ts_legacy.rs:
//
//   node deploy_client.mjs http <url> <target>
//   node deploy_client.mjs stdio <server executable> <target>
//
// Over stdio the client spawns the server itself (StdioClientTransport) and keeps its stderr,
// to report how many deploys it rolled out. The client declares form and URL elicitation; its
// handler confirms, answers the rollout plan (3 replicas, all at once), picks `us-east-1`
// among the regions the server offers (or the first one), and consents to the URL-mode
// approval page.
//
// Prints one JSON object on stdout: the negotiated version, the questions it was asked
// (URL-mode ones as `url: <message>`, their URLs in `urls`), the elicitation requests the
// server pushed (`pushed`: their params as received), every JSON-RPC request the client sent
// (`posted`: method, whether it carried inputResponses and requestState), the server's stderr
// lines that roll a deploy out (stdio only), and the tool's text or the error. Then it lists
// the tools (`tools`: each name and the type of its outputSchema) and calls `list_regions`,
// whose structured output is a list (`regions`: isError, whether structuredContent came, the
// text; or `regionsError`).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const [mode, where, target] = process.argv.slice(2);
if (!['http', 'stdio'].includes(mode) || !where || !target) {
    console.error('usage: node deploy_client.mjs <http URL | stdio EXECUTABLE> <target>');
    process.exit(2);
}

const report = {
    mode,
    protocolVersion: null,
    asked: [],
    urls: [],
    pushed: [],
    posted: [],
    rolledOut: [],
    text: null,
    error: null,
    tools: null,
    regions: null,
    regionsError: null,
};

/// Whether the requests sent are the deploy's (recorded in `posted`), not the listing after it.
let recordingDeploy = true;

/// Wraps a transport to record the requests the client sends and the version the server's
/// `initialize` result names; everything else passes through untouched.
class Recording {
    constructor(inner) {
        this.inner = inner;
        this.initializeId = null;
        if (typeof inner.setProtocolVersion === 'function') {
            this.setProtocolVersion = (version) => inner.setProtocolVersion(version);
        }
    }
    start() {
        return this.inner.start();
    }
    send(message, options) {
        if (recordingDeploy && message.method !== undefined && message.id !== undefined) {
            if (message.method === 'initialize') this.initializeId = message.id;
            report.posted.push({
                method: message.method,
                inputResponses: message.params?.inputResponses !== undefined,
                requestState: message.params?.requestState !== undefined,
            });
        }
        return this.inner.send(message, options);
    }
    close() {
        return this.inner.close();
    }
    get sessionId() {
        return this.inner.sessionId;
    }
    get onclose() {
        return this.inner.onclose;
    }
    set onclose(handler) {
        this.inner.onclose = handler;
    }
    get onerror() {
        return this.inner.onerror;
    }
    set onerror(handler) {
        this.inner.onerror = handler;
    }
    get onmessage() {
        return this.inner.onmessage;
    }
    set onmessage(handler) {
        this.inner.onmessage = (message, extra) => {
            if (message.id !== undefined && message.id === this.initializeId && message.result) {
                report.protocolVersion = message.result.protocolVersion ?? null;
            }
            handler?.(message, extra);
        };
    }
}

const client = new Client(
    { name: 'mcp-sdk-interop-ts-legacy', version: '0.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
);

client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params;
    report.pushed.push(params);
    if (params.mode === 'url') {
        report.asked.push(`url: ${params.message}`);
        report.urls.push(params.url);
        return { action: 'accept' };
    }
    report.asked.push(params.message);
    const properties = params.requestedSchema?.properties ?? {};
    if ('ok' in properties) return { action: 'accept', content: { ok: true } };
    if ('replicas' in properties) {
        return { action: 'accept', content: { strategy: 'immediate', replicas: 3, reason: 'interop check' } };
    }
    if ('region' in properties) {
        // Options computed by the server for this call: pick us-east-1 when offered.
        const region = properties.region;
        const offered = (region.oneOf ?? []).map((option) => option.const).concat(region.enum ?? []);
        return { action: 'accept', content: { region: offered.includes('us-east-1') ? 'us-east-1' : offered[0] } };
    }
    return { action: 'decline' };
});

const textOf = (result) =>
    (result.content ?? [])
        .filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join('\n');

/// Lists the tools and calls `list_regions`, whose structured output is a list.
async function listRegions() {
    try {
        const listed = await client.listTools();
        report.tools = listed.tools.map((tool) => ({
            name: tool.name,
            outputSchemaType: tool.outputSchema?.type ?? null,
        }));
        const regions = await client.callTool({ name: 'list_regions', arguments: { target } });
        report.regions = {
            isError: regions.isError === true,
            structured: regions.structuredContent !== undefined,
            text: textOf(regions),
        };
    } catch (error) {
        report.regionsError = String(error?.message ?? error);
    }
}

let stderr = '';
let inner;
if (mode === 'http') {
    inner = new StreamableHTTPClientTransport(new URL(where));
} else {
    inner = new StdioClientTransport({ command: where, args: [], stderr: 'pipe' });
    inner.stderr?.on('data', (chunk) => {
        stderr += chunk.toString();
    });
}

let exitCode = 0;
try {
    await client.connect(new Recording(inner));
    const result = await client.callTool({ name: 'deploy', arguments: { target } });
    report.isError = result.isError === true;
    report.text = textOf(result);
    recordingDeploy = false;
    await listRegions();
} catch (error) {
    report.error = {
        code: error instanceof McpError ? error.code : (error?.code ?? null),
        message: String(error?.message ?? error),
    };
} finally {
    try {
        await client.close();
    } catch (error) {
        console.error(`close failed: ${error}`);
        exitCode = 1;
    }
}
if (mode === 'stdio') {
    // Let the last of the server's stderr arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
}
report.rolledOut = stderr.split('\n').filter((line) => line.includes('rolling out:'));
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(exitCode);
