// Lists, gets and reads the skills of an MCP server with the official TypeScript client's
// skills extension (`@modelcontextprotocol/client/ext/skills`, pinned in package.json), which
// verifies every file it reads against the server's entry (size, SHA-256 digest, and for a
// SKILL.md its frontmatter). Run by tests/end_to_end/interop_ts.rs:
//
//   node skills_client.mjs <url> <modern|legacy>
//
// `modern` pins 2026-07-28 (`server/discover`); `legacy` opens a 2025-11-25 session
// (`initialize`). Prints one JSON object: the negotiated version, whether the server declared
// the extension and directoryRead, each skill (URI, name, its files read and verified, each
// with its byte count) and each skill root's children; or the error.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [url, mode] = process.argv.slice(2);
if (!url || (mode !== 'modern' && mode !== 'legacy')) {
    console.error('usage: node skills_client.mjs <url> <modern|legacy>');
    process.exit(2);
}

const report = { mode, protocolVersion: null, supported: false, directoryRead: false, skills: [], error: null };
const client = new Client(
    { name: 'mcp-sdk-skills-ts', version: '0.0.0' },
    { versionNegotiation: { mode: mode === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
);
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
    const skills = new SkillsClient(client);
    report.supported = skills.supported;
    report.directoryRead = skills.directoryRead;
    const { skills: entries } = await skills.list();
    for (const entry of entries) {
        const { skill } = await skills.get(entry.uri);
        const files = [];
        for (const file of skill.resources) {
            const read = await skills.read(skill, file.uri);
            files.push({ uri: read.uri, bytes: read.bytes.length, verified: read.verified });
        }
        const root = entry.uri.slice(0, -'/SKILL.md'.length);
        const { resources } = await skills.readDirectory(root);
        report.skills.push({
            uri: entry.uri,
            name: entry.frontmatter.name,
            files,
            children: resources.map((r) => ({ name: r.name, mimeType: r.mimeType })),
        });
    }
} catch (error) {
    report.error = { name: error?.name, message: String(error?.message ?? error) };
} finally {
    await client.close().catch(() => {});
}
console.log(JSON.stringify(report));
