// A small server written with the official TypeScript MCP SDK (`@modelcontextprotocol/server`,
// pinned in package.json beside this file) that tests/end_to_end/client_interop.rs drives with our Rust
// client (`typemcp-client`), to show the client completes a multi-round flow against a server
// nobody here wrote, in both protocol eras.
//
//   node deploy_server.mjs              serves over stdio (serveStdio: both eras, the opening
//                                       request of the connection picks one)
//   node deploy_server.mjs --http PORT  serves Streamable HTTP on http://127.0.0.1:PORT/mcp
//
// It serves one tool, `deploy` (argument `target`), that asks one form question (a boolean
// field `ok`) before it answers `Deployed to {target}.` (`ok` true) or `Not deployed.`
// (declined, cancelled, or `ok` false). How it asks depends on the era the server instance was
// built for, as the SDK documents it (docs/servers/input-required.md and
// docs/servers/elicitation.md of modelcontextprotocol/typescript-sdk):
//
// - 2026-07-28 (`server/discover`, per-request `_meta`): the handler returns
//   `inputRequired({ inputRequests: { confirm: inputRequired.elicit(...) } })` and reads the
//   answer from `ctx.mcpReq.inputResponses` when the client retries the call.
// - 2025-11-25 (a session opened with `initialize`): `ctx.mcpReq.elicitInput(...)` pushes an
//   `elicitation/create` request to the client mid-call (it throws on a 2026-07-28 request).
//
// Over HTTP the modern requests go to `createMcpHandler` (stateless, a fresh instance per
// request) and the 2025 ones, told apart with `isLegacyRequest`, to one sessionful
// `WebStandardStreamableHTTPServerTransport` per `Mcp-Session-Id`: the handler's own legacy
// fallback is stateless and has no channel to push a question on. The plain `node:http`
// server below only adapts Node's request and response to the web-standard ones the SDK takes,
// and listens on loopback only.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import {
    createMcpHandler,
    fromJsonSchema,
    inputRequired,
    inputResponse,
    isLegacyRequest,
    McpServer,
    WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** The one question, as a restricted elicitation schema. */
const CONFIRM_SCHEMA = {
    type: 'object',
    properties: { ok: { type: 'boolean', description: 'Go ahead?' } },
    required: ['ok'],
};

/** The tool's arguments. */
const DEPLOY_ARGUMENTS = fromJsonSchema({
    type: 'object',
    properties: { target: { type: 'string', description: 'Where to deploy.' } },
    required: ['target'],
});

/** Whether an elicitation answer accepted the form with `ok: true`. */
const confirmed = (answer) => answer?.action === 'accept' && answer.content?.ok === true;

/** A server instance for `era` (`'modern'` or `'legacy'`) with the `deploy` tool. */
function buildServer(era) {
    const server = new McpServer({ name: 'ts-deploy-interop', version: '0.0.0' });
    server.registerTool(
        'deploy',
        { description: 'Deploys to a target once the user confirms.', inputSchema: DEPLOY_ARGUMENTS },
        async ({ target }, ctx) => {
            const message = `Deploy to ${target}?`;
            let ok;
            if (era === 'modern') {
                const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
                if (view.kind === 'missing') {
                    return inputRequired({
                        inputRequests: {
                            confirm: inputRequired.elicit({ message, requestedSchema: CONFIRM_SCHEMA }),
                        },
                    });
                }
                ok = view.kind === 'elicit' && confirmed(view);
            } else {
                const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema: CONFIRM_SCHEMA });
                ok = confirmed(answer);
            }
            console.error(`deploy ${JSON.stringify(target)} (${era}): ok=${ok}`);
            return { content: [{ type: 'text', text: ok ? `Deployed to ${target}.` : 'Not deployed.' }] };
        },
    );
    return server;
}

// ----- Streamable HTTP -----

/** The modern (2026-07-28) endpoint; 2025 requests never reach it. */
const modern = createMcpHandler(({ era }) => buildServer(era), { legacy: 'reject' });

/** The 2025 sessions, by `Mcp-Session-Id`. */
const sessions = new Map();

/** A JSON-RPC error answer with no id. */
const jsonError = (status, code, message) =>
    Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

/** Serves one 2025-era request: a new session on `initialize`, else the session it names. */
async function serveLegacy(request) {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
        const transport = sessions.get(id);
        return transport ? transport.handleRequest(request) : jsonError(404, -32001, 'Session not found');
    }
    if (request.method !== 'POST') return jsonError(400, -32000, 'Bad Request: Session ID required');
    const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await buildServer('legacy').connect(transport);
    return transport.handleRequest(request);
}

/** Routes one web-standard request by era. */
async function route(request) {
    if (new URL(request.url).pathname !== '/mcp') return new Response('Not found', { status: 404 });
    // GET (a session's stream) and DELETE (ending a session) exist in 2025 sessions only.
    const legacy = request.method !== 'POST' || (await isLegacyRequest(request));
    return legacy ? serveLegacy(request) : modern.fetch(request);
}

/** Reads a Node request's body. */
async function bodyOf(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    return Buffer.concat(chunks);
}

/** Serves Streamable HTTP on 127.0.0.1:`port`. */
function serveHttp(port) {
    const server = createServer(async (req, res) => {
        try {
            const headers = new Headers();
            for (const [name, value] of Object.entries(req.headers)) {
                if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            const body = req.method === 'POST' ? await bodyOf(req) : undefined;
            const abort = new AbortController();
            res.on('close', () => abort.abort());
            const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
                method: req.method,
                headers,
                body,
                signal: abort.signal,
            });
            const response = await route(request);
            res.writeHead(response.status, Object.fromEntries(response.headers));
            if (response.body === null) {
                res.end();
                return;
            }
            // Streamed as it comes: a 2025 call's answer is an event stream carrying the question.
            for await (const chunk of response.body) res.write(chunk);
            res.end();
        } catch (error) {
            console.error('request failed:', error);
            if (!res.headersSent) res.writeHead(500);
            res.end();
        }
    });
    server.listen(port, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${port}/mcp`));
}

// ----- Entry -----

const args = process.argv.slice(2);
if (args.length === 0) {
    serveStdio(({ era }) => buildServer(era));
    console.error('serving on stdio');
} else if (args.length === 2 && args[0] === '--http' && /^\d+$/.test(args[1])) {
    serveHttp(Number(args[1]));
} else {
    console.error('usage: node deploy_server.mjs [--http PORT]');
    process.exit(2);
}
