// What the TypeScript booking clients (booking_client.mjs here and in ../ts-legacy) ask the
// booking example (examples/booking.rs), how they answer its questions, and the report they
// print: a plain module with no MCP import, so that both SDK versions share it. The Python
// clients do the same (interop/python/booking_answers.py).
//
// The booking is made three times, once per ending: `confirmed` (a meeting of 8 about "Design
// review", room `north-2` when offered, confirmed), `declined` (the same, the confirmation
// declined) and `cancelled` (the room question cancelled). The report holds the negotiated
// version, each tool's `outputSchema` type (null when there is none), what `list_rooms`
// answered (its structured content and its text), for each ending the questions asked, the
// rooms offered and the final text, the prompt's text, the resource's contents, the server's
// stderr lines that book a room (stdio only) and the errors of the steps that failed.

export const BOOK_ARGUMENTS = { building: 'north', needs: { projector: true } };
export const ENDINGS = ['confirmed', 'declined', 'cancelled'];
const MEETING = { title: 'Design review', attendees: 8 };
const PREFERRED_ROOM = 'north-2';

const textOf = (result) =>
    (result?.content ?? [])
        .filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join('\n');

export class Script {
    constructor(mode, transport) {
        this.ending = null;
        this.report = {
            mode,
            transport,
            protocolVersion: null,
            tools: {},
            rooms: null,
            endings: {},
            prompt: null,
            resource: null,
            booked: [],
            errors: {},
        };
    }

    /// Runs one step; an error is recorded under `name` instead of thrown.
    async step(name, run) {
        try {
            await run();
        } catch (error) {
            this.report.errors[name] = { code: error?.code ?? null, message: String(error?.message ?? error) };
        }
    }

    begin(ending) {
        this.ending = ending;
        this.report.endings[ending] = { asked: [], offered: [], text: null, isError: null };
    }

    /// The reply (action and content) to the params of an `elicitation/create` request.
    answer(params) {
        const current = this.report.endings[this.ending];
        current.asked.push(params.message);
        const properties = params.requestedSchema?.properties ?? {};
        if ('title' in properties) return { action: 'accept', content: MEETING };
        if ('room' in properties) {
            const room = properties.room;
            const offered = (room.oneOf ?? []).map((option) => option.const).concat(room.enum ?? []);
            current.offered = offered;
            if (this.ending === 'cancelled') return { action: 'cancel' };
            return { action: 'accept', content: { room: offered.includes(PREFERRED_ROOM) ? PREFERRED_ROOM : offered[0] } };
        }
        if ('ok' in properties) {
            if (this.ending === 'declined') return { action: 'decline' };
            return { action: 'accept', content: { ok: true } };
        }
        return { action: 'decline' };
    }

    recordTools(tools) {
        this.report.tools = Object.fromEntries(tools.map((tool) => [tool.name, tool.outputSchema?.type ?? null]));
    }

    recordRooms(result) {
        this.report.rooms = {
            structured: result.structuredContent ?? null,
            text: textOf(result),
            isError: result.isError === true,
        };
    }

    recordBooking(result) {
        const current = this.report.endings[this.ending];
        current.text = textOf(result);
        current.isError = result.isError === true;
    }

    recordPrompt(result) {
        this.report.prompt = (result.messages ?? []).map((message) => message.content?.text ?? '').join('\n');
    }

    recordResource(result) {
        this.report.resource = result.contents ?? [];
    }

    recordServerLog(log) {
        this.report.booked = log.split('\n').filter((line) => line.includes('booked:'));
    }
}

/// Runs every step of the script with `client` (connected): the same calls in both SDKs.
export async function runSteps(script, client) {
    await script.step('tools/list', async () => script.recordTools((await client.listTools()).tools));
    await script.step('list_rooms', async () =>
        script.recordRooms(await client.callTool({ name: 'list_rooms', arguments: { building: 'north' } })),
    );
    for (const ending of ENDINGS) {
        await script.step(ending, async () => {
            script.begin(ending);
            script.recordBooking(await client.callTool({ name: 'book', arguments: BOOK_ARGUMENTS }));
        });
    }
    await script.step('prompt', async () =>
        script.recordPrompt(
            await client.getPrompt({ name: 'invitation', arguments: { room: 'north-2', topic: 'the roadmap' } }),
        ),
    );
    await script.step('resource', async () =>
        script.recordResource(await client.readResource({ uri: 'rooms://north-2' })),
    );
}
