//! Compile-fail and compile-pass tests of the declaration macros (`#[tool]`, `#[prompt]`,
//! `#[resource]`, `#[derive(ToolInput)]`): every user-facing error has a case under
//! `tests/ui/fail` with its expected diagnostics. Regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test -p mcp-server --test ui`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
