// Drives one multi-round (SEP-2322 `input_required`) scenario against an MCP server with the
// official TypeScript client, pinned in package.json. Run by tests/end_to_end/interop_ts.rs:
//
//   node mrtr_client.mjs <url> <multi_round|request_state|tampered_state|deploy|elicitation>
//
// The client pins protocol 2026-07-28 (`server/discover`, no `initialize`) and fulfils
// `input_required` rounds itself (its default `inputRequired.autoFulfill`) through the
// `elicitation/create` handler registered below, which answers {name: "Alice"}, then
// {color: "blue"}, {ok: true}, a rollout plan or a region, depending on the form's properties,
// and consents to every URL-mode question. `tampered_state` uses the client's manual mode
// (`allowInputRequired`) for the first round, then retries with a `requestState` changed in one
// character. `deploy` drives the three rounds of examples/deploy.rs (a confirmation; a rollout
// plan and a region among options computed per call; approval in a change-management page,
// in URL mode). `elicitation` calls the 2025-era suite's `test_elicitation` tool, the same
// handler that older clients get pushed `elicitation/create` requests from.
//
// Prints one JSON object on stdout: the negotiated version, the elicitation messages it was
// asked (URL-mode ones as `url: <message>`, with the URLs in `urls`), every JSON-RPC request it
// POSTed (method, whether it carried inputResponses and
// requestState), and either the tool result's text or the error (code, message).

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, scenario] = process.argv.slice(2);
if (!url || !scenario) {
    console.error('usage: node mrtr_client.mjs <url> <multi_round|request_state|tampered_state|deploy|elicitation>');
    process.exit(2);
}

const report = { scenario, protocolVersion: null, asked: [], urls: [], posted: [], text: null, error: null };

// Records the JSON-RPC requests the transport sends, to show the rounds on the wire.
const recordingFetch = async (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
        const message = JSON.parse(init.body);
        if (message.method !== undefined && message.id !== undefined) {
            report.posted.push({
                method: message.method,
                name: message.params?.name ?? null,
                inputResponses: message.params?.inputResponses !== undefined,
                requestState: message.params?.requestState !== undefined,
            });
        }
    }
    return fetch(input, init);
};

const client = new Client(
    { name: 'mcp-sdk-interop-ts', version: '0.0.0' },
    {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: true, maxRounds: 5 },
    },
);

client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params;
    if (params.mode === 'url') {
        report.asked.push(`url: ${params.message}`);
        report.urls.push(params.url);
        return { action: 'accept' };
    }
    report.asked.push(params.message);
    const properties = params.requestedSchema?.properties ?? {};
    if ('name' in properties) return { action: 'accept', content: { name: 'Alice' } };
    if ('color' in properties) return { action: 'accept', content: { color: 'blue' } };
    if ('ok' in properties) return { action: 'accept', content: { ok: true } };
    if ('username' in properties) {
        return { action: 'accept', content: { username: 'Alice', email: 'alice@example.com' } };
    }
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

/// Flips one character in the middle of `state`.
const tamper = (state) => {
    const middle = Math.floor(state.length / 2);
    const replacement = state[middle] === 'A' ? 'B' : 'A';
    return state.slice(0, middle) + replacement + state.slice(middle + 1);
};

async function run() {
    switch (scenario) {
        case 'multi_round':
        case 'request_state': {
            const result = await client.callTool({ name: `test_input_required_result_${scenario}` });
            report.isError = result.isError === true;
            report.text = textOf(result);
            return;
        }
        case 'elicitation': {
            const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
            report.isError = result.isError === true;
            report.text = textOf(result);
            return;
        }
        case 'deploy': {
            const result = await client.callTool({ name: 'deploy', arguments: { target: 'production' } });
            report.isError = result.isError === true;
            report.text = textOf(result);
            return;
        }
        case 'tampered_state': {
            const name = 'test_input_required_result_tampered_state';
            const round = await client.callTool({ name }, { allowInputRequired: true });
            if (round.resultType !== 'input_required' || typeof round.requestState !== 'string') {
                throw new Error(`expected an input_required round with a requestState: ${JSON.stringify(round)}`);
            }
            const [key] = Object.keys(round.inputRequests ?? {});
            const result = await client.callTool({
                name,
                inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
                requestState: tamper(round.requestState),
            });
            report.isError = result.isError === true;
            report.text = textOf(result);
            return;
        }
        default:
            throw new Error(`unknown scenario ${scenario}`);
    }
}

let exitCode = 0;
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch }));
    report.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
    await run();
} catch (error) {
    report.error = {
        code: error instanceof ProtocolError ? error.code : (error?.code ?? null),
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
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(exitCode);
